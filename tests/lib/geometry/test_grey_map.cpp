// Grey phases from CT intensities (lib/geometry/grey_map.hpp): porosity linear between the
// calibrated end members, k by the porosity-k law, one phase per intensity or runs of them.
#include <gtest/gtest.h>

#include <cmath>

#include "lib/base/error.hpp"
#include "lib/geometry/grey_map.hpp"

namespace rockperm {

namespace {
geometry::GreyMap map_of(const std::string& intensities, const std::string& law) {
  geometry::GreyMap m;
  geometry::parse_grey_intensities(intensities, m);
  geometry::parse_grey_law(law, m);
  return m;
}
constexpr double mD = 9.869233e-16;
double kc(double phi) { return phi * phi * phi / ((1 - phi) * (1 - phi)); }
}  // namespace

// issue 49, 17: a map to 300 over 8-bit data read the brightest grains (255) as porous, silently
TEST(GreyMap, AMapBeyondTheDataTypeIsRefused) {
  const geometry::GreyMap beyond = map_of("40:300", "power:50mD@0.5:3");
  EXPECT_THROW(geometry::check_map_fits(beyond, 1, "scan.raw"), InputError);
  EXPECT_NO_THROW(geometry::check_map_fits(beyond, 2, "scan.raw"));
  EXPECT_NO_THROW(geometry::check_map_fits(map_of("40:200", "power:50mD@0.5:3"), 1, "scan.raw"));
  try {
    geometry::check_map_fits(map_of("250:30", "power:50mD@0.5:3"), 1, "scan.raw");
  } catch (const InputError&) {
    ADD_FAILURE() << "a map within 0..255 was refused";
  }
}

TEST(GreyMap, PorosityIsLinearBetweenTheEndMembersEitherWayRound) {
  const geometry::GreyMap dark_pore = map_of("40:200", "kozeny-carman:0.5mD@0.3");
  EXPECT_DOUBLE_EQ(dark_pore.porosity(40), 1.0);
  EXPECT_DOUBLE_EQ(dark_pore.porosity(200), 0.0);
  EXPECT_DOUBLE_EQ(dark_pore.porosity(120), 0.5);
  EXPECT_EQ(dark_pore.pore_side().str(), "0-40");
  const geometry::GreyMap bright_pore = map_of("200:40", "kozeny-carman:0.5mD@0.3");
  EXPECT_DOUBLE_EQ(bright_pore.porosity(160), 0.75);
  EXPECT_EQ(bright_pore.pore_side().str(), "200-65535");
}

TEST(GreyMap, LawsPassThroughTheirCalibrationPoint) {
  const geometry::GreyMap k = map_of("0:10", "kozeny-carman:0.5mD@0.3");
  EXPECT_NEAR(k.permeability_m2(0.3) / (0.5 * mD), 1.0, 1e-15);
  EXPECT_NEAR(k.permeability_m2(0.15) / k.permeability_m2(0.3), kc(0.15) / kc(0.3), 1e-14);
  const geometry::GreyMap p = map_of("0:10", "power:2D@0.2:3.5");
  EXPECT_NEAR(p.permeability_m2(0.2) / (2000 * mD), 1.0, 1e-15);
  EXPECT_NEAR(p.permeability_m2(0.1) / p.permeability_m2(0.2), std::pow(0.5, 3.5), 1e-14);
}

// 8 bits: a phase per intensity strictly between the end members, from the pore side, each with
// its intensity's porosity and the law's k.
TEST(GreyMap, OnePhasePerIntensityBetweenTheEndMembers) {
  const geometry::GreyMap m = map_of("200:40", "power:1mD@0.5:2");
  const std::vector<geometry::GreyPhase> phases = m.phases();
  ASSERT_EQ(phases.size(), 159u);
  EXPECT_EQ(phases.front().labels.str(), "199");
  EXPECT_EQ(phases.back().labels.str(), "41");
  for (const geometry::GreyPhase& g : phases) {
    const int i = std::stoi(g.labels.str());
    EXPECT_DOUBLE_EQ(g.porosity, (40.0 - i) / (40.0 - 200.0));
    EXPECT_DOUBLE_EQ(g.permeability_m2, m.permeability_m2(g.porosity));
    EXPECT_GT(g.porosity, 0.0);
    EXPECT_LT(g.porosity, 1.0);
  }
}

// 16 bits: more intensities than phases; runs of neighbouring intensities as equal as they can
// be, covering every intensity between once, each at the porosity of its mean intensity.
TEST(GreyMap, RunsOfIntensitiesWhereThereAreMoreThanPhases) {
  const geometry::GreyMap m = map_of("1000:60000", "kozeny-carman:1mD@0.3");
  const std::vector<geometry::GreyPhase> phases = m.phases();
  ASSERT_EQ(phases.size(), static_cast<std::size_t>(physics::max_grey_phases));
  std::vector<int> covered(65536, 0);
  std::size_t shortest = 1 << 20, longest = 0;
  for (const geometry::GreyPhase& g : phases) {
    std::size_t n = 0;
    double sum = 0;
    for (int v = 0; v < 65536; ++v) {
      if (!g.labels.contains(v)) continue;
      ++covered[v];
      ++n;
      sum += v;
    }
    shortest = std::min(shortest, n);
    longest = std::max(longest, n);
    EXPECT_DOUBLE_EQ(g.porosity, m.porosity(sum / static_cast<double>(n)));
  }
  EXPECT_LE(longest - shortest, 1u);
  for (int v = 0; v < 65536; ++v) EXPECT_EQ(covered[v], v > 1000 && v < 60000 ? 1 : 0) << v;
  EXPECT_GT(phases.front().porosity, phases.back().porosity);
}

TEST(GreyMap, BadTextIsRefusedNamingWhatToWrite) {
  geometry::GreyMap m;
  for (const char* bad : {"40", "40:200:3", "a:200", "40:40", "40:41", "-1:200", "40:70000", "40.5:200"}) {
    try {
      geometry::parse_grey_intensities(bad, m);
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "sample.grey_map") << bad;
      EXPECT_NE(std::string(e.what()).find("40:200"), std::string::npos) << e.what();
    }
  }
  for (const char* bad : {"kozeny-carman", "kozeny-carman:0.5@0.3", "kozeny-carman:0.5mD@1.2", "kozeny-carman:0.5mD",
                          "power:1mD@0.3", "power:1mD@0.3:0", "power:1mD@0.3:x", "cubic:1mD@0.3"}) {
    try {
      geometry::parse_grey_law(bad, m);
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "sample.grey_law") << bad;
    }
  }
  geometry::GreyMap half;
  geometry::parse_grey_intensities("40:200", half);
  EXPECT_THROW(half.validate(), InputError);
  geometry::GreyMap other;
  geometry::parse_grey_law("power:1mD@0.3:2", other);
  EXPECT_THROW(other.validate(), InputError);
}

// What config.ini writes reads back to the same map.
TEST(GreyMap, TextRoundTrips) {
  const geometry::GreyMap m = map_of("200:40", "power:0.123456789mD@0.25:2.5");
  const geometry::GreyMap back = map_of(m.intensities_str(), m.law_str());
  EXPECT_EQ(back.pore, 200);
  EXPECT_EQ(back.solid, 40);
  EXPECT_EQ(back.k_ref_m2, m.k_ref_m2);
  EXPECT_EQ(back.porosity_ref, m.porosity_ref);
  EXPECT_EQ(back.exponent, m.exponent);
  EXPECT_EQ(back.law, geometry::PorosityLaw::power);
}

}  // namespace rockperm
