// The run as one library object (pipeline/run.hpp): a request in, its run directory, the stages
// in order through an observer, a typed result out; a failure leaves a report and rethrows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/base/system.hpp"
#include "pipeline/run.hpp"
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
  void progress(const Progress&) override {
    if (stages.back() != "progress") stages.push_back("progress");
  }
  void fields_written(const FieldsWritten&, const FieldSpec&) override { stages.push_back("fields"); }
};

RunRequest bundled_sample(const std::filesystem::path& dir) {
  RunRequest r;
  r.spec.sample.volume.path = testing::repo_file("samples/sphere_pack_64.raw");
  r.spec.sample.volume.dims = Dims{64, 64, 64};
  r.spec.sample.volume.voxel_size_um = 5.0;
  r.spec.execution.backend = BackendChoice::cpu;
  r.spec.execution.max_steps = 200;
  r.spec.output.dir = dir;
  r.spec.output.fields.enabled = false;
  r.config_ini = "[input]\nfile = sphere_pack_64.raw\n";
  r.command_line = "test_run";
  return r;
}

}  // namespace

TEST(Run, WritesItsDirectoryShowsEachStageAndReturnsTheResult) {
  const auto dir = fresh("stages");
  RunRequest request = bundled_sample(dir);
  ASSERT_FALSE(request.spec.sample.volume.path.empty()) << "samples/sphere_pack_64.raw not found";
  Recorder recorder;
  request.observer = &recorder;
  int progress_calls = 0;
  request.progress = [&](const Progress&) { ++progress_calls; };
  const SampleResult r = run(Comm(), request);
  EXPECT_EQ(recorder.stages, (std::vector<std::string>{"sample", "ready", "progress"}));
  EXPECT_GT(progress_calls, 0);
  EXPECT_EQ(r.steps, 200);
  EXPECT_EQ(r.status, RunStatus::not_converged);
  EXPECT_GT(r.k.k_md, 0.0);
  EXPECT_EQ(r.provenance.command_line, "test_run");
  EXPECT_FALSE(r.provenance.resumed);
  std::ifstream config(dir / "config.ini");
  EXPECT_EQ(read_all_text(config), request.config_ini);
  std::ifstream report(dir / "report.json");
  EXPECT_NE(read_all_text(report).find("\"not_converged\""), std::string::npos);
}

TEST(Run, AFailureLeavesAReportInTheFrontEndsWordsAndRethrows) {
  const auto dir = fresh("failure");
  RunRequest request = bundled_sample(dir);
  request.spec.sample.volume.path = dir / "no_such_scan.raw";
  request.describe_input = [](const InputError& e) { return std::string("front end: ") + e.what(); };
  EXPECT_THROW(run(Comm(), request), InputError);
  std::ifstream report(dir / "report.json");
  const std::string text = read_all_text(report);
  EXPECT_NE(text.find("\"input_error\""), std::string::npos) << text;
  EXPECT_NE(text.find("front end: "), std::string::npos) << text;
}

}  // namespace rockperm::pipeline
