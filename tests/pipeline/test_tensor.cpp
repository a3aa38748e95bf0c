// The permeability tensor composed from typed axis outcomes (pipeline/tensor.hpp): statuses,
// the cross terms, symmetry and principal values, and the read-back of a kept axis.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <fstream>
#include <nlohmann/json.hpp>

#include "pipeline/report.hpp"
#include "pipeline/tensor.hpp"

namespace rockperm::pipeline {

namespace {

namespace fs = std::filesystem;

AxisOutcome solved(double k_md, std::array<double, 3> u) {
  AxisOutcome a;
  a.status = RunStatus::converged;
  a.solved = true;
  a.k_md = k_md;
  a.k_lattice = k_md * 1e-3;
  a.mean_velocity = u;
  a.steps = 100;
  return a;
}

}  // namespace

// k = R diag(3, 2, 1) R^T for a rotation R about z by 30 degrees: column j of the run along j,
// u_i / u_j = k_ij / k_jj; the principal values come back and the symmetry error is 0.
TEST(PermeabilityTensor, ComposesTheRotatedTensorAndItsPrincipalValues) {
  const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6);
  const double k[3][3] = {{3 * c * c + 2 * s * s, (3 - 2) * c * s, 0}, {(3 - 2) * c * s, 3 * s * s + 2 * c * c, 0}, {0, 0, 1}};
  std::array<std::optional<AxisOutcome>, 3> axes;
  for (int j = 0; j < 3; ++j) axes[j] = solved(k[j][j], {k[0][j], k[1][j], k[2][j]});
  const PermeabilityTensor t = compose_tensor(axes, true);
  EXPECT_EQ(t.status, RunStatus::converged);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      EXPECT_TRUE(t.known[i][j]);
      EXPECT_NEAR(t.k_md[i][j], k[i][j], 1e-12) << i << j;
      EXPECT_NEAR(t.k_voxel2[i][j], k[i][j] * 1e-3, 1e-15) << i << j;
    }
  ASSERT_TRUE(t.symmetry_error && t.principal_md);
  EXPECT_LT(*t.symmetry_error, 1e-12);
  EXPECT_NEAR((*t.principal_md)[0], 1.0, 1e-12);
  EXPECT_NEAR((*t.principal_md)[1], 2.0, 1e-12);
  EXPECT_NEAR((*t.principal_md)[2], 3.0, 1e-12);
  EXPECT_NEAR(*t.max_over_min_diagonal, k[0][0] / 1.0, 1e-12);
  EXPECT_NEAR(*t.kz_over_mean_kx_ky, 1.0 / 2.5, 1e-12);
}

// Without periodic faces only the diagonal is known; an axis without a path is k = 0, not a
// failure; a failed axis makes the tensor's status and names the axis; a missing one is interrupted.
TEST(PermeabilityTensor, StatusesAndUnknownTerms) {
  AxisOutcome none;
  none.status = RunStatus::invalid_physics;
  none.reason = "no_path";
  none.message = "no path";
  std::array<std::optional<AxisOutcome>, 3> axes{solved(2, {1, 0.1, 0}), solved(1, {0, 1, 0}), none};
  PermeabilityTensor t = compose_tensor(axes, false);
  EXPECT_EQ(t.status, RunStatus::converged);
  EXPECT_TRUE(t.known[2][2]);
  EXPECT_EQ(t.k_md[2][2], 0.0);
  EXPECT_FALSE(t.known[1][0]);
  EXPECT_FALSE(t.symmetry_error);
  EXPECT_FALSE(t.max_over_min_diagonal);  // k_zz = 0
  EXPECT_EQ(t.message, "kx = 2, ky = 1, kz = 0 mD");

  AxisOutcome diverged;
  diverged.status = RunStatus::diverged;
  diverged.message = "NaN at step 300";
  axes[1] = diverged;
  t = compose_tensor(axes, true);
  EXPECT_EQ(t.status, RunStatus::diverged);
  EXPECT_EQ(t.message, "y: NaN at step 300");
  axes[0].reset();
  t = compose_tensor(axes, true);
  EXPECT_EQ(t.status, RunStatus::interrupted);
  EXPECT_EQ(t.message, "x: no result");
}

// An axis a resumed tensor keeps is read back from its report.json as the run's own outcome.
TEST(PermeabilityTensor, AKeptAxisReadsBackAsItsRunsOutcome) {
  SampleResult r;
  r.status = RunStatus::converged;
  r.steps = 1234;
  r.k.k_md = 5938.779146239063;
  r.k.k_lattice = 0.123456789012345;
  r.mean_velocity = {1e-7, 2.5e-5, -3e-9};
  r.percolation = {1000, 350, 340};
  r.input.path = "/data/scan.raw";
  r.input.format = "raw";
  r.input.bytes = 1000;
  r.provenance.input_sha256 = "ab12";
  r.provenance.pore_labels = "0";
  r.conduction.asked = r.conduction.done = true;
  r.conduction.formation_factor = 12.345678901234567;
  r.conduction.error = 3.2e-6;
  r.forchheimer.asked = r.forchheimer.done = r.forchheimer.fit.done = true;
  r.forchheimer.points = {ForchheimerPoint{}, ForchheimerPoint{}};
  r.forchheimer.fit.beta_per_m = 3.4771234567e5;
  r.forchheimer.reynolds_1pct = 1.6226278452948006;
  r.forchheimer.reynolds_10pct = std::numeric_limits<double>::quiet_NaN();  // beyond the sweep: absent
  const fs::path dir = fs::temp_directory_path() / ("rockperm_tensor_unit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "report.json") << to_json(r);
  const auto back = read_axis_outcome(dir / "report.json");
  ASSERT_TRUE(back);
  const AxisOutcome direct = AxisOutcome::of(r);
  EXPECT_EQ(back->status, direct.status);
  EXPECT_EQ(back->steps, direct.steps);
  EXPECT_EQ(back->k_md, direct.k_md);  // JSON keeps every digit of a double
  EXPECT_EQ(back->k_lattice, direct.k_lattice);
  EXPECT_EQ(back->mean_velocity, direct.mean_velocity);
  EXPECT_EQ(back->porosity, direct.porosity);
  EXPECT_EQ(back->connected_porosity, direct.connected_porosity);
  EXPECT_EQ(back->formation_factor, direct.formation_factor);
  EXPECT_EQ(back->formation_factor_error, direct.formation_factor_error);
  ASSERT_TRUE(back->formation_factor);
  EXPECT_TRUE(back->forchheimer);
  EXPECT_EQ(back->beta_per_m, direct.beta_per_m);
  EXPECT_EQ(back->reynolds_1pct, direct.reynolds_1pct);
  EXPECT_FALSE(back->reynolds_10pct);
  ASSERT_TRUE(back->beta_per_m);
  EXPECT_EQ(back->input.path, "/data/scan.raw");
  EXPECT_EQ(back->input.sha256, "ab12");
  EXPECT_FALSE(read_axis_outcome(dir / "missing.json"));
  std::ofstream(dir / "broken.json") << "{\"status\": ";
  EXPECT_FALSE(read_axis_outcome(dir / "broken.json"));
  fs::remove_all(dir);
}

}  // namespace rockperm::pipeline
