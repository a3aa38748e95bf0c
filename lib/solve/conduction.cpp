#include "lib/solve/conduction.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "lib/base/error.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/solve/pressure_planes.hpp"

namespace rockperm::solve {

std::int64_t ConductionProblem::automatic_iterations(const geometry::Dims& whole) {
  return 20 * (whole.nx + whole.ny + whole.nz);
}

namespace {

constexpr int faces = 6;
// face f of a cell: along axis f / 2, ahead (+1) for even f, behind (-1) for odd; its D3Q19 direction
constexpr int face_direction[faces] = {1, 1 + d3q19::half, 2, 2 + d3q19::half, 3, 3 + d3q19::half};
constexpr std::uint32_t none = lattice::none;

inline double face_conductance(double a, double b) { return a == b ? a : 2.0 * a * b / (a + b); }

// The owned cells of a rank's lattice, their face neighbours and conductivities, and the
// plane-ordered sums and ghost exchange of vectors over its local cells.
class Operator {
 public:
  Operator(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
           const ConductionProblem& problem)
      : comm_(comm), local_(local), slab_(slab) {
    begin_ = local.owned_begin();
    end_ = local.owned_end();
    const std::uint64_t n = local.fluid_count();
    sigma_.resize(n);
    const auto& phases = local.phases();
    for (std::uint64_t c = 0; c < n; ++c) {
      const std::size_t phase = phases.size() != 0 ? phases[c] : 0;
      if (phase >= problem.conductivity.size()) {
        throw RuntimeFailure("internal: conduction: no conductivity for phase " + std::to_string(phase));
      }
      sigma_[c] = problem.conductivity[phase];
    }
    const std::uint64_t owned = end_ - begin_;
    neighbours_.assign(owned * faces, none);
    diagonal_.assign(owned, 0.0);
    inverse_.assign(owned, 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned); ++i) {
      const std::uint32_t c = begin_ + static_cast<std::uint32_t>(i);
      double d = 0;
      for (int f = 0; f < faces; ++f) {
        const std::uint32_t j = sigma_[c] > 0 ? local.neighbour(c, face_direction[f]) : none;
        if (j == none || sigma_[j] <= 0) continue;
        neighbours_[static_cast<std::uint64_t>(i) * faces + f] = j;
        d += face_conductance(sigma_[c], sigma_[j]);
      }
      diagonal_[static_cast<std::size_t>(i)] = d;
      inverse_[static_cast<std::size_t>(i)] = d > 0 ? 1.0 / d : 0.0;
    }
    // the owned planes: [first cell, end cell) and the global z of each
    const auto& offsets = local.plane_offsets();
    for (std::int64_t z = 0; z + 1 < static_cast<std::int64_t>(offsets.size()); ++z) {
      const std::uint64_t a = std::max<std::uint64_t>(offsets[static_cast<std::size_t>(z)], begin_);
      const std::uint64_t b = std::min<std::uint64_t>(offsets[static_cast<std::size_t>(z) + 1], end_);
      if (offsets[static_cast<std::size_t>(z)] >= begin_ && offsets[static_cast<std::size_t>(z) + 1] <= end_) {
        planes_.push_back({a, b, slab.first_local_z + z});
      } else if (a < b) {
        throw RuntimeFailure("internal: conduction: a plane partly owned");
      }
    }
    // every rank the same length (a sum over ranks): the whole lattice's planes
    planes_z_ = slab.planes_z > 0 ? slab.planes_z : static_cast<std::int64_t>(offsets.size()) - 1;
    for (const Plane& plane : planes_)
      if (plane.z < 0 || plane.z >= planes_z_) throw RuntimeFailure("internal: conduction: an owned plane outside the lattice");
    check_ghosts();
  }

  std::uint32_t begin() const { return begin_; }
  std::uint64_t owned() const { return end_ - begin_; }
  std::uint64_t cells() const { return local_.fluid_count(); }
  double sigma(std::uint32_t c) const { return sigma_[c]; }
  std::uint32_t neighbour(std::uint64_t i, int f) const { return neighbours_[i * faces + static_cast<unsigned>(f)]; }
  double diagonal(std::uint64_t i) const { return diagonal_[i]; }
  double inverse(std::uint64_t i) const { return inverse_[i]; }
  // the coordinate of local cell c along axis a in this rank's lattice
  std::int32_t local_coordinate(std::uint32_t c, int a) const {
    const lattice::Coord& x = local_.coords()[c];
    return a == 0 ? x.x : (a == 1 ? x.y : x.z);
  }
  // the global coordinate of local cell c along axis a
  std::int64_t coordinate(std::uint32_t c, int a) const {
    return local_coordinate(c, a) + (a == 2 ? slab_.first_local_z : 0);
  }

