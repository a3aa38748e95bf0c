#pragma once
// Label mapping: which voxel labels are pore. Everything else is solid.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/uninitialized.hpp"
#include "lib/geometry/volume.hpp"
#include "lib/physics/collision.hpp"

namespace rockperm::geometry {

class LabelSelection {
 public:
  // Parses "0", "0,3,7" or "0-10,255": single labels and inclusive ranges.
  // `what` names the labels in messages ("pore labels", "grey labels")
  static LabelSelection parse(const std::string& text, const char* what = "pore labels");
  bool contains(int label) const;
  std::string str() const;

 private:
  std::vector<std::pair<int, int>> ranges_;
};

// A label (or range) declared sub-resolution porous (input.grey_labels): its voxels are fluid
// cells with the Darcy drag of `permeability_m2` (docs/ACCURACY.md, "Grey voxels").
struct GreyPhase {
  LabelSelection labels;
  double porosity = 0;         // of the voxel's sub-resolution pores, for the report (0..1]
  double permeability_m2 = 0;  // its Darcy permeability
  // Archie's cementation exponent m of its sub-resolution pores: the phase conducts as
  // sigma_w porosity^m in the conduction solve (0: run.grey_cementation's)
  double cementation = 0;
};
inline constexpr double min_cementation = 1.0, max_cementation = 5.0;  // Archie's m, [1, 5]
// Parses "2:0.2:0.05mD" entries separated by commas ("label or low-high : porosity : k with a unit
// of mD, D, m2 or um2", and optionally ": m", the phase's cementation exponent in [1, 5]); throws
// InputError naming the entry. Empty text: no grey phase.
std::vector<GreyPhase> parse_grey_phases(const std::string& text);
std::string to_string(const std::vector<GreyPhase>& phases);  // parse_grey_phases' inverse

struct PoreMask {
  // what each voxel is: solid, open pore (resolved), or grey phase c = code - open, a
  // sub-resolution porous phase (input.grey_labels) that is fluid with a Darcy drag; every
  // non-zero code is fluid, to percolation, the lattice and the pore statistics alike
  static constexpr std::uint8_t solid = 0, open = 1;
  PoreMask() = default;
  PoreMask(const Dims& d, UninitializedBytes codes) : dims(d), pore(std::move(codes)) {}
  PoreMask(const Dims& d, const std::vector<std::uint8_t>& codes) : dims(d), pore(codes.begin(), codes.end()) {}
  // A copy is made on the threads (lib/base/parallel_bytes.hpp): a vector's own copy runs on one
  // thread, and the pore widths' copy of a one-rank 2000^3 scan took 3-4 s of its preparation.
  PoreMask(const PoreMask& other);
  PoreMask& operator=(const PoreMask& other);
  PoreMask(PoreMask&&) noexcept = default;
  PoreMask& operator=(PoreMask&&) noexcept = default;
  ~PoreMask() = default;
  Dims dims;
  // the code of each voxel; dims.voxels() entries (resize(n) leaves new ones unset: lib/base/uninitialized.hpp)
  UninitializedBytes pore;

  bool is_pore(std::int64_t x, std::int64_t y, std::int64_t z) const { return pore[dims.linear(x, y, z)] != 0; }
  std::uint64_t pore_count() const;
  // Of its first `voxels` voxels (a slab's own planes), counted on the threads: a slab of a 2000^3
  // scan on four ranks is 2 GB, which one thread counts in about 0.4 s.
  std::uint64_t pore_count(std::uint64_t voxels) const;
};

// Voxels of each grey phase (index c - 1 for phase c); throws Error on a code beyond the last phase.
std::array<std::uint64_t, physics::max_grey_phases> grey_voxel_counts(const PoreMask& mask);
// Of its first `voxels` voxels (a slab's own planes, before the plane above them).
std::array<std::uint64_t, physics::max_grey_phases> grey_voxel_counts(const PoreMask& mask, std::uint64_t voxels);

// Throws InputError when the selection picks no voxel at all.
PoreMask make_pore_mask(const Volume& volume, const LabelSelection& pore_labels,
                        const std::vector<GreyPhase>& grey = {});

// The mask code of every label 0..65535 (PoreMask: solid, open or open + grey phase); throws
// InputError where a label is both pore and grey, or in two grey phases.
std::vector<std::uint8_t> label_codes(const LabelSelection& pore_labels, const std::vector<GreyPhase>& grey);

}  // namespace rockperm::geometry
