// The pore analysis of the trust report and of the time scales: distance transform, local width
// classes, specific surface and the Kozeny-Carman estimate, against exact values on slits.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "lib/geometry/distance_transform.hpp"
#include "lib/geometry/pore_statistics.hpp"
#include "lib/solve/time_scales.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {
// A slit of `width` pore voxels between solid walls of 2 voxels, across y; 6 voxels in x and z.
geometry::PoreMask slit(int width) {
  const geometry::Dims d{6, width + 4, 6};
  return testing::mask_from(d, [&](auto, auto y, auto) { return y >= 2 && y < 2 + width; });
}
}  // namespace

TEST(DistanceTransform, IsExactEuclideanDistanceToTheSeeds) {
  const geometry::Dims d{9, 7, 5};
  std::vector<std::uint8_t> seed(d.voxels(), 0);
  seed[d.linear(1, 2, 3)] = 1;
  seed[d.linear(8, 6, 0)] = 1;
  const std::vector<float> dist = geometry::distance_to(d, seed);
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) {
        const double a = std::hypot(x - 1.0, y - 2.0, z - 3.0), b = std::hypot(x - 8.0, y - 6.0, z - 0.0);
        EXPECT_NEAR(dist[d.linear(x, y, z)], std::min(a, b), 1e-5) << x << ' ' << y << ' ' << z;
      }
}

TEST(DistanceTransform, WidthClassesOfSlits) {
  // widths 2, 4, 6 and 12 voxels fall into the classes < 3, 3..5, 5..10 and >= 10
  const int widths[] = {2, 4, 6, 12};
  for (int c = 0; c < 4; ++c) {
    const geometry::PoreMask m = slit(widths[c]);
    const HostArray<std::uint8_t> classes = geometry::pore_width_classes(m);
    for (std::size_t v = 0; v < classes.size(); ++v) {
      if (m.pore[v]) EXPECT_EQ(classes[v], c) << "width " << widths[c];
      else EXPECT_EQ(classes[v], geometry::no_width_class);
    }
  }
}

namespace {

// A random medium: overlapping balls of solid (radius 1-4) in a box of odd sizes, so that the
// widths of every class occur.
geometry::PoreMask random_medium(unsigned seed_value) {
  const geometry::Dims d{37, 29, 23};
  std::mt19937 random(seed_value);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::array<double, 4>> balls;
  for (int b = 0; b < 60; ++b) balls.push_back({u(random) * d.nx, u(random) * d.ny, u(random) * d.nz, 1 + 3 * u(random)});
  return testing::mask_from(d, [&](auto x, auto y, auto z) {
    for (const auto& b : balls) {
      if (std::hypot(x - b[0], y - b[1], z - b[2]) < b[3]) return false;
    }
    return true;
  });
}

// The width classes as the exact transform gives them (the definition; the library uses the
// bounded one).
std::vector<std::uint8_t> reference_width_classes(const geometry::PoreMask& mask) {
  const std::size_t n = mask.pore.size();
  std::vector<std::uint8_t> solid(n);
  for (std::size_t i = 0; i < n; ++i) solid[i] = mask.pore[i] ? 0 : 1;
  const std::vector<float> to_solid = geometry::distance_to(mask.dims, solid);
  std::vector<std::uint8_t> classes(n, geometry::no_width_class);
  for (std::size_t i = 0; i < n; ++i) {
    if (mask.pore[i]) classes[i] = geometry::width_classes - 1;
  }
  for (int c = geometry::width_classes - 2; c >= 0; --c) {
    const double h = (geometry::width_class_limits[c] + 1.0) / 2.0;
    std::vector<std::uint8_t> centre(n);
    for (std::size_t i = 0; i < n; ++i) centre[i] = mask.pore[i] && to_solid[i] >= h ? 1 : 0;
    const std::vector<float> to_centre = geometry::distance_to(mask.dims, centre);
    for (std::size_t i = 0; i < n; ++i) {
      if (mask.pore[i] && to_centre[i] > h - 0.5) classes[i] = static_cast<std::uint8_t>(c);
    }
  }
  return classes;
}

}  // namespace

// The bounded transform: exact up to radius^2, above it elsewhere (issue 34: the pore analysis
// at memory speed gives the classes of the exact transform)
TEST(DistanceTransform, BoundedSquaredDistancesAreExactWithinTheirRadius) {
  for (unsigned trial = 0; trial < 4; ++trial) {
    const geometry::PoreMask m = random_medium(trial);
    std::vector<std::uint8_t> seed(m.pore.size());
    for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = m.pore[i] ? 0 : 1;
    const std::vector<float> exact = geometry::distance_to(m.dims, seed);
    for (const int radius : {1, 3, 6, 11}) {
      const HostArray<std::uint8_t> bounded = geometry::squared_distance_within(m.dims, seed.data(), radius);
      for (std::size_t i = 0; i < seed.size(); ++i) {
        const double d2 = std::round(static_cast<double>(exact[i]) * exact[i]);
        if (d2 <= radius * radius) {
          ASSERT_EQ(bounded[i], d2) << "trial " << trial << " radius " << radius << " voxel " << i;
        } else {
          ASSERT_GT(bounded[i], radius * radius) << "trial " << trial << " radius " << radius << " voxel " << i;
        }
      }
    }
  }
}

