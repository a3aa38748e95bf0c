// The two-phase flow on 1, 2 and 3 ranks (this binary under mpirun -n N; issue 69): the colour
// model's Z-slabs against a single process's run of the same flow made inside the same job.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "lib/geometry/morphology.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/colour_flow.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

// Issue 69: the two-phase flow on Z-slabs (lib/solve/colour_slabs.hpp) is one rank's to the bit:
// the same steps, k_r and saturation (fixed-point sums over the ranks), the same end phases on rank
// 0; along the decomposed axis through a mirror image (the slabs cut the mirror's planes too) and
// across it with the wrap periodic; fp32 and fp16 (the rounding keyed by the global cell); slabs
// unequal as a mixed run's shares cut them; a random start.
TEST(PipelineRanks, TwoPhaseFlowOnSlabsIsOneRanksToTheBit) {
  const parallel::Comm world = parallel::Comm::world();
  const geometry::Dims d{16, 16, 18};
  const geometry::PoreMask m = testing::sphere_pack_mask(d, 0.45, 3.0, 7);
  struct Case {
    int axis;
    geometry::InletOutlet mode;
    physics::Storage storage;
    bool random = false;  // the random start: drawn on rank 0, so the same on any number of ranks
  };
  for (const Case c : {Case{2, geometry::InletOutlet::mirror, physics::Storage::float32},
                       Case{0, geometry::InletOutlet::periodic, physics::Storage::float16},
                       Case{2, geometry::InletOutlet::periodic, physics::Storage::float32, true}}) {
    pipeline::RunSpec spec;
    spec.flow.flow_axis = c.axis;
    spec.flow.inlet_outlet = c.mode;
    spec.flow.lateral_periodic = {true, true, true};
    spec.two_phase.flow = pipeline::TwoPhaseSpec::Flow::steady;
    spec.two_phase.viscosity_ratio = 2.0;
    spec.two_phase.capillary_number = 3e-3;
    spec.two_phase.theta_deg = 30;
    spec.execution.max_steps = 2400;
    if (c.random) spec.two_phase.flow_start = pipeline::TwoPhaseSpec::FlowStart::random;
    pipeline::ExecutionPlan plan;
    plan.storage = c.storage;
    // the phases: solid 0, wetting 1 below half the planes across the flow, non-wetting 2 above
    std::vector<std::uint8_t> phases(d.voxels(), geometry::phase_solid);
    for (std::int64_t z = 0; z < d.nz; ++z)
      for (std::int64_t y = 0; y < d.ny; ++y)
        for (std::int64_t x = 0; x < d.nx; ++x) {
          if (!m.pore[d.linear(x, y, z)]) continue;
          phases[d.linear(x, y, z)] = (c.axis == 2 ? x : z) < 8 ? geometry::phase_wetting : geometry::phase_nonwetting;
        }
    const auto run = [&](const parallel::Comm& comm, std::vector<std::uint8_t>& end) {
      // unequal slabs, as a mixed run's measured shares cut them (ExecutionPlan::shares)
      pipeline::ExecutionPlan mine = plan;
      for (int r = 0; r < comm.size() && comm.size() > 1; ++r) mine.shares.push_back(1.0 + r);
      pipeline::ColourFlowRuns flows(comm, spec, mine, d, 0.5, 12.0);
      return flows.run(comm.root() ? phases : std::vector<std::uint8_t>{}, "test", {}, nullptr, &end);
    };
    std::vector<std::uint8_t> end_one, end_many;
    const pipeline::ColourFlowPoint one = run(parallel::Comm(), end_one);  // every rank alone
    const pipeline::ColourFlowPoint many = run(world, end_many);
    ASSERT_TRUE(one.solved) << one.note;
    EXPECT_EQ(many.note, one.note);
    EXPECT_EQ(many.steps, one.steps);
    EXPECT_EQ(many.kr_w, one.kr_w) << world.size() << " ranks, flow axis " << c.axis;
    EXPECT_EQ(many.kr_n, one.kr_n) << world.size() << " ranks, flow axis " << c.axis;
    EXPECT_EQ(many.kr_w_error, one.kr_w_error);
    EXPECT_EQ(many.saturation, one.saturation);
    EXPECT_EQ(many.saturation_start, one.saturation_start);
    EXPECT_NEAR(many.capillary_number, one.capillary_number, 1e-12 + 1e-9 * std::abs(one.capillary_number));
    if (!c.random) {  // a random start's interfaces are still coarsening at this step limit
      EXPECT_GT(one.kr_w, 0.05);
      EXPECT_GT(one.kr_n, 0.05);
    }
    EXPECT_EQ(one.start, c.random ? "random" : "morphology");
    if (c.random) EXPECT_NEAR(one.saturation_start, 0.5, 0.05);  // half the pore wetting, drawn again
    if (world.root()) {
      EXPECT_EQ(end_many, end_one);
      EXPECT_EQ(many.wetting_spans, one.wetting_spans);
      EXPECT_EQ(many.nonwetting_spans, one.nonwetting_spans);
      EXPECT_EQ(many.flags, one.flags);
      EXPECT_EQ(many.fastest, one.fastest);  // a largest over the ranks' cells: the same bits
      EXPECT_GT(one.fastest, 0.0);
    }
  }
}