  // K sums over the owned cells, `add(cell, index of owned cell, acc)` adding into acc[0..K):
  // each plane's on one thread in cell order, the planes' in plane order, over every rank.
  template <int K, class Add>
  std::array<double, K> sums(Add&& add) const {
    std::vector<double> per_plane(static_cast<std::size_t>(planes_z_) * K, 0.0);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < static_cast<std::int64_t>(planes_.size()); ++p) {
      const Plane& plane = planes_[static_cast<std::size_t>(p)];
      std::array<double, K> acc{};
      for (std::uint64_t c = plane.first; c < plane.end; ++c) add(static_cast<std::uint32_t>(c), c - begin_, acc);
      for (int k = 0; k < K; ++k) per_plane[static_cast<std::size_t>(plane.z) * K + k] = acc[static_cast<std::size_t>(k)];
    }
    if (comm_.size() > 1) per_plane = comm_.sum(per_plane);  // one rank holds each plane: exact
    std::array<double, K> total{};
    for (std::int64_t z = 0; z < planes_z_; ++z) {
      for (int k = 0; k < K; ++k) total[static_cast<std::size_t>(k)] += per_plane[static_cast<std::size_t>(z) * K + k];
    }
    return total;
  }

  // The ghost planes of `v` (a value per local cell) from the neighbouring ranks' owned planes.
  void exchange(std::vector<double>& v) const {
    if (!slab_.domain || comm_.size() == 1) return;
    std::vector<parallel::Comm::Transfer> sends, receives;
    const auto at = [&](std::int64_t z) { return v.data() + local_.plane_offsets()[static_cast<std::size_t>(z)]; };
    const auto bytes = [&](std::int64_t z) {
      const auto& o = local_.plane_offsets();
      return (o[static_cast<std::size_t>(z) + 1] - o[static_cast<std::size_t>(z)]) * sizeof(double);
    };
    const parallel::SlabDomain& d = *slab_.domain;
    const std::int64_t nz = local_.dims().nz, low = d.ghost_low ? 1 : 0, high = nz - 1 - (d.ghost_high ? 1 : 0);
    if (d.ghost_low) {
      sends.push_back({d.lower, tag_down, at(low), bytes(low)});
      receives.push_back({d.lower, tag_up, at(0), bytes(0)});
    }
    if (d.ghost_high) {
      sends.push_back({d.upper, tag_up, at(high), bytes(high)});
      receives.push_back({d.upper, tag_down, at(nz - 1), bytes(nz - 1)});
    }
    comm_.exchange(sends, receives);
  }

 private:
  static constexpr int tag_down = 5101, tag_up = 5102;
  struct Plane {
    std::uint64_t first, end;
    std::int64_t z;
  };

  // A ghost plane holds as many cells as the owned plane it mirrors (the same plane of the same
  // mask); the exchange relies on it.
  void check_ghosts() const {
    if (!slab_.domain || comm_.size() == 1) return;
    const auto& o = local_.plane_offsets();
    const auto nz = static_cast<std::size_t>(local_.dims().nz);
    // every owned cell sends its index, every ghost starts at -1: a ghost plane's last cell is
    // filled only where the message was as long as the plane (rank by rank the same test)
    std::vector<double> probe(local_.fluid_count(), -1.0);
    for (std::uint64_t c = begin_; c < end_; ++c) probe[c] = static_cast<double>(c);
    exchange(probe);
    std::uint64_t mismatched = 0;
    if (slab_.domain->ghost_low && o[1] > o[0] && probe[o[1] - 1] < 0) ++mismatched;
    if (slab_.domain->ghost_high && o[nz] > o[nz - 1] && probe[o[nz] - 1] < 0) ++mismatched;
    if (comm_.sum(mismatched) != 0) throw RuntimeFailure("internal: conduction: a ghost plane was not filled");
  }

  parallel::Comm comm_;
  const lattice::SparseLattice& local_;
  ConductionSlab slab_;
  std::uint32_t begin_ = 0, end_ = 0;
  std::vector<double> sigma_;
  std::vector<std::uint32_t> neighbours_;
  std::vector<double> diagonal_, inverse_;
  std::vector<Plane> planes_;
  std::int64_t planes_z_ = 0;
};