TEST(DistanceTransform, WidthClassesAreThoseOfTheExactTransform) {
  int seen[geometry::width_classes] = {};
  for (unsigned trial = 10; trial < 16; ++trial) {
    const geometry::PoreMask m = random_medium(trial);
    const HostArray<std::uint8_t> classes = geometry::pore_width_classes(m);
    const std::vector<std::uint8_t> fast(classes.begin(), classes.end()), reference = reference_width_classes(m);
    ASSERT_EQ(fast, reference) << "trial " << trial;
    for (const std::uint8_t c : fast) {
      if (c != geometry::no_width_class) ++seen[c];
    }
  }
  for (int c = 0; c < geometry::width_classes; ++c)
    EXPECT_GT(seen[c], 0) << "class " << c << " never occurs: a weak test";
}

// Issue 50: the classes a chunk of planes at a time (a slab's, or a volume's in pieces to bound
// the memory) are the whole mask's, plane for plane, for chunks of any size (a chunk of fewer
// planes than the reach included) and any range of planes.
TEST(DistanceTransform, WidthClassesByChunksAreTheWholeMasks) {
  const geometry::PoreMask m = random_medium(11);
  const HostArray<std::uint8_t> whole = geometry::pore_width_classes(m);
  const std::uint64_t plane = static_cast<std::uint64_t>(m.dims.nx) * m.dims.ny;
  for (const std::int64_t chunk : {1, 5, 13, 30, 1000}) {
    for (const auto& [z0, z1] : {std::pair<std::int64_t, std::int64_t>{0, m.dims.nz}, {3, m.dims.nz - 2}, {7, 8}}) {
      std::int64_t next = z0;
      geometry::pore_width_classes_by_chunks(m, z0, z1, chunk, [&](std::int64_t a, std::int64_t b, const std::uint8_t* c) {
        ASSERT_EQ(a, next);
        ASSERT_LE(b - a, chunk);
        for (std::uint64_t v = 0; v < plane * static_cast<std::uint64_t>(b - a); ++v) {
          ASSERT_EQ(c[v], whole[plane * static_cast<std::uint64_t>(a) + v]) << "chunk " << chunk << " plane " << a;
        }
        next = b;
      });
      EXPECT_EQ(next, z1) << "chunk " << chunk;
    }
  }
  EXPECT_EQ(geometry::width_chunk_planes(geometry::Dims{64, 64, 64}), (std::int64_t{1} << 29) / 4096);
  EXPECT_EQ(geometry::width_chunk_planes(geometry::Dims{40000, 40000, 8}), 4 * geometry::width_class_reach);
}

TEST(PoreStatistics, ThreadedFaceCountIsTheSerialOne) {
  for (unsigned trial = 20; trial < 23; ++trial) {
    const geometry::PoreMask m = random_medium(trial);
    const geometry::Dims& d = m.dims;
    std::uint64_t faces = 0;  // the definition, voxel by voxel
    for (std::int64_t z = 0; z < d.nz; ++z)
      for (std::int64_t y = 0; y < d.ny; ++y)
        for (std::int64_t x = 0; x < d.nx; ++x) {
          const bool here = m.is_pore(x, y, z);
          faces += (x + 1 < d.nx && here != m.is_pore(x + 1, y, z)) + (y + 1 < d.ny && here != m.is_pore(x, y + 1, z)) +
                   (z + 1 < d.nz && here != m.is_pore(x, y, z + 1));
        }
    EXPECT_EQ(geometry::pore_statistics(m).specific_surface,
              static_cast<double>(faces) / static_cast<double>(d.voxels()));
  }
}

