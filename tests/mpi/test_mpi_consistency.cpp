// The same problem on 1, 2 and 3 ranks (this binary under mpirun -n N) gives populations
// bitwise equal to a single-process run made inside the same job, and the same k.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "lib/parallel/comm.hpp"
#include "lib/backend/cpu_backend.hpp"
#include "lib/parallel/device_assignment.hpp"
#include "lib/base/error.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/parallel/slab_percolation.hpp"
#include "lib/geometry/percolation.hpp"
#include "lib/physics/permeability.hpp"
#include "lib/solve/stepper.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

struct Case {
  const char* name;
  geometry::Dims dims;
  geometry::Periodicity periodic;
  std::function<bool(std::int64_t, std::int64_t, std::int64_t)> pore;
  // pore voxels that are grey phase 1 (issue 36), none where empty
  std::function<bool(std::int64_t, std::int64_t, std::int64_t)> grey = {};
};

std::vector<float> initial_state(const lattice::SparseLattice& lat, std::uint32_t first_global, std::uint32_t seed) {
  // a deterministic function of the global cell index, so every decomposition starts alike
  std::vector<float> f(d3q19::q * lat.stride(), 0.0f);
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
    for (int i = 0; i < d3q19::q; ++i) {
      std::uint64_t h = (static_cast<std::uint64_t>(first_global + c) * 19 + i) * 0x9E3779B97F4A7C15ull + seed;
      h ^= h >> 29;
      f[i * lat.stride() + c] = static_cast<float>(static_cast<double>(h % 2001) * 1e-6 - 1e-3);
    }
  }
  return f;
}

// the owned slots as stored (4 or 2 bytes each), cell by cell
std::vector<std::uint8_t> owned_populations(backend::Backend& backend, const lattice::SparseLattice& lat) {
  std::vector<std::byte> f;
  backend.download_raw(f);
  const std::size_t slot = physics::storage_bytes(backend.storage());
  std::vector<std::uint8_t> bytes;
  for (std::uint32_t c = lat.owned_begin(); c < lat.owned_end(); ++c)
    for (int i = 0; i < d3q19::q; ++i) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(f.data() + (i * lat.stride() + c) * slot);
      bytes.insert(bytes.end(), p, p + slot);
    }
  return bytes;
}

