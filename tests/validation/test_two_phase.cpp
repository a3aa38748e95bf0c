// Two phases (issue 66): the pore-morphology curves of a simple cubic sphere packing against its
// exact geometry, and the quasi-static relative permeabilities of a bundle of tubes against the
// tubes' own permeabilities, through the whole run (pipeline::run, as `rockperm run` makes it).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "lib/geometry/morphology.hpp"
#include "pipeline/run.hpp"
#include "pipeline/two_phase.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm {

namespace {

std::vector<std::uint8_t> codes(const geometry::Dims& d, const std::function<bool(double, double, double)>& pore) {
  std::vector<std::uint8_t> c(d.voxels());
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) c[d.linear(x, y, z)] = pore(double(x), double(y), double(z)) ? 1 : 0;
  return c;
}

}  // namespace

// Touching spheres of radius a on a simple cubic lattice (period 2a): the pores are cubic bodies
// joined through square windows. Exactly (the packing's geometry, e.g. Mason & Morrow 1994): the
// window's inscribed circle has radius (sqrt 2 - 1) a = 0.414 a and the body's inscribed sphere
// (sqrt 3 - 1) a = 0.732 a. By the morphology's rule the non-wetting phase enters at the window's
// radius, fills the bodies at once (a Haines jump: every body is wider than the windows that lead
// to it), and on imbibition leaves the windows first, which cuts every body's non-wetting phase
// off its faces: trapped. Voxelised at a = 12, the radii are within a voxel of the exact ones.
TEST(TwoPhase, SimpleCubicPackingEntersThroughItsWindowsAndTrapsItsBodies) {
  const double a = 12, period = 2 * a;
  const geometry::Dims d{72, 48, 48};
  // sphere centres at multiples of 2a (the faces cut the spheres through their centres)
  const auto pore = codes(d, [&](double x, double y, double z) {
    const auto off = [&](double v) {
      const double m = std::fmod(v + 0.5, period) - 0.5;  // voxel centre offset from the nearest centre plane
      return std::min(std::abs(m), std::abs(period - m));
    };
    const double dx = off(x), dy = off(y), dz = off(z);
    return dx * dx + dy * dy + dz * dz > a * a;
  });
  const auto edt2 = geometry::squared_pore_distance(d, pore);
  geometry::MorphologySpec spec;  // entry at the inlet face (x = 0), wetting trapped
  const geometry::EntryRadii r = geometry::entry_radii(d, pore, edt2, spec);
  const double window = (std::sqrt(2.0) - 1) * a, body = (std::sqrt(3.0) - 1) * a;
  EXPECT_NEAR(r.entry, window, 1.0) << "entry radius";
  EXPECT_NEAR(r.breakthrough, window, 1.0) << "breakthrough radius";
  double widest = 0;
  for (const float e : edt2) widest = std::max(widest, std::sqrt(double(e)) - 0.5);
  EXPECT_NEAR(widest, body, 1.0) << "the bodies' inscribed radius";
  // drainage: nothing above the window's radius, the bodies at once below it
  const geometry::Displacement dr =
      geometry::drain(d, pore, edt2, spec, {r.entry * 1.2, r.entry * 1.0001, r.entry * 0.999, 1.0});
  const auto sw = [&](std::size_t j) { return double(dr.defending[j]) / double(dr.domain); };
  EXPECT_EQ(dr.defending[0], dr.domain);
  EXPECT_EQ(dr.defending[1], dr.domain);
  EXPECT_LT(sw(2), 0.5) << "no Haines jump into the bodies";
  // the body centre of the middle cell holds the non-wetting phase, the windows' rims the wetting
  const auto at_entry = geometry::drained_phases(pore, dr, 2);
  EXPECT_EQ(at_entry[d.linear(36, 12, 12)], geometry::phase_nonwetting);
  // imbibition: as soon as no ball of the window's radius passes the windows, every body is cut off
  const geometry::Displacement im =
      geometry::imbibe(d, pore, edt2, spec, dr, {1.0, r.entry * 0.999, r.entry * 1.05, body * 1.1, 3 * a});
  const double s_nr = double(im.trapped) / double(im.domain);
  const double before = 1.0 - double(im.defending[1]) / double(im.domain);
  EXPECT_GT(s_nr, 0.5 * (1 - before)) << "the bodies kept less than half their non-wetting phase";
  EXPECT_EQ(im.defending[3], im.defending[4]) << "trapped bodies emptied";
  EXPECT_EQ(im.trapped, im.defending[4]);
  const auto trapped = geometry::imbibed_phases(pore, dr, im, 4);
  EXPECT_EQ(trapped[d.linear(36, 12, 12)], geometry::phase_nonwetting);
}

