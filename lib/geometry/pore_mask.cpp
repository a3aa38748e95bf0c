#include "lib/geometry/pore_mask.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <sstream>

#include "lib/base/error.hpp"
#include "lib/base/number.hpp"
#include "lib/base/parallel_bytes.hpp"
#include "lib/geometry/grey_map.hpp"

namespace rockperm::geometry {

namespace {
int parse_label(const std::string& text, const std::string& whole, const char* what) {
  int value = -1;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0 || value > 65535) {
    throw InputError(std::string(what) + " '" + whole + "': '" + text +
                     "' is not a label in 0..65535; write labels like 0 or 0,3 or 0-10");
  }
  return value;
}
}  // namespace

LabelSelection LabelSelection::parse(const std::string& text, const char* what) {
  LabelSelection s;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) throw InputError(std::string(what) + " '" + text + "': empty entry; write labels like 0 or 0,3 or 0-10");
    const std::size_t dash = item.find('-', 1);
    if (dash == std::string::npos) {
      const int v = parse_label(item, text, what);
      s.ranges_.emplace_back(v, v);
    } else {
      const int lo = parse_label(item.substr(0, dash), text, what);
      const int hi = parse_label(item.substr(dash + 1), text, what);
      if (lo > hi) throw InputError(std::string(what) + " '" + text + "': range " + item + " is empty; write low-high");
      s.ranges_.emplace_back(lo, hi);
    }
    start = comma + 1;
  }
  return s;
}

bool LabelSelection::contains(int label) const {
  for (const auto& [lo, hi] : ranges_) {
    if (label >= lo && label <= hi) return true;
  }
  return false;
}

std::string LabelSelection::str() const {
  std::string out;
  for (const auto& [lo, hi] : ranges_) {
    if (!out.empty()) out += ',';
    out += lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  }
  return out;
}

PoreMask::PoreMask(const PoreMask& other) : dims(other.dims) {
  pore.resize(other.pore.size());  // untouched (lib/base/uninitialized.hpp)
  copy_on_threads(pore.data(), other.pore.data(), pore.size());
}

PoreMask& PoreMask::operator=(const PoreMask& other) {
  if (this != &other) *this = PoreMask(other);
  return *this;
}

std::uint64_t PoreMask::pore_count() const { return pore_count(pore.size()); }

std::uint64_t PoreMask::pore_count(std::uint64_t voxels) const {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 20;  // an integer sum: the same on any number of threads
  const auto chunks = static_cast<std::int64_t>((voxels + chunk - 1) / chunk);
  const std::uint8_t* p = pore.data();
  std::uint64_t solid_voxels = 0;
#pragma omp parallel for schedule(static) reduction(+ : solid_voxels)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::uint64_t a = static_cast<std::uint64_t>(c) * chunk, b = std::min(voxels, a + chunk);
    solid_voxels += static_cast<std::uint64_t>(std::count(p + a, p + b, solid));
  }
  return voxels - solid_voxels;
}

std::array<std::uint64_t, physics::max_grey_phases> grey_voxel_counts(const PoreMask& mask) {
  return grey_voxel_counts(mask, mask.pore.size());
}

std::array<std::uint64_t, physics::max_grey_phases> grey_voxel_counts(const PoreMask& mask, std::uint64_t voxels) {
  std::array<std::uint64_t, 256> histogram{};
  const auto n = static_cast<std::int64_t>(voxels);
#pragma omp parallel
  {
    std::array<std::uint64_t, 256> mine{};
#pragma omp for schedule(static) nowait
    for (std::int64_t i = 0; i < n; ++i) ++mine[mask.pore[i]];
#pragma omp critical
    for (int c = 0; c < 256; ++c) histogram[c] += mine[c];
  }
  std::array<std::uint64_t, physics::max_grey_phases> out{};
  for (int code = PoreMask::open + 1; code < 256; ++code) {
    if (histogram[code] == 0) continue;
    const int phase = code - PoreMask::open;
    if (phase > physics::max_grey_phases) throw Error("internal: a mask code beyond the grey phases");
    out[phase - 1] = histogram[code];
  }
  return out;
}

namespace {

std::string trimmed(std::string t) {
  t.erase(0, t.find_first_not_of(" \t"));
  t.erase(t.find_last_not_of(" \t") + 1);
  return t;
}

}  // namespace