void run_case(const Case& c, backend::Propagation propagation, int steps,
              physics::Storage storage = physics::Storage::float32) {
  const parallel::Comm comm = parallel::Comm::world();
  geometry::PoreMask mask = testing::mask_from(c.dims, c.pore);
  if (c.grey) {
    for (std::int64_t z = 0; z < c.dims.nz; ++z)
      for (std::int64_t y = 0; y < c.dims.ny; ++y)
        for (std::int64_t x = 0; x < c.dims.nx; ++x)
          if (mask.is_pore(x, y, z) && c.grey(x, y, z))
            mask.pore[c.dims.linear(x, y, z)] = geometry::PoreMask::open + 1;
  }
  const std::vector<double> grey_k = {0.05};
  const auto params = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 1e-4, grey_k);
  const bool fused = propagation == backend::Propagation::fused;

  // decomposed run
  const std::vector<parallel::Slab> slabs = parallel::partition_slabs(parallel::plane_fluid_counts(mask), comm.size());
  const parallel::SlabDomain domain = parallel::slab_domain(slabs, comm.rank(), c.dims.nz, c.periodic[2]);
  const lattice::SparseLattice local =
      parallel::build_slab_lattice(parallel::extract_planes(mask, domain.planes), domain, c.periodic, fused);
  std::uint32_t first_global = 0;
  for (int r = 0; r < comm.rank(); ++r) first_global += static_cast<std::uint32_t>(slabs[r].fluid);
  ASSERT_EQ(local.owned_end() - local.owned_begin(), slabs[comm.rank()].fluid);
  // the fp16 rounding is keyed by the global cell index (CollisionParams::cell_offset)
  auto local_params = params;
  local_params.cell_offset = first_global - local.owned_begin();
  backend::CpuBackend backend(local, local_params, storage);
  {
    // the initial state of the owned cells; ghosts start as anything
    std::vector<float> f = initial_state(local, first_global - local.owned_begin(), 7);
    backend.upload(f);
  }
  solve::Stepper stepper(backend, propagation, comm, domain, local);
  for (int s = 0; s < steps; ++s) stepper.advance(s);
  const physics::FlowSums sums = stepper.sums();
  const std::vector<std::uint8_t> gathered = comm.gather_bytes(owned_populations(backend, local));

  if (!comm.root()) return;
  // the single-process reference
  const lattice::SparseLattice whole = lattice::SparseLattice::build(mask, c.periodic, fused, true);
  backend::CpuBackend reference(whole, params, storage);
  reference.upload(initial_state(whole, 0, 7));
  for (int s = 0; s < steps; ++s) advance(reference, propagation, s);
  const std::vector<std::uint8_t> expected = owned_populations(reference, whole);
  ASSERT_EQ(gathered.size(), expected.size());
  std::size_t mismatches = 0, first = 0;
  const std::size_t slot = physics::storage_bytes(storage);
  for (std::size_t k = 0; k < expected.size(); k += slot) {
    if (std::memcmp(&gathered[k], &expected[k], slot) != 0) {
      if (mismatches++ == 0) first = k / slot;
    }
  }
  EXPECT_EQ(mismatches, 0u) << c.name << " on " << comm.size() << " ranks, " << to_string(propagation) << ", "
                            << to_string(storage)
                            << ": first mismatch at global cell " << first / d3q19::q << " (z = "
                            << whole.coords()[first / d3q19::q].z << "), slot " << first % d3q19::q;
  const physics::FlowSums ref = reference.sums();
  if (ref.velocity[0] != 0.0) {
    EXPECT_NEAR(sums.velocity[0] / ref.velocity[0], 1.0, 1e-12);
  }
  EXPECT_NEAR(sums.mass / ref.mass, 1.0, 1e-12);
  if (ref.grey_velocity[0] != 0.0) {  // reduced over the ranks like the rest
    EXPECT_NEAR(sums.grey_velocity[0] / ref.grey_velocity[0], 1.0, 1e-12) << c.name;
  }
  EXPECT_EQ(ref.grey_velocity[0] != 0.0, c.grey != nullptr) << c.name;
}

std::vector<Case> cases() {
  return {
      {"random periodic", {9, 8, 12}, {true, true, true}, [](auto x, auto y, auto z) {
         return ((x * 7 + y * 13 + z * 29) * 2654435761u >> 7) % 10 < 6;
       }},
      {"random sealed z", {7, 9, 11}, {true, false, false}, [](auto x, auto y, auto z) {
         return ((x * 5 + y * 11 + z * 17) * 2654435761u >> 5) % 10 < 7;
       }},
      // three planes: with three ranks every slab is one plane, and the middle one holds no fluid
      {"one-plane slabs, empty middle", {6, 5, 3}, {true, true, true}, [](auto x, auto, auto z) {
         return z != 1 && x != 2;
       }},
      {"fully fluid", {4, 4, 6}, {true, true, true}, [](auto, auto, auto) { return true; }},
      // grey cells (their own collision) on both sides of every slab boundary
      {"grey phase", {8, 7, 12}, {true, true, true},
       [](auto x, auto y, auto z) { return ((x * 7 + y * 13 + z * 29) * 2654435761u >> 7) % 10 < 7; },
       [](auto x, auto, auto z) { return (x + z) % 3 == 0; }},
  };
}

}  // namespace

TEST(MpiConsistency, TwoPassIsBitwiseEqualToOneProcess) {
  for (const Case& c : cases()) run_case(c, backend::Propagation::two_pass, 7);
}

TEST(MpiConsistency, FusedIsBitwiseEqualToOneProcess) {
  for (const Case& c : cases()) run_case(c, backend::Propagation::fused, 8);
}

// fp16 too: its stochastic rounding is keyed by the global cell and the step, so a cell rounds
// alike on any number of ranks
TEST(MpiConsistency, Fp16IsBitwiseEqualToOneProcess) {
  for (const Case& c : cases()) {
    run_case(c, backend::Propagation::two_pass, 7, physics::Storage::float16);
    run_case(c, backend::Propagation::fused, 8, physics::Storage::float16);
  }
}

