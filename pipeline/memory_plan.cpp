#include "pipeline/memory_plan.hpp"

#include "lib/backend/byte_model.hpp"
#include "lib/base/error.hpp"

namespace rockperm::pipeline {

SamplePlan plan_sample(const Sample& sample, int ranks, const std::vector<double>& gpu_gib) {
  if (ranks < 1) throw InputError("plan: the rank count must be at least 1, not " + std::to_string(ranks));
  SamplePlan plan;
  plan.dims = sample.dims;
  plan.porosity = sample.percolation.total_porosity();
  plan.connected_porosity = sample.percolation.connected_porosity();
  plan.fluid = sample.fluid;
  for (const auto& [p, storage] : {std::pair{backend::Propagation::two_pass, physics::Storage::float32},
                                   std::pair{backend::Propagation::fused, physics::Storage::float32},
                                   std::pair{backend::Propagation::two_pass, physics::Storage::float16},
                                   std::pair{backend::Propagation::fused, physics::Storage::float16}}) {
    LayoutPlan l;
    l.propagation = p;
    l.storage = storage;
    // on GPUs (what this plans for): the neighbour tables packed where they pack
    l.index_bytes = parallel::gpu_index_bytes(sample.plane_fluid, p);
    const backend::ByteModel model{p, storage, l.index_bytes};
    l.bytes_per_cell = model.memory_per_cell();
    l.total_bytes = l.bytes_per_cell * static_cast<double>(sample.fluid);
    l.traffic_per_update = model.traffic_per_update();
    l.ranks = parallel::plan_memory(sample.plane_fluid, ranks, p, storage, l.index_bytes);
    const double host_per_cell = backend::ByteModel{p, storage, 4.0}.memory_per_cell();  // the CPU keeps 4-byte tables
    for (const double g : gpu_gib) {
      l.fewest_gpus.emplace_back(
          g, parallel::ranks_needed(sample.plane_fluid, g * 1073741824.0, p, storage, l.index_bytes));
      const double held = ranks * 0.95 * g * 1073741824.0 / l.bytes_per_cell;  // cells the GPUs hold
      const double rest = static_cast<double>(sample.fluid) - held;
      l.host_bytes.emplace_back(g, rest > 0 ? rest * host_per_cell : 0.0);
    }
    plan.layouts.push_back(std::move(l));
  }
  return plan;
}

}  // namespace rockperm::pipeline
