#pragma once
// Geometry builders and a steady-state driver shared by the test suites.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/backend/colour_cpu.hpp"
#include "lib/backend/cpu_backend.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/geometry/sphere_pack.hpp"
#include "lib/solve/solver.hpp"
#include "lib/lattice/sparse_lattice.hpp"

// The validation suites are built twice: against the CPU backend (validation_tests) and, with
// ROCKPERM_TEST_ON_CUDA, against the CUDA backend (gpu_validation_tests, skipped without a device).
#if ROCKPERM_TEST_ON_CUDA
#include "cuda/colour_gpu.hpp"
#include "cuda/cuda_backend.hpp"
#endif

namespace rockperm::testing {

// Empty when the backend under test can run here, else why not.
inline std::string backend_unavailable() {
#if ROCKPERM_TEST_ON_CUDA
  const cuda::DeviceList list = cuda::list_devices();
  return list.devices.empty() ? "no CUDA device: " + list.reason : std::string();
#else
  return {};
#endif
}

#define ROCKPERM_SKIP_WITHOUT_BACKEND()                                     \
  do {                                                                      \
    const std::string why = ::rockperm::testing::backend_unavailable();     \
    if (!why.empty()) GTEST_SKIP() << why;                                  \
  } while (0)

inline std::unique_ptr<backend::Backend> make_test_backend(const lattice::SparseLattice& lat,
                                                           const physics::CollisionParams& p,
                                                           physics::Storage storage = physics::Storage::float32) {
#if ROCKPERM_TEST_ON_CUDA
  return std::make_unique<cuda::CudaBackend>(lat, p, 0, storage);
#else
  return std::make_unique<backend::CpuBackend>(lat, p, storage);
#endif
}

// The colour-gradient two-phase model on the backend under test.
inline std::unique_ptr<backend::ColourBackend> make_test_colour_backend(const lattice::SparseLattice& lat,
                                                                        const physics::colour::ColourParams& p,
                                                                        std::span<const float> phi,
                                                                        physics::Storage storage = physics::Storage::float32,
                                                                        std::uint32_t cell_offset = 0) {
#if ROCKPERM_TEST_ON_CUDA
  return std::make_unique<cuda::ColourGpu>(lat, p, phi, 0, storage, cell_offset);
#else
  return std::make_unique<backend::ColourCpu>(lat, p, phi, storage, cell_offset);
#endif
}

// Records a figure in the test's XML output (--gtest_output=xml) with 6 significant digits.
inline void record(const std::string& name, double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  ::testing::Test::RecordProperty(name, text);
}

// A file of the repository: under $ROCKPERM_SOURCE_DIR where it is set, else found from the
// working directory upwards, else from the test binary's own folder upwards (tests run from the
// build tree, from the repository root or from anywhere else; no path is baked in at build time).
// Empty where none holds it: repo_file_or_skip says so.
inline std::filesystem::path repo_file(const std::string& relative) {
  namespace fs = std::filesystem;
  if (const char* root = std::getenv("ROCKPERM_SOURCE_DIR"); root && *root) {
    return fs::exists(fs::path(root) / relative) ? fs::path(root) / relative : fs::path();
  }
  std::error_code ec;
  const fs::path binary = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path start : {fs::current_path(), ec ? fs::path() : binary.parent_path()}) {
    for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / relative)) return dir / relative;
      if (dir == dir.parent_path()) break;
    }
  }
  return {};
}
// Why a test that reads it skips where repo_file finds none.
inline std::string repo_file_missing(const std::string& relative) {
  return relative + " is neither under $ROCKPERM_SOURCE_DIR nor above the working directory or the test binary: "
                    "run the tests from the repository, or set ROCKPERM_SOURCE_DIR to it";
}

inline geometry::PoreMask mask_from(const geometry::Dims& d,
                                    const std::function<bool(std::int64_t, std::int64_t, std::int64_t)>& pore) {
  geometry::PoreMask m{d, UninitializedBytes(d.voxels())};  // every voxel set below
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) m.pore[d.linear(x, y, z)] = pore(x, y, z) ? 1 : 0;
  return m;
}

inline geometry::PoreMask random_mask(const geometry::Dims& d, double porosity, std::uint64_t seed) {
  std::uint64_t s = seed;
  return mask_from(d, [&](std::int64_t, std::int64_t, std::int64_t) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) * 0x1.0p-53 < porosity;
  });
}