TEST(MpiConsistency, DeviceAssignmentWithInjectedHostNames) {
  const parallel::Comm comm = parallel::Comm::world();
  // ranks alternate over two fake hosts
  const std::string host = comm.rank() % 2 == 0 ? "node-a" : "node-b";
  std::string log;
  const int device = parallel::assign_device(comm, host, 4, {}, log);
  EXPECT_EQ(device, comm.rank() / 2);
  if (comm.root()) {
    EXPECT_NE(log.find("rank 0 on node-a -> GPU 0"), std::string::npos) << log;
  }
  // every rank on one host with a single GPU: over-subscribed when there is more than one rank
  if (comm.size() > 1) {
    try {
      (void)assign_device(comm, "lonely-node", 1, {}, log);
      ADD_FAILURE() << "over-subscription accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("lonely-node"), std::string::npos) << e.what();
    }
  }
}

TEST(MpiComm, SplitGroupsRanksAndReducesWithinEachGroup) {
  const parallel::Comm world = parallel::Comm::world();
  const parallel::Comm half = world.split(world.rank() % 2, world.rank());
  const int expected = (world.size() + 1 - world.rank() % 2) / 2;  // ranks of my parity
  EXPECT_EQ(half.size(), expected);
  EXPECT_EQ(half.rank(), world.rank() / 2);
  EXPECT_DOUBLE_EQ(half.sum(1.0), static_cast<double>(expected));
  EXPECT_EQ(world.sum(std::uint64_t{1}), static_cast<std::uint64_t>(world.size()));  // the world is unaffected
}

// An exchange started before a rank computes and waited for after (the CPU rank of a slab
// step): the messages of a ring arrive whole, and a second wait, or none, is harmless.
TEST(MpiComm, AStartedExchangeDeliversOnWait) {
  const parallel::Comm comm = parallel::Comm::world();
  const int up = (comm.rank() + 1) % comm.size(), down = (comm.rank() + comm.size() - 1) % comm.size();
  std::vector<std::int64_t> to_up(100000), to_down(100000), from_down(100000, -1), from_up(100000, -1);
  for (std::size_t i = 0; i < to_up.size(); ++i) {
    to_up[i] = 1000000 * comm.rank() + static_cast<std::int64_t>(i);
    to_down[i] = -to_up[i];
  }
  const std::size_t bytes = to_up.size() * sizeof(std::int64_t);
  parallel::Comm::Pending pending =
      comm.start_exchange({{up, 1, to_up.data(), bytes}, {down, 2, to_down.data(), bytes}},
                          {{down, 1, from_down.data(), bytes}, {up, 2, from_up.data(), bytes}});
  double busy = 0;  // the rank's own work meanwhile
  for (int i = 0; i < 1000000; ++i) busy += 1.0 / (1.0 + i);
  EXPECT_GT(busy, 0.0);
  pending.wait();
  pending.wait();
  for (std::size_t i = 0; i < to_up.size(); i += 997) {
    EXPECT_EQ(from_down[i], 1000000 * down + static_cast<std::int64_t>(i));
    EXPECT_EQ(from_up[i], -(1000000 * up + static_cast<std::int64_t>(i)));
  }
  {  // one left to its end: waited for there
    std::vector<std::int64_t> again(100000, -1);
    parallel::Comm::Pending unwaited =
        comm.start_exchange({{up, 3, to_up.data(), bytes}}, {{down, 3, again.data(), bytes}});
  }
  comm.barrier();
}

TEST(MpiComm, AFailureOnOneRankIsThrownOnEveryRankWithItsMessageAndKind) {
  const parallel::Comm comm = parallel::Comm::world();
  const int failing = comm.size() - 1;
  try {
    parallel::collectively(comm, [&] {
      if (comm.rank() == failing) throw InputError("rank " + std::to_string(failing) + " cannot read its planes");
    });
    ADD_FAILURE() << "no rank threw";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.all_ranks);
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(failing) + " cannot read its planes");
  }
  // the group goes on: the next collective call works on every rank
  EXPECT_NO_THROW(parallel::collectively(comm, [] {}));
  EXPECT_EQ(comm.sum(std::uint64_t{1}), static_cast<std::uint64_t>(comm.size()));
}