// Straight tubes of radii 2.5, 4 and 6 voxels side by side, not joined: just above the middle
// tube's entry radius the non-wetting phase holds the widest tube, just above the narrowest's the
// two wider ones, each less the rim of voxels no ball of that radius covers, which the wetting phase
// keeps. Each phase's k over k is then the share of the tubes it fills, less (non-wetting) or plus
// (wetting) what those rims carry: ball centres lie at least R + 1/2 from the solid and balls reach
// R, so the core stops half a voxel short of the wall, and the rim is a wall to the core's
// Poiseuille flow: k_rn / share is about ((a - 1/2) / a)^4, 0.71 for a = 6 and 0.59 for a = 4
// (measured 0.70 and 0.64). Exactly, k_r of each phase is the k of its cells alone (a run on those cells only)
// over the bundle's: the sub-lattice is the phase's cells and nothing else.
TEST(TwoPhase, TubeBundleRelativePermeabilityIsTheShareOfTheTubesEachPhaseFills) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const double radius[3] = {2.5, 4.0, 6.0}, centre[3] = {4.0, 14.0, 28.0};
  const double cz = 7.5;
  const geometry::Dims d{16, 36, 16};
  const auto tube = [&](int i) {
    return [&, i](double, double y, double z) {
      return (y - centre[i]) * (y - centre[i]) + (z - cz) * (z - cz) <= radius[i] * radius[i];
    };
  };
  const auto all = [&](double x, double y, double z) { return tube(0)(x, y, z) || tube(1)(x, y, z) || tube(2)(x, y, z); };
  // each tube's k alone, on the same lattice and drive
  testing::PipelineSettings settings;
  settings.tolerance = 1e-7;
  std::array<double, 3> k_tube{};
  for (int i = 0; i < 3; ++i) {
    const auto run = testing::run_pipeline(testing::mask_from(d, tube(i)), testing::periodic_flow(0.8, 1e-6), settings);
    ASSERT_TRUE(run.result.converged());
    k_tube[static_cast<std::size_t>(i)] = run.result.k.k_lattice;
  }
  const double k_all = k_tube[0] + k_tube[1] + k_tube[2];  // separate tubes: their flows add
  // each tube's entry radius (voxels), by the morphology
  std::array<double, 3> entry{};
  for (int i = 0; i < 3; ++i) {
    const auto one = codes(d, tube(i));
    entry[static_cast<std::size_t>(i)] = geometry::entry_radii(d, one, geometry::squared_pore_distance(d, one), {}).entry;
  }
  ASSERT_LT(entry[0], entry[1]);
  ASSERT_LT(entry[1], entry[2]);
  // the run: voxels of 1 um, sigma 0.072 N/m, theta 0: R voxels is Pc = 2 sigma / R um
  const auto pc = [](double r) { return 2 * 0.072 / (r * 1e-6); };
  pipeline::RunRequest request;
  request.spec.flow = testing::periodic_flow(0.8, 1e-6);
  request.spec.execution = testing::test_execution(settings);
  request.spec.two_phase.curves = pipeline::TwoPhaseSpec::Curves::drainage;
  request.spec.two_phase.pressures_pa = {pc(entry[1] * 1.02), pc(entry[0] * 1.02)};
  request.keep_phases = true;
  request.spec.two_phase.relperm_points = 2;
  request.spec.two_phase.relperm_tolerance = 1e-7;
  request.spec.output.dir = std::filesystem::temp_directory_path() / "rockperm_two_phase_bundle";
  std::filesystem::remove_all(request.spec.output.dir);
  request.spec.output.fields.enabled = false;
  request.spec.sample.percolation_filter = false;
  const pipeline::ReadVolume volume = pipeline::volume_from_mask(testing::mask_from(d, all), 1.0, "bundle");
  request.volume = [&volume]() -> const pipeline::ReadVolume& { return volume; };
  const pipeline::SampleResult result = pipeline::run(parallel::Comm(), request);
  ASSERT_TRUE(result.converged()) << result.message;
  EXPECT_NEAR(result.k.k_lattice, k_all, 1e-5 * k_all) << "the bundle's k is not the sum of its tubes'";
  const pipeline::TwoPhaseReport& t = result.two_phase;
  ASSERT_TRUE(t.done);
  ASSERT_EQ(t.relperm.size(), 2u);
  // the first point: the widest tube's core non-wetting; the second: the two wider tubes' cores
  const double share_n[2] = {k_tube[2] / k_all, (k_tube[1] + k_tube[2]) / k_all};
  for (std::size_t p = 0; p < 2; ++p) {
    const pipeline::RelPermPoint& point = t.relperm[p];
    ASSERT_TRUE(point.wetting.solved && point.nonwetting.solved) << point.wetting.note << point.nonwetting.note;
    EXPECT_TRUE(point.wetting.spans && point.nonwetting.spans);
    // the non-wetting phase is the filled tubes less their rims: a little below their share; the
    // wetting phase the open tubes and those rims: at least their share
    EXPECT_LE(point.nonwetting.kr, share_n[p] * (1 + 1e-4)) << p;
    EXPECT_GT(point.nonwetting.kr, 0.6 * share_n[p]) << p;
    EXPECT_GE(point.wetting.kr, (1 - share_n[p]) * (1 - 1e-4)) << p;
    EXPECT_LT(point.wetting.kr, (1 - share_n[p]) + 0.05) << p;
    EXPECT_LT(point.wetting.kr + point.nonwetting.kr, 1.0) << "the interface as a wall must lose flow";
    EXPECT_LT(point.nonwetting.kr_error, 1e-4);
    // each phase's cells alone give its k
    ASSERT_TRUE(result.two_phase_state);
    const std::vector<std::uint8_t> phases = result.two_phase_state->phases("drainage", point.point);
    for (const std::uint8_t phase : {geometry::phase_wetting, geometry::phase_nonwetting}) {
      const auto run = testing::run_pipeline(
          testing::mask_from(d, [&](auto x, auto y, auto z) {
            return phases[d.linear(std::int64_t(x), std::int64_t(y), std::int64_t(z))] == phase;
          }),
          testing::periodic_flow(0.8, 1e-6), settings);
      ASSERT_TRUE(run.result.converged());
      const double kr = phase == geometry::phase_wetting ? point.wetting.kr : point.nonwetting.kr;
      EXPECT_NEAR(kr * result.k.k_lattice, run.result.k.k_lattice, 2e-6 * run.result.k.k_lattice)
          << "phase " << int(phase) << " at point " << p;
    }
  }
  // the saturations: what the tubes' cores hold
  EXPECT_GT(t.drainage[0].saturation, t.drainage[1].saturation);
  EXPECT_EQ(t.residual_wetting, 0.0);  // every rim runs to the outlet
}

