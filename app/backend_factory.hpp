#pragma once
#include <memory>
#include <string>

#include "lib/backend.hpp"
#include "lib/config.hpp"
#include "lib/sparse_lattice.hpp"

namespace rockperm::app {

struct BackendPlan {
  bool cuda = false;
  int device = 0;
  std::string note;  // which backend was chosen and why
};

// Resolves `auto` (the first CUDA device when one is usable, else the CPU). Throws InputError
// when `cuda` is asked for and none is usable.
BackendPlan plan_backend(config::BackendChoice choice);

// The propagation `auto` stands for on that backend: fused on a GPU (the faster kernel there,
// docs/PERFORMANCE.md), the two-pass swap on the CPU (which vectorizes only that one).
Propagation resolve_propagation(config::PropagationChoice choice, const BackendPlan& plan);

// CUDA devices usable on this host (0 without CUDA), and the memory of one of them.
int cuda_device_count();
double cuda_device_memory_bytes(int device);

std::unique_ptr<Backend> make_backend(const BackendPlan& plan, const SparseLattice& lattice,
                                      const physics::CollisionParams& params);

}  // namespace rockperm::app