// Messages beyond MPI's int counts: a rank of a large run gathers or broadcasts more than 2 GiB
// (the trust report's velocities of a 712 M-cell slab on an H100 were 2.85 GB, and the gather's
// int count overflowed at the end of the run). Run on 2 ranks only (about 7 GB of memory).
TEST(MpiComm, GathersAndBroadcastsMoreThan2GiB) {
  const parallel::Comm world = parallel::Comm::world();
  if (world.size() != 2) GTEST_SKIP() << "2 ranks only";
  const std::size_t big = (std::size_t{1} << 31) + 24;
  std::vector<std::uint8_t> local(world.root() ? big : 100, 0);
  for (std::size_t i = 0; i < local.size(); i += 4096) local[i] = static_cast<std::uint8_t>(world.rank() + 1 + (i >> 30));
  local.back() = 77;
  std::vector<std::uint8_t> all = world.gather_bytes(local);
  if (world.root()) {
    ASSERT_EQ(all.size(), big + 100);
    EXPECT_EQ(all[0], 1);
    EXPECT_EQ(all[std::size_t{1} << 31], 3);  // rank 0's third GiB starts 1 + 2
    EXPECT_EQ(all[big - 1], 77);
    EXPECT_EQ(all[big], 2);  // rank 1's first byte
    EXPECT_EQ(all.back(), 77);
  } else {
    EXPECT_TRUE(all.empty());
  }
  all = {};
  local = {};
  std::vector<std::uint8_t> shared;
  if (world.root()) {
    shared.assign(big, 5);
    shared.back() = 9;
  }
  world.broadcast(shared);
  ASSERT_EQ(shared.size(), big);
  EXPECT_EQ(shared[std::size_t{1} << 31], 5);
  EXPECT_EQ(shared.back(), 9);
}

}  // namespace rockperm