// The displacement (ColourFlowRuns::displace) on Z-slabs along the decomposed axis, its reservoirs
// in the first and the last rank's slabs: one rank's to the bit (each check's saturation and
// velocity are fixed-point sums over the ranks, so every settling decision is too).
TEST(PipelineRanks, TheDisplacementOnSlabsIsOneRanksToTheBit) {
  const parallel::Comm world = parallel::Comm::world();
  const geometry::Dims d{16, 16, 18};
  const geometry::PoreMask m = testing::sphere_pack_mask(d, 0.45, 3.0, 7);
  pipeline::RunSpec spec;
  spec.flow.flow_axis = 2;
  spec.flow.lateral_periodic = {true, true, true};
  spec.two_phase.curves = pipeline::TwoPhaseSpec::Curves::drainage;
  spec.two_phase.displacement = true;
  spec.two_phase.displacement_steps = 1200;
  spec.two_phase.theta_deg = 30;
  std::vector<std::uint8_t> pores(d.voxels());
  for (std::size_t v = 0; v < pores.size(); ++v) pores[v] = m.pore[v] ? geometry::phase_wetting : geometry::phase_solid;
  // Pa per lattice unit of pressure at 0.072 N/m and 1 um voxels; lattice pressures 0.004, 0.008
  const double pa = 0.072 / (pipeline::ColourFlowRuns::lattice_sigma() * 1e-6);
  const std::vector<double> pressures{0.004 * pa, 0.008 * pa};
  const auto run = [&](const parallel::Comm& comm) {
    pipeline::ExecutionPlan plan;
    for (int r = 0; r < comm.size() && comm.size() > 1; ++r) plan.shares.push_back(1.0 + r);
    pipeline::ColourFlowRuns runs(comm, spec, plan, d, 0.5, 12.0, {}, pipeline::ColourFlowRuns::Domain::reservoirs);
    return runs.displace(comm.root() ? pores : std::vector<std::uint8_t>{}, "drainage", pressures, {}, pa, {}, nullptr);
  };
  const std::vector<pipeline::DisplacementPoint> one = run(parallel::Comm());  // every rank alone
  const std::vector<pipeline::DisplacementPoint> many = run(world);
  ASSERT_EQ(one.size(), 2u);
  ASSERT_EQ(many.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(one[i].steps, 1200) << one[i].note;
    EXPECT_EQ(many[i].steps, one[i].steps) << i;
    EXPECT_EQ(many[i].saturation, one[i].saturation) << world.size() << " ranks, pressure " << i;
    EXPECT_EQ(many[i].capillary_number, one[i].capillary_number) << i;
  }
  EXPECT_LT(one[1].saturation, one[0].saturation) << "the higher pressure drains more";
  EXPECT_LT(one[0].saturation, 1.0) << "the non-wetting phase enters";
}

}  // namespace rockperm
