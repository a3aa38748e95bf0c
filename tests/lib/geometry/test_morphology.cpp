// Pore morphology (lib/geometry/morphology.hpp): entry radii of tubes and slits for several contact
// angles against the stated rule, the staircase of a bundle, the ink bottle, and the trapping
// against a step-by-step recomputation.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "lib/base/error.hpp"
#include "lib/geometry/morphology.hpp"

using namespace rockperm;
using namespace rockperm::geometry;

namespace {

// Pore where `inside(x, y, z)`; solid elsewhere.
std::vector<std::uint8_t> shape(const Dims& d, const std::function<bool(double, double, double)>& inside) {
  std::vector<std::uint8_t> pore(d.voxels());
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) pore[d.linear(x, y, z)] = inside(double(x), double(y), double(z)) ? 1 : 0;
  return pore;
}

double max_edt(const std::vector<float>& edt2) {
  float m = 0;
  for (const float e : edt2) m = std::max(m, e);
  return std::sqrt(double(m));
}

std::uint64_t count(const std::vector<std::uint8_t>& p, std::uint8_t value) {
  std::uint64_t c = 0;
  for (const auto v : p) c += v == value;
  return c;
}

}  // namespace

// A voxelised tube of radius a: its widest centre is EDT_max from the solid, so the largest ball
// is EDT_max - 1/2 (within a voxel of a: the balls' centres are voxel centres, the tube's axis may
// lie between them), and the non-wetting phase enters at that radius
// over cos(theta): at Pc = 2 sigma cos(theta) / r_inscribed, Young-Laplace. Just above the radius
// it stays out; just below it fills the tube's core from the inlet to the outlet.
TEST(Morphology, TubeEntersAtTheInscribedRadiusForEachContactAngle) {
  for (const double a : {3.0, 5.5, 8.0}) {
    const std::int64_t w = static_cast<std::int64_t>(2 * a) + 5;
    const Dims d{24, w, w};
    const double c = (w - 1) / 2.0;
    const auto pore = shape(d, [&](double, double y, double z) { return (y - c) * (y - c) + (z - c) * (z - c) <= a * a; });
    const auto edt2 = squared_pore_distance(d, pore);
    const double inscribed = max_edt(edt2) - 0.5;
    EXPECT_LE(std::abs(inscribed - a), 1.0 + 1e-12) << a;
    for (const double theta : {0.0, 30.0, 60.0, 80.0}) {
      MorphologySpec spec;
      spec.cos_theta = std::cos(theta * M_PI / 180);
      const EntryRadii r = entry_radii(d, pore, edt2, spec);
      EXPECT_NEAR(r.entry, inscribed / spec.cos_theta, 1e-9) << a << " " << theta;
      EXPECT_NEAR(r.breakthrough, r.entry, 1e-9);  // a straight tube: entered is spanned
      const Displacement dr = drain(d, pore, edt2, spec, {r.entry * 1.001, r.entry * 0.999});
      EXPECT_EQ(dr.defending[0], dr.domain) << "entered above the entry radius, a " << a << " theta " << theta;
      EXPECT_LT(dr.defending[1], dr.domain);
      // the core spans: the outlet plane's centre holds the non-wetting phase
      const auto phases = drained_phases(pore, dr, 1);
      const auto ic = static_cast<std::int64_t>(std::round(c));
      EXPECT_EQ(phases[d.linear(d.nx - 1, ic, ic)], phase_nonwetting);
      EXPECT_EQ(phases[d.linear(0, ic, ic)], phase_nonwetting);
    }
  }
}

// A slit of w voxels between two plates (the flow along x, the plates normal to z): the ball rule
// enters at (EDT_max - 1/2) / cos(theta) too, EDT_max = (w + 1) / 2 on the middle plane(s).
TEST(Morphology, SlitEntersAtHalfItsWidth) {
  for (const int w : {4, 7, 10}) {
    const Dims d{20, 12, w + 2};
    const auto pore = shape(d, [&](double, double, double z) { return z >= 1 && z <= w; });
    const auto edt2 = squared_pore_distance(d, pore);
    const double edt_max = std::floor((w + 1) / 2.0);  // the middle voxel's distance to a plate voxel
    EXPECT_NEAR(max_edt(edt2), edt_max, 1e-12);
    for (const double theta : {0.0, 45.0}) {
      MorphologySpec spec;
      spec.cos_theta = std::cos(theta * M_PI / 180);
      const EntryRadii r = entry_radii(d, pore, edt2, spec);
      EXPECT_NEAR(r.entry, (edt_max - 0.5) / spec.cos_theta, 1e-9) << w << " " << theta;
      const Displacement dr = drain(d, pore, edt2, spec, {r.entry * 1.01, r.entry * 0.99});
      EXPECT_EQ(dr.defending[0], dr.domain);
      EXPECT_LT(dr.defending[1], dr.domain);
    }
  }
}

