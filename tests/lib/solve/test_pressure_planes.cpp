#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "lib/backend/cpu_backend.hpp"
#include "lib/base/error.hpp"
#include "lib/solve/pressure_planes.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {
// A profile over `planes` planes whose plane-mean density is rho(x), with `cells` cells each.
solve::PressureProfile profile_of(std::int64_t planes, double (*rho)(std::int64_t), double cells = 10) {
  solve::PressureProfile p;
  for (std::int64_t x = 0; x < planes; ++x) {
    p.drho_sum.push_back((rho(x) - 1.0) * cells);
    p.flux_sum.push_back(cells);
    p.cells.push_back(cells);
  }
  return p;
}
}  // namespace

TEST(PressurePlanes, InteriorReadingOfALinearProfileIsItsSlope) {
  // buffers of 4 planes around a 64-plane sample; inside it the density falls by 3e-4 per
  // plane (a pressure gradient of -1e-4 rho per plane), in the buffers by 1e-5
  const solve::PressureProfile p = profile_of(72, [](std::int64_t x) {
    if (x < 4) return 1.01 - 1e-5 * x;
    if (x < 68) return 1.01 - 4e-5 - 3e-4 * (x - 4);
    return 1.01 - 4e-5 - 3e-4 * 64 - 1e-5 * (x - 68);
  });
  const solve::PressureDrop d = solve::interior_drop(p, 4, 68);
  EXPECT_EQ(d.margin, 8);
  EXPECT_EQ(d.window, 4);
  EXPECT_DOUBLE_EQ(d.length, 44.0);  // slabs [12, 16) and [56, 60)
  const double rho = 0.5 * (d.rho_in + d.rho_out);
  EXPECT_NEAR(effective_acceleration(1e-5, d), 1e-5 + 1e-4 / rho, 1e-12);
  // the whole sample, from the planes beside its faces (3 and 68, 65 apart) over its 64 planes: the
  // sample's own 64 links and one of the buffers' (the profile carries no flux weights: plane means)
  EXPECT_NEAR(solve::whole_sample_acceleration(1e-5, p, 4, 68),
              (65 * 1e-5 + (3e-4 * 64 + 1e-5) / 3.0 / (0.5 * (p.mean_rho(3, 4) + p.mean_rho(68, 69)))) / 64.0, 1e-12);
}

TEST(PressurePlanes, ShortSamplesHaveNoInteriorReading) {
  const solve::PressureProfile p = profile_of(12, [](std::int64_t x) { return 1.0 - 1e-4 * x; });
  const solve::PressureDrop buffered = solve::interior_drop(p, 3, 9);  // 6 planes between buffers
  EXPECT_EQ(buffered.margin, 0);
  EXPECT_FALSE(solve::sample_drive(p, 1e-5, 3, 9).has_interior());
  const solve::SampleDrive mirrored = solve::sample_drive(p, 1e-5, 0, 6);  // mirror: the sample starts at plane 0
  EXPECT_DOUBLE_EQ(mirrored.acceleration, 1e-5);
  EXPECT_EQ(mirrored.period, 1);
  EXPECT_FALSE(mirrored.has_interior());
}

// The whole sample between buffers: the potential p / rho - g x lost from the buffer plane before
// the inlet face to the one after the outlet face, over the sample's own planes. Layers in series
// (the density falling fast over the end eighths, slowly in the middle) give the harmonic mean of
// their gradients, which the interior reading misses: it sees the middle alone.
TEST(PressurePlanes, TheWholeSampleIsReadFaceToFaceAndTheInteriorIsACheck) {
  // 4 buffer planes, a 64-plane sample [4, 68) whose first and last 8 planes lose 4e-4 of density
  // per plane and the rest 1e-4; the buffers hydrostatic under g (p rises by rho g per plane)
  constexpr double g = 1e-5;
  const auto rho_at = [](std::int64_t x) {
    double rho = 1.02;
    for (std::int64_t p = 0; p < x; ++p) {
      const bool buffer = p < 3 || p >= 68;  // the link from plane p to p + 1
      const bool end = (p >= 3 && p < 12) || (p >= 59 && p < 68);
      rho += buffer ? 3.0 * g : (end ? -4e-4 : -1e-4);
    }
    return rho;
  };
  static double table[72];
  for (std::int64_t x = 0; x < 72; ++x) table[x] = rho_at(x);
  const solve::PressureProfile p = profile_of(72, [](std::int64_t x) { return table[x]; });
  const solve::SampleDrive d = solve::sample_drive(p, g, 4, 68);
  EXPECT_EQ(d.period, 0);
  // the links from plane 3 to plane 68: 65 of them, 18 fast and 47 slow, over the sample's 64 planes
  const double rho_mean = 0.5 * (table[3] + table[68]);
  const double potential = 65 * g + (18 * 4e-4 + 47 * 1e-4) / 3.0 / rho_mean;
  EXPECT_NEAR(d.acceleration, potential / 64.0, 1e-12);
  EXPECT_DOUBLE_EQ(d.velocity, 10.0 / 1.0);  // profile_of: every plane carries its cells' count
  ASSERT_TRUE(d.has_interior());
  // the interior slabs [12, 16) and [56, 60) lie in the slow middle: the middle's gradient alone
  const double rho_interior = 0.5 * (p.mean_rho(12, 16) + p.mean_rho(56, 60));
  EXPECT_NEAR(d.interior_acceleration, g + 1e-4 / 3.0 / rho_interior, 1e-12);
  EXPECT_GT(d.acceleration / d.interior_acceleration - 1.0, 0.2) << "the ends did not matter: the test shows nothing";
}

