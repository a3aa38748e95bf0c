#pragma once
// Label mapping: which voxel labels are pore. Everything else is solid.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/geometry/volume.hpp"

namespace rockperm {

class LabelSelection {
 public:
  // Parses "0", "0,3,7" or "0-10,255": single labels and inclusive ranges.
  static LabelSelection parse(const std::string& text);
  bool contains(int label) const;
  std::string str() const;

 private:
  std::vector<std::pair<int, int>> ranges_;
};

struct PoreMask {
  Dims dims;
  std::vector<std::uint8_t> pore;  // 1 = pore (fluid), 0 = solid; dims.voxels() entries

  bool is_pore(std::int64_t x, std::int64_t y, std::int64_t z) const { return pore[dims.linear(x, y, z)] != 0; }
  std::uint64_t pore_count() const;
};

// Throws InputError when the selection picks no voxel at all.
PoreMask make_pore_mask(const Volume& volume, const LabelSelection& pore_labels);

}  // namespace rockperm