std::vector<GreyPhase> parse_grey_phases(const std::string& text) {
  std::vector<GreyPhase> out;
  if (trimmed(text).empty()) return out;
  const std::string form = "write entries label:porosity:k or label:porosity:k:m (m, Archie's cementation exponent "
                           "of the phase), e.g. 2:0.2:0.05mD, 3-4:0.1:1e-3D:1.8";
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string entry = trimmed(text.substr(start, comma - start));
    start = comma + 1;
    const std::size_t a = entry.find(':'), b = a == std::string::npos ? a : entry.find(':', a + 1);
    const std::size_t c = b == std::string::npos ? b : entry.find(':', b + 1);
    if (entry.empty() || b == std::string::npos || (c != std::string::npos && entry.find(':', c + 1) != std::string::npos)) {
      throw InputError("sample.grey_labels", "grey labels '" + text + "': entry '" + entry + "' is not label:porosity:k; " + form);
    }
    GreyPhase g;
    const std::string labels = trimmed(entry.substr(0, a)), porosity = trimmed(entry.substr(a + 1, b - a - 1));
    if (labels.find_first_not_of("0123456789-") != std::string::npos) {
      throw InputError("sample.grey_labels", "grey labels entry '" + entry + "': '" + labels +
                                                  "' is not a label or a range low-high; " + form);
    }
    g.labels = LabelSelection::parse(labels, "grey labels");
    const std::optional<double> phi = decimal_number(porosity);
    g.porosity = phi.value_or(0);
    if (!phi || !(g.porosity > 0 && g.porosity <= 1)) {
      throw InputError("sample.grey_labels", "grey labels entry '" + entry + "': the porosity '" + porosity +
                                                  "' must be a number in (0, 1]");
    }
    g.permeability_m2 = parse_permeability_m2(trimmed(entry.substr(b + 1, c == std::string::npos ? c : c - b - 1)),
                                              "sample.grey_labels", entry);
    if (c != std::string::npos) {
      const std::string m = trimmed(entry.substr(c + 1));
      const std::optional<double> value = decimal_number(m);
      g.cementation = value.value_or(0);
      if (!value || !(g.cementation >= min_cementation && g.cementation <= max_cementation)) {
        throw InputError("sample.grey_labels", "grey labels entry '" + entry + "': the cementation exponent '" + m +
                                                    "' must be a number in [1, 5] (Archie's m of the phase)");
      }
    }
    out.push_back(std::move(g));
  }
  if (out.size() > static_cast<std::size_t>(physics::max_grey_phases)) {
    throw InputError("sample.grey_labels", "grey labels: " + std::to_string(out.size()) + " phases, at most " +
                                                std::to_string(physics::max_grey_phases) +
                                                " grey phases; merge labels of similar porosity and k");
  }
  return out;
}

std::string to_string(const std::vector<GreyPhase>& phases) {
  std::string out;
  for (const GreyPhase& g : phases) {
    std::ostringstream o;
    o.precision(17);
    o << g.labels.str() << ':' << g.porosity << ':' << g.permeability_m2 << "m2";
    if (g.cementation > 0) o << ':' << g.cementation;
    if (!out.empty()) out += ", ";
    out += o.str();
  }
  return out;
}

std::vector<std::uint8_t> label_codes(const LabelSelection& pore_labels, const std::vector<GreyPhase>& grey) {
  std::vector<std::uint8_t> lut(65536, PoreMask::solid);
  for (int v = 0; v < 65536; ++v) {
    if (pore_labels.contains(v)) lut[v] = PoreMask::open;
  }
  for (std::size_t c = 0; c < grey.size(); ++c) {
    for (int v = 0; v < 65536; ++v) {
      if (!grey[c].labels.contains(v)) continue;
      if (lut[v] != PoreMask::solid) {
        throw InputError("sample.grey_labels", "label " + std::to_string(v) + " is declared grey but is also " +
                                                    (lut[v] == PoreMask::open ? std::string("a pore label (input.pore_labels)")
                                                                              : std::string("in another grey entry")) +
                                                    "; give each label one phase");
      }
      lut[v] = static_cast<std::uint8_t>(PoreMask::open + c + 1);
    }
  }
  return lut;
}

PoreMask make_pore_mask(const Volume& volume, const LabelSelection& pore_labels, const std::vector<GreyPhase>& grey) {
  const std::vector<std::uint8_t> lut = label_codes(pore_labels, grey);
  PoreMask mask{volume.dims, UninitializedBytes(volume.labels.size())};  // every voxel set below
  const auto n = static_cast<std::int64_t>(volume.labels.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) mask.pore[i] = lut[volume.labels[i]];
  if (mask.pore_count() == 0) {
    throw InputError("sample.pore_labels", "pore labels " + pore_labels.str() +
                                               " select no voxel of the volume; check them against the segmentation");
  }
  return mask;
}

}  // namespace rockperm::geometry