// Between buffers the pressure of the planes beside the faces is weighted by the flux through
// their cells (the power delivered to the sample per unit of flux): two cells, one carrying three
// times the flux of the other at a higher density, read nearer the faster one's density.
TEST(PressurePlanes, TheFacesPressureIsWeightedByTheFlux) {
  solve::PressureProfile p;
  p.drho_sum = {1e-3 + 3e-3, 0.0};
  p.flux_sum = {1e-2 + 3e-2, 0.0};
  p.weighted_sum = {1e-3 * 1e-2 + 3e-3 * 3e-2, 0.0};
  p.cells = {2, 2};
  EXPECT_NEAR(p.flux_weighted_rho(0), 1.0 + (1e-5 + 9e-5) / 4e-2, 1e-15);  // 1.0025; the plane mean 1.002
  EXPECT_DOUBLE_EQ(p.flux_weighted_rho(1), 1.0);  // no flux: the plane mean
}

TEST(PressurePlanes, APlaneWithoutPoreIsAClearError) {
  solve::PressureProfile p = profile_of(40, [](std::int64_t) { return 1.0; });
  // a 32-plane sample at plane 4: the inlet window is [8, 10) (margin 4, 2 planes); empty it
  p.cells[8] = p.cells[9] = p.drho_sum[8] = p.drho_sum[9] = 0;
  try {
    (void)interior_drop(p, 4, 36);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hold no pore voxel"), std::string::npos) << e.what();
  }
}

// The reader's planes, worked out on the threads: along each axis its fluid cells per plane are
// the mask's pore voxels per plane, and its sums per plane those of the cells' own densities and
// velocities binned by their coordinates (a flow driven along that axis for 30 steps).
TEST(PressurePlanes, TheReadersPlanesAreTheCellsCoordinates) {
  const geometry::PoreMask mask = testing::random_mask(geometry::Dims{37, 29, 23}, 0.55, 4);
  const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {true, true, true});
  const parallel::Comm comm;
  for (int axis = 0; axis < 3; ++axis) {
    const auto p = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, axis, 1e-5);
    backend::CpuBackend cpu(lat, p);
    for (int step = 0; step < 30; ++step) backend::advance(cpu, backend::Propagation::two_pass, step);
    const std::int64_t planes = mask.dims[axis];
    const solve::PlaneReader reader(cpu, lat, comm, axis, planes, 0, 1.0);
    const solve::PressureProfile profile = reader.read();
    std::vector<double> pore(planes, 0), drho(planes, 0), flux(planes, 0), weighted(planes, 0);
    for (std::int64_t z = 0; z < mask.dims.nz; ++z)
      for (std::int64_t y = 0; y < mask.dims.ny; ++y)
        for (std::int64_t x = 0; x < mask.dims.nx; ++x) {
          const std::int64_t at[3] = {x, y, z};
          pore[at[axis]] += mask.is_pore(x, y, z);
        }
    backend::Macroscopic m;
    cpu.macroscopic(cpu.owned(), m);
    const std::vector<float>* u[3] = {&m.ux, &m.uy, &m.uz};
    for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
      const lattice::Coord& xyz = lat.coords()[c];
      const std::int64_t at[3] = {xyz.x, xyz.y, xyz.z};
      drho[at[axis]] += m.drho[c];
      flux[at[axis]] += (*u[axis])[c];
      weighted[at[axis]] += static_cast<double>(m.drho[c]) * (*u[axis])[c];
    }
    const double flux_scale = *std::max_element(flux.begin(), flux.end());
    ASSERT_GT(flux_scale, 0.0);
    for (std::int64_t q = 0; q < planes; ++q) {
      EXPECT_EQ(profile.cells[q], pore[q]) << "axis " << axis << " plane " << q;
      EXPECT_NEAR(profile.flux_sum[q], flux[q], 1e-4 * flux_scale) << "axis " << axis << " plane " << q;
      EXPECT_NEAR(profile.drho_sum[q], drho[q], 1e-6 + 1e-4 * std::abs(drho[q])) << "axis " << axis << " plane " << q;
      EXPECT_NEAR(profile.weighted_sum[q], weighted[q], 1e-10 + 1e-4 * std::abs(weighted[q])) << "axis " << axis << " plane " << q;
      if (flux[q] > 1e-3 * flux_scale) {
        EXPECT_NEAR(profile.flux_weighted_rho(q), 1.0 + weighted[q] / flux[q], 1e-6) << "axis " << axis << " plane " << q;
      }
    }
  }
}

}  // namespace rockperm
