// A stop during the relative permeability points, then --resume (pipeline/relperm_store.hpp): the
// points made before the stop are kept in the run directory and not made again, the one the stop
// cut short is not kept, and the resumed run's points are those of a run never stopped, bit for bit.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "pipeline/relperm_store.hpp"
#include "pipeline/run.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm::pipeline {

namespace {

std::filesystem::path fresh(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_relperm_resume_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

// straight tubes of radii 2.5, 4 and 6 voxels along x, apart: three points of the drainage
RunRequest points_request(const std::filesystem::path& dir, const ReadVolume& volume) {
  RunRequest request;
  testing::PipelineSettings settings;
  settings.tolerance = 1e-5;
  request.spec.flow = testing::periodic_flow(0.8, 1e-6);
  request.spec.execution = testing::test_execution(settings);
  request.spec.two_phase.curves = TwoPhaseSpec::Curves::drainage;
  request.spec.two_phase.pressure_count = 12;
  request.spec.two_phase.relperm_points = 3;
  request.spec.output.dir = dir;
  request.spec.output.fields.enabled = false;
  request.spec.sample.percolation_filter = false;
  request.volume = [&volume]() -> const ReadVolume& { return volume; };
  return request;
}

}  // namespace

TEST(RelPermResume, PointsMadeBeforeAStopAreKeptAndTheRestMadeToTheSameBits) {
  const double radius[3] = {2.5, 4.0, 6.0}, centre[3] = {4.0, 14.0, 28.0};
  const geometry::Dims d{16, 36, 16};
  const auto tubes = [&](double, double y, double z) {
    for (int i = 0; i < 3; ++i)
      if ((y - centre[i]) * (y - centre[i]) + (z - 7.5) * (z - 7.5) <= radius[i] * radius[i]) return true;
    return false;
  };
  const ReadVolume volume = volume_from_mask(testing::mask_from(d, tubes), 1.0, "tubes");
  const SampleResult whole = run(parallel::Comm(), points_request(fresh("whole"), volume));
  ASSERT_TRUE(whole.converged()) << whole.message;
  ASSERT_EQ(whole.two_phase.relperm.size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(fresh("whole") / relperm_store_name));

  const auto dir = fresh("stopped");
  RunRequest request = points_request(dir, volume);
  // a stop during the second point: its first poll after the first point (which is then kept) says
  // no, every later one (the second point's flows) yes; the point cut short is not kept
  struct StopInTheSecond final : RunObserver {
    std::size_t done = 0;
    void relperm_point(const RelPermPoint&, std::size_t d, std::size_t) override { done = d; }
  } observer;
  int polls = 0;
  request.observer = &observer;
  request.stop_requested = [&] { return observer.done >= 1 && ++polls > 1; };
  const SampleResult stopped = run(parallel::Comm(), request);
  EXPECT_EQ(stopped.status, RunStatus::interrupted);
  ASSERT_EQ(stopped.two_phase.relperm.size(), 2u);
  const std::vector<RelPermPoint> kept = load_relperm_points(dir / relperm_store_name);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].wetting.kr, stopped.two_phase.relperm[0].wetting.kr);

  RunRequest again = points_request(dir, volume);
  again.use = DirectoryUse::resume;
  const SampleResult resumed = run(parallel::Comm(), again);
  ASSERT_EQ(resumed.status, RunStatus::converged) << resumed.message;
  ASSERT_EQ(resumed.two_phase.relperm.size(), 3u);
  // the first point kept as made before the stop (its seconds too: not made again)
  EXPECT_EQ(resumed.two_phase.relperm[0].wetting.seconds, stopped.two_phase.relperm[0].wetting.seconds);
  for (std::size_t i = 0; i < 3; ++i) {
    const RelPermPoint &a = whole.two_phase.relperm[i], &b = resumed.two_phase.relperm[i];
    EXPECT_EQ(a.saturation, b.saturation) << i;
    EXPECT_EQ(a.wetting.kr, b.wetting.kr) << i;
    EXPECT_EQ(a.nonwetting.kr, b.nonwetting.kr) << i;
    EXPECT_EQ(a.wetting.kr_error, b.wetting.kr_error) << i;
    EXPECT_EQ(a.nonwetting.steps, b.nonwetting.steps) << i;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / relperm_store_name)) << "every point made: the report holds them";
  EXPECT_FALSE(std::filesystem::exists(dir / "checkpoint.rpk"));
}

// A store that is not ours, or cut short, is read as no points: they are made again.
TEST(RelPermResume, AStoreThatCannotBeReadKeepsNoPoint) {
  const auto dir = fresh("bad");
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(load_relperm_points(dir / relperm_store_name).empty());  // missing
  RelPermPoint p;
  p.curve = "drainage";
  p.wetting.kr = 0.25;
  save_relperm_points(dir / relperm_store_name, {p});
  ASSERT_EQ(load_relperm_points(dir / relperm_store_name).size(), 1u);
  EXPECT_EQ(load_relperm_points(dir / relperm_store_name)[0].wetting.kr, 0.25);
  std::filesystem::resize_file(dir / relperm_store_name, 20);  // cut short
  EXPECT_TRUE(load_relperm_points(dir / relperm_store_name).empty());
}

}  // namespace rockperm::pipeline
