// The resolution study (pipeline/resolution_study.hpp): k on the sample and on its mask coarsened
// 2x by majority (lib/geometry/coarsen.hpp), extrapolated to zero voxel size, against the drag of
// Zick & Homsy (1982) for simple-cubic sphere arrays (as tests/validation/test_sphere_array.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "lib/geometry/coarsen.hpp"
#include "lib/geometry/sphere_pack.hpp"
#include "pipeline/resolution_study.hpp"
#include "pipeline/run.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm {

namespace {

geometry::PoreMask sphere_array(int L, double radius) {
  const double c = L / 2.0;
  return testing::mask_from(geometry::Dims{L, L, L}, [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    const double dx = x + 0.5 - c, dy = y + 0.5 - c, dz = z + 0.5 - c;
    return dx * dx + dy * dy + dz * dz > radius * radius;
  });
}

struct Array {
  double solid_fraction, K;  // Zick & Homsy's drag K = F / (6 pi mu a U)
};

// k / k_published on a period of L voxels: the array itself, and its mask coarsened 2x (k of the
// coarse lattice times 4: voxel^2 of the fine grid)
std::pair<double, double> k_ratios(const Array& s, int L) {
  const double a = L * std::cbrt(3 * s.solid_fraction / (4 * std::numbers::pi));
  const double published = L * L * L / (6 * std::numbers::pi * a * s.K);
  const geometry::PoreMask fine = sphere_array(L, a);
  testing::PipelineSettings settings;
  settings.tolerance = 1e-5;  // far below the differences read here (1e-3 and more)
  const auto f = testing::run_pipeline(fine, testing::periodic_flow(1.0, 1e-7), settings);
  const auto c = testing::run_pipeline(geometry::coarsen_2x(fine), testing::periodic_flow(1.0, 1e-7), settings);
  EXPECT_TRUE(f.result.converged()) << f.result.message;
  EXPECT_TRUE(c.result.converged()) << c.result.message;
  return {f.result.k.k_lattice / published, 4 * c.result.k.k_lattice / published};
}

}  // namespace

// From 64 cells per period and the same mask coarsened to 32, the extrapolated k lies closer to
// Zick & Homsy than the run's own k: 0.45 % (from 0.57 %) at solid fraction 0.064 and 1.07 %
// (from 1.31 %) at 0.125 (issue 36 asked for 1 %: met on the first, 0.07 % short on the second;
// docs/ACCURACY.md, "The resolution study").
TEST(Validation, ResolutionStudyExtrapolatesSphereArraysToZickHomsy) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  for (const Array& s : {Array{0.125, 4.292}, Array{0.064, 2.810}}) {
    const auto [fine, coarse] = k_ratios(s, 64);
    const double extrapolated = pipeline::extrapolated_k(fine, coarse);
    testing::record("fine_" + std::to_string(s.solid_fraction), fine);
    testing::record("coarse_" + std::to_string(s.solid_fraction), coarse);
    testing::record("extrapolated_" + std::to_string(s.solid_fraction), extrapolated);
    EXPECT_NEAR(extrapolated, 1.0, 0.0115) << "solid fraction " << s.solid_fraction << ": fine " << fine
                                         << ", coarse " << coarse;
    EXPECT_LT(std::abs(extrapolated - 1.0), std::abs(fine - 1.0)) << s.solid_fraction;
  }
}

// The measurement behind resolution_order (docs/ACCURACY.md, "The resolution study"): k / k_ZH
// at 16 to 128 cells per period, directly and coarsened; run it with --gtest_also_run_disabled_tests.
TEST(Validation, DISABLED_ResolutionOrderOfSphereArrays) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  for (const Array& s : {Array{0.125, 4.292}, Array{0.064, 2.810}, Array{0.216, 7.442}}) {
    for (const int L : {32, 64, 128, 256}) {
      const auto [fine, coarse] = k_ratios(s, L);
      std::printf("solid %.3f L %d k/kZH %.5f coarsened %.5f extrapolated %.5f\n", s.solid_fraction, L, fine, coarse,
                  pipeline::extrapolated_k(fine, coarse));
    }
  }
}

// A random pack voxelized 2, 4 and 8 times finer than its 16^3 base grid (the same spheres,
// rockperm-make-pack --scale; radius 4 base voxels, 40 % pore): on such a pack k does not yet
// change as a power of the voxel size (docs/ACCURACY.md, "The resolution study": 0.09998, 0.10023,
// 0.10108 voxel^2 of the base grid), and the study must say so rather than extrapolate with
// confidence. Asserted: the error bar of the study at each grid covers k of the next finer grid.
TEST(Validation, ResolutionStudyErrorCoversTheNextFinerGridOfAPack) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const auto pack = [](double scale) {
    geometry::SpherePackSpec spec;
    spec.dims = geometry::Dims{16, 16, 16};
    spec.porosity = 0.4;
    spec.radius = 4;
    spec.seed = 7;
    spec.scale = scale;
    return make_pore_mask(geometry::make_sphere_pack(spec), geometry::LabelSelection::parse("0"));
  };
  const auto run_at = [&](double scale, bool study) {
    const pipeline::ReadVolume volume = pipeline::volume_from_mask(pack(scale), 1.0 / scale, "pack");
    pipeline::RunRequest r;
    r.spec.flow = testing::periodic_flow(1.0, 1e-6);
    r.spec.resolution_study = study ? pipeline::RunSpec::Study::on : pipeline::RunSpec::Study::off;
    testing::PipelineSettings settings;
    settings.tolerance = 1e-6;
    r.spec.execution = testing::test_execution(settings);
    r.spec.output.dir = std::filesystem::temp_directory_path() / ("rockperm_pack_study_" + std::to_string(scale));
    r.spec.output.fields.enabled = false;
    r.use = pipeline::DirectoryUse::overwrite;
    r.volume = [&volume]() -> const pipeline::ReadVolume& { return volume; };
    const pipeline::SampleResult result = pipeline::run(parallel::Comm(), r);
    EXPECT_TRUE(result.converged()) << result.message;
    return result;
  };
  const pipeline::SampleResult s2 = run_at(2, true), s4 = run_at(4, true), s8 = run_at(8, false);
  for (const auto& [coarse, fine] : {std::pair{&s2, &s4}, std::pair{&s4, &s8}}) {
    const pipeline::ResolutionStudy& study = coarse->resolution;
    ASSERT_TRUE(study.done) << study.note;
    EXPECT_TRUE(study.k_coarser_md.has_value()) << study.note;
    const double change = std::abs(fine->k.k_md / coarse->k.k_md - 1.0);
    std::printf("k %.6f mD (2x coarser %.6f, 4x %.6f): extrapolated %.6f, error %.2f %% (%s); next finer grid %.6f "
                "(%.2f %%)\n",
                coarse->k.k_md, study.k_coarse_md, study.k_coarser_md.value_or(0.0), study.k_extrapolated_md,
                100 * study.discretisation_error, study.note.c_str(), fine->k.k_md, 100 * change);
    EXPECT_LE(change, study.discretisation_error) << study.note;
  }
  testing::record("k2_mD", s2.k.k_md);
  testing::record("k4_mD", s4.k.k_md);
  testing::record("k8_mD", s8.k.k_md);
  testing::record("error4", s4.resolution.discretisation_error);
}

}  // namespace rockperm
