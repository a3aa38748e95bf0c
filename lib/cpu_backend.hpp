#pragma once
// The CPU reference backend: OpenMP loops over fluid indices calling the shared per-cell
// functions of lib/propagation.hpp.
#include <vector>

#include "lib/backend.hpp"
#include "lib/sparse_lattice.hpp"

namespace rockperm {

class CpuBackend final : public Backend {
 public:
  // Populations start at rest equilibrium (all deviations zero).
  CpuBackend(const SparseLattice& lattice, const physics::CollisionParams& params);

  std::string description() const override;
  double bytes_per_cell() const override;
  void collide() override;
  void swap() override;
  void fused_odd() override;
  FlowSums sums() override;
  void download(std::vector<float>& f) override;
  void upload(const std::vector<float>& f) override;

 private:
  const SparseLattice& lattice_;
  physics::CollisionParams params_;
  std::vector<float> f_;
};

}  // namespace rockperm
