// The Darcy-scale model's parts (lib/solve/darcy_start.hpp): its conductances, and the density
// corrections' schedule and line search against a pressure diffusion they are built for.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "lib/solve/darcy_start.hpp"
#include "tests/test_support.hpp"

namespace rockperm {
namespace {

// A slit of 8 voxels between walls (z = 0 and 9 solid) along x, periodic in x and y: the cells'
// conductances are (d - 1/2)^2 with d 1, 2, 3, 4, 4, 3, 2, 1 across it; their mean, 5.25, is the
// slit's permeability w^2 / 12 = 5.33 to 1.6 %. A grey cell conducts its K, at most that.
TEST(DarcyModel, ConductancesAreTheSquaredDistanceToTheWall) {
  const geometry::Dims d{6, 4, 10};
  geometry::PoreMask mask = testing::mask_from(d, [](std::int64_t, std::int64_t, std::int64_t z) { return z >= 1 && z < 9; });
  mask.pore[d.linear(2, 2, 4)] = geometry::PoreMask::open + 1;  // a grey cell mid-slit
  mask.pore[d.linear(3, 2, 1)] = geometry::PoreMask::open + 1;  // and one at the wall
  const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {true, true, false});
  const std::vector<double> c = solve::darcy_conductances(lat, {20.0}, false, false);
  ASSERT_EQ(c.size(), lat.fluid_count());
  double sum = 0;
  std::size_t open = 0;
  for (std::uint64_t i = 0; i < lat.fluid_count(); ++i) {
    const lattice::Coord& x = lat.coords()[i];
    const double distance = std::min<double>(x.z, 9 - x.z);
    const double expected = (distance - 0.5) * (distance - 0.5);
    if (x.x == 2 && x.y == 2 && x.z == 4) {
      EXPECT_EQ(c[i], std::min(20.0, expected));
    } else if (x.x == 3 && x.y == 2 && x.z == 1) {
      EXPECT_EQ(c[i], 0.25);  // its K above what the wall allows
    } else {
      EXPECT_DOUBLE_EQ(c[i], expected) << x.x << " " << x.y << " " << x.z;
      sum += c[i];
      ++open;
    }
  }
  EXPECT_NEAR(sum / static_cast<double>(open) / (64.0 / 12.0), 1.0, 0.02);
}

// A pressure diffusion the corrections are for: de/dt = -(s / (3 nu)) A e on a ring of cells
// with uneven conductances (A their graph Laplacian), s the "lattice's" mobility over the model's
// conductance. The corrections see only the rate over `interval` steps and the model's A^-1; from a
// first guess of s = 2 their line search finds the true scale (here 0.6) and the distance falls
// by six orders of magnitude in 8 cycles (320 steps), where the diffusion alone barely moves it.
TEST(DensityCorrection, FindsTheModelsScaleAndRemovesTheSlowMode) {
  const int n = 64;
  std::mt19937 random(5);
  std::uniform_real_distribution<double> uniform(0.02, 1.0);
  std::vector<double> g(n);  // conductance between cell i and i + 1
  for (double& v : g) v = uniform(random);
  const auto apply = [&](const std::vector<double>& x) {
    std::vector<double> y(n, 0.0);
    for (int i = 0; i < n; ++i) {
      const int j = (i + 1) % n;
      const double flow = g[static_cast<std::size_t>(i)] * (x[static_cast<std::size_t>(i)] - x[static_cast<std::size_t>(j)]);
      y[static_cast<std::size_t>(i)] += flow;
      y[static_cast<std::size_t>(j)] -= flow;
    }
    return y;
  };
  const auto inverse = [&](const std::vector<double>& b) {  // A^-1 b by CG (b sums to zero), mean removed
    std::vector<double> x(n, 0.0), r = b, p = b;
    double rr = 0;
    for (const double v : r) rr += v * v;
    for (int it = 0; it < 4 * n && rr > 1e-30; ++it) {
      const std::vector<double> q = apply(p);
      double pq = 0;
      for (int i = 0; i < n; ++i) pq += p[static_cast<std::size_t>(i)] * q[static_cast<std::size_t>(i)];
      const double alpha = rr / pq;
      double next = 0;
      for (int i = 0; i < n; ++i) {
        x[static_cast<std::size_t>(i)] += alpha * p[static_cast<std::size_t>(i)];
        r[static_cast<std::size_t>(i)] -= alpha * q[static_cast<std::size_t>(i)];
        next += r[static_cast<std::size_t>(i)] * r[static_cast<std::size_t>(i)];
      }
      for (int i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = r[static_cast<std::size_t>(i)] + next / rr * p[static_cast<std::size_t>(i)];
      rr = next;
    }
    double mean = 0;
    for (const double v : x) mean += v / n;
    for (double& v : x) v -= mean;
    return x;
  };
  // nu large enough that a step, e -= s A e / (3 nu), is stable (|A| <= 4)
  const double nu = 10.0, s_true = 0.6, rate = s_true / (3.0 * nu);
  std::vector<double> e(n);
  double mean = 0;
  for (double& v : e) mean += (v = std::sin(0.1 * static_cast<double>(&v - e.data())) + uniform(random)) / n;
  for (double& v : e) v -= mean;
  const auto norm = [&] {
    double s = 0;
    for (const double v : e) s += v * v;
    return std::sqrt(s / n);
  };
  const double first = norm();
  solve::DensityCorrectionSettings settings;
  settings.settle = 20;
  settings.interval = 20;
  settings.until = 1e-9;
  settings.max_cycles = 8;
  settings.quiet = 1e-3;
  solve::DensityCorrection correction(parallel::Comm(), settings, nu, 1.0);
  // the change of "k" a density change makes: here its first Fourier component's (any linear read)
  const auto effect = [&](const std::vector<double>& change) {
    double f = 0;
    for (int i = 0; i < n; ++i) f += change[static_cast<std::size_t>(i)] * std::sin(2.0 * M_PI * i / n) / n;
    return f;
  };
  int quiet = 0;
  for (std::int64_t step = 0; step <= 400; ++step) {
    if (correction.wants_density(step)) {
      std::vector<float> rho(e.begin(), e.end());
      const std::vector<double> change = correction.density(step, rho, inverse, effect);
      for (std::size_t i = 0; i < change.size(); ++i) e[i] += change[i];
      if (!change.empty()) {
        // the floor is twice the effect of the correction just made (not of a line search's resize)
        EXPECT_GT(correction.error_floor(), 0.0);
        EXPECT_EQ(correction.quiet(), correction.error_floor() < settings.quiet);
        EXPECT_EQ(correction.holds(), correction.active() && !correction.quiet());
        quiet += correction.quiet() ? 1 : 0;
      }
    }
    const std::vector<double> ae = apply(e);  // one "lattice step" of the diffusion
    for (int i = 0; i < n; ++i) e[static_cast<std::size_t>(i)] -= rate * ae[static_cast<std::size_t>(i)];
  }
  EXPECT_GE(correction.cycles(), 4);
  // the scale from 2 toward 0.6 (1.29, 1.11, 0.84, 0.77, 0.70, 0.66, 0.65: the rate also falls by
  // itself over each interval, which the search reads as part of the response)
  EXPECT_NEAR(correction.scale() / s_true, 1.0, 0.15) << "the measured scale";
  EXPECT_LT(norm(), 1e-3 * first) << "the distance left of " << first;
  EXPECT_GE(quiet, 1) << "no correction fell below the quiet size";
  EXPECT_FALSE(correction.converged()) << "until 1e-9 is not reached in 8 cycles";
}

// The corrections end on the change of k they make: once a correction's error floor is below
// `until` they are converged, though its size in the density is not.
TEST(DensityCorrection, EndsWhenTheChangeOfKItMakesIsBelowUntil) {
  solve::DensityCorrectionSettings settings;
  settings.settle = 10;
  settings.interval = 10;
  settings.until = 1e-3;
  settings.quiet = 1e-2;
  const int n = 16;
  solve::DensityCorrection correction(parallel::Comm(), settings, 1.0, 1.0);
  std::vector<double> e(n);
  for (int i = 0; i < n; ++i) e[static_cast<std::size_t>(i)] = (i % 2 ? 1.0 : -1.0) * 0.1;  // no mean
  const auto identity = [](const std::vector<double>& r) { return r; };
  const auto tiny = [](const std::vector<double>&) { return 1e-4; };  // k hardly moves
  std::int64_t step = 0;
  while (!correction.wants_density(step)) ++step;
  std::vector<float> rho(e.begin(), e.end());
  EXPECT_TRUE(correction.density(step, rho, identity, tiny).empty());  // held
  while (!correction.wants_density(step)) ++step;
  for (double& v : e) v *= 0.5;  // a rate
  rho.assign(e.begin(), e.end());
  const std::vector<double> change = correction.density(step, rho, identity, tiny);
  ASSERT_EQ(change.size(), e.size());
  EXPECT_GT(correction.last_size(), settings.until) << "the density's change is not below until";
  EXPECT_DOUBLE_EQ(correction.error_floor(), 2e-4);
  EXPECT_TRUE(correction.converged());
  EXPECT_FALSE(correction.active());
  EXPECT_TRUE(correction.quiet());
  EXPECT_FALSE(correction.holds());
}

}  // namespace
}  // namespace rockperm