// Two-phase flow at the same points (capillary.flow steady, issue 69). The tubes are straight and
// apart, so every interface runs along the flow: at a viscosity ratio of 1 the velocity field is the
// single phase's, whatever the phases, and k_rw + k_rn = 1 exactly (each cell's flux shared by its
// fractions; the stop's error apart). Each wider tube's non-wetting core slides on the wetting rim
// the quasi-static k_r makes a wall, so k_r by flow is above the quasi-static one for both phases;
// a more viscous core (ratio 4) slides further on the rim in units of its own viscosity: k_rn rises
// (the slit's lubrication term, tests/validation/test_colour_flow.cpp).
TEST(TwoPhase, TubeBundleFlowSharesTheSinglePhasesFluxAndItsCoresSlideOnTheRims) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const double radius[3] = {2.5, 4.0, 6.0}, centre[3] = {4.0, 14.0, 28.0};
  const double cz = 7.5;
  const geometry::Dims d{16, 36, 16};
  const auto all = [&](double, double y, double z) {
    for (int i = 0; i < 3; ++i)
      if ((y - centre[i]) * (y - centre[i]) + (z - cz) * (z - cz) <= radius[i] * radius[i]) return true;
    return false;
  };
  const pipeline::ReadVolume volume = pipeline::volume_from_mask(testing::mask_from(d, all), 1.0, "bundle");
  const auto run = [&](double ratio) {
    testing::PipelineSettings settings;
    settings.tolerance = 1e-6;
    pipeline::RunRequest request;
    request.spec.flow = testing::periodic_flow(0.8, 1e-6);
    request.spec.execution = testing::test_execution(settings);
    request.spec.two_phase.curves = pipeline::TwoPhaseSpec::Curves::drainage;
    request.spec.two_phase.pressure_count = 12;
    request.spec.two_phase.relperm_saturations = {0.4};
    request.spec.two_phase.flow = pipeline::TwoPhaseSpec::Flow::steady;
    request.spec.two_phase.viscosity_ratio = ratio;
    request.spec.output.dir = std::filesystem::temp_directory_path() / "rockperm_two_phase_bundle_flow";
    std::filesystem::remove_all(request.spec.output.dir);
    request.spec.output.fields.enabled = false;
    request.spec.sample.percolation_filter = false;
    request.volume = [&volume]() -> const pipeline::ReadVolume& { return volume; };
    return pipeline::run(parallel::Comm(), request);
  };
  const pipeline::SampleResult even = run(1.0), viscous = run(4.0);
  for (const pipeline::SampleResult* r : {&even, &viscous}) {
    ASSERT_TRUE(r->converged()) << r->message;
    ASSERT_EQ(r->two_phase.relperm.size(), 1u);
    const pipeline::ColourFlowPoint& f = r->two_phase.relperm[0].flow;
    ASSERT_TRUE(f.asked);
    ASSERT_TRUE(f.solved) << f.note;
    EXPECT_TRUE(f.converged) << f.note;
    EXPECT_TRUE(f.wetting_spans && f.nonwetting_spans);
    EXPECT_NEAR(f.saturation, f.saturation_start, 0.02) << "the colours are conserved";
    // the tubes are narrower than the model wants, and brine/air's 0 degrees is below what its walls hold
    for (const std::string& flag : f.flags) {
      EXPECT_TRUE(flag.find("the pores are") == 0 || flag.find("the walls' contact angle") == 0) << flag;
    }
  }
  const pipeline::RelPermPoint& p = even.two_phase.relperm[0];
  testing::record("kr_w_flow", p.flow.kr_w);
  testing::record("kr_n_flow", p.flow.kr_n);
  testing::record("kr_n_flow_ratio_4", viscous.two_phase.relperm[0].flow.kr_n);
  testing::record("kr_w_quasi_static", p.wetting.kr);
  testing::record("kr_n_quasi_static", p.nonwetting.kr);
  testing::record("saturation", p.saturation);
  EXPECT_GT(p.flow.kr_n, 0.05);
  EXPECT_GT(p.flow.kr_w, 0.05);
  EXPECT_NEAR(p.flow.kr_w + p.flow.kr_n, 1.0, 0.01 + p.flow.kr_w_error + p.flow.kr_n_error);
  EXPECT_GT(p.flow.kr_n, p.nonwetting.kr) << "the cores slide on their rims";
  EXPECT_GT(p.flow.kr_w, p.wetting.kr) << "the rims are sheared by the cores";
  const pipeline::ColourFlowPoint& v = viscous.two_phase.relperm[0].flow;
  EXPECT_GT(v.kr_n, 1.1 * p.flow.kr_n) << "a more viscous core slides further in its own viscosity's units";
  EXPECT_NEAR(v.viscosity_ratio, 4.0, 1e-12);
}

}  // namespace rockperm