// Parallel tubes of radii 2, 4 and 6 voxels: the drainage curve is a staircase whose steps are the
// tubes' entry radii, each step taking what that tube alone loses at that radius, nothing between.
TEST(Morphology, BundleOfTubesDrainsAsAStaircase) {
  const double radii[3] = {2.0, 4.0, 6.0};
  const double centres[3] = {5.0, 18.0, 36.0};
  const Dims d{16, 46, 17};
  const double cz = 8;
  const auto tube = [&](int i) {
    return [&, i](double, double y, double z) {
      return (y - centres[i]) * (y - centres[i]) + (z - cz) * (z - cz) <= radii[i] * radii[i];
    };
  };
  const auto all = shape(d, [&](double x, double y, double z) { return tube(0)(x, y, z) || tube(1)(x, y, z) || tube(2)(x, y, z); });
  const auto edt2 = squared_pore_distance(d, all);
  MorphologySpec spec;
  std::vector<double> entries;
  std::vector<std::uint64_t> volume;
  for (int i = 0; i < 3; ++i) {
    const auto one = shape(d, tube(i));
    const auto e1 = squared_pore_distance(d, one);
    entries.push_back(entry_radii(d, one, e1, spec).entry);
    volume.push_back(count(one, 1));
  }
  EXPECT_NEAR(entry_radii(d, all, edt2, spec).entry, entries[2], 1e-12);
  // radii: above every entry, then just below each (largest first), then between them
  const std::vector<double> steps = {entries[2] * 1.05, entries[2] * 0.999, (entries[2] + entries[1]) / 2,
                                     entries[1] * 0.999, (entries[1] + entries[0]) / 2, entries[0] * 0.999};
  const Displacement dr = drain(d, all, edt2, spec, steps);
  EXPECT_EQ(dr.defending[0], dr.domain);
  // each tube alone, at the same radii
  std::vector<std::uint64_t> lost(steps.size(), 0);
  for (int i = 0; i < 3; ++i) {
    const auto one = shape(d, tube(i));
    const Displacement di = drain(d, one, squared_pore_distance(d, one), spec, steps);
    for (std::size_t j = 0; j < steps.size(); ++j) lost[j] += di.domain - di.defending[j];
  }
  for (std::size_t j = 0; j < steps.size(); ++j) EXPECT_EQ(dr.domain - dr.defending[j], lost[j]) << j;
  // flat between the entries, a step at each
  EXPECT_EQ(dr.defending[1], dr.defending[2]);
  EXPECT_EQ(dr.defending[3], dr.defending[4]);
  EXPECT_LT(dr.defending[2], dr.defending[0]);
  EXPECT_LT(dr.defending[4], dr.defending[2]);
  EXPECT_LT(dr.defending[5], dr.defending[4]);
  EXPECT_EQ(dr.trapped, 0u);  // every tube's wetting corners run to the outlet
}

// An ink bottle: a neck of radius 2 on each side of a body of radius 6. Drainage enters the body
// only at the neck's radius; imbibition empties the necks first, which cuts the body's non-wetting
// phase off its faces: it stays (residual saturation), however low Pc falls.
TEST(Morphology, InkBottleEntersAtTheNeckAndTrapsTheBody) {
  const Dims d{36, 17, 17};
  const double c = 8;
  const auto inside = [&](double x, double y, double z) {
    const double r = x >= 10 && x <= 25 ? 6.0 : 2.0;
    return (y - c) * (y - c) + (z - c) * (z - c) <= r * r;
  };
  const auto pore = shape(d, inside);
  const auto edt2 = squared_pore_distance(d, pore);
  MorphologySpec spec;
  const EntryRadii r = entry_radii(d, pore, edt2, spec);
  const std::vector<double> drainage_radii = {4.0, r.entry * 1.001, r.entry * 0.999, 1.0};
  const Displacement dr = drain(d, pore, edt2, spec, drainage_radii);
  EXPECT_EQ(dr.defending[0], dr.domain);  // a radius that fits the body, but not the neck before it
  EXPECT_EQ(dr.defending[1], dr.domain);
  const auto entered = drained_phases(pore, dr, 2);
  EXPECT_EQ(entered[d.linear(17, 8, 8)], phase_nonwetting);  // the body's centre, at the neck's radius
  const Displacement im = imbibe(d, pore, edt2, spec, dr, {1.5, r.entry * 1.5, 5.0, 20.0});
  const auto last = imbibed_phases(pore, dr, im, 3);
  EXPECT_EQ(last[d.linear(17, 8, 8)], phase_nonwetting) << "the body's non-wetting phase was not trapped";
  EXPECT_EQ(last[d.linear(2, 8, 8)], phase_wetting);  // the necks imbibed
  EXPECT_EQ(last[d.linear(33, 8, 8)], phase_wetting);
  EXPECT_GT(im.trapped, 0u);
  EXPECT_EQ(im.trapped, im.defending[3]);  // what is left is trapped
  // without the body's bottleneck (a plain tube of the neck's radius) nothing is left
  const auto tube = shape(d, [&](double, double y, double z) { return (y - c) * (y - c) + (z - c) * (z - c) <= 4.0; });
  const auto e2 = squared_pore_distance(d, tube);
  const Displacement dt = drain(d, tube, e2, spec, drainage_radii);
  const Displacement it = imbibe(d, tube, e2, spec, dt, {1.5, r.entry * 1.5, 5.0, 20.0});
  EXPECT_EQ(it.defending[3], 0u);
}

