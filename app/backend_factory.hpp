#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/config.hpp"
#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm::app {

struct BackendPlan {
  bool cuda = false;
  int device = 0;
  std::string note;                   // which backend was chosen and why
  std::vector<double> device_memory;  // bytes of each CUDA device of this host (empty: none)
  int gpus() const { return static_cast<int>(device_memory.size()); }
  double memory_of(int d) const { return d >= 0 && d < gpus() ? device_memory[d] : 0.0; }
};

// Resolves `auto` (the first CUDA device when one is usable, else the CPU). Throws InputError
// when `cuda` is asked for and none is usable.
BackendPlan plan_backend(config::BackendChoice choice);

// The propagation `auto` stands for on that backend: fused on a GPU (the faster kernel there,
// docs/PERFORMANCE.md), the two-pass swap on the CPU (which vectorizes only that one).
Propagation resolve_propagation(config::PropagationChoice choice, const BackendPlan& plan);

std::unique_ptr<Backend> make_backend(const BackendPlan& plan, const SparseLattice& lattice,
                                      const physics::CollisionParams& params);

}  // namespace rockperm::app
