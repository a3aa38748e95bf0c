// The multigrid preconditioner of the conduction solve (lib/solve/conduction_system.hpp,
// ConductionMultigrid): its levels of aggregates, built on the host's threads, and the cycle
// on the host's cores (the GPU's engine runs the same cycle on these levels: cuda/conduction_engine.hpp).
#include <algorithm>
#include <string>

#include "lib/base/error.hpp"
#include "lib/solve/conduction_system.hpp"

namespace rockperm::solve {

using conduction::none;

namespace {
// (A x)_i on level L
double product(const ConductionMultigrid::Level& L, const std::vector<double>& x, std::uint64_t i) {
  double ax = L.diagonal[i] * x[i];
  const auto links = static_cast<unsigned>(L.links);
  for (unsigned f = 0; f < links; ++f) {
    const std::uint32_t j = L.col[i * links + f];
    if (j != none) ax -= L.val[i * links + f] * x[j];
  }
  return ax;
}

}  // namespace

ConductionMultigrid::ConductionMultigrid(const ConductionOperator& op) {
  Level fine;
  fine.n = op.owned();
  fine.links = op.links();
  const auto links = static_cast<unsigned>(fine.links);
  fine.col = HostArray<std::uint32_t>(fine.n * links);
  fine.val = HostArray<float>(fine.n * links);
  fine.diagonal = HostArray<double>(fine.n);
  fine.inverse = HostArray<double>(fine.n);
  fine.block = HostArray<std::array<std::int32_t, 3>>(fine.n);
  const std::uint64_t begin = op.begin();
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(fine.n); ++k) {
    const auto i = static_cast<std::uint64_t>(k);
    const auto c = static_cast<std::uint32_t>(begin + i);
    for (unsigned f = 0; f < links; ++f) {
      const std::uint32_t j = op.neighbour(i, static_cast<int>(f));
      const bool coupled = j != none && j >= begin && j < begin + fine.n;  // else none, or a ghost: another rank's
      fine.col[i * links + f] = coupled ? static_cast<std::uint32_t>(j - begin) : none;
      fine.val[i * links + f] = coupled ? static_cast<float>(op.conductance(i, static_cast<int>(f))) : 0.0f;
    }
    fine.diagonal[i] = op.diagonal(i);
    fine.inverse[i] = op.inverse(i);
    fine.block[i] = {op.local_coordinate(c, 0), op.local_coordinate(c, 1), op.local_coordinate(c, 2)};
  }
  levels_.push_back(std::move(fine));
  while (levels_.size() < max_levels && levels_.back().n > coarsest) {
    Level next = coarsen(levels_.back());
    if (next.n * 10 > levels_.back().n * 9) break;  // aggregates no longer shrink it
    levels_.push_back(std::move(next));
  }
  levels_.back().parent = {};
  for (Level& l : levels_) l.block = {};  // needed to coarsen only
}

// z = M^-1 r over the owned cells
void ConductionMultigrid::apply(const double* r, double* z) const {
  if (rhs_.empty()) {  // the host's work vectors, on the first cycle (a device engine holds its own)
    for (const Level& l : levels_) {
      rhs_.emplace_back(l.n, 0.0);
      x_.emplace_back(l.n, 0.0);
      work_.emplace_back(l.n, 0.0);
    }
  }
  std::copy(r, r + levels_[0].n, rhs_[0].begin());
  std::fill(x_[0].begin(), x_[0].end(), 0.0);
  cycle(0);
  std::copy(x_[0].begin(), x_[0].end(), z);
}