// Trapping against the definition, recomputed step by step: at each step the wetting phase's
// clusters without a path to the outlet are found by a search, and the non-wetting phase takes
// only what the untrapped drainage covers outside them. On a random pack with pockets.
TEST(Morphology, WettingTrappingMatchesAStepByStepSearch) {
  const Dims d{28, 22, 20};
  std::vector<std::uint8_t> pore(d.voxels());
  std::uint64_t state = 12345;
  const auto rnd = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(state >> 11) / double(1ULL << 53);
  };
  // overlapping solid spheres: a pack with narrow throats
  std::vector<std::array<double, 4>> spheres;
  for (int i = 0; i < 60; ++i) spheres.push_back({rnd() * d.nx, rnd() * d.ny, rnd() * d.nz, 2.0 + 2.5 * rnd()});
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) {
        bool solid = false;
        for (const auto& s : spheres) {
          const double dx = x - s[0], dy = y - s[1], dz = z - s[2];
          solid = solid || dx * dx + dy * dy + dz * dz <= s[3] * s[3];
        }
        pore[d.linear(x, y, z)] = solid ? 0 : 1;
      }
  const auto edt2 = squared_pore_distance(d, pore);
  for (const EdgeContacts edges : {EdgeContacts::open, EdgeContacts::sealed}) {
    MorphologySpec spec;
    spec.edges = edges;
    const EntryRadii r = entry_radii(d, pore, edt2, spec);
    ASSERT_GT(r.entry, 1.0);
    std::vector<double> radii;
    for (int j = 0; j < 16; ++j) radii.push_back(r.entry * std::pow(1.0 / r.entry, j / 15.0) * (j == 0 ? 1.0 : 1.0));
    spec.trap_wetting = false;
    const Displacement free = drain(d, pore, edt2, spec, radii);
    spec.trap_wetting = true;
    const Displacement trapped = drain(d, pore, edt2, spec, radii);
    // the definition
    const std::uint64_t n = d.voxels();
    std::vector<std::uint16_t> seq(n, not_taken);
    std::vector<std::uint8_t> stuck(n, 0);
    const int reach = edges == EdgeContacts::open ? 2 : 1;
    for (std::size_t j = 0; j < radii.size(); ++j) {
      // wetting after step j - 1, and its part joined to the outlet
      std::vector<std::uint8_t> seen(n, 0);
      std::vector<std::uint64_t> stack;
      for (std::int64_t z = 0; z < d.nz; ++z)
        for (std::int64_t y = 0; y < d.ny; ++y) {
          const auto v = d.linear(d.nx - 1, y, z);
          if (pore[v] && seq[v] == not_taken) {
            seen[v] = 1;
            stack.push_back(v);
          }
        }
      while (!stack.empty()) {
        const auto v = stack.back();
        stack.pop_back();
        const std::int64_t x = v % d.nx, y = (v / d.nx) % d.ny, z = v / (d.nx * d.ny);
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int m = std::abs(dx) + std::abs(dy) + std::abs(dz);
              if (m == 0 || m > reach) continue;
              const std::int64_t a = x + dx, b = y + dy, c = z + dz;
              if (a < 0 || b < 0 || c < 0 || a >= d.nx || b >= d.ny || c >= d.nz) continue;
              const auto u = d.linear(a, b, c);
              if (!pore[u] || seq[u] != not_taken || seen[u]) continue;
              seen[u] = 1;
              stack.push_back(u);
            }
      }
      for (std::uint64_t v = 0; v < n; ++v) {
        if (pore[v] && seq[v] == not_taken && !seen[v]) stuck[v] = 1;
        if (!stuck[v] && seq[v] == not_taken && free.step[v] != not_taken && free.step[v] <= j) seq[v] = std::uint16_t(j);
      }
    }
    std::uint64_t differ = 0, kept = 0;
    for (std::uint64_t v = 0; v < n; ++v) {
      differ += seq[v] != trapped.step[v];
      kept += free.step[v] != trapped.step[v];
    }
    EXPECT_EQ(differ, 0u) << to_string(edges);
    EXPECT_GT(kept, 0u) << "the pack traps nothing: not a test of trapping";
    EXPECT_GT(trapped.trapped, 0u);
    for (std::size_t j = 0; j < radii.size(); ++j) EXPECT_GE(trapped.defending[j], free.defending[j]);
    // imbibition back along the same radii starts where the drainage ended, and ends with what it traps
    const std::vector<double> back(radii.rbegin(), radii.rend());
    const Displacement im = imbibe(d, pore, edt2, spec, trapped, back);
    EXPECT_EQ(im.defending[0], trapped.domain - trapped.defending.back());
    for (std::size_t j = 1; j < back.size(); ++j) EXPECT_LE(im.defending[j], im.defending[j - 1]);
    EXPECT_LE(im.trapped, im.defending.back());
    EXPECT_GT(im.trapped, 0u);
  }
}

