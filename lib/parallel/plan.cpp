#include "lib/parallel/plan.hpp"

#include <algorithm>

#include "lib/backend/byte_model.hpp"
#include "lib/lattice/line_tables.hpp"
#include "lib/lattice/neighbour_table.hpp"

namespace rockperm::parallel {

double gpu_index_bytes(const std::vector<std::uint64_t>& plane_fluid, backend::Propagation propagation) {
  // a neighbour is at most the rest of its cell's plane and the start of the next one away in
  // the raster order (the periodic wrap in z pairs the last plane with the first)
  std::uint64_t total = 0, widest = 0;
  const std::size_t nz = plane_fluid.size();
  for (std::size_t z = 0; z < nz; ++z) {
    total += plane_fluid[z];
    widest = std::max(widest, plane_fluid[z] + plane_fluid[(z + 1) % nz]);
  }
  const auto limit = static_cast<std::uint64_t>(lattice::packed_limit);
  if (widest > limit || total >= 0x80000000ull - limit) return 4.0;
  return propagation == backend::Propagation::fused ? lattice::line_table_bytes / (d3q19::q - 1) : 3.0;
}

std::vector<RankMemory> plan_memory(const std::vector<std::uint64_t>& plane_fluid, int ranks,
                                    backend::Propagation propagation, physics::Storage storage, double index_bytes) {
  const backend::ByteModel model{propagation, storage, index_bytes};
  const std::vector<Slab> slabs = partition_slabs(plane_fluid, ranks);
  const auto nz = static_cast<std::int64_t>(plane_fluid.size());
  std::vector<RankMemory> out;
  for (int r = 0; r < ranks; ++r) {
    RankMemory m;
    m.slab = slabs[r];
    m.cells = slabs[r].fluid;
    std::uint64_t halo_cells = 0;
    if (ranks > 1) {
      const std::uint64_t below = plane_fluid[(slabs[r].z_begin - 1 + nz) % nz];
      const std::uint64_t above = plane_fluid[slabs[r].z_end % nz];
      m.cells += below + above;
      halo_cells = below + above + plane_fluid[slabs[r].z_begin] + plane_fluid[slabs[r].z_end - 1];
    }
    m.bytes = static_cast<double>(m.cells) * model.memory_per_cell() + halo_cells * model.halo_per_cell();
    out.push_back(m);
  }
  return out;
}

int ranks_needed(const std::vector<std::uint64_t>& plane_fluid, double device_bytes, backend::Propagation propagation,
                 physics::Storage storage, double index_bytes) {
  const int max_ranks = static_cast<int>(std::min<std::size_t>(plane_fluid.size(), 4096));
  for (int ranks = 1; ranks <= max_ranks; ++ranks) {
    const auto plan = plan_memory(plane_fluid, ranks, propagation, storage, index_bytes);
    double largest = 0;
    for (const auto& m : plan) largest = std::max(largest, m.bytes);
    if (largest <= 0.95 * device_bytes) return ranks;
  }
  return 0;
}

}  // namespace rockperm::parallel