// The multigrid preconditioner (ConductionProblem::Preconditioner::multigrid): a V-cycle over
// levels of 2 x 2 x 2 aggregates of this rank's owned cells (plain aggregation: a coarse cell's
// conductance to another is the sum of the fine faces between them, its operator P^T A P with P
// the piecewise-constant prolongation), damped Jacobi smoothing before and after (the same
// sweeps, so the cycle is symmetric, as CG needs), the coarse correction scaled by 1.8 (what
// piecewise-constant prolongation undershoots), sweeps on the coarsest level. Couplings to the
// ghost cells are left out (a block of the operator per rank: the iterates then depend on the
// rank count, F within its error). Deterministic: every loop is per cell, a coarse cell's
// restriction sums its children in cell order.
class Multigrid {
 public:
  explicit Multigrid(const Operator& op) {
    Level fine;
    fine.n = op.owned();
    fine.col.assign(fine.n * faces, none);
    fine.val.assign(fine.n * faces, 0.0f);
    fine.diagonal.resize(fine.n);
    fine.inverse.resize(fine.n);
    fine.block.resize(fine.n);
    const std::uint64_t begin = op.begin();
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(fine.n); ++k) {
      const auto i = static_cast<std::uint64_t>(k);
      const auto c = static_cast<std::uint32_t>(begin + i);
      for (int f = 0; f < faces; ++f) {
        const std::uint32_t j = op.neighbour(i, f);
        if (j == none || j < begin || j >= begin + fine.n) continue;  // a ghost: another rank's
        fine.col[i * faces + static_cast<unsigned>(f)] = static_cast<std::uint32_t>(j - begin);
        fine.val[i * faces + static_cast<unsigned>(f)] = static_cast<float>(face_conductance(op.sigma(c), op.sigma(j)));
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
    levels_.back().parent.clear();
    for (const Level& l : levels_) {
      rhs_.emplace_back(l.n, 0.0);
      x_.emplace_back(l.n, 0.0);
      work_.emplace_back(l.n, 0.0);
    }
  }
  std::size_t levels() const { return levels_.size(); }

  // z = M^-1 r over the owned cells
  void apply(const double* r, double* z) const {
    std::copy(r, r + levels_[0].n, rhs_[0].begin());
    cycle(0);
    std::copy(x_[0].begin(), x_[0].end(), z);
  }

 private:
  static constexpr std::size_t max_levels = 16;
  static constexpr std::uint64_t coarsest = 64;
  static constexpr int sweeps = 2, coarsest_sweeps = 20;
  static constexpr double omega = 0.8, scale = 1.8;

  struct Level {
    std::uint64_t n = 0;
    std::vector<std::uint32_t> col;  // faces per cell: the neighbour's index on this level, or none
    std::vector<float> val;          // its conductance
    std::vector<double> diagonal;    // the full operator's (ghost couplings included)
    std::vector<double> inverse;     // 1 / it, 0 for a cell that couples to nothing
    std::vector<std::array<std::int32_t, 3>> block;  // the cell's position on this level's grid
    std::vector<std::uint32_t> parent;                // its aggregate on the next level
    std::vector<std::uint64_t> first_child;           // of aggregate a on this level: children of the level above
    std::vector<std::uint32_t> children;              //   first_child[a] .. first_child[a + 1], in cell order
  };

  static Level coarsen(Level& fine) {
    Level c;
    std::vector<std::uint64_t> key(fine.n);
    std::int32_t extent[3] = {1, 1, 1};
    for (const auto& b : fine.block)
      for (int a = 0; a < 3; ++a) extent[a] = std::max(extent[a], b[static_cast<std::size_t>(a)] / 2 + 1);
    for (std::uint64_t i = 0; i < fine.n; ++i) {
      const auto& b = fine.block[i];
      key[i] = (static_cast<std::uint64_t>(b[2] / 2) * static_cast<std::uint64_t>(extent[1]) + static_cast<std::uint64_t>(b[1] / 2)) *
                   static_cast<std::uint64_t>(extent[0]) + static_cast<std::uint64_t>(b[0] / 2);
    }
    std::vector<std::uint64_t> keys(key);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    c.n = keys.size();
    fine.parent.resize(fine.n);
    for (std::uint64_t i = 0; i < fine.n; ++i) {
      fine.parent[i] = static_cast<std::uint32_t>(std::lower_bound(keys.begin(), keys.end(), key[i]) - keys.begin());
    }
    c.block.resize(c.n);
    for (std::uint64_t a = 0; a < c.n; ++a) {
      const std::uint64_t k = keys[a];
      c.block[a] = {static_cast<std::int32_t>(k % static_cast<std::uint64_t>(extent[0])),
                    static_cast<std::int32_t>(k / static_cast<std::uint64_t>(extent[0]) % static_cast<std::uint64_t>(extent[1])),
                    static_cast<std::int32_t>(k / static_cast<std::uint64_t>(extent[0]) / static_cast<std::uint64_t>(extent[1]))};
    }
    // children of each aggregate, in cell order
    c.first_child.assign(c.n + 1, 0);
    for (std::uint64_t i = 0; i < fine.n; ++i) ++c.first_child[fine.parent[i] + 1];
    for (std::uint64_t a = 0; a < c.n; ++a) c.first_child[a + 1] += c.first_child[a];
    c.children.resize(fine.n);
    std::vector<std::uint64_t> fill(c.first_child.begin(), c.first_child.end() - 1);
    for (std::uint64_t i = 0; i < fine.n; ++i) c.children[fill[fine.parent[i]]++] = static_cast<std::uint32_t>(i);
    // the Galerkin operator: the faces between aggregates summed (the diagonal keeps what the
    // fine diagonal held beyond those faces: its ghost couplings, which no aggregate carries)
    c.col.assign(c.n * faces, none);
    c.val.assign(c.n * faces, 0.0f);
    c.diagonal.assign(c.n, 0.0);
    c.inverse.assign(c.n, 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(c.n); ++k) {
      const auto a = static_cast<std::uint64_t>(k);
      double diagonal = 0;
      std::uint32_t* col = c.col.data() + a * faces;
      float* val = c.val.data() + a * faces;
      for (std::uint64_t ch = c.first_child[a]; ch < c.first_child[a + 1]; ++ch) {
        const std::uint32_t i = c.children[ch];
        diagonal += fine.diagonal[i];
        for (int f = 0; f < faces; ++f) {
          const std::uint32_t j = fine.col[static_cast<std::uint64_t>(i) * faces + static_cast<unsigned>(f)];
          if (j == none) continue;
          const double g = fine.val[static_cast<std::uint64_t>(i) * faces + static_cast<unsigned>(f)];
          const std::uint32_t b = fine.parent[j];
          if (b == a) {
            diagonal -= g;  // a face inside the aggregate: no longer a coupling
            continue;
          }
          int slot = 0;
          while (slot < faces && col[slot] != none && col[slot] != b) ++slot;
          if (slot == faces) throw RuntimeFailure("internal: conduction: an aggregate with more than 6 neighbours");
          col[slot] = b;
          val[slot] += static_cast<float>(g);
        }
      }
      c.diagonal[a] = diagonal > 1e-300 ? diagonal : 0.0;  // internal faces cancel to rounding
      c.inverse[a] = diagonal > 1e-300 ? 1.0 / diagonal : 0.0;
    }
    return c;
  }

  // (A x)_i on level L
  static double product(const Level& L, const std::vector<double>& x, std::uint64_t i) {
    double ax = L.diagonal[i] * x[i];
    for (int f = 0; f < faces; ++f) {
      const std::uint32_t j = L.col[i * faces + static_cast<unsigned>(f)];
      if (j != none) ax -= L.val[i * faces + static_cast<unsigned>(f)] * x[j];
    }
    return ax;
  }

  // x += omega D^-1 (b - A x), `count` times
  void smooth(std::size_t l, int count) const {
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

  void cycle(std::size_t l) const {
    std::fill(x_[l].begin(), x_[l].end(), 0.0);
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
    cycle(l + 1);
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(L.n); ++k) {
      const auto i = static_cast<std::uint64_t>(k);
      x_[l][i] += scale * x_[l + 1][L.parent[i]];
    }
    smooth(l, sweeps);
  }

  std::vector<Level> levels_;
  mutable std::vector<std::vector<double>> rhs_, x_, work_;
};

// Where the sample's conductivity is read (see the header).
struct Reading {
  enum class Kind { energy, interior } kind = Kind::energy;
  std::int64_t in = 0, out = 0, window = 1;  // interior: the slabs [in, in + window), [out, out + window)
  double length = 1;                          // between them
};

Reading reading_of(const ConductionProblem& p) {
  Reading r;
  if (!p.interior) return r;
  const std::int64_t length = p.sample_end - p.sample_begin;
  if (length >= 8) {
    const InteriorSlabs s = interior_slabs(p.sample_begin, p.sample_end);
    r = {Reading::Kind::interior, s.in, s.out, s.window, static_cast<double>(s.out - s.in)};
  } else if (p.sample_begin > 0) {  // the planes just outside a short sample
    r = {Reading::Kind::interior, p.sample_begin - 1, p.sample_end, 1, static_cast<double>(length + 1)};
  }  // a short mirrored sample: the period's energy (it is the sample twice)
  return r;
}

}  // namespace