// The pore voxels of a mask's first voxels, counted on the threads a chunk of 2^20 voxels at a
// time, are the count voxel by voxel: prefixes that end inside, at and beside a chunk's end,
// grey codes counted as pore.
TEST(PoreStatistics, PoreCountOfTheFirstVoxelsOnTheThreadsIsTheVoxelCount) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
  geometry::PoreMask m;
  m.dims = geometry::Dims{250, 160, 80};  // 3.2 M voxels: three whole chunks and a part
  m.pore.resize(m.dims.voxels());
  std::mt19937 rng(5);
  for (auto& v : m.pore) v = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0 : rng() % 3);  // solid, open and grey codes
  const std::uint64_t all = m.dims.voxels();
  for (const std::uint64_t voxels : {std::uint64_t{0}, std::uint64_t{1}, chunk - 1, chunk, chunk + 1, 2 * chunk + chunk / 2, all}) {
    std::uint64_t pore = 0;
    for (std::uint64_t i = 0; i < voxels; ++i) pore += m.pore[i] != geometry::PoreMask::solid;
    EXPECT_EQ(m.pore_count(voxels), pore) << voxels << " voxels";
  }
  std::uint64_t pore = 0;
  for (const auto v : m.pore) pore += v != 0;
  EXPECT_EQ(m.pore_count(), pore);
}

// A mask copied (on the threads, 4 MiB at a time) is the mask, byte for byte, and its own: a
// size of several chunks and a part, grey codes, a copy assigned over a larger mask, an empty mask.
TEST(PoreMask, ACopyOnTheThreadsIsTheMaskAndItsOwn) {
  geometry::PoreMask m;
  m.dims = geometry::Dims{333, 211, 101};  // 7.1 M voxels: a chunk of 4 MiB and a part
  m.pore.resize(m.dims.voxels());
  std::mt19937 rng(11);
  for (auto& v : m.pore) v = static_cast<std::uint8_t>(rng() % 5);
  geometry::PoreMask copy(m);
  EXPECT_EQ(copy.dims.voxels(), m.dims.voxels());
  EXPECT_TRUE(copy.pore == m.pore);
  copy.pore[12345] ^= 1;
  EXPECT_NE(copy.pore[12345], m.pore[12345]);  // its own bytes
  geometry::PoreMask assigned;
  assigned.dims = geometry::Dims{400, 400, 100};
  assigned.pore.resize(assigned.dims.voxels(), 3);
  assigned = m;
  EXPECT_EQ(assigned.dims.nz, 101);
  EXPECT_TRUE(assigned.pore == m.pore);
  const geometry::PoreMask none, none_copy(none);
  EXPECT_TRUE(none_copy.pore.empty());
}

TEST(PoreStatistics, SlitSurfaceDiameterAndEstimate) {
  const geometry::PoreMask m = slit(8);  // 12 x 6 x 6 voxels: 8 pore planes, two walls of 36 faces
  const geometry::PoreStatistics s = geometry::pore_statistics(m);
  EXPECT_DOUBLE_EQ(s.porosity, 8.0 / 12.0);
  EXPECT_DOUBLE_EQ(s.specific_surface, 72.0 / (6 * 12 * 6));
  EXPECT_DOUBLE_EQ(s.hydraulic_diameter, 4.0 * s.porosity / s.specific_surface);  // 16: twice the slit width
  const double open = s.porosity - geometry::percolation_porosity;
  EXPECT_DOUBLE_EQ(s.kozeny_carman_k,
                   open * open * open / (geometry::kozeny_constant * s.specific_surface * s.specific_surface));
}

TEST(TimeScales, TightSamplesRunAtSmallTauOpenOnesAtLarge) {
  geometry::PoreStatistics tight;  // a 10 % pack: pores 3.5 voxels across, k ~ 4e-3 voxel^2
  tight.porosity = 0.1;
  tight.hydraulic_diameter = 3.5;
  tight.kozeny_carman_k = 4.3e-3;
  // 148 voxels long it is balanced above the floor (nu* = (d / L) sqrt(k c_s^2 / phi) = 0.00283,
  // tau 0.521); eight times as long, at the floor
  const double nu_star = 3.5 / 148.0 * std::sqrt(4.3e-3 / 3.0 / 0.1);
  EXPECT_NEAR(solve::fastest_tau(tight, 148), 0.5 + 3.0 * solve::auto_tau_alpha * nu_star, 1e-12);
  EXPECT_DOUBLE_EQ(solve::fastest_tau(tight, 8 * 148), solve::min_auto_tau);
  const solve::TimeScales t = solve::time_scales(tight, 148, physics::viscosity(1.0));
  EXPECT_GT(t.pressure, 1000 * t.momentum);  // at tau = 1 the pressure takes all the time
  geometry::PoreStatistics open;  // a sphere array: one big pore
  open.porosity = 0.875;
  open.hydraulic_diameter = 120;
  open.kozeny_carman_k = 300;
  EXPECT_DOUBLE_EQ(solve::fastest_tau(open, 64), solve::max_auto_tau);
  geometry::PoreStatistics none;  // no estimate: tau = 1
  EXPECT_DOUBLE_EQ(solve::fastest_tau(none, 64), 1.0);
}

}  // namespace rockperm
