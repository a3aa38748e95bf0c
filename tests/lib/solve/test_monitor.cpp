#include <gtest/gtest.h>

#include <limits>

#include "lib/base/error.hpp"
#include "lib/solve/monitor.hpp"
#include "lib/physics/permeability.hpp"

namespace rockperm {

TEST(Monitor, ConvergesAfterConsecutiveSmallChanges) {
  ConvergenceMonitor m(MonitorSettings{1e-3, 1e-4, 2}, 100.0);
  FlowSums s;
  s.mass = 100.0;
  EXPECT_FALSE(m.check(1, s, 1.0));
  EXPECT_FALSE(m.check(2, s, 1.5));
  EXPECT_FALSE(m.check(3, s, 1.5001));
  EXPECT_TRUE(m.check(4, s, 1.5002));
  EXPECT_NEAR(m.relative_change(), 0.0001 / 1.5002, 1e-9);
}

TEST(Monitor, NanStopsTheRun) {
  ConvergenceMonitor m(MonitorSettings{}, 10.0);
  FlowSums s;
  s.mass = 10.0;
  s.finite = false;
  EXPECT_THROW(m.check(7, s, 1.0), SimulationError);
  s.finite = true;
  EXPECT_THROW(m.check(8, s, std::numeric_limits<double>::quiet_NaN()), SimulationError);
}

TEST(Monitor, MassDriftStopsTheRun) {
  ConvergenceMonitor m(MonitorSettings{1e-6, 1e-4, 2}, 1000.0);
  FlowSums s;
  s.mass = 1000.5;
  EXPECT_THROW(m.check(1, s, 1.0), SimulationError);
}

TEST(Permeability, UnitsAndDarcyVelocity) {
  FlowSums s;
  s.velocity[1] = 50.0;  // sum of u_y
  s.speed = 60.0;
  FlowProblem p;
  p.flow_axis = 1;
  p.tau = 1.0;           // nu = 1/6
  p.acceleration = 1e-4;
  p.region_voxels = 1000;
  p.region_fluid = 400;
  p.voxel_size_um = 2.0;
  const Permeability k = permeability(s, p);
  EXPECT_DOUBLE_EQ(k.darcy_velocity, 0.05);
  EXPECT_DOUBLE_EQ(k.porosity, 0.4);
  EXPECT_NEAR(k.k_lattice, (1.0 / 6.0) * 0.05 / 1e-4, 1e-12);
  EXPECT_NEAR(k.k_m2, k.k_lattice * 4e-12, 1e-20);
  EXPECT_NEAR(k.k_md, k.k_m2 / 9.869233e-13 * 1e3, 1e-9);
  EXPECT_NEAR(k.tortuosity, 1.2, 1e-12);
}

}  // namespace rockperm