ConductionResult solve_conduction(const parallel::Comm& comm, const lattice::SparseLattice& local,
                                  const ConductionSlab& slab, const ConductionProblem& problem, bool keep_potential,
                                  const ConductionProgress& progress) {
  const auto started = std::chrono::steady_clock::now();
  if (problem.axis < 0 || problem.axis > 2) throw RuntimeFailure("internal: conduction along axis " + std::to_string(problem.axis));
  if (problem.region_voxels == 0) throw RuntimeFailure("internal: conduction over no voxel");
  const Operator op(comm, local, slab, problem);
  const Reading reading = reading_of(problem);
  const int axis = problem.axis;
  const std::uint64_t owned = op.owned(), begin = op.begin();
  const double voxels = static_cast<double>(problem.region_voxels);

  // b: minus the drive's conductances along the axis (ahead +1, behind -1)
  std::vector<double> x(op.cells(), 0.0), p(op.cells(), 0.0), r(owned), z(owned), q(owned);
  std::optional<Multigrid> multigrid;
  if (problem.preconditioner == ConductionProblem::Preconditioner::multigrid && owned > 0) multigrid.emplace(op);
  const auto precondition = [&] {  // z = M^-1 r
    if (multigrid) {
      multigrid->apply(r.data(), z.data());
      return;
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned); ++i) {
      z[static_cast<std::uint64_t>(i)] = op.inverse(static_cast<std::uint64_t>(i)) * r[static_cast<std::uint64_t>(i)];
    }
  };
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned); ++i) {
    const auto u = static_cast<std::uint64_t>(i);
    const std::uint32_t c = begin + static_cast<std::uint32_t>(i);
    double b = 0;
    const std::uint32_t ahead = op.neighbour(u, 2 * axis), behind = op.neighbour(u, 2 * axis + 1);
    if (ahead != none) b -= face_conductance(op.sigma(c), op.sigma(ahead));
    if (behind != none) b += face_conductance(op.sigma(c), op.sigma(behind));
    r[u] = b;
  }
  precondition();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned); ++i) p[begin + static_cast<std::uint32_t>(i)] = z[static_cast<std::uint64_t>(i)];
  double rho = op.sums<1>([&](std::uint32_t, std::uint64_t i, std::array<double, 1>& a) { a[0] += r[i] * z[i]; })[0];
  const double rho0 = rho;

  // the interior slabs' conducting cells
  std::array<double, 2> slab_cells{};
  if (reading.kind == Reading::Kind::interior) {
    slab_cells = op.sums<2>([&](std::uint32_t c, std::uint64_t, std::array<double, 2>& a) {
      const std::int64_t t = op.coordinate(c, axis);
      if (t >= reading.in && t < reading.in + reading.window) a[0] += 1;
      if (t >= reading.out && t < reading.out + reading.window) a[1] += 1;
    });
  }
  // sigma_eff / sigma_w from the iterate x (its ghosts exchanged); `field` the mean field it divides by
  double field = 1.0;
  const auto conductivity = [&] {
    const std::array<double, 4> s = op.sums<4>([&](std::uint32_t c, std::uint64_t i, std::array<double, 4>& a) {
      for (int f = 0; f < faces; f += 2) {  // each face once: the one ahead of its cell
        const std::uint32_t j = op.neighbour(i, f);
        if (j == none) continue;
        const double g = face_conductance(op.sigma(c), op.sigma(j));
        const double drop = x[c] - x[j] + (f / 2 == axis ? 1.0 : 0.0);
        a[0] += g * drop * drop;
        if (f / 2 == axis) a[1] += g * drop;  // the current ahead
      }
      if (reading.kind == Reading::Kind::interior) {
        const std::int64_t t = op.coordinate(c, axis);
        if (t >= reading.in && t < reading.in + reading.window) a[2] += x[c];
        if (t >= reading.out && t < reading.out + reading.window) a[3] += x[c];
      }
    });
    if (reading.kind == Reading::Kind::energy) return s[0] / voxels;
    if (slab_cells[0] == 0 || slab_cells[1] == 0) return 0.0;
    field = 1.0 - (s[3] / slab_cells[1] - s[2] / slab_cells[0]) / reading.length;
    return field > 0 ? s[1] / voxels / field : 0.0;
  };

  const std::int64_t interval = std::max<std::int64_t>(1, problem.check_interval);
  const std::int64_t limit = problem.max_iterations > 0 ? problem.max_iterations : std::int64_t{1} << 40;
  ConductionResult result;
  std::vector<std::pair<std::int64_t, double>> history;  // (iteration, conductivity) at every check
  int agreeing = 0;
  std::int64_t n = 0;
  const auto check = [&]() -> bool {  // true: done
    op.exchange(x);
    const double sigma = conductivity();
    history.emplace_back(n, sigma);
    result.conductivity = sigma;
    result.residual = rho0 > 0 ? std::sqrt(std::max(0.0, rho) / rho0) : 0.0;
    result.iterations = n;
    // the largest change against any reading of the last half of the iterations (at least two
    // checks back): the interior reading need not move monotonically
    const std::int64_t back = std::max(2 * interval, n / 2);
    result.error = 1.0;
    if (n >= back && sigma > 0) {
      result.error = 0;
      for (const auto& [at, value] : history) {
        if (at >= n - back && at < n) result.error = std::max(result.error, std::abs(sigma - value) / sigma);
      }
    }
    // no drive, or solved to rounding (going on would only stir the rounding up): the change
    // read so far is the error, where there is one
    if (rho0 == 0 || rho == 0 || result.residual < 1e-13) {
      if (result.error >= 1.0) result.error = 0;
      result.converged = true;
      return true;
    }
    if (progress) progress({n, sigma, result.error, result.residual});
    agreeing = (n >= 2 * interval && result.error < problem.tolerance && result.residual < problem.tolerance) ? agreeing + 1 : 0;
    result.converged = agreeing >= 2;
    return result.converged;
  };

  bool exhausted = false;
  bool done = check();
  while (!done && n < limit) {
    op.exchange(p);
    const double pq = op.sums<1>([&](std::uint32_t c, std::uint64_t i, std::array<double, 1>& a) {
      double v = op.diagonal(i) * p[c];
      for (int f = 0; f < faces; ++f) {
        const std::uint32_t j = op.neighbour(i, f);
        if (j != none) v -= face_conductance(op.sigma(c), op.sigma(j)) * p[j];
      }
      q[i] = v;
      a[0] += p[c] * v;
    })[0];
    if (!(pq > 0)) {  // the search direction vanished: solved to rounding
      exhausted = true;
      break;
    }
    const double alpha = rho / pq;
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(owned); ++k) {
      const auto i = static_cast<std::uint64_t>(k);
      x[begin + static_cast<std::uint32_t>(k)] += alpha * p[begin + static_cast<std::uint32_t>(k)];
      r[i] -= alpha * q[i];
    }
    precondition();
    const double next = op.sums<1>([&](std::uint32_t, std::uint64_t i, std::array<double, 1>& a) { a[0] += r[i] * z[i]; })[0];
    const double beta = next / rho;
    rho = next;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned); ++i) {
      const std::uint32_t c = begin + static_cast<std::uint32_t>(i);
      p[c] = z[static_cast<std::uint64_t>(i)] + beta * p[c];
    }
    ++n;
    if (n % interval == 0 || n >= limit) done = check();
  }
  if (!done && (history.empty() || history.back().first != n)) check();
  if (exhausted && result.residual < problem.tolerance) {  // nothing left to change
    result.converged = true;
    result.error = 0;
  }
  result.field = field;
  if (keep_potential) {
    result.potential.resize(owned);
    for (std::uint64_t i = 0; i < owned; ++i) {
      const std::uint32_t c = begin + static_cast<std::uint32_t>(i);
      result.potential[i] = static_cast<float>(x[c] - static_cast<double>(op.coordinate(c, axis)));
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace rockperm::solve
