#include "lib/geometry/grey_map.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "lib/base/error.hpp"
#include "lib/base/number.hpp"

namespace rockperm::geometry {

namespace {

std::string trimmed(std::string t) {
  t.erase(0, t.find_first_not_of(" \t"));
  t.erase(t.find_last_not_of(" \t") + 1);
  return t;
}

// the whole of `text` as a finite number, else false
bool number(const std::string& text, double& out) {
  const std::optional<double> v = decimal_number(text);
  if (v) out = *v;
  return v.has_value();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    parts.push_back(trimmed(text.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

// the shortest text that reads back to the same double
std::string shortest(double v) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, end);
}

double kozeny_carman(double phi) { return phi * phi * phi / ((1 - phi) * (1 - phi)); }

}  // namespace

double parse_permeability_m2(const std::string& text, const std::string& field, const std::string& entry) {
  static constexpr std::pair<const char*, double> units[] = {
      {"mD", 9.869233e-16}, {"D", 9.869233e-13}, {"um2", 1e-12}, {"m2", 1.0}};
  for (const auto& [unit, factor] : units) {
    const std::string u(unit);
    if (text.size() <= u.size() || text.compare(text.size() - u.size(), u.size(), u) != 0) continue;
    double v = 0;
    if (!number(text.substr(0, text.size() - u.size()), v) || !(v > 0)) break;
    const double m2 = v * factor;
    if (!(m2 >= min_grey_permeability_m2 && m2 <= max_grey_permeability_m2)) {
      throw InputError(field, "'" + entry + "': the permeability '" + text +
                                  "' is outside the range of a porous phase, 1e-9 mD (a picodarcy, tighter than any "
                                  "shale matrix) to 1e9 mD (a megadarcy, more open than gravel)");
    }
    return m2;
  }
  throw InputError(field, "'" + entry + "': '" + text +
                              "' is not a positive permeability with a unit (mD, D, um2 or m2), e.g. 0.05mD");
}

void check_map_fits(const GreyMap& map, int bytes_per_sample, const std::string& name) {
  if (!map.has_intensities || bytes_per_sample != 1) return;
  const int beyond = std::max(map.pore, map.solid);
  if (beyond <= 255) return;
  throw InputError("sample.grey_map", name + ": 8-bit data holds intensities 0..255, but the grey map's " +
                                          (map.solid > map.pore ? std::string("solid") : std::string("pore")) + " end " +
                                          std::to_string(beyond) + " lies beyond them, so its brightest voxels would "
                                          "read as grey; give the end members as intensities of this scan");
}

double GreyMap::porosity(double intensity) const {
  return (static_cast<double>(solid) - intensity) / (static_cast<double>(solid) - static_cast<double>(pore));
}

double GreyMap::permeability_m2(double phi) const {
  if (law == PorosityLaw::kozeny_carman) return k_ref_m2 * kozeny_carman(phi) / kozeny_carman(porosity_ref);
  return k_ref_m2 * std::pow(phi / porosity_ref, exponent);
}

LabelSelection GreyMap::pore_side() const {
  return LabelSelection::parse(pore < solid ? "0-" + std::to_string(pore) : std::to_string(pore) + "-65535");
}

std::vector<GreyPhase> GreyMap::phases(int max_phases) const {
  std::vector<GreyPhase> out;
  if (!has_intensities || law == PorosityLaw::none) return out;
  const int step = pore < solid ? 1 : -1;
  const int between = std::abs(solid - pore) - 1;  // intensities strictly between the end members
  const int runs = std::min(between, max_phases);
  for (int r = 0; r < runs; ++r) {
    // run r holds the intensities [first, last] from the pore side: between / runs of them, the
    // remainder spread one each over the first runs
    const int first = pore + step * (1 + r * (between / runs) + std::min(r, between % runs));
    const int count = between / runs + (r < between % runs ? 1 : 0);
    const int last = first + step * (count - 1);
    GreyPhase g;
    const int lo = std::min(first, last), hi = std::max(first, last);
    g.labels = LabelSelection::parse(lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi));
    g.porosity = porosity(0.5 * (first + last));
    g.permeability_m2 = permeability_m2(g.porosity);
    out.push_back(std::move(g));
  }
  return out;
}

void GreyMap::validate() const {
  if (has_intensities && law == PorosityLaw::none) {
    throw InputError("sample.grey_law", "a grey map (input.grey_map) needs the law that gives each porosity its "
                                        "permeability: set input.grey_law, e.g. kozeny-carman:0.5mD@0.3");
  }
  if (!has_intensities && law != PorosityLaw::none) {
    throw InputError("sample.grey_map", "a porosity-k law (input.grey_law) needs the intensities of resolved pore "
                                        "and of solid grain it maps between: set input.grey_map, e.g. 40:200");
  }
}

std::string GreyMap::intensities_str() const {
  return has_intensities ? std::to_string(pore) + ":" + std::to_string(solid) : std::string();
}

std::string GreyMap::law_str() const {
  if (law == PorosityLaw::none) return {};
  std::string out = (law == PorosityLaw::kozeny_carman ? "kozeny-carman:" : "power:") + shortest(k_ref_m2) + "m2@" +
                    shortest(porosity_ref);
  if (law == PorosityLaw::power) out += ":" + shortest(exponent);
  return out;
}

void parse_grey_intensities(const std::string& text, GreyMap& map) {
  map.has_intensities = false;
  if (trimmed(text).empty()) return;
  const std::string form = "write the intensity of resolved pore and of solid grain as PORE:SOLID, e.g. 40:200";
  const std::vector<std::string> parts = split(text, ':');
  double v[2] = {-1, -1};
  if (parts.size() != 2 || !number(parts[0], v[0]) || !number(parts[1], v[1])) {
    throw InputError("sample.grey_map", "'" + text + "' is not two intensities; " + form);
  }
  for (const double x : v) {
    if (x != std::floor(x) || x < 0 || x > 65535) {
      throw InputError("sample.grey_map", "'" + text + "': intensities are whole numbers in 0..65535; " + form);
    }
  }
  if (std::abs(v[0] - v[1]) < 2) {
    throw InputError("sample.grey_map", "'" + text + "': no intensity lies between pore and solid, so no voxel is "
                                        "grey; use input.pore_labels for a segmented scan, or " + form);
  }
  map.pore = static_cast<int>(v[0]);
  map.solid = static_cast<int>(v[1]);
  map.has_intensities = true;
}

void parse_grey_law(const std::string& text, GreyMap& map) {
  map.law = PorosityLaw::none;
  if (trimmed(text).empty()) return;
  const std::string form = "write kozeny-carman:K@PHI or power:K@PHI:N, e.g. kozeny-carman:0.5mD@0.3 (k = 0.5 mD "
                           "at porosity 0.3)";
  const std::vector<std::string> parts = split(text, ':');
  PorosityLaw law = PorosityLaw::none;
  if (parts[0] == "kozeny-carman" && parts.size() == 2) law = PorosityLaw::kozeny_carman;
  if (parts[0] == "power" && parts.size() == 3) law = PorosityLaw::power;
  const std::size_t at = parts.size() >= 2 ? parts[1].find('@') : std::string::npos;
  if (law == PorosityLaw::none || at == std::string::npos) {
    throw InputError("sample.grey_law", "'" + text + "' is not a porosity-k law; " + form);
  }
  const double k = parse_permeability_m2(trimmed(parts[1].substr(0, at)), "sample.grey_law", text);
  double phi = 0, n = 0;
  if (!number(parts[1].substr(at + 1), phi) || !(phi > 0 && phi < 1)) {
    throw InputError("sample.grey_law", "'" + text + "': the porosity after @ must be a number in (0, 1); " + form);
  }
  if (law == PorosityLaw::power && (!number(parts[2], n) || !(n > 0 && n <= 20))) {
    throw InputError("sample.grey_law", "'" + text + "': the power law's exponent must be a number in (0, 20]; " + form);
  }
  map.law = law;
  map.k_ref_m2 = k;
  map.porosity_ref = phi;
  map.exponent = n;
}

}  // namespace rockperm::geometry
