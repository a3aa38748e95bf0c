// The conduction solve on GPUs over Z-slab ranks (cuda/conduction_engine.hpp): each rank's
// engine on its device, the ghost planes through the host, the same F as the host's engines on
// the same slabs (to rounding) and as one rank.
#include <gtest/gtest.h>

#include <string>

#include "cuda/conduction_engine.hpp"
#include "lib/geometry/sphere_pack.hpp"
#include "lib/solve/conduction.hpp"
#include "tests/pipeline_support.hpp"
#include "tests/test_support.hpp"

namespace rockperm {
namespace {

TEST(CudaConductionRanks, SlabsOnTheGpuGiveTheHostsF) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const parallel::Comm world = parallel::Comm::world();
  const geometry::PoreMask mask = testing::sphere_pack_mask(40, 0.3, 3.0, 7);
  pipeline::FlowSpec flow = testing::periodic_flow(0.8, 1e-5);
  flow.flow_axis = 2;  // across the cuts
  testing::PipelineSettings settings;
  settings.max_steps = 10;
  const auto run = testing::run_pipeline(world, mask, flow, settings);
  const pipeline::RankLattice& part = run.simulation->rank_lattice();
  solve::ConductionProblem p;
  p.axis = 2;
  p.region_voxels = mask.dims.voxels();
  p.sample_end = mask.dims.nz;
  p.tolerance = 1e-9;
  p.max_iterations = 20000;
  solve::ConductionSlab slab;
  slab.first_local_z = part.first_local_z;
  slab.planes_z = mask.dims.nz;
  slab.domain = part.domain ? &*part.domain : nullptr;
  for (const auto pre : {solve::ConductionProblem::Preconditioner::jacobi, solve::ConductionProblem::Preconditioner::multigrid}) {
    p.preconditioner = pre;
    std::string note;
    const solve::ConductionResult host = solve::solve_conduction(world, part.lattice, slab, p, true);
    const solve::ConductionResult gpu =
        solve::solve_conduction(world, part.lattice, slab, p, true, {}, cuda::conduction_engine_on(0, &note));
    ASSERT_NE(gpu.device, "host") << note;
    ASSERT_TRUE(host.converged && gpu.converged);
    EXPECT_NEAR(gpu.conductivity / host.conductivity, 1.0, 1e-8) << world.size() << " ranks";
    EXPECT_NEAR(gpu.iterations, host.iterations, p.check_interval);
    ASSERT_EQ(gpu.potential.size(), host.potential.size());
    for (std::size_t i = 0; i < host.potential.size(); ++i) ASSERT_NEAR(gpu.potential[i], host.potential[i], 1e-3) << i;  // the same constant here: no restart
    // and one rank alone on its GPU
    const lattice::SparseLattice whole = lattice::SparseLattice::build(mask, {true, true, true});
    const solve::ConductionResult alone =
        solve::solve_conduction(parallel::Comm(), whole, {}, p, false, {}, cuda::conduction_engine_on(0));
    EXPECT_NEAR(gpu.conductivity / alone.conductivity, 1.0, 1e-7) << world.size() << " ranks";
  }
}

}  // namespace
}  // namespace rockperm