namespace rockperm {

// The displacement (capillary.displacement, issue 69's unsteady protocol) through two straight
// tubes of radii 3 and 6 voxels side by side, 12 long, between the reservoirs, at pressures set from
// each tube's entry pressure 2 sigma cos(theta) / R (Young-Laplace for the tube's hemispherical
// meniscus; the morphology's rule too): below the wide tube's entry (0.6 of it) nothing enters but
// the menisci's diffuse interface at the tubes' mouths (about 2 of the 12 voxels: S_w 0.89 as
// measured); between the two entries the wide tube drains and the narrow one keeps its wetting
// phase (its share of the pore volume, 0.2: measured 0.19); above both, both drain but for the
// wetting phase in the diffuse interface along the walls (0.06). The quasi-static curve at the
// same pressures, whose phases are voxels, is within 0.15 at each (measured: 0.11, 0.06, 0.06).
TEST(TwoPhase, DisplacementDrainsEachTubeAboveItsEntryPressure) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const double radius[2] = {3.0, 6.0}, centre[2] = {4.0, 14.0};
  const double cz = 6.5;
  const geometry::Dims d{12, 21, 14};
  const auto all = [&](double, double y, double z) {
    for (int i = 0; i < 2; ++i)
      if ((y - centre[i]) * (y - centre[i]) + (z - cz) * (z - cz) <= radius[i] * radius[i]) return true;
    return false;
  };
  const pipeline::ReadVolume volume = pipeline::volume_from_mask(testing::mask_from(d, all), 1.0, "tubes");
  testing::PipelineSettings settings;
  settings.tolerance = 1e-5;
  pipeline::RunRequest request;
  request.spec.flow = testing::periodic_flow(0.8, 1e-6);
  request.spec.execution = testing::test_execution(settings);
  request.spec.two_phase.displacement_steps = 30000;
  request.spec.two_phase.curves = pipeline::TwoPhaseSpec::Curves::drainage;
  // entry of a tube of radius R voxels of 1 um: 2 sigma / R, brine/air (0.072 N/m, 0 degrees)
  const auto entry = [](double r) { return 2 * 0.072 / (r * 1e-6); };
  request.spec.two_phase.pressures_pa = {0.6 * entry(6), 1.4 * entry(6), 1.4 * entry(3)};
  request.spec.two_phase.relperm_points = 0;
  request.spec.two_phase.displacement = true;
  request.spec.output.dir = std::filesystem::temp_directory_path() / "rockperm_two_phase_displacement";
  std::filesystem::remove_all(request.spec.output.dir);
  request.spec.output.fields.enabled = false;
  request.spec.sample.percolation_filter = false;
  request.volume = [&volume]() -> const pipeline::ReadVolume& { return volume; };
  const pipeline::SampleResult r = pipeline::run(parallel::Comm(), request);
  ASSERT_TRUE(r.converged()) << r.message;
  const pipeline::DisplacementReport& dr = r.two_phase.displacement;
  ASSERT_TRUE(dr.asked);
  ASSERT_TRUE(dr.done) << dr.note;
  ASSERT_EQ(dr.drainage.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const pipeline::DisplacementPoint& p = dr.drainage[i];
    testing::record("saturation_" + std::to_string(i), p.saturation);
    testing::record("quasi_static_" + std::to_string(i), p.saturation_quasi_static);
    testing::record("steps_" + std::to_string(i), static_cast<double>(p.steps));
    EXPECT_TRUE(p.settled) << i << ": " << p.note;
    EXPECT_NEAR(p.saturation, p.saturation_quasi_static, 0.15) << "pressure " << i;
  }
  EXPECT_GT(dr.drainage[0].saturation, 0.8) << "below the wide tube's entry nothing enters";
  EXPECT_NEAR(dr.drainage[1].saturation, 0.2, 0.06) << "the wide tube drains, the narrow one keeps its wetting phase";
  EXPECT_LT(dr.drainage[2].saturation, 0.1) << "above both entries both drain";
}

}  // namespace rockperm
