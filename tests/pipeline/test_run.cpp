// The run as one library object (pipeline/run.hpp): a request in, its run directory, the stages
// in order through an observer, a typed result out; a failure leaves a report and rethrows.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/base/system.hpp"
#include "pipeline/conduction.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/resolution_study.hpp"
#include "pipeline/run.hpp"
#include "pipeline/tensor.hpp"
#include "tests/pipeline_support.hpp"
#include "tests/test_support.hpp"

namespace rockperm::pipeline {

namespace {

std::filesystem::path fresh(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_run_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

struct Recorder final : RunObserver {
  std::vector<std::string> stages;
  void sample_ready(const RunSpec&, const Sample&, const FlowSpec&, const ExecutionPlan&, int) override {
    stages.push_back("sample");
  }
  void simulation_ready(const Simulation&, const ExecutionPlan&, int, double) override { stages.push_back("ready"); }
  void progress(const solve::Progress&) override {
    if (stages.back() != "progress") stages.push_back("progress");
  }
  void fields_written(const FieldsWritten&, const FieldSpec&) override { stages.push_back("fields"); }
  void tensor_started(const RunSpec&, const std::filesystem::path&) override { stages.push_back("tensor"); }
  void axis_started(int axis, bool kept, bool resumed) override {
    stages.push_back(std::string("axis ") + "xyz"[axis] + (kept ? " kept" : resumed ? " resumed" : ""));
  }
  void axis_ended(int axis, const SampleResult& r, const std::filesystem::path&) override {
    stages.push_back(std::string("ended ") + "xyz"[axis] + " " + to_string(r.status));
  }
  void tensor_ready(const PermeabilityTensor&, RunStatus s, const std::filesystem::path&) override {
    stages.push_back(std::string("tensor ") + to_string(s));
  }
};

RunRequest bundled_sample(const std::filesystem::path& dir) {
  RunRequest r;
  r.spec.sample.volume.path = testing::repo_file("samples/sphere_pack_64.raw");
  r.spec.sample.volume.dims = geometry::Dims{64, 64, 64};
  r.spec.sample.volume.voxel_size_um = 5.0;
  r.spec.execution.backend = BackendChoice::cpu;
  r.spec.execution.max_steps = 200;
  r.spec.output.dir = dir;
  r.spec.output.fields.enabled = false;
  r.configuration = [](const RunSpec&) { return std::string("[input]\nfile = sphere_pack_64.raw\n"); };
  r.command_line = "test_run";
  return r;
}

// Slits 4 voxels high in 6 normal to z (x fastest), 12^3, held in memory.
ReadVolume slit_stack() {
  return volume_from_mask(testing::mask_from(geometry::Dims{12, 12, 12}, [](auto, auto, auto z) { return z % 6 < 4; }),
                          1.0, "slits");
}

RunRequest tensor_request(const std::filesystem::path& dir, const ReadVolume& volume) {
  RunRequest r;
  r.spec.flow = testing::periodic_flow(0.8, 1e-6);
  r.spec.all_axes = true;
  r.spec.execution.backend = BackendChoice::cpu;
  r.spec.output.dir = dir;
  r.spec.output.fields.enabled = false;
  r.configuration = [](const RunSpec& spec) { return "axis " + std::to_string(spec.flow.flow_axis) + "\n"; };
  r.volume = [&volume]() -> const ReadVolume& { return volume; };
  return r;
}

}  // namespace

// Issue 51: each grey phase may declare its own cementation exponent (label:porosity:k:m, or a
// fourth column of the table); the conduction solve gives a phase sigma_w phi^m with its own m,
// else run.grey_cementation's. A fifth field, and an m outside [1, 5], are refused naming it.
TEST(Run, AGreyPhaseConductsWithItsOwnCementationExponent) {
  RunSpec spec;
  spec.sample.grey_phases = geometry::parse_grey_phases("2:0.2:0.05mD:1.8, 3-4:0.1:1mD");
  spec.grey_cementation = 2.5;
  ASSERT_EQ(spec.sample.grey().size(), 2u);
  EXPECT_EQ(spec.sample.grey()[0].cementation, 1.8);
  EXPECT_EQ(spec.sample.grey()[1].cementation, 0.0);
  const std::vector<double> c = phase_conductivities(spec);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], 1.0);
  EXPECT_DOUBLE_EQ(c[1], std::pow(0.2, 1.8));
  EXPECT_DOUBLE_EQ(c[2], std::pow(0.1, 2.5));
  // the text form reads back the same phases
  const auto again = geometry::parse_grey_phases(geometry::to_string(spec.sample.grey_phases));
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].cementation, 1.8);
  EXPECT_EQ(again[1].cementation, 0.0);
  const std::vector<std::pair<std::string, std::string>> refused{{"2:0.2:0.05mD:0.5", "cementation exponent"},
                                                                    {"2:0.2:0.05mD:x", "cementation exponent"},
                                                                    {"2:0.2:0.05mD:1.8:2", "is not label:porosity:k"}};
  for (const auto& [bad, why] : refused) {
    try {
      (void)geometry::parse_grey_phases(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

// Issue 51: F alone (run.formation_factor = only) takes no step of the flow: its report has no k,
// its status is the conduction solve's, and F is the bits of the F made beside k (the same
// lattice and solve). k off with F off is refused; F alone over every axis gives F along each.
TEST(Run, TheFormationFactorAloneTakesNoStepOfTheFlow) {
  RunRequest both = bundled_sample(fresh("f_and_k"));
  ASSERT_FALSE(both.spec.sample.volume.path.empty()) << "samples/sphere_pack_64.raw not found";
  both.spec.formation_factor = true;
  both.spec.output.fields.enabled = false;
  RunRequest alone = bundled_sample(fresh("f_alone"));
  alone.spec.formation_factor = true;
  alone.spec.permeability = false;
  alone.spec.output.fields.enabled = false;
  int progress_calls = 0;
  alone.progress = [&](const solve::Progress&) { ++progress_calls; };
  const SampleResult a = run(parallel::Comm(), alone);
  const SampleResult b = run(parallel::Comm(), both);
  ASSERT_GT(b.steps, 0);  // k's steps (200: not to its tolerance), then F
  ASSERT_TRUE(b.conduction.done && a.conduction.done && a.conduction.converged) << a.conduction.note;
  EXPECT_EQ(a.status, RunStatus::converged);
  EXPECT_EQ(a.steps, 0);
  EXPECT_EQ(progress_calls, 0);
  EXPECT_EQ(a.conduction.formation_factor, b.conduction.formation_factor);  // bitwise
  EXPECT_EQ(a.conduction.iterations, b.conduction.iterations);
  EXPECT_FALSE(a.resolution.asked);
  EXPECT_TRUE(a.warnings.empty());
  std::ifstream in(alone.spec.output.dir / "report.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_TRUE(report["permeability"].is_null());
  EXPECT_EQ(report["status"], "converged");
  EXPECT_EQ(report["conduction"]["formation_factor"].get<double>(), b.conduction.formation_factor);
  RunSpec neither;
  neither.permeability = false;
  EXPECT_THROW(neither.validate(), InputError);

  // F alone along every axis (lbm.flow_axis = all): three conduction solves and no step; the
  // tensor's report gives F along each, x's the bits of the run along x above, and no k
  RunRequest axes = bundled_sample(fresh("f_alone_axes"));
  axes.spec.formation_factor = true;
  axes.spec.permeability = false;
  axes.spec.all_axes = true;
  axes.spec.output.fields.enabled = false;
  axes.progress = [&](const solve::Progress&) { ++progress_calls; };
  const SampleResult t = run(parallel::Comm(), axes);
  EXPECT_EQ(t.status, RunStatus::converged) << t.message;
  EXPECT_EQ(progress_calls, 0);
  ASSERT_TRUE(t.tensor);
  EXPECT_FALSE(t.tensor->flow);
  EXPECT_NE(t.message.find("F along x"), std::string::npos) << t.message;
  std::ifstream tensor_in(axes.spec.output.dir / "report.json");
  const nlohmann::json tr = nlohmann::json::parse(tensor_in);
  EXPECT_FALSE(tr["tensor"]["permeability_solved"].get<bool>());
  EXPECT_TRUE(tr["tensor"]["mD"][0][0].is_null());
  ASSERT_EQ(tr["formation_factor"]["diagonal"].size(), 3u);
  EXPECT_EQ(tr["formation_factor"]["diagonal"][0].get<double>(), a.conduction.formation_factor);  // bitwise
  for (int i = 0; i < 3; ++i) {
    const std::string axis(1, "xyz"[i]);
    const double f = tr["formation_factor"]["diagonal"][static_cast<std::size_t>(i)].get<double>();
    EXPECT_GT(f, 1.0) << axis;
    std::ifstream axis_in(axes.spec.output.dir / axis / "report.json");
    const nlohmann::json ar = nlohmann::json::parse(axis_in);
    EXPECT_TRUE(ar["permeability"].is_null()) << axis;
    EXPECT_EQ(ar["steps"].get<std::int64_t>(), 0) << axis;
    EXPECT_EQ(ar["conduction"]["formation_factor"].get<double>(), f) << axis;
  }
}

TEST(Run, WritesItsDirectoryShowsEachStageAndReturnsTheResult) {
  const auto dir = fresh("stages");
  RunRequest request = bundled_sample(dir);
  ASSERT_FALSE(request.spec.sample.volume.path.empty()) << "samples/sphere_pack_64.raw not found";
  Recorder recorder;
  request.observer = &recorder;
  int progress_calls = 0;
  request.progress = [&](const solve::Progress&) { ++progress_calls; };
  const SampleResult r = run(parallel::Comm(), request);
  EXPECT_EQ(recorder.stages, (std::vector<std::string>{"sample", "ready", "progress"}));
  EXPECT_GT(progress_calls, 0);
  EXPECT_EQ(r.steps, 200);
  EXPECT_EQ(r.status, RunStatus::not_converged);
  EXPECT_GT(r.k.k_md, 0.0);
  EXPECT_EQ(r.provenance.command_line, "test_run");
  EXPECT_FALSE(r.provenance.resumed);
  // the host's memory (issue 50): the peak resident set when ready, within the run's own peak
  EXPECT_GT(r.performance.host_peak_ready, 1e6);
  EXPECT_GE(r.performance.host_peak, r.performance.host_peak_ready);
  EXPECT_EQ(r.performance.host_peak_rank, r.performance.host_peak);  // one rank
  std::ifstream config(dir / "config.ini");
  EXPECT_EQ(read_all_text(config), request.configuration(request.spec));
  std::ifstream report(dir / "report.json");
  EXPECT_NE(read_all_text(report).find("\"not_converged\""), std::string::npos);
}

TEST(Run, AFailureLeavesAReportInTheFrontEndsWordsAndRethrows) {
  const auto dir = fresh("failure");
  RunRequest request = bundled_sample(dir);
  request.spec.sample.volume.path = dir / "no_such_scan.raw";
  request.describe_input = [](const InputError& e) { return std::string("front end: ") + e.what(); };
  EXPECT_THROW(run(parallel::Comm(), request), InputError);
  std::ifstream report(dir / "report.json");
  const std::string text = read_all_text(report);
  EXPECT_NE(text.find("\"input_error\""), std::string::npos) << text;
  EXPECT_NE(text.find("front end: "), std::string::npos) << text;
}

// The tensor is three runs of the same object from one volume (here in memory), composed from
// their typed results; continued, it keeps the axes done (their reports of this configuration).
TEST(Run, ATensorIsARunPerAxisComposedFromTheirResults) {
  const auto dir = fresh("tensor");
  const ReadVolume volume = slit_stack();
  RunRequest request = tensor_request(dir, volume);
  Recorder recorder;
  request.observer = &recorder;
  const SampleResult r = run(parallel::Comm(), request);
  ASSERT_EQ(r.status, RunStatus::converged) << r.message;
  ASSERT_TRUE(r.tensor);
  // TRT, Lambda 3/16: the midpoint sum of the parabola, 11/12 voxel^2 along the slits; none across
  EXPECT_NEAR(r.tensor->k_voxel2[0][0], 11.0 / 12.0, 1e-5);
  EXPECT_NEAR(r.tensor->k_voxel2[1][1], 11.0 / 12.0, 1e-5);
  EXPECT_EQ(r.tensor->k_voxel2[2][2], 0.0);
  const std::vector<std::string> stages{"tensor",    "axis x", "sample", "ready", "progress", "ended x converged",
                                        "axis y",    "sample", "ready",  "progress", "ended y converged",
                                        "axis z",    "ended z invalid_physics", "tensor converged"};
  EXPECT_EQ(recorder.stages, stages);
  for (const char* axis : {"x", "y", "z"}) {
    std::ifstream config(dir / axis / "config.ini");
    EXPECT_EQ(read_all_text(config), std::string("axis ") + std::to_string(axis[0] - 'x') + "\n");
  }
  std::ifstream report(dir / "report.json");
  EXPECT_EQ(read_all_text(report), tensor_json(*r.tensor, "slits"));

  request.use = DirectoryUse::resume;
  recorder.stages.clear();
  const SampleResult again = run(parallel::Comm(), request);
  EXPECT_EQ(recorder.stages, (std::vector<std::string>{"tensor", "axis x kept", "axis y kept", "axis z kept",
                                                       "tensor converged"}));
  ASSERT_TRUE(again.tensor);
  EXPECT_EQ(again.tensor->k_md, r.tensor->k_md);
}

// The fields in memory cover the sample's voxels without its buffers, scaled as the files are.
TEST(Run, KeepsTheFieldsOfTheSampleInMemory) {
  const auto dir = fresh("fields");
  const ReadVolume volume = slit_stack();
  RunRequest request = tensor_request(dir, volume);
  request.spec.all_axes = false;
  request.spec.flow.inlet_outlet = geometry::InletOutlet::buffer;
  request.spec.flow.buffer_layers = 3;
  request.keep_fields = true;
  const SampleResult r = run(parallel::Comm(), request);
  ASSERT_TRUE(r.fields);
  const FlowFields& f = *r.fields;
  EXPECT_EQ(f.dims.nx, 12);
  EXPECT_EQ(f.dims.nz, 12);
  double mean = 0;
  for (std::size_t v = 0; v < f.pressure.size(); ++v) {
    const bool solid = (v / 144) % 6 >= 4;
    EXPECT_EQ(std::isnan(f.pressure[v]), solid) << v;
    mean += f.velocity[3 * v];
  }
  mean /= static_cast<double>(f.pressure.size());
  // Darcy for the stated gradient and viscosity (the defaults: 1e5 Pa/m, water)
  EXPECT_NEAR(mean / (r.k.k_m2 * f.pressure_gradient_pa_per_m / f.viscosity_pa_s), 1.0, 1e-3);
}

// With grey labels the run also gives k of the resolved pores alone (grey voxels solid): here a
// duct whose middle is a grey plug, so that alone they do not join the faces (k = 0, said so);
// with the plug open that k is the open duct's.
TEST(Run, GivesKWithoutTheGreyPhaseBesideKWithIt) {
  const auto duct = [](bool plug) {
    geometry::PoreMask m = testing::mask_from(geometry::Dims{16, 6, 6},
                                              [](auto, auto y, auto z) { return y >= 1 && y < 5 && z >= 1 && z < 5; });
    if (plug) {
      for (std::size_t v = 0; v < m.pore.size(); ++v) {
        if (m.pore[v] == geometry::PoreMask::open && v % 16 >= 6 && v % 16 < 10)
          m.pore[v] = geometry::PoreMask::open + 1;
      }
    }
    return volume_from_mask(std::move(m), 1.0, plug ? "plugged" : "open");
  };
  const ReadVolume plugged = duct(true), open = duct(false);
  RunRequest request = tensor_request(fresh("without_grey"), plugged);
  request.spec.all_axes = false;
  request.spec.flow.lateral_periodic = {false, false, false};
  request.spec.sample.grey_phases = geometry::parse_grey_phases("2:0.2:5e-13m2");  // 0.5 voxel^2 at 1 um
  const SampleResult r = run(parallel::Comm(), request);
  ASSERT_TRUE(r.converged()) << r.message;
  ASSERT_TRUE(r.grey.without_asked);
  EXPECT_TRUE(r.grey.without_done);
  EXPECT_EQ(r.grey.k_without_md, 0.0);
  EXPECT_NE(r.grey.without_note.find("do not join"), std::string::npos) << r.grey.without_note;
  EXPECT_NEAR(r.grey.flow_fraction, 4.0 / 16.0, 0.05);  // a quarter of the cells carry the same flux

  RunRequest unplugged = tensor_request(fresh("without_grey_open"), open);
  unplugged.spec = request.spec;
  unplugged.spec.output.dir = fresh("without_grey_open");
  const SampleResult o = run(parallel::Comm(), unplugged);
  EXPECT_FALSE(o.grey.without_asked);  // no grey voxel in the pore space: nothing to compare
  EXPECT_GT(o.k.k_md, r.k.k_md);
}

// run.resolution_study = auto (the default) studies the resolution where the trust report finds
// more than 10 % of the flow in pores narrower than 3 voxels, and not elsewhere.
TEST(Run, StudiesTheResolutionWhereTheFlowPassesNarrowPores) {
  const ReadVolume narrow =
      volume_from_mask(testing::mask_from(geometry::Dims{16, 16, 16}, [](auto, auto, auto z) { return z % 4 < 2; }),
                       1.0, "narrow slits");
  RunRequest request = tensor_request(fresh("auto_study_narrow"), narrow);
  request.spec.all_axes = false;
  ASSERT_EQ(request.spec.resolution_study, RunSpec::Study::automatic);
  const SampleResult r = run(parallel::Comm(), request);
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_GT(r.narrow_flow_fraction, narrow_flow_limit);
  EXPECT_TRUE(r.resolution.asked);
  const ReadVolume wide =
      volume_from_mask(testing::mask_from(geometry::Dims{16, 16, 16}, [](auto, auto, auto z) { return z % 16 < 12; }),
                       1.0, "a wide slit");
  RunRequest w = tensor_request(fresh("auto_study_wide"), wide);
  w.spec.all_axes = false;
  const SampleResult rw = run(parallel::Comm(), w);
  EXPECT_LT(rw.narrow_flow_fraction, narrow_flow_limit);
  EXPECT_FALSE(rw.resolution.asked);
}

// Each coarse grid of the resolution study runs at most coarse_step_budget times the sample's own
// steps (pipeline/resolution_study.hpp): a tight 1000^3 pack's 4x grid ran its whole 200,000-step
// limit for no result, 23 s of a 197 s run. Here the sample is said to have taken 200 steps, so the
// budget (800) ends the 2x grid before it can converge (the monitor needs 8 checks of history and
// two steady ones: at least 900 steps); before the budget it ran to convergence.
TEST(Run, TheResolutionStudyKeepsEachCoarseGridWithinItsStepBudget) {
  const ReadVolume pack = volume_from_mask(testing::sphere_pack_mask(32, 0.35, 4.0, 7), 1.0, "pack");
  RunRequest request = tensor_request(fresh("study_budget"), pack);
  request.spec.all_axes = false;
  request.spec.resolution_study = RunSpec::Study::off;
  SampleResult fine = run(parallel::Comm(), request);
  ASSERT_TRUE(fine.converged()) << fine.message;
  const std::int64_t steps = fine.steps;

  fine.steps = 200;
  run_resolution_study(parallel::Comm(), request, fine);
  EXPECT_TRUE(fine.resolution.asked);
  EXPECT_FALSE(fine.resolution.done);
  EXPECT_LE(fine.resolution.coarse_steps, coarse_step_budget * 200);
  EXPECT_NE(fine.resolution.note.find("the study's budget: 4 times the sample's 200"), std::string::npos)
      << fine.resolution.note;

  fine.steps = steps;  // the sample's own: within budget, the study is made
  fine.resolution = ResolutionStudy{};
  run_resolution_study(parallel::Comm(), request, fine);
  EXPECT_TRUE(fine.resolution.done) << fine.resolution.note;
  EXPECT_LE(fine.resolution.coarse_steps, 2 * coarse_step_budget * steps);
}

}  // namespace rockperm::pipeline