// The fluid index of voxel + offset under the lattice's periodicity, or none: computed from
// coordinates, independently of the neighbour tables under test.
inline std::uint32_t voxel_at(const lattice::SparseLattice& lat, const lattice::Coord& from, int dx, int dy, int dz) {
  std::int64_t t[3] = {from.x + dx, from.y + dy, from.z + dz};
  const geometry::Dims& d = lat.dims();
  for (int a = 0; a < 3; ++a) {
    if (t[a] >= 0 && t[a] < d[a]) continue;
    if (!lat.periodic()[a]) return lattice::none;
    t[a] = (t[a] + d[a]) % d[a];
  }
  return lat.index_of(t[0], t[1], t[2]);
}

// Where population i of `cell` streams to: the fluid voxel one step along e_i, unless it is
// solid, outside, or reached through a sealed edge contact (both voxels beside the diagonal
// link solid), where it bounces back (none).
inline std::uint32_t expected_link(const lattice::SparseLattice& lat, std::uint32_t cell, int i) {
  const lattice::Coord& c = lat.coords()[cell];
  const int e[3] = {d3q19::cx(i), d3q19::cy(i), d3q19::cz(i)};
  const std::uint32_t target = voxel_at(lat, c, e[0], e[1], e[2]);
  if (target == lattice::none || lat.edges() == geometry::EdgeContacts::open ||
      e[0] * e[0] + e[1] * e[1] + e[2] * e[2] != 2)
    return target;
  bool side_open = false;
  for (int a = 0; a < 3; ++a) {
    if (e[a] == 0) continue;
    int step[3] = {0, 0, 0};
    step[a] = e[a];
    side_open = side_open || voxel_at(lat, c, step[0], step[1], step[2]) != lattice::none;
  }
  return side_open ? target : lattice::none;
}

// The pore space of a synthetic pack of overlapping spheres (label 0 pore), edge n voxels.
inline geometry::PoreMask sphere_pack_mask(geometry::Dims dims, double porosity, double radius, std::uint64_t seed) {
  geometry::SpherePackSpec spec;
  spec.dims = dims;
  spec.porosity = porosity;
  spec.radius = radius;
  spec.seed = seed;
  return make_pore_mask(geometry::make_sphere_pack(spec), geometry::LabelSelection::parse("0"));
}
inline geometry::PoreMask sphere_pack_mask(std::int64_t n, double porosity, double radius, std::uint64_t seed) {
  return sphere_pack_mask(geometry::Dims{n, n, n}, porosity, radius, seed);
}

struct SteadyFlow {
  solve::SolverResult result;
  std::vector<float> f;  // final populations (deviations)
  backend::Macroscopic owned;     // density deviation and velocity of every cell
};

// Runs the CPU backend to steady state with a body force along `axis`.
inline SteadyFlow steady_flow(const lattice::SparseLattice& lat, physics::CollisionModel model, double tau, double g,
                              int axis, double tolerance = 1e-8, std::int64_t max_steps = 200000,
                              backend::Propagation propagation = backend::Propagation::two_pass) {
  const auto params = physics::make_collision_params(model, tau, 3.0 / 16.0, axis, g);
  const auto backend_ptr = make_test_backend(lat, params);
  backend::Backend& backend = *backend_ptr;
  physics::FlowProblem problem;
  problem.flow_axis = axis;
  problem.tau = tau;
  problem.acceleration = g;
  problem.region_voxels = lat.dims().voxels();
  problem.region_fluid = lat.fluid_count();
  solve::RunControls controls;
  controls.max_steps = max_steps;
  controls.check_interval = 50;
  controls.monitor.tolerance = tolerance;  // the estimated relative error of k
  controls.monitor.auto_flux_tolerance = false;  // these cases' mass balance: 1e-4, as they were validated
  controls.monitor.flux_tolerance = 1e-4;
  controls.monitor.required_checks = 3;
  controls.propagation = propagation;
  SteadyFlow out;
  out.result = solve::run_to_steady_state(backend, lat, problem, controls);
  backend.download(out.f);
  backend.macroscopic(backend.owned(), out.owned);
  return out;
}

}  // namespace rockperm::testing
