#pragma once
// What a sample needs before anything is allocated (`rockperm plan`, rockperm.plan in Python):
// for each propagation and storage, the bytes per fluid cell on a GPU, the memory of each of N
// Z-slab ranks and the fewest GPUs of each given size that hold the sample.
#include <cstdint>
#include <utility>
#include <vector>

#include "lib/parallel/plan.hpp"
#include "pipeline/sample.hpp"

namespace rockperm::pipeline {

struct LayoutPlan {
  backend::Propagation propagation = backend::Propagation::two_pass;
  physics::Storage storage = physics::Storage::float32;
  double index_bytes = 0;         // per neighbour-table entry on a GPU (gpu_index_bytes)
  double bytes_per_cell = 0;      // populations, tables, halo share: ByteModel::memory_per_cell
  double total_bytes = 0;         // of every fluid cell to simulate
  double traffic_per_update = 0;  // bytes moved per cell update
  std::vector<parallel::RankMemory> ranks;  // the slabs of the ranks asked for
  // (GiB of a GPU, the fewest such GPUs that hold it; 0: not even at one plane per GPU)
  std::vector<std::pair<double, int>> fewest_gpus;
  // (GiB of a GPU, host bytes): what a rank on the host's cores must hold beside `ranks` such GPUs
  // filled to capacity (run.host_share = auto; 0: the GPUs hold it all)
  std::vector<std::pair<double, double>> host_bytes;
};

struct SamplePlan {
  geometry::Dims dims;         // simulated: with buffers or mirror image
  double porosity = 0, connected_porosity = 0;  // of the sample itself
  std::uint64_t fluid = 0;     // fluid cells to simulate (buffers and mirror image included)
  std::vector<LayoutPlan> layouts;  // two-pass and fused, fp32 and fp16
};

// `ranks` >= 1; `gpu_gib` the GPU sizes to count for. Throws InputError for ranks < 1.
SamplePlan plan_sample(const Sample& sample, int ranks, const std::vector<double>& gpu_gib);

}  // namespace rockperm::pipeline
