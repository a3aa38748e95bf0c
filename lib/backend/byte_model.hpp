#pragma once
// The one byte model of rockperm: population storage x propagation gives the memory a fluid
// cell holds on the device and the bytes one update moves (the roofline's numerator). Every
// figure of memory or traffic (plan, run, bench, backends) comes from here.
//
//   memory per fluid cell: 19 populations + 9 neighbour indices (+ 9 more for the fused form's
//                          negative table): fp32 112 B (two-pass), 148 B (fused); fp16 74 B and
//                          110 B.
//   traffic per update:    two-pass: collide reads and writes 19 populations (152 B in float);
//                          swap reads 9 neighbour indices (36 B) and reads and writes 18 slots
//                          (144 B, an upper bound: bounce-back links move nothing) = 332 B.
//                          fused: even step 152 B; odd step 152 B + 18 indices (72 B) = 224 B;
//                          mean 188 B. fp16: two-pass 36 + 76 + 72 = 184 B, fused 76 + 36 = 112 B.
//   packed tables (the CUDA backend, 3-byte entries): fp16 fused 92 B per cell and 103 B per
//                          update, fp32 fused 130 B and 179 B; grouped (the fused form's 2-byte
//                          entries and 8 bytes of bases per 32 cells and direction, 2.25 B per
//                          entry): fp16 78.5 B and 96.25 B, fp32 116.5 B and 172.25 B; line
//                          tables (a presence mask and 8 line ranks, 22 B per cell for both
//                          tables, lib/lattice/line_tables.hpp): fp16 60 B and 87 B, fp32 98 B
//                          and 163 B.
//   halo:                  5 crossing populations per cell of a halo plane (offset + 2 slots).
//   dense comparison:      a dense single-copy D3Q19 array, 19 populations per *voxel* (76 B).
#include <cstdint>

#include "lib/physics/d3q19.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::backend {

enum class Propagation {
  two_pass,  // collide (store reversed) + pairwise swap: the core paper's algorithm, the reference
  fused,     // A-A form of the same swap: one pass over memory per step
};

struct ByteModel {
  Propagation propagation = Propagation::two_pass;
  physics::Storage storage = physics::StorageTraits<physics::Population>::kind;

  // 4 (the lattice's tables), or 3 or 2.25 where the CUDA backend packs them (lib/lattice/neighbour_table.hpp)
  double index_bytes = sizeof(std::uint32_t);
  constexpr double population_bytes() const { return static_cast<double>(physics::storage_bytes(storage)); }
  constexpr int neighbour_tables() const { return propagation == Propagation::fused ? 2 : 1; }
  // Device bytes per fluid cell: populations and neighbour tables (without stride padding).
  constexpr double memory_per_cell() const {
    return d3q19::q * population_bytes() + neighbour_tables() * d3q19::half * index_bytes;
  }
  // Bytes read plus written per fluid-cell update.
  constexpr double traffic_per_update() const {
    const double collide = 2.0 * d3q19::q * population_bytes();
    if (propagation == Propagation::two_pass) {
      return collide + d3q19::half * index_bytes + 2.0 * (d3q19::q - 1) * population_bytes();
    }
    return collide + d3q19::half * index_bytes;  // mean of the even and odd steps
  }
  // Host and device bytes per cell of a halo plane: its 5 crossing populations, each with an
  // 8-byte offset, a device slot and a pinned host slot.
  constexpr double halo_per_cell() const { return 5.0 * (8.0 + 2.0 * population_bytes()); }
  // A dense single-copy array's bytes per voxel, for the reduction the sparse lattice gives.
  constexpr double dense_per_voxel() const { return d3q19::q * population_bytes(); }
};

static_assert(ByteModel{Propagation::two_pass}.memory_per_cell() == 112.0);
static_assert(ByteModel{Propagation::fused}.memory_per_cell() == 148.0);
static_assert(ByteModel{Propagation::two_pass}.traffic_per_update() == 332.0);
static_assert(ByteModel{Propagation::fused}.traffic_per_update() == 188.0);
static_assert(ByteModel{Propagation::two_pass, physics::Storage::float16}.memory_per_cell() == 74.0);
static_assert(ByteModel{Propagation::fused, physics::Storage::float16}.memory_per_cell() == 110.0);
static_assert(ByteModel{Propagation::fused, physics::Storage::float16}.traffic_per_update() == 112.0);
static_assert(ByteModel{Propagation::fused, physics::Storage::float16, 3}.memory_per_cell() == 92.0);
static_assert(ByteModel{Propagation::fused, physics::Storage::float16, 3}.traffic_per_update() == 103.0);
static_assert(ByteModel{Propagation::fused, physics::Storage::float16, 2.25}.memory_per_cell() == 78.5);
static_assert(ByteModel{Propagation::fused, physics::Storage::float16, 2.25}.traffic_per_update() == 96.25);
// (22 / 18 is not a binary fraction: the line tables' figures to a part in 1e12)
static_assert(ByteModel{Propagation::fused, physics::Storage::float16, 22.0 / 18}.memory_per_cell() - 60.0 < 1e-12);
static_assert(60.0 - ByteModel{Propagation::fused, physics::Storage::float16, 22.0 / 18}.memory_per_cell() < 1e-12);
static_assert(ByteModel{Propagation::fused, physics::Storage::float16, 22.0 / 18}.traffic_per_update() - 87.0 < 1e-12);
static_assert(87.0 - ByteModel{Propagation::fused, physics::Storage::float16, 22.0 / 18}.traffic_per_update() < 1e-12);

}  // namespace rockperm::backend
