#pragma once
// The parts of the conduction solve (lib/solve/conduction.hpp) that every place it runs shares:
// the operator of one rank's cells as the host builds it (ConductionOperator), the multigrid
// hierarchy over them (ConductionMultigrid), where the sample's conductivity is read
// (ConductionReadingSlabs), and the interface (ConductionEngine) through which the one
// conjugate-gradient loop of conduction.cpp drives the vectors where they live: on the host's
// cores (the reference, conduction.cpp) or on a GPU (cuda/conduction_engine.hpp), the same
// operations in the same order.
//
// Every sum an engine returns is per plane along z (`planes_z * K` values, plane z's at
// [z * K, z * K + K), zero for a plane the rank does not own); ConductionOperator::total adds them
// over the ranks and then in plane order, so the totals do not depend on the thread count.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/host_array.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/solve/conduction.hpp"
#include "lib/solve/conduction_face.hpp"

namespace rockperm::solve {

static_assert(conduction::none == lattice::none);

// A plane of a rank's owned cells: [first, end) in local cell order, z its global index.
struct ConductionPlane {
  std::uint64_t first, end;
  std::int64_t z;
};

// The owned cells of a rank's lattice, their face neighbours and conductivities, and the
// plane-ordered totals and ghost exchange of vectors over its local cells.
class ConductionOperator {
 public:
  ConductionOperator(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
                     const ConductionProblem& problem);

  std::uint32_t begin() const { return begin_; }
  std::uint64_t owned() const { return end_ - begin_; }
  std::uint64_t cells() const { return local_.fluid_count(); }
  // the stencil's links per cell (conduction_face.hpp: 6 faces or 18 links)
  int links() const { return links_; }
  double sigma(std::uint32_t c) const { return sigma_[c]; }
  // the neighbour across link l of owned cell i (local index, ghosts included), or none where no current passes
  std::uint32_t neighbour(std::uint64_t i, int l) const { return neighbours_[i * static_cast<unsigned>(links_) + static_cast<unsigned>(l)]; }
  // the cells' face conductance across link l, and the link's (its weight times that)
  double unit_conductance(std::uint64_t i, int l) const {
    const std::uint32_t j = neighbour(i, l);
    return j == conduction::none ? 0.0 : conduction::face_conductance(sigma_[begin_ + i], sigma_[j]);
  }
  double conductance(std::uint64_t i, int l) const { return conduction::link_weight(links_, l) * unit_conductance(i, l); }
  double diagonal(std::uint64_t i) const { return diagonal_[i]; }
  double inverse(std::uint64_t i) const { return inverse_[i]; }
  // the arrays behind these: neighbour_data()[i * links() + l], sigma_data()[local cell], the others per owned cell
  const std::uint32_t* neighbour_data() const { return neighbours_.data(); }
  const double* sigma_data() const { return sigma_.data(); }
  const double* diagonal_data() const { return diagonal_.data(); }
  const double* inverse_data() const { return inverse_.data(); }
  // the coordinate of local cell c along axis a in this rank's lattice
  std::int32_t local_coordinate(std::uint32_t c, int a) const {
    const lattice::Coord& x = local_.coords()[c];
    return a == 0 ? x.x : (a == 1 ? x.y : x.z);
  }
  // the global coordinate of local cell c along axis a
  std::int64_t coordinate(std::uint32_t c, int a) const {
    return local_coordinate(c, a) + (a == 2 ? slab_.first_local_z : 0);
  }
  const std::vector<ConductionPlane>& planes() const { return planes_; }
  std::int64_t planes_z() const { return planes_z_; }
  // first cell of local plane z (ghost planes included); [z] .. [z + 1) its cells
  const std::vector<std::uint64_t>& local_plane_offsets() const { return local_.plane_offsets(); }

  // K sums per plane over the owned cells, `add(cell, index of owned cell, acc)` adding into
  // acc[0..K): each plane's on one thread in cell order.
  template <int K, class Add>
  std::vector<double> plane_sums(Add&& add) const {
    std::vector<double> per_plane(static_cast<std::size_t>(planes_z_) * K, 0.0);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < static_cast<std::int64_t>(planes_.size()); ++p) {
      const ConductionPlane& plane = planes_[static_cast<std::size_t>(p)];
      std::array<double, K> acc{};
      for (std::uint64_t c = plane.first; c < plane.end; ++c) add(static_cast<std::uint32_t>(c), c - begin_, acc);
      for (int k = 0; k < K; ++k) per_plane[static_cast<std::size_t>(plane.z) * K + k] = acc[static_cast<std::size_t>(k)];
    }
    return per_plane;
  }
  // The totals of per-plane sums: over every rank (one rank holds each plane: exact), then in plane order.
  template <int K>
  std::array<double, K> total(std::vector<double> per_plane) const {
    if (comm_.size() > 1) per_plane = comm_.sum(per_plane);
    std::array<double, K> t{};
    for (std::int64_t z = 0; z < planes_z_; ++z) {
      for (int k = 0; k < K; ++k) t[static_cast<std::size_t>(k)] += per_plane[static_cast<std::size_t>(z) * K + k];
    }
    return t;
  }
  template <int K, class Add>
  std::array<double, K> sums(Add&& add) const {
    return total<K>(plane_sums<K>(std::forward<Add>(add)));
  }

  // The ghost planes of `v` (a value per local cell) from the neighbouring ranks' owned planes;
  // only the owned planes next to a ghost plane are read.
  void exchange(double* v) const;
  // The same, each local plane z's values at at(z): only the planes `sent` and `received` name.
  void exchange(const std::function<double*(std::int64_t)>& at) const;
  // Whether this rank has ghost planes to exchange; the local planes whose values it sends
  // (owned, next to a ghost plane) and those it receives (the ghost planes).
  bool exchanges() const { return slab_.domain && comm_.size() > 1; }
  std::vector<std::int64_t> sent_planes() const;
  std::vector<std::int64_t> received_planes() const;