ConductionMultigrid::Level ConductionMultigrid::coarsen(Level& fine) {
  // Aggregates are numbered in the order of their (z, y, x) on the coarse grid. A level's cells
  // come in the order of their block's z (the lattice's planes; a coarse level's numbering), so
  // the cells of the blocks of one coarse z, a slab, are contiguous: each slab numbers its
  // aggregates on its own (its keys y * nx + x sorted), and the slabs follow in z: the same
  // numbering as one sort of the whole, made slab by slab on the threads.
  Level c;
  std::int32_t extent[2] = {1, 1};
  for (const auto& b : fine.block)
    for (int a = 0; a < 2; ++a) extent[a] = std::max(extent[a], b[static_cast<std::size_t>(a)] / 2 + 1);
  const auto ex = static_cast<std::uint64_t>(extent[0]);
  const auto key = [&](std::uint64_t i) {
    const auto& b = fine.block[i];
    return static_cast<std::uint64_t>(b[1] / 2) * ex + static_cast<std::uint64_t>(b[0] / 2);
  };
  std::vector<std::uint64_t> slab_first;  // first cell of each slab; then fine.n
  for (std::uint64_t i = 0; i < fine.n; ++i) {
    const std::int32_t z = fine.block[i][2] / 2;
    if (i > 0 && z < fine.block[i - 1][2] / 2) throw RuntimeFailure("internal: conduction: a level's cells out of z order");
    if (i == 0 || z != fine.block[i - 1][2] / 2) slab_first.push_back(i);
  }
  slab_first.push_back(fine.n);
  const auto slabs = static_cast<std::int64_t>(slab_first.size()) - 1;
  std::vector<std::vector<std::uint64_t>> keys(static_cast<std::size_t>(slabs));
  std::vector<std::uint64_t> first_aggregate(static_cast<std::size_t>(slabs) + 1, 0);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t k = 0; k < slabs; ++k) {
    std::vector<std::uint64_t>& slab = keys[static_cast<std::size_t>(k)];
    for (std::uint64_t i = slab_first[static_cast<std::size_t>(k)]; i < slab_first[static_cast<std::size_t>(k) + 1]; ++i) slab.push_back(key(i));
    std::sort(slab.begin(), slab.end());
    slab.erase(std::unique(slab.begin(), slab.end()), slab.end());
    first_aggregate[static_cast<std::size_t>(k) + 1] = slab.size();
  }
  for (std::int64_t k = 0; k < slabs; ++k) first_aggregate[static_cast<std::size_t>(k) + 1] += first_aggregate[static_cast<std::size_t>(k)];
  c.n = first_aggregate.back();
  fine.parent = HostArray<std::uint32_t>(fine.n);
  c.block = HostArray<std::array<std::int32_t, 3>>(c.n);
  // children of each aggregate, in cell order: an aggregate's children are cells of its own slab
  c.first_child = HostArray<std::uint64_t>(c.n + 1);
  c.children = HostArray<std::uint32_t>(fine.n);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t k = 0; k < slabs; ++k) {
    const std::vector<std::uint64_t>& slab = keys[static_cast<std::size_t>(k)];
    const std::uint64_t base = first_aggregate[static_cast<std::size_t>(k)];
    const std::uint64_t begin = slab_first[static_cast<std::size_t>(k)], end = slab_first[static_cast<std::size_t>(k) + 1];
    const std::int32_t z = fine.block[begin][2] / 2;
    for (std::uint64_t a = 0; a < slab.size(); ++a) {
      c.block[base + a] = {static_cast<std::int32_t>(slab[a] % ex), static_cast<std::int32_t>(slab[a] / ex), z};
    }
    std::vector<std::uint64_t> count(slab.size() + 1, 0);
    for (std::uint64_t i = begin; i < end; ++i) {
      const auto local = static_cast<std::uint64_t>(std::lower_bound(slab.begin(), slab.end(), key(i)) - slab.begin());
      fine.parent[i] = static_cast<std::uint32_t>(base + local);
      ++count[local + 1];
    }
    for (std::uint64_t a = 0; a < slab.size(); ++a) count[a + 1] += count[a];
    for (std::uint64_t a = 0; a < slab.size(); ++a) c.first_child[base + a] = begin + count[a];
    for (std::uint64_t i = begin; i < end; ++i) c.children[begin + count[fine.parent[i] - base]++] = static_cast<std::uint32_t>(i);
  }
  c.first_child[c.n] = fine.n;
  // the Galerkin operator: the faces between aggregates summed (the diagonal keeps what the
  // fine diagonal held beyond those faces: its ghost couplings, which no aggregate carries)
  // (an aggregate of 2 x 2 x 2 blocks meets its neighbours through the offsets its cells' links
  // have: as many slots as the stencil's links)
  c.links = fine.links;
  const auto links = static_cast<unsigned>(c.links);
  c.col = HostArray<std::uint32_t>(c.n * links);
  c.val = HostArray<float>(c.n * links);
  c.diagonal = HostArray<double>(c.n);
  c.inverse = HostArray<double>(c.n);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(c.n); ++k) {
    const auto a = static_cast<std::uint64_t>(k);
    double diagonal = 0;
    std::uint32_t* col = c.col.data() + a * links;
    float* val = c.val.data() + a * links;
    std::fill(col, col + links, none);
    std::fill(val, val + links, 0.0f);
    for (std::uint64_t ch = c.first_child[a]; ch < c.first_child[a + 1]; ++ch) {
      const std::uint32_t i = c.children[ch];
      diagonal += fine.diagonal[i];
      for (unsigned f = 0; f < links; ++f) {
        const std::uint32_t j = fine.col[static_cast<std::uint64_t>(i) * links + f];
        if (j == none) continue;
        const double g = fine.val[static_cast<std::uint64_t>(i) * links + f];
        const std::uint32_t b = fine.parent[j];
        if (b == a) {
          diagonal -= g;  // a face inside the aggregate: no longer a coupling
          continue;
        }
        unsigned slot = 0;
        while (slot < links && col[slot] != none && col[slot] != b) ++slot;
        if (slot == links) throw RuntimeFailure("internal: conduction: an aggregate with more neighbours than the stencil's links");
        col[slot] = b;
        val[slot] += static_cast<float>(g);
      }
    }
    c.diagonal[a] = diagonal > 1e-300 ? diagonal : 0.0;  // internal faces cancel to rounding
    c.inverse[a] = diagonal > 1e-300 ? 1.0 / diagonal : 0.0;
  }
  return c;
}

