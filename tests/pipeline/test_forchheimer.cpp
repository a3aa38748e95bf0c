// Beyond Darcy (issue 68): the Forchheimer fit and onsets on exact lines, the sweep's refusals,
// and the sweep through the run object (report.json, csv, html; a stop in the sweep resumed to
// the points of a run never stopped).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/base/system.hpp"
#include "pipeline/forchheimer.hpp"
#include "pipeline/report.hpp"
#include "pipeline/run.hpp"
#include "tests/pipeline_support.hpp"
#include "tests/test_support.hpp"

namespace rockperm::pipeline {

namespace {

constexpr double m2_per_md = 1e-3 * physics::m2_per_darcy;

// Points on 1/k_app = 1/k + beta x past a weak-inertia stretch (k_app within 1 % of k).
std::vector<ForchheimerPoint> line(double k_md, double beta, const std::vector<double>& xs) {
  std::vector<ForchheimerPoint> points;
  for (const double x : xs) {
    ForchheimerPoint p;
    p.inertial_per_m = x;
    p.k_md = 1.0 / (1.0 / (k_md * m2_per_md) + beta * x) / m2_per_md;
    p.k_ratio = p.k_md / k_md;
    p.reynolds = x * 1e-4;
    points.push_back(p);
  }
  return points;
}

std::filesystem::path fresh(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_forchheimer_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

// A periodic simple-cubic cell of spheres (16^3, radius 5), held in memory.
ReadVolume sphere_cell() {
  return volume_from_mask(testing::mask_from(geometry::Dims{16, 16, 16},
                                             [](std::int64_t x, std::int64_t y, std::int64_t z) {
                                               const double dx = x - 7.5, dy = y - 7.5, dz = z - 7.5;
                                               return dx * dx + dy * dy + dz * dz > 25.0;
                                             }),
                          1.0, "cell");
}

// A periodic square duct (10 x 10 voxels open, 24 long) run to k at tau, tolerance 1e-6.
testing::PipelineRun square_duct(double tau) {
  testing::PipelineSettings settings;
  settings.tolerance = 1e-6;
  return testing::run_pipeline(
      testing::mask_from(geometry::Dims{24, 12, 12},
                         [](std::int64_t, std::int64_t y, std::int64_t z) { return y >= 1 && y <= 10 && z >= 1 && z <= 10; }),
      testing::periodic_flow(tau, 1e-6), settings);
}

RunRequest sweep_request(const std::filesystem::path& dir, const ReadVolume& volume) {
  RunRequest r;
  r.spec.flow = testing::periodic_flow(1.0, 1e-6);
  r.spec.execution.backend = BackendChoice::cpu;
  r.spec.execution.monitor.tolerance = 1e-6;
  r.spec.resolution_study = RunSpec::Study::off;
  r.spec.output.dir = dir;
  r.spec.output.fields.enabled = false;
  r.spec.forchheimer.enabled = true;
  r.spec.forchheimer.min_reynolds = 1;
  r.spec.forchheimer.max_reynolds = 40;
  r.spec.forchheimer.points = 4;
  r.configuration = [](const RunSpec&) { return std::string("[forchheimer]\nsweep = on\n"); };
  r.volume = [&volume]() -> const ReadVolume& { return volume; };
  return r;
}

struct SweepWatcher final : RunObserver {
  std::vector<std::size_t> points;
  void forchheimer_point(const ForchheimerPoint&, std::size_t index, std::size_t total) override {
    points.push_back(index);
    EXPECT_EQ(total, 5u);
  }
};

}  // namespace

TEST(Forchheimer, TheFitRecoversKAndBetaOfAnExactLine) {
  // weak inertia first (within 1 % of k: left out), then the line
  std::vector<ForchheimerPoint> points = line(500.0, 2e5, {0.0, 1e4, 5e4, 2e5, 1e6, 2e6, 4e6});
  points[1].k_ratio = points[2].k_ratio = 0.995;  // (stands for the curved start)
  const ForchheimerFit fit = fit_forchheimer(points);
  ASSERT_TRUE(fit.done);
  EXPECT_EQ(fit.first, 3u);
  EXPECT_EQ(fit.last, 6u);
  EXPECT_NEAR(fit.k_md / 500.0, 1.0, 1e-9);
  EXPECT_NEAR(fit.beta_per_m / 2e5, 1.0, 1e-9);
  EXPECT_NEAR(fit.c_f, 2e5 * std::sqrt(500.0 * m2_per_md), 1e-9 * fit.c_f);
  EXPECT_LT(fit.residual, 1e-12);
}

TEST(Forchheimer, NoLineWithoutTwoPointsPastAOnePercentFall) {
  // 1/k = 2.03e12 /m^2: beta x is 1 % of it at x = 1.01e5 /m
  EXPECT_FALSE(fit_forchheimer(line(500.0, 2e5, {0.0, 1e4, 1e5})).done);       // all within 1 %
  EXPECT_FALSE(fit_forchheimer(line(500.0, 2e5, {0.0, 1e4, 1e5, 4e6})).done);  // one past it
  EXPECT_TRUE(fit_forchheimer(line(500.0, 2e5, {0.0, 1e4, 2e6, 4e6})).done);
  EXPECT_FALSE(fit_forchheimer({}).done);
}

TEST(Forchheimer, TheOnsetsAreInterpolatedInLnRe) {
  std::vector<ForchheimerPoint> p(4);
  const double re[] = {0.01, 1.0, 4.0, 16.0}, ratio[] = {1.0, 0.995, 0.985, 0.95};
  for (int i = 0; i < 4; ++i) {
    p[i].reynolds = re[i];
    p[i].k_ratio = ratio[i];
  }
  EXPECT_NEAR(onset_reynolds(p, 0.01), 2.0, 1e-12);  // halfway between 0.995 and 0.985 in ln Re: sqrt(1 * 4)
  EXPECT_TRUE(std::isnan(onset_reynolds(p, 0.10)));
}

TEST(Forchheimer, TheSweepsRefusalsNameTheirOption) {
  const auto refused = [](auto change, const char* field) {
    RunSpec spec;
    spec.sample.volume.path = "x.raw";
    spec.output.dir = "out";
    spec.forchheimer.enabled = true;
    change(spec);
    try {
      spec.validate();
      ADD_FAILURE() << field << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  };
  refused([](RunSpec& s) { s.forchheimer.points = 1; }, "forchheimer.points");
  refused([](RunSpec& s) { s.forchheimer.max_reynolds = 0; }, "forchheimer.max_reynolds");
  refused([](RunSpec& s) { s.forchheimer.min_reynolds = 20; }, "forchheimer.min_reynolds");
  refused([](RunSpec& s) { s.forchheimer.tolerance = 0.5; }, "forchheimer.tolerance");
  refused(
      [](RunSpec& s) {
        s.formation_factor = true;
        s.permeability = false;
      },
      "forchheimer.sweep");
  // a top the lattice cannot reach on this pore size, at any peak velocity
  geometry::PoreStatistics pores;
  pores.porosity = 0.3;
  pores.specific_surface = 0.3;  // d = 4 phi / (S 2/3) = 6 voxels
  ForchheimerSpec spec;
  spec.enabled = true;
  spec.max_reynolds = 100;
  EXPECT_NEAR(reachable_reynolds(6.0, 1.5), 10.0 * 6.0 / 1.5, 1e-12);  // u_max / nu = 10 = Re 1.5 / 6
  try {
    check_forchheimer_reach(spec, pores);
    ADD_FAILURE() << "Re 100 on 6-voxel pores accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "forchheimer.max_reynolds");
    EXPECT_NE(std::string(e.what()).find("finer"), std::string::npos) << e.what();
  }
  spec.max_reynolds = 40;
  EXPECT_NO_THROW(check_forchheimer_reach(spec, pores));
}

// A top within the upfront bound but beyond what the sample's own flow allows (a square duct's
// fastest velocity is 2.1 times its mean, not a slit's 1.5): the sweep ends with a rate at the reach
// (u_max / nu at 0.98 of the limit), and the note says why.
TEST(Forchheimer, ASweepBeyondTheSamplesReachEndsWithARateAtIt) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  auto duct = square_duct(1.0);
  ForchheimerSpec spec;
  spec.enabled = true;
  spec.min_reynolds = 10;
  spec.max_reynolds = 100;
  spec.points = 2;
  EXPECT_NO_THROW(check_forchheimer_reach(spec, duct.result.pores));  // d = 15: 10 * 15 / 1.5 = 100
  SampleResult r = duct.result;
  EXPECT_TRUE(run_forchheimer(parallel::Comm(), *duct.simulation, spec, 100000, {}, r).empty());
  const ForchheimerReport& f = r.forchheimer;
  ASSERT_EQ(f.points.size(), 3u) << f.note;
  const ForchheimerPoint& top = f.points.back();
  const double peak = top.mach * std::sqrt(1.0 / 3.0) / (top.reynolds * physics::viscosity(top.tau) / 15.0);
  EXPECT_GT(top.reynolds, 50.0);
  EXPECT_LT(top.reynolds, 99.0);
  EXPECT_NEAR(top.reynolds * peak / 15.0, 9.8, 0.3);  // u_max / nu at the reach
  EXPECT_TRUE(top.converged);
  // a duct stays Darcy but for the lattice's own error at speed, which the point states
  EXPECT_GT(top.lattice_error, 5e-3);
  EXPECT_NEAR(top.k_ratio, 1.0, 1.5 * top.lattice_error);
  EXPECT_NE(f.note.find("short of Re 100"), std::string::npos) << f.note;
}

// A rate's check interval is half its momentum time d^2 / (pi^2 nu), even, within [20, the run's]:
// a rate starts from the last one's converged field, so the eight checks its stop needs span four
// momentum times rather than 800 steps at any tau.
TEST(Forchheimer, ARatesCheckIntervalIsHalfItsMomentumTime) {
  geometry::PoreStatistics pores;
  pores.hydraulic_diameter = 10;
  const double pi2 = std::numbers::pi * std::numbers::pi;
  const double nu = 1.0 / 6.0;  // tau 1: T_m = 60.8 steps
  EXPECT_NEAR(100.0 / (pi2 * nu) / 2, 30.4, 0.1);
  EXPECT_EQ(rate_check_interval(pores, nu, 100), 32);
  EXPECT_EQ(rate_check_interval(pores, 0.01, 100), 100);   // tau 0.53: the run's interval at most
  EXPECT_EQ(rate_check_interval(pores, 0.01, 50), 50);
  EXPECT_EQ(rate_check_interval(pores, 10.0, 100), 20);    // at least 20 steps
  EXPECT_EQ(rate_check_interval(pores, 10.0, 7), 7);       // never above the run's
}

// Rates the Mach limit leaves room for keep k's tau (its balance of the pores' momentum time and the
// pressure mode along the sample; raised to 1, pack512's first rates took 2,600-3,000 steps for
// 900-1,600), and their k_app is the creeping k; faster rates take the tau the Mach limit gives.
TEST(Forchheimer, ASweepsSlowRatesKeepKsTau) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  auto duct = square_duct(0.6);
  ForchheimerSpec spec;
  spec.enabled = true;
  spec.min_reynolds = 0.3;  // the creeping run is at Re 0.05
  spec.max_reynolds = 30;
  spec.points = 3;
  spec.tolerance = 1e-5;
  SampleResult r = duct.result;
  EXPECT_TRUE(run_forchheimer(parallel::Comm(), *duct.simulation, spec, 100000, {}, r).empty());
  const ForchheimerReport& f = r.forchheimer;
  ASSERT_EQ(f.points.size(), 4u) << f.note;
  EXPECT_DOUBLE_EQ(f.points[0].tau, 0.6);
  EXPECT_DOUBLE_EQ(f.points[1].tau, 0.6);                              // Re 0.3
  EXPECT_NEAR(f.points[1].k_ratio, 1.0, 2e-5);                            // the creeping k
  EXPECT_LT(f.points[3].tau, 0.6);                                        // Re 30: Mach-bound
  for (const ForchheimerPoint& p : f.points) EXPECT_TRUE(p.converged);
}

// Through the run: the points as they are made, report.json's block, the csv columns and the
// html section; an unreachable top is refused before any step, with a report.
TEST(Forchheimer, TheRunReportsTheSweep) {
  const auto dir = fresh("run");
  const ReadVolume volume = sphere_cell();
  RunRequest request = sweep_request(dir, volume);
  SweepWatcher watcher;
  request.observer = &watcher;
  const SampleResult r = run(parallel::Comm(), request);
  ASSERT_EQ(r.status, RunStatus::converged) << r.message;
  EXPECT_EQ(watcher.points, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  const ForchheimerReport& f = r.forchheimer;
  ASSERT_TRUE(f.done) << f.note;
  ASSERT_EQ(f.points.size(), 5u);
  EXPECT_NEAR(f.points.back().reynolds, 40.0, 0.5);
  EXPECT_LT(f.points.back().k_ratio, 0.99);
  EXPECT_FALSE(std::filesystem::exists(dir / "checkpoint.rpk")) << "k's state kept past the sweep";
  std::ifstream in(dir / "report.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("forchheimer"));
  EXPECT_EQ(j["forchheimer"]["points"]["k_app_mD"].size(), 5u);
  EXPECT_EQ(j["forchheimer"]["points"]["k_app_mD"][0].get<double>(), r.k.k_md);
  std::ifstream csv(dir / "report.csv");
  const std::string text = read_all_text(csv);
  EXPECT_NE(text.find("forchheimer_beta_per_m"), std::string::npos);
  std::ifstream html(dir / "report.html");
  EXPECT_NE(read_all_text(html).find("id=\"forchheimer-plot\""), std::string::npos);

  const auto refused_dir = fresh("refused");
  RunRequest far = sweep_request(refused_dir, volume);
  far.spec.forchheimer.max_reynolds = 900;  // pores of ~30 voxels reach at most Re 200
  SweepWatcher none;
  far.observer = &none;
  EXPECT_THROW(run(parallel::Comm(), far), InputError);
  EXPECT_TRUE(none.points.empty());
  std::ifstream refused_report(refused_dir / "report.json");
  const nlohmann::json rj = nlohmann::json::parse(refused_report);
  EXPECT_EQ(rj["status"], "input_error");
  EXPECT_NE(rj["message"].get<std::string>().find("beyond the lattice's reach"), std::string::npos) << rj["message"];
}

// A stop in the sweep (a signal, the wall-time limit) leaves k's converged state in the checkpoint;
// --resume makes the sweep again from it, to the points of a run never stopped, bit for bit.
TEST(Forchheimer, AStopInTheSweepResumesToTheSamePoints) {
  const ReadVolume volume = sphere_cell();
  const SampleResult whole = run(parallel::Comm(), sweep_request(fresh("whole"), volume));
  ASSERT_TRUE(whole.forchheimer.done) << whole.forchheimer.note;

  const auto dir = fresh("stopped");
  RunRequest request = sweep_request(dir, volume);
  struct StopInSweep final : RunObserver {
    bool sweeping = false;
    void forchheimer_point(const ForchheimerPoint&, std::size_t index, std::size_t) override { sweeping = index >= 1; }
  } observer;
  request.observer = &observer;
  request.stop_requested = [&observer] { return observer.sweeping; };  // after the sweep's first point
  const SampleResult stopped = run(parallel::Comm(), request);
  EXPECT_EQ(stopped.status, RunStatus::interrupted);
  EXPECT_NE(stopped.message.find("--resume"), std::string::npos) << stopped.message;
  EXPECT_TRUE(std::filesystem::exists(dir / "checkpoint.rpk"));
  EXPECT_LT(stopped.forchheimer.points.size(), whole.forchheimer.points.size());

  RunRequest again = sweep_request(dir, volume);
  again.use = DirectoryUse::resume;
  const SampleResult resumed = run(parallel::Comm(), again);
  ASSERT_EQ(resumed.status, RunStatus::converged) << resumed.message;
  EXPECT_EQ(resumed.k.k_md, whole.k.k_md);
  ASSERT_EQ(resumed.forchheimer.points.size(), whole.forchheimer.points.size());
  for (std::size_t i = 0; i < whole.forchheimer.points.size(); ++i) {
    EXPECT_EQ(resumed.forchheimer.points[i].k_md, whole.forchheimer.points[i].k_md) << i;
    EXPECT_EQ(resumed.forchheimer.points[i].steps, whole.forchheimer.points[i].steps) << i;
  }
  EXPECT_EQ(resumed.forchheimer.fit.beta_per_m, whole.forchheimer.fit.beta_per_m);
  EXPECT_FALSE(std::filesystem::exists(dir / "checkpoint.rpk"));
}

}  // namespace rockperm::pipeline
