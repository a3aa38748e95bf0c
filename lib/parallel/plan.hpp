#pragma once
// Memory planning before anything is allocated (the core paper chose its GPU count from the
// memory a sample needs).
#include <cstdint>
#include <string>
#include <vector>

#include "lib/backend/byte_model.hpp"
#include "lib/parallel/partition.hpp"

namespace rockperm::parallel {

struct RankMemory {
  Slab slab;
  std::uint64_t cells = 0;  // owned + ghost fluid cells
  double bytes = 0;         // populations, tables, halo buffers
};

// Bytes per neighbour-table entry the CUDA backend needs for a sample with these planes: where
// every offset fits its packed tables (lib/lattice/neighbour_table.hpp; two neighbouring planes
// hold at most ~8.4 M fluid cells together) 3 for the two-pass form and, for the fused form, the
// line tables' 22 bytes per cell (lib/lattice/line_tables.hpp; the backend takes them where the
// faster grouped tables, 2.25 B per entry, do not fit the device); else 4. The CPU backend
// always takes 4.
double gpu_index_bytes(const std::vector<std::uint64_t>& plane_fluid,
                       backend::Propagation propagation = backend::Propagation::two_pass);

// Memory of every rank for `ranks` slabs, populations in `storage`, tables of `index_bytes`.
std::vector<RankMemory> plan_memory(const std::vector<std::uint64_t>& plane_fluid, int ranks,
                                    backend::Propagation propagation,
                                    physics::Storage storage = physics::Storage::float32, double index_bytes = 4.0);

// Smallest rank count whose largest rank fits in `device_bytes` (keeping 5 % for the runtime),
// or 0 when even one plane per rank does not fit.
int ranks_needed(const std::vector<std::uint64_t>& plane_fluid, double device_bytes, backend::Propagation propagation,
                 physics::Storage storage = physics::Storage::float32, double index_bytes = 4.0);

}  // namespace rockperm::parallel