// x += omega D^-1 (b - A x), `count` times
void ConductionMultigrid::smooth(std::size_t l, int count) const {
  const Level& L = levels_[l];
  const std::vector<double>& b = rhs_[l];
  std::vector<double>& x = x_[l];
  std::vector<double>& t = work_[l];
  for (int s = 0; s < count; ++s) {
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(L.n); ++k) {
      const auto i = static_cast<std::uint64_t>(k);
      t[i] = L.inverse[i] == 0 ? x[i] : x[i] + omega * L.inverse[i] * (b[i] - product(L, x, i));
    }
    x.swap(t);
  }
}

int ConductionMultigrid::coarse_cycles(std::size_t l) const {
  return l < w_levels && l + 2 < levels_.size() ? 2 : 1;
}

// From x_[l] as it is (zero at the first visit of a level: the caller's)
void ConductionMultigrid::cycle(std::size_t l) const {
  if (l + 1 == levels_.size()) {
    smooth(l, coarsest_sweeps);
    return;
  }
  smooth(l, sweeps);
  const Level& L = levels_[l];
  const Level& C = levels_[l + 1];
  // the residual, restricted: each aggregate sums its children's in cell order
  std::vector<double>& res = work_[l];
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(L.n); ++k) {
    const auto i = static_cast<std::uint64_t>(k);
    res[i] = rhs_[l][i] - product(L, x_[l], i);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(C.n); ++k) {
    const auto a = static_cast<std::uint64_t>(k);
    double sum = 0;
    for (std::uint64_t ch = C.first_child[a]; ch < C.first_child[a + 1]; ++ch) sum += res[C.children[ch]];
    rhs_[l + 1][a] = sum;
  }
  std::fill(x_[l + 1].begin(), x_[l + 1].end(), 0.0);
  for (int c = 0; c < coarse_cycles(l); ++c) cycle(l + 1);  // the second from the first's iterate
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(L.n); ++k) {
    const auto i = static_cast<std::uint64_t>(k);
    x_[l][i] += scale * x_[l + 1][L.parent[i]];
  }
  smooth(l, sweeps);
}

}  // namespace rockperm::solve