TEST(Morphology, RefusesWhatItCannotDisplace) {
  const Dims d{10, 9, 9};
  const auto pore = shape(d, [](double, double y, double z) { return (y - 4) * (y - 4) + (z - 4) * (z - 4) <= 4; });
  const auto edt2 = squared_pore_distance(d, pore);
  MorphologySpec spec;
  EXPECT_THROW(drain(d, pore, edt2, spec, {}), InputError);
  EXPECT_THROW(drain(d, pore, edt2, spec, {1.0, 2.0}), InputError);  // radii rising in a drainage
  spec.entry = EntryFaces::all;
  try {
    drain(d, pore, edt2, spec, {2.0, 1.0});
    FAIL() << "trapping with no exit accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "two_phase.trapping");
    EXPECT_NE(std::string(e.what()).find("cannot leave"), std::string::npos);
  }
  spec.trap_wetting = false;
  EXPECT_NO_THROW(drain(d, pore, edt2, spec, {2.0, 1.0}));
  // a pore space that misses the inlet face
  const auto inner = shape(d, [](double x, double y, double z) { return x > 0 && (y - 4) * (y - 4) + (z - 4) * (z - 4) <= 4; });
  spec.entry = EntryFaces::inlet;
  try {
    drain(d, inner, squared_pore_distance(d, inner), spec, {2.0});
    FAIL() << "an entry face with no pore accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "two_phase.entry");
  }
}

namespace rockperm::geometry {

// The two-phase flow's random start (issue 69): the pore voxels drawn again, each wetting with the
// state's wetting share, the solid kept; the same draw for the same seed, another for another.
TEST(Morphology, ARandomStartKeepsTheSaturationAndTheSolid) {
  std::vector<std::uint8_t> phases(200000);
  for (std::size_t v = 0; v < phases.size(); ++v) {
    phases[v] = v % 5 == 0 ? phase_solid : (v < 60000 ? phase_nonwetting : phase_wetting);  // S_w 0.7 of the pore
  }
  const std::vector<std::uint8_t> a = random_phases(phases, 69), b = random_phases(phases, 69), c = random_phases(phases, 70);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double pore = 0, wetting = 0, early_wetting = 0, early = 0;
  for (std::size_t v = 0; v < phases.size(); ++v) {
    ASSERT_EQ(a[v] == phase_solid, phases[v] == phase_solid) << v;
    if (a[v] == phase_solid) continue;
    ++pore;
    wetting += a[v] == phase_wetting;
    if (v < 60000) {  // where the state was all non-wetting: now mixed
      ++early;
      early_wetting += a[v] == phase_wetting;
    }
  }
  const double share = 112000.0 / 160000.0;
  // binomial: sigma sqrt(0.21 / 160000) = 1.1e-3
  EXPECT_NEAR(wetting / pore, share, 5e-3);
  EXPECT_NEAR(early_wetting / early, share, 1e-2);
}

}  // namespace rockperm::geometry
