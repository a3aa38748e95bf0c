// The conduction solve on a GPU (cuda/conduction_engine.hpp) against the host's engine on the
// same lattice: the same F to rounding (the per-plane sums add in another order), the same
// iterations, the same potential; the same bits on a second run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cuda/conduction_engine.hpp"
#include "lib/solve/conduction.hpp"
#include "tests/test_support.hpp"

namespace rockperm {
namespace {

using geometry::Dims;
using geometry::PoreMask;
using Preconditioner = solve::ConductionProblem::Preconditioner;

struct Case {
  solve::ConductionProblem problem;
  geometry::Periodicity periodic{true, true, true};
};

// `readings`: where given, every check's reading, a line each (what a failure prints)
solve::ConductionResult solve_on(const PoreMask& mask, const Case& c, bool gpu, std::string* note = nullptr,
                                 std::string* readings = nullptr) {
  const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, c.periodic);
  solve::ConductionProgress progress;
  if (readings) {
    progress = [readings](const solve::ConductionReading& r) {
      *readings += std::to_string(r.iteration) + ": " + std::to_string(r.conductivity) + " error " + std::to_string(r.error) +
                   " residual " + std::to_string(r.residual) + "\n";
    };
  }
  solve::ConductionResult res = solve::solve_conduction(parallel::Comm(), lat, {}, c.problem, true, progress,
                                                        gpu ? cuda::conduction_engine_on(0, note) : solve::ConductionEngineFactory{});
  if (readings) {
    *readings += "end at " + std::to_string(res.iterations) + ": " + std::to_string(res.conductivity) + " error " +
                 std::to_string(res.error) + " residual " + std::to_string(res.residual) + "\n";
  }
  return res;
}

Case periodic_case(const PoreMask& mask, int axis, Preconditioner pre, double tolerance) {
  Case c;
  c.problem.axis = axis;
  c.problem.region_voxels = mask.dims.voxels();
  c.problem.sample_end = axis == 0 ? mask.dims.nx : (axis == 1 ? mask.dims.ny : mask.dims.nz);
  c.problem.preconditioner = pre;
  c.problem.tolerance = tolerance;
  c.problem.max_iterations = 20000;
  return c;
}

void expect_the_hosts(const PoreMask& mask, const Case& c, double relative) {
  std::string note, host_readings, gpu_readings;
  const solve::ConductionResult host = solve_on(mask, c, false, nullptr, &host_readings);
  const solve::ConductionResult gpu = solve_on(mask, c, true, &note, &gpu_readings);
  ASSERT_NE(gpu.device, "host") << note;
  ASSERT_TRUE(host.converged && gpu.converged) << "host:\n" << host_readings << "GPU:\n" << gpu_readings;
  EXPECT_NEAR(gpu.conductivity, host.conductivity, relative * host.conductivity);
  EXPECT_NEAR(gpu.iterations, host.iterations, c.problem.check_interval) << "host " << host.iterations << ", GPU " << gpu.iterations;
  EXPECT_NEAR(gpu.field, host.field, 1e-9);
  // the potential up to a constant (a periodic problem fixes none: each solve keeps its own)
  ASSERT_EQ(gpu.potential.size(), host.potential.size());
  double shift = 0;
  for (std::size_t i = 0; i < host.potential.size(); ++i) shift += double{gpu.potential[i]} - host.potential[i];
  shift /= std::max<std::size_t>(1, host.potential.size());
  double worst = 0;
  for (std::size_t i = 0; i < host.potential.size(); ++i) {
    worst = std::max(worst, std::abs(double{gpu.potential[i]} - host.potential[i] - shift));
  }
  EXPECT_LT(worst, 1e-3) << "the largest difference of the potential, in voxels of drive, less the mean " << shift;
  // a second run on the GPU: the same bits
  const solve::ConductionResult again = solve_on(mask, c, true);
  EXPECT_EQ(again.conductivity, gpu.conductivity);
  EXPECT_EQ(again.iterations, gpu.iterations);
  EXPECT_EQ(again.potential, gpu.potential);
}

TEST(CudaConduction, APeriodicPackGivesTheHostsFWithEitherPreconditioner) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const PoreMask mask = testing::sphere_pack_mask(48, 0.3, 3.0, 5);
  for (const Preconditioner pre : {Preconditioner::multigrid, Preconditioner::jacobi}) {
    SCOPED_TRACE(pre == Preconditioner::multigrid ? "multigrid" : "jacobi");
    expect_the_hosts(mask, periodic_case(mask, 0, pre, 1e-9), 1e-8);
    expect_the_hosts(mask, periodic_case(mask, 2, pre, 1e-9), 1e-8);
  }
}

TEST(CudaConduction, GreyLayersInSeriesGiveTheHarmonicMean) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const Dims d{16, 8, 6};
  PoreMask mask{d, UninitializedBytes(d.voxels(), PoreMask::open)};
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < 6; ++x) mask.pore[d.linear(x, y, z)] = PoreMask::open + 1;
  Case c = periodic_case(mask, 0, Preconditioner::multigrid, 1e-10);
  const double s = 0.04, a = 6.0 / 16, b = 10.0 / 16;
  c.problem.conductivity = {1.0, s};
  expect_the_hosts(mask, c, 1e-8);
  std::string note;
  const solve::ConductionResult gpu = solve_on(mask, c, true, &note);
  EXPECT_NEAR(gpu.conductivity, 1.0 / (a / s + b / 1.0), 1e-8);
}

// A pack of 40^3 with 6 planes of brine at each end along x, sealed sides, on `stencil`.
void expect_the_hosts_between_buffers(solve::ConductionProblem::Stencil stencil) {
  const PoreMask pack = testing::sphere_pack_mask(40, 0.35, 3.0, 11);
  const Dims d{52, 40, 40};
  const PoreMask mask = testing::mask_from(d, [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    return x < 6 || x >= 46 || pack.pore[pack.dims.linear(x - 6, y, z)] != 0;
  });
  Case c = periodic_case(mask, 0, Preconditioner::multigrid, 1e-9);
  c.periodic = {true, false, false};
  c.problem.sample_begin = 6;
  c.problem.sample_end = 46;
  c.problem.interior = true;
  c.problem.sample_voxels = 40 * 40 * 40;
  c.problem.stencil = stencil;
  expect_the_hosts(mask, c, 1e-8);
}

TEST(CudaConduction, APackBetweenBuffersIsReadWholeAsOnTheHost) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  expect_the_hosts_between_buffers(solve::ConductionProblem::Stencil::faces);
}

// The flow's 18 links (the Darcy-scale start's stencil): periodic, and between buffers (where the
// sample's share of a link behind is read on the plane before), as on the host.
TEST(CudaConduction, OnTheLinksAPackGivesTheHostsFPeriodicAndBetweenBuffers) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const PoreMask pack = testing::sphere_pack_mask(40, 0.35, 3.0, 11);
  Case periodic = periodic_case(pack, 1, Preconditioner::multigrid, 1e-9);
  periodic.problem.stencil = solve::ConductionProblem::Stencil::links;
  expect_the_hosts(pack, periodic, 1e-8);
  expect_the_hosts_between_buffers(solve::ConductionProblem::Stencil::links);
}

}  // namespace
}  // namespace rockperm
