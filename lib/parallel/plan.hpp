#pragma once
// Memory planning before anything is allocated (the core paper chose its GPU count from the
// memory a sample needs).
#include <cstdint>
#include <string>
#include <vector>

#include "lib/backend/byte_model.hpp"
#include "lib/parallel/partition.hpp"

namespace rockperm {

struct RankMemory {
  Slab slab;
  std::uint64_t cells = 0;  // owned + ghost fluid cells
  double bytes = 0;         // populations, tables, halo buffers
};

// Bytes per neighbour-table entry the CUDA backend takes for a sample with these planes, at most:
// 3 when every offset fits its packed tables (lib/lattice/neighbour_table.hpp; two neighbouring
// planes hold at most ~8.4 M fluid cells together), else 4. The fused form takes 2.25 where the
// offsets of every 32 cells fall into two 15-bit clusters, which the plane counts cannot tell, so
// plans count 3 (an upper bound). The CPU backend always takes 4.
double gpu_index_bytes(const std::vector<std::uint64_t>& plane_fluid);

// Memory of every rank for `ranks` slabs, populations in `storage`, tables of `index_bytes`.
std::vector<RankMemory> plan_memory(const std::vector<std::uint64_t>& plane_fluid, int ranks, Propagation propagation,
                                    Storage storage = Storage::float32, double index_bytes = 4.0);

// Smallest rank count whose largest rank fits in `device_bytes` (keeping 5 % for the runtime),
// or 0 when even one plane per rank does not fit.
int ranks_needed(const std::vector<std::uint64_t>& plane_fluid, double device_bytes, Propagation propagation,
                 Storage storage = Storage::float32, double index_bytes = 4.0);

}  // namespace rockperm
