#include "lib/parallel/slab_percolation.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "lib/base/error.hpp"

namespace rockperm::parallel {

namespace {

// one rank holds the whole volume, which wraps by itself
int upper_rank(int rank, int size, bool wrap) { return rank + 1 < size ? rank + 1 : (wrap && size > 1 ? 0 : -1); }

template <class T>
void put(std::vector<std::uint8_t>& out, const T* data, std::size_t count) {
  const std::size_t at = out.size();
  out.resize(at + count * sizeof(T));
  if (count) std::memcpy(out.data() + at, data, count * sizeof(T));
}

template <class T>
std::vector<T> take(const std::vector<std::uint8_t>& in, std::size_t& at, std::size_t count) {
  std::vector<T> out(count);
  if (count) std::memcpy(out.data(), in.data() + at, count * sizeof(T));
  at += count * sizeof(T);
  return out;
}

std::uint64_t take_count(const std::vector<std::uint8_t>& in, std::size_t& at) {
  std::uint64_t n = 0;
  std::memcpy(&n, in.data() + at, sizeof n);
  at += sizeof n;
  return n;
}

// Rank 0: joins every rank's boundary clusters (`table`: gathered, rank by rank: the count, each
// cluster's faces, the count of pairs, the pairs of (its cluster, the upper rank's cluster)) and
// returns, rank by rank, one byte per boundary cluster: 1 where it joins inlet to outlet.
std::vector<std::vector<std::uint8_t>> join_boundary_clusters(const std::vector<std::uint8_t>& table, int ranks,
                                                              bool wrap) {
  std::vector<std::vector<std::uint8_t>> touches(static_cast<std::size_t>(ranks));
  std::vector<std::vector<std::uint32_t>> pairs(static_cast<std::size_t>(ranks));
  std::size_t at = 0;
  std::vector<std::uint64_t> offset(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) {
    touches[r] = take<std::uint8_t>(table, at, take_count(table, at));
    pairs[r] = take<std::uint32_t>(table, at, 2 * take_count(table, at));
    offset[r + 1] = offset[r] + touches[r].size();
  }
  std::vector<std::uint64_t> parent(offset.back());
  std::iota(parent.begin(), parent.end(), std::uint64_t{0});
  const auto find = [&](std::uint64_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  for (int r = 0; r < ranks; ++r) {
    const int up = upper_rank(r, ranks, wrap);
    for (std::size_t i = 0; i + 1 < pairs[r].size(); i += 2) {
      const std::uint64_t a = find(offset[r] + pairs[r][i]), b = find(offset[up] + pairs[r][i + 1]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<std::uint8_t> faces(parent.size(), 0);
  for (int r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < touches[r].size(); ++i) faces[find(offset[r] + i)] |= touches[r][i];
  constexpr std::uint8_t both = geometry::SlabClusters::inlet | geometry::SlabClusters::outlet;
  std::vector<std::vector<std::uint8_t>> keep(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    keep[r].resize(touches[r].size());
    for (std::size_t i = 0; i < touches[r].size(); ++i) keep[r][i] = faces[find(offset[r] + i)] == both;
  }
  return keep;
}

}  // namespace

SlabNeighbours slab_neighbours(const Comm& comm, int flow_axis, const geometry::Periodicity& periodic) {
  const bool wrap = periodic[2] && flow_axis != 2 && comm.size() > 1;
  return {comm.rank() > 0 ? comm.rank() - 1 : (wrap ? comm.size() - 1 : -1), upper_rank(comm.rank(), comm.size(), wrap)};
}

geometry::PercolationReport keep_percolating_pores(const Comm& comm, geometry::PoreMask& slab, const SlabPlanes& planes,
                                                   const geometry::Dims& whole, int flow_axis,
                                                   const geometry::Periodicity& periodic,
                                                   geometry::EdgeContacts edges) {
  const bool wrap = periodic[2] && flow_axis != 2;
  const auto [lower, upper] = slab_neighbours(comm, flow_axis, periodic);
  if (comm.size() == 1) {
    try {
      return geometry::keep_percolating_pores(slab, flow_axis, periodic, edges);
    } catch (const PhysicsError& e) {
      throw on_all_ranks(e);
    }
  }
  const std::uint64_t plane = static_cast<std::uint64_t>(slab.dims.nx) * slab.dims.ny;
  const std::uint64_t owned_voxels = plane * static_cast<std::uint64_t>(planes.owned);
  geometry::PercolationReport report;
  report.voxels = whole.voxels();
  report.pore = comm.sum(slab.pore_count(owned_voxels));

  const geometry::SlabClusters clusters(slab, planes.owned, upper >= 0, planes.z_first, planes.nz, flow_axis, periodic,
                                        edges);
  // the clusters that reach a cut: those of the first plane (the lower rank's plane above) and
  // those that the plane above joins
  const std::vector<std::uint32_t> first = lower >= 0 ? clusters.plane_clusters(0) : std::vector<std::uint32_t>{};
  const std::vector<std::uint32_t> above =
      upper >= 0 ? clusters.plane_clusters(planes.owned) : std::vector<std::uint32_t>{};
  std::vector<std::uint32_t> boundary = first;
  for (const std::uint32_t c : above)
    if (c != geometry::SlabClusters::no_cluster) boundary.push_back(c);
  std::sort(boundary.begin(), boundary.end());
  boundary.erase(std::unique(boundary.begin(), boundary.end()), boundary.end());
  const auto index = [&](std::uint32_t c) {
    return static_cast<std::uint32_t>(std::lower_bound(boundary.begin(), boundary.end(), c) - boundary.begin());
  };

  // the lower rank learns which of this rank's clusters each run of its plane above belongs to
  std::vector<std::uint32_t> sent(first.size()), received(above.size());
  for (std::size_t i = 0; i < first.size(); ++i) sent[i] = index(first[i]);
  std::vector<Comm::Transfer> sends, receives;
  constexpr int tag = 71;
  if (lower >= 0) sends.push_back({lower, tag, sent.data(), sent.size() * sizeof(std::uint32_t)});
  if (upper >= 0) receives.push_back({upper, tag, received.data(), received.size() * sizeof(std::uint32_t)});
  comm.exchange(sends, receives);

  std::vector<std::uint32_t> pairs;
  for (std::size_t i = 0; i < above.size(); ++i) {
    if (above[i] == geometry::SlabClusters::no_cluster) continue;
    pairs.push_back(index(above[i]));
    pairs.push_back(received[i]);
  }
  {  // one pair per two clusters joined
    std::vector<std::pair<std::uint32_t, std::uint32_t>> p;
    for (std::size_t i = 0; i < pairs.size(); i += 2) p.emplace_back(pairs[i], pairs[i + 1]);
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    pairs.clear();
    for (const auto& [a, b] : p) {
      pairs.push_back(a);
      pairs.push_back(b);
    }
  }
  std::vector<std::uint8_t> table;
  std::vector<std::uint8_t> faces(boundary.size());
  for (std::size_t i = 0; i < boundary.size(); ++i) faces[i] = clusters.touches(boundary[i]);
  const std::uint64_t n_boundary = boundary.size(), n_pairs = pairs.size() / 2;
  put(table, &n_boundary, 1);
  put(table, faces.data(), faces.size());
  put(table, &n_pairs, 1);
  put(table, pairs.data(), pairs.size());
  const std::vector<std::uint8_t> gathered = comm.gather_bytes(table);
  UninitializedBytes keep;
  if (comm.root()) {
    const std::vector<std::vector<std::uint8_t>> all = join_boundary_clusters(gathered, comm.size(), wrap);
    for (int r = 1; r < comm.size(); ++r) comm.send_bytes(r, all[r]);
    keep.assign(all[0].begin(), all[0].end());
  } else {
    keep = comm.receive_bytes(0);
  }

  const std::uint64_t kept = clusters.filter(slab, boundary, keep);
  report.connected = comm.sum(kept);
  if (report.connected == 0) throw on_all_ranks(geometry::no_path(whole, flow_axis, edges));
  return report;
}

}  // namespace rockperm::parallel
