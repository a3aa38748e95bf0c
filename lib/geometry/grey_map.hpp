#pragma once
// Grey phases from a calibration (input.grey_map, input.grey_law; issue 36): the volume holds CT
// intensities instead of labels, and a voxel's sub-resolution porosity is linear in its
// intensity between two end members a user has calibrated, the intensity of resolved pore
// (porosity 1) and that of solid grain (porosity 0). Every intensity strictly between them is a
// grey phase whose permeability follows from its porosity by a porosity-k law anchored at one
// measured point (docs/ACCURACY.md, "Grey voxels from CT intensities").
#include <string>
#include <vector>

#include "lib/geometry/pore_mask.hpp"

namespace rockperm::geometry {

enum class PorosityLaw { none, kozeny_carman, power };

struct GreyMap {
  bool has_intensities = false;
  int pore = 0;   // intensity of resolved pore: it and everything beyond it (away from solid) is open
  int solid = 0;  // intensity of solid grain: it and everything beyond it is solid
  PorosityLaw law = PorosityLaw::none;
  double k_ref_m2 = 0;      // k at porosity_ref
  double porosity_ref = 0;  // in (0, 1)
  double exponent = 0;      // power law: k = k_ref (phi / phi_ref)^exponent

  bool enabled() const { return has_intensities || law != PorosityLaw::none; }
  // Linear between the end members: 1 at `pore`, 0 at `solid` (either may be the brighter).
  double porosity(double intensity) const;
  // The law at `porosity` in (0, 1): Kozeny-Carman k_ref (phi^3 / (1 - phi)^2) / (phi_ref^3 /
  // (1 - phi_ref)^2), or the power law.
  double permeability_m2(double porosity) const;
  // The intensities of open pore: `pore` and beyond it, away from `solid`.
  LabelSelection pore_side() const;
  // One phase per intensity strictly between the end members, or, where there are more than
  // `max_phases` of them (16-bit data), as many runs of neighbouring intensities as equal as
  // they can be, each with the porosity of its mean intensity; in order from the pore side.
  std::vector<GreyPhase> phases(int max_phases = physics::max_grey_phases) const;
  // Throws InputError (naming sample.grey_map or sample.grey_law) where one is given without
  // the other.
  void validate() const;
  std::string intensities_str() const;  // "40:200", or empty
  std::string law_str() const;          // "kozeny-carman:5e-16m2@0.3", or empty
};

// "PORE:SOLID", e.g. "40:200": two intensities in 0..65535 at least two apart; empty: none.
void parse_grey_intensities(const std::string& text, GreyMap& map);
// "kozeny-carman:K@PHI" or "power:K@PHI:N", K with a unit (mD, D, um2, m2), PHI in (0, 1), N in
// (0, 20]; empty: none.
void parse_grey_law(const std::string& text, GreyMap& map);

// Refuses a map whose end members an integer volume of `bytes_per_sample` cannot hold (a map to 300
// over 8-bit data read its brightest grains, 255, as porous): InputError naming `name`.
void check_map_fits(const GreyMap& map, int bytes_per_sample, const std::string& name);

// The permeability a grey (sub-resolution porous) phase may be declared with: 1e-9 mD to 1e9 mD,
// from tighter than any shale matrix to more open than gravel. Outside it a value is a typing
// error (1e-300 mD made the drag nu / K infinite in float and the run diverge; 1e300 D passed).
inline constexpr double min_grey_permeability_m2 = 1e-9 * 9.869233e-16, max_grey_permeability_m2 = 1e9 * 9.869233e-16;

// "0.05mD" -> m^2; throws InputError naming `field` and `entry` where it is not a positive
// permeability with a unit (mD, D, um2 or m2) within the range above.
double parse_permeability_m2(const std::string& text, const std::string& field, const std::string& entry);

}  // namespace rockperm::geometry