 private:
  void check_ghosts() const;

  parallel::Comm comm_;
  const lattice::SparseLattice& local_;
  ConductionSlab slab_;
  int links_ = conduction::faces;
  std::uint32_t begin_ = 0, end_ = 0;
  // HostArray: filled on the threads, so that the first touch of their pages is spread too
  HostArray<double> sigma_;
  HostArray<std::uint32_t> neighbours_;
  HostArray<double> diagonal_, inverse_;
  std::vector<ConductionPlane> planes_;
  std::int64_t planes_z_ = 0;
};

// The multigrid preconditioner (ConductionProblem::Preconditioner::multigrid): a cycle over
// levels of 2 x 2 x 2 aggregates of this rank's owned cells (plain aggregation: a coarse cell's
// conductance to another is the sum of the fine faces between them, its operator P^T A P with P
// the piecewise-constant prolongation), damped Jacobi smoothing before and after (the same
// sweeps, so the cycle is symmetric, as CG needs), the coarse correction scaled by 1.8 (what
// piecewise-constant prolongation undershoots; below 2, where two cycles of a level stay positive
// definite: at 2 the series layers' solve broke down), sweeps on the coarsest level. The
// corrections from the first `w_levels` coarse levels are two cycles there, the second from the
// first's iterate (a W-cycle on top, a V-cycle below: a plain-aggregation V-cycle loses the slow
// modes of pore regions joined by throats from level to level; on a 128^3 10 % pack between
// buffers the lattice's density rates took 63 CG iterations with a V-cycle, 21 with this, F's drive
// 120 and 60, each iteration about a quarter dearer on the host's cores). Each pass of a level has
// an even number of sweeps, so its vectors end where they began (a GPU's cycle is recorded once
// and replayed). Couplings to the ghost cells are left out (a block of the operator per rank: the
// iterates then depend on the rank count, F within its error). Deterministic: every loop is per cell, a coarse cell's
// restriction sums its children in cell order.
class ConductionMultigrid {
 public:
  static constexpr std::size_t max_levels = 16;
  static constexpr std::uint64_t coarsest = 64;
  static constexpr int sweeps = 2, coarsest_sweeps = 20;
  static constexpr double omega = 0.8, scale = 1.8;
  static constexpr std::size_t w_levels = 3;

  // HostArrays, filled on the threads
  struct Level {
    std::uint64_t n = 0;
    int links = conduction::faces;  // slots per cell: the operator's links (the aggregates of a stencil keep its reach)
    HostArray<std::uint32_t> col;  // links per cell, [i * links + l]: a neighbour's index on this level, or none
    HostArray<float> val;          // its conductance
    HostArray<double> diagonal;    // the full operator's (ghost couplings included)
    HostArray<double> inverse;     // 1 / it, 0 for a cell that couples to nothing
    HostArray<std::array<std::int32_t, 3>> block;  // the cell's position on this level's grid (while coarsening)
    HostArray<std::uint32_t> parent;                // its aggregate on the next level (none on the coarsest)
    HostArray<std::uint64_t> first_child;           // of aggregate a on this level: children of the level above
    HostArray<std::uint32_t> children;              //   first_child[a] .. first_child[a + 1], in cell order
  };

  explicit ConductionMultigrid(const ConductionOperator& op);
  const std::vector<Level>& levels() const { return levels_; }
  // The cycles of level l + 1 that make level l's coarse correction (2 on the top w_levels, where
  // a coarser level exists below l + 1; else 1)
  int coarse_cycles(std::size_t l) const;

  // z = M^-1 r over the owned cells, on the host's cores
  void apply(const double* r, double* z) const;

 private:
  static Level coarsen(Level& fine);
  void smooth(std::size_t l, int count) const;
  void cycle(std::size_t l) const;

  std::vector<Level> levels_;
  mutable std::vector<std::vector<double>> rhs_, x_, work_;
};

// The vectors of the solve (x and p over every local cell, r, z and q over the owned ones) and the
// operations on them, where they live. Each returns its per-plane sums in `planes` (see above).
class ConductionEngine {
 public:
  virtual ~ConductionEngine() = default;
  // x = 0, r = b (the drive, or `rhs` where given: a value per owned cell), z = M^-1 r, p = z;
  // the planes' r . z
  virtual void start(std::vector<double>& planes, const double* rhs = nullptr) = 0;
  // p's ghosts exchanged, q = A p; the planes' p . q
  virtual void apply(std::vector<double>& planes) = 0;
  // x += alpha p, r -= alpha q, z = M^-1 r; the planes' r . z
  virtual void advance(double alpha, std::vector<double>& planes) = 0;
  // p = z + beta p over the owned cells
  virtual void direct(double beta) = 0;
  // x's ghosts exchanged; the planes' four reading sums: the dissipation over the faces ahead,
  // the current along the axis ahead, x summed over the cells of the slabs `in` and `out`
  virtual void read(std::vector<double>& planes) = 0;
  // x of the owned cells, in cell order
  virtual std::vector<double> solution() = 0;
  // where it runs, for the report: "host" or the device's name
  virtual std::string where() const = 0;
};

// The host's cores.
std::unique_ptr<ConductionEngine> make_host_conduction_engine(const ConductionOperator& op, const ConductionMultigrid* multigrid,
                                                              const ConductionReadingSlabs& reading);

}  // namespace rockperm::solve
