// The permeability tensor (lbm.flow_axis = all): a run along each axis from one read, the
// tensor from the runs' mean velocities (pipeline/tensor.hpp), through the command's own path
// (options -> run_sample -> report.json), on the CPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "app/options.hpp"
#include "app/sample_run.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::app {

namespace {

namespace fs = std::filesystem;
constexpr int n = 24;

// A periodic n^3 volume (x fastest, 1 = solid) with fluid where `fluid(x, z)`.
fs::path write_volume(const std::string& name, const std::function<bool(int, int)>& fluid) {
  const fs::path dir = fs::temp_directory_path() / ("rockperm_tensor_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string bytes(static_cast<std::size_t>(n) * n * n, '\1');
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        if (fluid(x, z)) bytes[(static_cast<std::size_t>(z) * n + y) * n + x] = '\0';
      }
  std::ofstream(dir / (name + ".raw"), std::ios::binary) << bytes;
  return dir / (name + ".raw");
}

nlohmann::json tensor_of(const fs::path& volume, bool resume = false, const std::vector<std::string>& extra = {}) {
  const fs::path out = volume.parent_path() / (volume.stem().string() + ".out");
  bool help = false;
  std::vector<std::string> args = {"--input.file=" + volume.string(), "--input.dims=24 24 24",
                                    "--input.voxel_size_um=1", "--lbm.flow_axis=all",
                                    "--lbm.inlet_outlet=periodic", "--lbm.lateral=periodic",
                                    "--run.backend=cpu", "--output.fields=off", "--overwrite",
                                    "--output.dir=" + out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  RunOptions o = resume ? parse_run_options({"--resume", out.string()}, help)  // the run's own config.ini
                        : parse_run_options(args, help);
  SampleRunSettings settings;
  settings.console = false;
  const pipeline::SampleResult r = run_sample(parallel::Comm(), o, settings);
  EXPECT_EQ(r.status, pipeline::RunStatus::converged) << r.message;
  std::ifstream in(out / "report.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  for (const char* axis : {"x", "y", "z"}) EXPECT_TRUE(fs::exists(out / axis / "report.json")) << axis;
  return report;
}

double k(const nlohmann::json& report, int i, int j) { return report["tensor"]["lattice_voxel2"][i][j].get<double>(); }

}  // namespace

// Slits 4 voxels wide between solid layers 2 thick, normal to z. Along x and y the lattice's
// exact k is that of a parabola sampled at the nodes (TRT, magic 3/16, halfway bounce-back):
// the flux is the sum of z(4 - z)/2 over z = 0.5, 1.5, 2.5, 3.5 (= 11/2) per 6 voxels, so
// k = 11/12 voxel^2 (the continuous h^3/(12 (h + t)) = 8/9 differs by the sampling, 3 %).
// Along z nothing flows: k_zz = 0, and no run can drive a cross flow from it.
TEST(Tensor, SlitStackHasTheExactDiagonalAndNoCrossTerms) {
  const auto report = tensor_of(write_volume("slits", [](int, int z) { return z % 6 < 4; }));
  EXPECT_EQ(report["status"], "converged");
  EXPECT_NEAR(k(report, 0, 0), 11.0 / 12.0, 1e-5);
  EXPECT_NEAR(k(report, 1, 1), 11.0 / 12.0, 1e-5);
  EXPECT_EQ(k(report, 2, 2), 0.0);
  std::ifstream z_report(fs::temp_directory_path() / ("rockperm_tensor_test_" + std::to_string(::getpid())) / "slits.out" /
                         "z" / "report.json");
  // the run's typed reason, from which the tensor takes k_zz = 0
  EXPECT_EQ(nlohmann::json::parse(z_report).value("reason", ""), "no_path");
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j) EXPECT_LT(std::abs(k(report, i, j)), 1e-6) << i << j;
  EXPECT_TRUE(report["tensor"]["cross_terms_measured"].get<bool>());
}

// With the formation factor each axis's run solves the conduction too: the slits conduct as
// their share of the section along x and y (F = 6/4 exactly), and along z nothing (no path,
// null in the tensor's report).
TEST(Tensor, SlitStackHasTheExactFormationFactorAlongEachAxis) {
  const auto report = tensor_of(write_volume("slits_f", [](int, int z) { return z % 6 < 4; }), false,
                                {"--run.formation_factor=on"});
  ASSERT_TRUE(report.contains("formation_factor")) << report.dump();
  const auto& f = report["formation_factor"]["diagonal"];
  EXPECT_NEAR(f[0].get<double>(), 1.5, 1e-9);
  EXPECT_NEAR(f[1].get<double>(), 1.5, 1e-9);
  EXPECT_TRUE(f[2].is_null());
}

// The same kind of slits turned 45 degrees about y (fluid where (x + z) mod 8 < 5): for a
// stack of parallel slits k = k_par (I - n n^T) with n = (1, 0, 1)/sqrt 2, so k_xx = k_zz =
// -k_xz = -k_zx = k_yy / 2, k_xy = k_yz = 0, and the principal values are k_par, k_par, 0.
TEST(Tensor, InclinedSlitsGiveSymmetricCrossTermsOfTheRotatedTensor) {
  const auto report = tensor_of(write_volume("inclined", [](int x, int z) { return (x + z) % 8 < 5; }));
  const double kyy = k(report, 1, 1);
  ASSERT_GT(kyy, 0.1);
  EXPECT_NEAR(k(report, 0, 0) / kyy, 0.5, 1e-4);
  EXPECT_NEAR(k(report, 2, 2) / kyy, 0.5, 1e-4);
  EXPECT_NEAR(k(report, 0, 2) / kyy, -0.5, 1e-4);
  EXPECT_NEAR(k(report, 2, 0) / kyy, -0.5, 1e-4);
  for (const auto& [i, j] : {std::pair{0, 1}, {1, 0}, {1, 2}, {2, 1}}) EXPECT_LT(std::abs(k(report, i, j)) / kyy, 1e-6);
  EXPECT_LT(report["tensor"]["symmetry_error"].get<double>(), 1e-5);
  const auto principal = report["tensor"]["principal_mD"];
  EXPECT_LT(principal[0].get<double>() / principal[2].get<double>(), 1e-4);
  EXPECT_NEAR(principal[1].get<double>() / principal[2].get<double>(), 1.0, 1e-5);
}

// A resumed tensor keeps the axes done before (read back from their reports as typed outcomes)
// and runs the one that is missing: the same tensor, term for term.
TEST(Tensor, AResumedTensorKeepsTheAxesDoneBefore) {
  const fs::path volume = write_volume("kept", [](int x, int z) { return (x + z) % 8 < 5; });
  const auto first = tensor_of(volume);
  const fs::path out = volume.parent_path() / "kept.out";
  fs::remove(out / "report.json");
  fs::remove_all(out / "z");
  const auto second = tensor_of(volume, true);
  EXPECT_EQ(second["status"], "converged");
  EXPECT_EQ(second["tensor"]["lattice_voxel2"], first["tensor"]["lattice_voxel2"]);
  EXPECT_EQ(second["tensor"]["principal_mD"], first["tensor"]["principal_mD"]);
  EXPECT_EQ(second["input"], first["input"]);
  EXPECT_EQ(second["porosity"], first["porosity"]);
}

}  // namespace rockperm::app