namespace rockperm {

namespace {

// Rank r's slab of `whole` as read_sample_on_slabs reads it: its share of the planes and, where
// it has an upper neighbour, the plane above them.
geometry::PoreMask slab_of(const parallel::Comm& comm, const geometry::PoreMask& whole, parallel::SlabPlanes& planes,
                           int flow_axis, const geometry::Periodicity& periodic) {
  const std::int64_t nz = whole.dims.nz;
  const std::int64_t b = nz * comm.rank() / comm.size(), e = nz * (comm.rank() + 1) / comm.size();
  planes = parallel::SlabPlanes{b, e - b, nz};
  std::vector<std::int64_t> z;
  for (std::int64_t p = b; p < e; ++p) z.push_back(p);
  if (parallel::slab_neighbours(comm, flow_axis, periodic).upper >= 0) z.push_back(e % nz);
  return parallel::extract_planes(whole, z);
}

// The slabs' filter against the whole volume's: the same voxels kept, plane for plane, and the
// same report on every rank.
void expect_whole_filter(const geometry::PoreMask& mask, int axis, const geometry::Periodicity& periodic,
                         geometry::EdgeContacts edges, const std::string& what) {
  const parallel::Comm world = parallel::Comm::world();
  geometry::PoreMask whole = mask;
  geometry::PercolationReport expected;
  bool percolates = true;
  try {
    expected = geometry::keep_percolating_pores(whole, axis, periodic, edges);
  } catch (const PhysicsError&) {
    percolates = false;
  }
  parallel::SlabPlanes planes;
  geometry::PoreMask slab = slab_of(world, mask, planes, axis, periodic);
  if (!percolates) {
    try {
      (void)parallel::keep_percolating_pores(world, slab, planes, mask.dims, axis, periodic, edges);
      ADD_FAILURE() << what << ": percolates on slabs only";
    } catch (const PhysicsError& e) {
      EXPECT_EQ(e.reason(), "no_path") << what;
      EXPECT_TRUE(e.all_ranks) << what;
    }
    return;
  }
  const geometry::PercolationReport got =
      parallel::keep_percolating_pores(world, slab, planes, mask.dims, axis, periodic, edges);
  EXPECT_EQ(got.voxels, expected.voxels) << what;
  EXPECT_EQ(got.pore, expected.pore) << what;
  EXPECT_EQ(got.connected, expected.connected) << what;
  const std::uint64_t plane = static_cast<std::uint64_t>(mask.dims.nx) * mask.dims.ny;
  const std::uint64_t first = plane * static_cast<std::uint64_t>(planes.z_first);
  for (std::uint64_t v = 0; v < plane * static_cast<std::uint64_t>(planes.owned); ++v) {
    ASSERT_EQ(slab.pore[v], whole.pore[first + v]) << what << ": voxel " << first + v << " on rank " << world.rank();
  }
}

}  // namespace

// Issue 50: each rank filters its own slab, the clusters joined across the cuts. Random pore
// spaces near the percolation threshold (clusters that wind up and down through every slab),
// every flow axis, sealed and periodic lateral faces (the z wrap between the last and the first
// rank), face and edge contacts: the mask of the whole-volume filter, voxel for voxel.
TEST(MpiConsistency, SlabPercolationKeepsTheWholeVolumesPores) {
  const geometry::Dims d{17, 13, 19};
  int cases = 0;
  for (const auto edges : {geometry::EdgeContacts::sealed, geometry::EdgeContacts::open}) {
    // near the site percolation thresholds of the simple cubic lattice: 0.31 (faces), 0.14 (with edges)
    const double phi = edges == geometry::EdgeContacts::sealed ? 0.33 : 0.17;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const geometry::PoreMask m = testing::random_mask(d, phi, seed * 7919);
      for (int axis = 0; axis < 3; ++axis) {
        for (const bool lateral : {false, true}) {
          const geometry::Periodicity periodic{lateral, lateral, lateral};
          expect_whole_filter(m, axis, periodic, edges,
                              "seed " + std::to_string(seed) + " axis " + std::to_string(axis) +
                                  (lateral ? " periodic" : " sealed") + (edges == geometry::EdgeContacts::open ? " edges" : ""));
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 48);
}

// One path from inlet to outlet (x) that goes down and up through every plane: only joined
// across all the cuts (and, with the wrap, across the periodic z faces) does it percolate.
TEST(MpiConsistency, SlabPercolationFollowsAPathThroughEverySlab) {
  const geometry::Dims d{9, 5, 12};
  // x = 0..2 at z = 0..11 (y = 2), x = 2..4 at z = 11, x = 4..6 at z = 0..11 (down), x = 6..8 at z = 0
  const geometry::PoreMask snake = testing::mask_from(d, [](auto x, auto y, auto z) {
    if (y != 2) return false;
    if (x <= 2 && z == 0) return true;
    if (x == 2) return true;
    if (x >= 2 && x <= 4 && z == 11) return true;
    if (x == 4) return true;
    if (x >= 4 && z == 0) return true;
    return false;
  });
  expect_whole_filter(snake, 0, {false, false, false}, geometry::EdgeContacts::sealed, "snake");
  // cut at z = 6 in the middle of the first climb: no path, unless the z faces wrap, where x = 2
  // at z = 0 (the inlet's side) touches x = 2 at z = 11 (the outlet's) across the wrap
  const geometry::PoreMask cut = testing::mask_from(d, [&](auto x, auto y, auto z) {
    return snake.pore[d.linear(x, y, z)] != 0 && !(x == 2 && z == 6);
  });
  expect_whole_filter(cut, 0, {false, false, false}, geometry::EdgeContacts::sealed, "cut snake");
  geometry::PoreMask probe = cut;
  EXPECT_THROW((void)geometry::keep_percolating_pores(probe, 0, {false, false, false}, geometry::EdgeContacts::sealed),
               PhysicsError);
  expect_whole_filter(cut, 0, {false, false, true}, geometry::EdgeContacts::sealed, "cut snake, z wrapped");
  probe = cut;
  EXPECT_GT(geometry::keep_percolating_pores(probe, 0, {false, false, true}, geometry::EdgeContacts::sealed).connected, 0u);
}

}  // namespace rockperm
