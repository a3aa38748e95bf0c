#include "lib/geometry/pore_mask.hpp"

#include <array>
#include <charconv>
#include <numeric>

#include "lib/base/error.hpp"

namespace rockperm {

namespace {
int parse_label(const std::string& text, const std::string& whole) {
  int value = -1;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0 || value > 65535) {
    throw InputError("pore labels '" + whole + "': '" + text +
                     "' is not a label in 0..65535; write labels like 0 or 0,3 or 0-10");
  }
  return value;
}
}  // namespace

LabelSelection LabelSelection::parse(const std::string& text) {
  LabelSelection s;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) throw InputError("pore labels '" + text + "': empty entry; write labels like 0 or 0,3 or 0-10");
    const std::size_t dash = item.find('-', 1);
    if (dash == std::string::npos) {
      const int v = parse_label(item, text);
      s.ranges_.emplace_back(v, v);
    } else {
      const int lo = parse_label(item.substr(0, dash), text);
      const int hi = parse_label(item.substr(dash + 1), text);
      if (lo > hi) throw InputError("pore labels '" + text + "': range " + item + " is empty; write low-high");
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

std::uint64_t PoreMask::pore_count() const {
  return std::accumulate(pore.begin(), pore.end(), std::uint64_t{0});
}

PoreMask make_pore_mask(const Volume& volume, const LabelSelection& pore_labels) {
  std::array<std::uint8_t, 256> lut{};
  for (int v = 0; v < 256; ++v) lut[v] = pore_labels.contains(v) ? 1 : 0;
  PoreMask mask{volume.dims, std::vector<std::uint8_t>(volume.labels.size())};
  const auto n = static_cast<std::int64_t>(volume.labels.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) mask.pore[i] = lut[volume.labels[i]];
  if (mask.pore_count() == 0) {
    throw InputError("sample.pore_labels", "pore labels " + pore_labels.str() +
                                               " select no voxel of the volume; check them against the segmentation");
  }
  return mask;
}

}  // namespace rockperm
