#include "lib/solve/conduction.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "lib/base/error.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/solve/conduction_system.hpp"
#include "lib/solve/pressure_planes.hpp"

namespace rockperm::solve {

std::int64_t ConductionProblem::automatic_iterations(const geometry::Dims& whole) {
  return 20 * (whole.nx + whole.ny + whole.nz);
}

using conduction::face_conductance;
using conduction::faces;
using conduction::link_ahead;
using conduction::link_component;
using conduction::link_direction;
using conduction::link_opposite;
using conduction::none;

ConductionOperator::ConductionOperator(const parallel::Comm& comm, const lattice::SparseLattice& local,
                                       const ConductionSlab& slab, const ConductionProblem& problem)
    : comm_(comm), local_(local), slab_(slab) {
  begin_ = local.owned_begin();
  end_ = local.owned_end();
  const std::uint64_t n = local.fluid_count();
  sigma_ = HostArray<double>(n);
  const auto& phases = local.phases();
  std::size_t highest = 0;
#pragma omp parallel for schedule(static) reduction(max : highest)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
    const auto c = static_cast<std::uint64_t>(k);
    const std::size_t phase = phases.size() != 0 ? phases[c] : 0;
    highest = std::max(highest, phase);
    sigma_[c] = phase < problem.conductivity.size() ? problem.conductivity[phase] : 0.0;
  }
  if (n > 0 && highest >= problem.conductivity.size() && problem.cell_conductivity.empty()) {
    throw RuntimeFailure("internal: conduction: no conductivity for phase " + std::to_string(highest));
  }
  if (!problem.cell_conductivity.empty()) {
    if (problem.cell_conductivity.size() != n) throw RuntimeFailure("internal: conduction: a conductivity per cell of the wrong size");
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
      sigma_[static_cast<std::uint64_t>(k)] = problem.cell_conductivity[static_cast<std::size_t>(k)];
    }
  }
  links_ = problem.stencil == ConductionProblem::Stencil::links ? conduction::links18 : faces;
  const auto L = static_cast<std::uint64_t>(links_);
  const std::uint64_t owned = end_ - begin_;
  // The neighbours ahead (directions 1..9 of the flow's, of which the faces are 1, 2, 3) of every
  // local cell from the lattice's tables (its own, or built a few planes at a time where it
  // deferred them), those behind by inverting them: a cell's neighbour behind is the cell whose
  // neighbour ahead it is (SparseLattice::neighbour's search per link took seconds on a 512^3 scan).
  neighbours_ = HostArray<std::uint32_t>(owned * L);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(owned * L); ++k) neighbours_[static_cast<std::uint64_t>(k)] = none;
  std::vector<int> ahead;  // the links ahead
  for (int l = 0; l < links_; ++l)
    if (link_ahead(links_, l)) ahead.push_back(l);
  const auto set_ahead = [&](std::uint32_t c, int l, std::uint32_t j) {  // j: c's neighbour across link l (ahead)
    if (c >= begin_ && c < end_) neighbours_[static_cast<std::uint64_t>(c - begin_) * L + static_cast<unsigned>(l)] = j;
    if (j != none && j >= begin_ && j < end_) neighbours_[static_cast<std::uint64_t>(j - begin_) * L + static_cast<unsigned>(link_opposite(links_, l))] = c;
  };
  if (local.has_tables()) {
    const auto& table = local.neighbours();
    const std::uint64_t stride = local.stride();
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
      const auto c = static_cast<std::uint32_t>(k);
      for (const int l : ahead) set_ahead(c, l, table[static_cast<std::uint64_t>(link_direction(links_, l) - 1) * stride + c]);
    }
  } else {
    const auto& o = local.plane_offsets();
    constexpr std::int64_t window = 4;  // planes
    const auto planes = static_cast<std::int64_t>(o.size()) - 1;
#pragma omp parallel
    {
      lattice::NeighbourTables scratch;
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t z = 0; z < planes; z += window) {
        const std::uint64_t first = o[static_cast<std::size_t>(z)];
        const std::uint64_t end = o[static_cast<std::size_t>(std::min(planes, z + window))];
        if (first == end) continue;
        const lattice::TableWindow w = local.table_window(first, end, scratch);
        for (std::uint64_t c = first; c < end; ++c) {
          for (const int l : ahead) {
            set_ahead(static_cast<std::uint32_t>(c), l,
                      w.positive[static_cast<std::uint64_t>(link_direction(links_, l) - 1) * w.stride + c - w.first]);
          }
        }
      }
    }
  }
  diagonal_ = HostArray<double>(owned);
  inverse_ = HostArray<double>(owned);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned); ++i) {
    const std::uint32_t c = begin_ + static_cast<std::uint32_t>(i);
    double d = 0;
    for (int l = 0; l < links_; ++l) {
      std::uint32_t& j = neighbours_[static_cast<std::uint64_t>(i) * L + static_cast<unsigned>(l)];
      if (j != none && (sigma_[c] <= 0 || sigma_[j] <= 0)) j = none;  // no current through an insulating cell
      if (j == none) continue;
      d += conduction::link_weight(links_, l) * face_conductance(sigma_[c], sigma_[j]);
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
  for (const ConductionPlane& plane : planes_)
    if (plane.z < 0 || plane.z >= planes_z_) throw RuntimeFailure("internal: conduction: an owned plane outside the lattice");
  check_ghosts();
}

namespace {
constexpr int tag_down = 5101, tag_up = 5102;
}

void ConductionOperator::exchange(double* v) const {
  const auto& o = local_.plane_offsets();
  exchange([&](std::int64_t z) { return v + o[static_cast<std::size_t>(z)]; });
}

std::vector<std::int64_t> ConductionOperator::sent_planes() const {
  if (!exchanges()) return {};
  const parallel::SlabDomain& d = *slab_.domain;
  const std::int64_t nz = local_.dims().nz;
  std::vector<std::int64_t> z;
  if (d.ghost_low) z.push_back(1);
  if (d.ghost_high && !(d.ghost_low && nz - 2 == 1)) z.push_back(nz - 2);
  return z;
}

std::vector<std::int64_t> ConductionOperator::received_planes() const {
  if (!exchanges()) return {};
  const parallel::SlabDomain& d = *slab_.domain;
  std::vector<std::int64_t> z;
  if (d.ghost_low) z.push_back(0);
  if (d.ghost_high) z.push_back(local_.dims().nz - 1);
  return z;
}

void ConductionOperator::exchange(const std::function<double*(std::int64_t)>& at) const {
  if (!exchanges()) return;
  std::vector<parallel::Comm::Transfer> sends, receives;
  const auto& o = local_.plane_offsets();
  const auto bytes = [&](std::int64_t z) {
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

// A ghost plane holds as many cells as the owned plane it mirrors (the same plane of the same
// mask); the exchange relies on it.
void ConductionOperator::check_ghosts() const {
  if (!exchanges()) return;
  const auto& o = local_.plane_offsets();
  const auto nz = static_cast<std::size_t>(local_.dims().nz);
  // every owned cell sends its index, every ghost starts at -1: a ghost plane's last cell is
  // filled only where the message was as long as the plane (rank by rank the same test)
  std::vector<double> probe(local_.fluid_count(), -1.0);
  for (std::uint64_t c = begin_; c < end_; ++c) probe[c] = static_cast<double>(c);
  exchange(probe.data());
  std::uint64_t mismatched = 0;
  if (slab_.domain->ghost_low && o[1] > o[0] && probe[o[1] - 1] < 0) ++mismatched;
  if (slab_.domain->ghost_high && o[nz] > o[nz - 1] && probe[o[nz] - 1] < 0) ++mismatched;
  if (comm_.sum(mismatched) != 0) throw RuntimeFailure("internal: conduction: a ghost plane was not filled");
}

namespace {

// Where the sample's conductivity is read (see the header).
ConductionReadingSlabs reading_of(const ConductionProblem& p) {
  ConductionReadingSlabs r;
  r.axis = p.axis;
  if (!p.interior || p.sample_begin == 0) return r;  // periodic, or mirrored: the whole period's energy
  if (p.sample_voxels == 0) throw RuntimeFailure("internal: conduction between buffers without the sample's voxels");
  // between buffers: the dissipation of the sample's own faces, between the planes just outside them
  r.kind = ConductionReadingSlabs::Kind::sample;
  r.in = p.sample_begin - 1;
  r.out = p.sample_end;
  r.sample_voxels = static_cast<double>(p.sample_voxels);
  return r;
}

// The interior reading of the finished potential, a representative-volume check: the current
// density over the mean field between the interior slabs (lib/solve/pressure_planes.hpp), where the
// sample has an interior (buffers or mirror, 8 planes or more: has_interior).
bool has_interior(const ConductionProblem& p) { return p.interior && p.sample_end - p.sample_begin >= 8; }
double interior_conductivity(const ConductionOperator& op, const ConductionProblem& p, const std::vector<double>& x,
                             double current) {
  const InteriorSlabs s = interior_slabs(p.sample_begin, p.sample_end);
  const std::array<double, 4> t = op.sums<4>([&](std::uint32_t c, std::uint64_t i, std::array<double, 4>& a) {
    const std::int64_t z = op.coordinate(c, p.axis);
    if (z >= s.in && z < s.in + s.window) {
      a[0] += x[i];
      a[1] += 1;
    }
    if (z >= s.out && z < s.out + s.window) {
      a[2] += x[i];
      a[3] += 1;
    }
  });
  if (t[1] == 0 || t[3] == 0) return 0.0;
  const double field = 1.0 - (t[2] / t[3] - t[0] / t[1]) / static_cast<double>(s.out - s.in);
  return field > 0 ? current / field : 0.0;
}

// A residual this small is the sums' rounding: the solve has nothing left to gain.
constexpr double rounding_residual = 1e-13;
// The stated error of a solve that ended at rounding: the relative residual bounds the change still
// to come (with the multigrid's well-conditioned operator), and no reading is finer than the
// rounding of its sums.
double rounding_error(double residual) { return std::max(residual, 1e-14); }
// A relative residual this far below the tolerance ends the solve (from the second check on).
constexpr double settled_residual = 1e-3;

// The host's cores: the reference engine.
class HostEngine final : public ConductionEngine {
 public:
  HostEngine(const ConductionOperator& op, const ConductionMultigrid* multigrid, const ConductionReadingSlabs& reading)
      : op_(op), multigrid_(multigrid), reading_(reading), owned_(op.owned()), begin_(op.begin()),
        x_(op.cells(), 0.0), p_(op.cells(), 0.0), r_(owned_), z_(owned_), q_(owned_) {}

  void start(std::vector<double>& planes, const double* rhs) override {
    const int axis = reading_.axis;
    std::fill(x_.begin(), x_.end(), 0.0);
    std::fill(p_.begin(), p_.end(), 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned_); ++i) {
      const auto u = static_cast<std::uint64_t>(i);
      if (rhs) {
        r_[u] = rhs[u];
        continue;
      }
      double b = 0;  // -G sum over the links of g e along the axis (on faces: g behind - g ahead)
      for (int l = 0; l < op_.links(); ++l) {
        const int e = link_component(op_.links(), l, axis);
        if (e != 0) b += e == 1 ? -op_.conductance(u, l) : op_.conductance(u, l);
      }
      r_[u] = b;
    }
    precondition();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned_); ++i) p_[begin_ + static_cast<std::uint32_t>(i)] = z_[static_cast<std::uint64_t>(i)];
    planes = op_.plane_sums<1>([&](std::uint32_t, std::uint64_t i, std::array<double, 1>& a) { a[0] += r_[i] * z_[i]; });
  }

  void apply(std::vector<double>& planes) override {
    op_.exchange(p_.data());
    planes = op_.plane_sums<1>([&](std::uint32_t c, std::uint64_t i, std::array<double, 1>& a) {
      double v = op_.diagonal(i) * p_[c];
      for (int l = 0; l < op_.links(); ++l) {
        const std::uint32_t j = op_.neighbour(i, l);
        if (j != none) v -= op_.conductance(i, l) * p_[j];
      }
      q_[i] = v;
      a[0] += p_[c] * v;
    });
  }

  void advance(double alpha, std::vector<double>& planes) override {
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(owned_); ++k) {
      const auto i = static_cast<std::uint64_t>(k);
      x_[begin_ + static_cast<std::uint32_t>(k)] += alpha * p_[begin_ + static_cast<std::uint32_t>(k)];
      r_[i] -= alpha * q_[i];
    }
    precondition();
    planes = op_.plane_sums<1>([&](std::uint32_t, std::uint64_t i, std::array<double, 1>& a) { a[0] += r_[i] * z_[i]; });
  }

  void direct(double beta) override {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned_); ++i) {
      const std::uint32_t c = begin_ + static_cast<std::uint32_t>(i);
      p_[c] = z_[static_cast<std::uint64_t>(i)] + beta * p_[c];
    }
  }

  void read(std::vector<double>& planes) override {
    op_.exchange(x_.data());
    const ConductionReadingSlabs& rd = reading_;
    const int axis = rd.axis;
    const bool sample = rd.kind == ConductionReadingSlabs::Kind::sample;
    const int links = op_.links();
    planes = op_.plane_sums<3>([&](std::uint32_t c, std::uint64_t i, std::array<double, 3>& a) {
      const std::int64_t t = sample ? op_.coordinate(c, axis) : 0;
      for (int l = 0; l < links; ++l) {  // each link once: the one ahead of its cell
        if (!link_ahead(links, l)) continue;
        const std::uint32_t j = op_.neighbour(i, l);
        if (j == none) continue;
        conduction::add_link_reading(x_[c], x_[j], op_.conductance(i, l), op_.unit_conductance(i, l),
                                     link_component(links, l, axis), t, sample, rd.in, rd.out, a.data());
      }
    });
  }

  std::vector<double> solution() override {
    return {x_.begin() + static_cast<std::ptrdiff_t>(begin_), x_.begin() + static_cast<std::ptrdiff_t>(begin_ + owned_)};
  }
  std::string where() const override { return "host"; }

 private:
  void precondition() {  // z = M^-1 r
    if (multigrid_) {
      multigrid_->apply(r_.data(), z_.data());
      return;
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(owned_); ++i) {
      z_[static_cast<std::uint64_t>(i)] = op_.inverse(static_cast<std::uint64_t>(i)) * r_[static_cast<std::uint64_t>(i)];
    }
  }

  const ConductionOperator& op_;
  const ConductionMultigrid* multigrid_;
  ConductionReadingSlabs reading_;
  std::uint64_t owned_;
  std::uint32_t begin_;
  std::vector<double> x_, p_, r_, z_, q_;
};

}  // namespace

std::unique_ptr<ConductionEngine> make_host_conduction_engine(const ConductionOperator& op, const ConductionMultigrid* multigrid,
                                                              const ConductionReadingSlabs& reading) {
  return std::make_unique<HostEngine>(op, multigrid, reading);
}

struct ConductionSystem::Parts {
  Parts(const parallel::Comm& c, const lattice::SparseLattice& local, const ConductionSlab& slab, const ConductionProblem& p)
      : problem(p), op(c, local, slab, p), reading(reading_of(p)) {
    problem.cell_conductivity = {};  // read by the operator only
  }
  ConductionProblem problem;
  ConductionOperator op;
  ConductionReadingSlabs reading;
  std::optional<ConductionMultigrid> multigrid;
  std::unique_ptr<ConductionEngine> engine;
  double setup_seconds = 0;
};


ConductionSystem::ConductionSystem(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
                                   const ConductionProblem& problem, const ConductionEngineFactory& make_engine) {
  const auto started = std::chrono::steady_clock::now();
  if (problem.axis < 0 || problem.axis > 2) throw RuntimeFailure("internal: conduction along axis " + std::to_string(problem.axis));
  if (problem.region_voxels == 0) throw RuntimeFailure("internal: conduction over no voxel");
  parts_ = std::make_unique<Parts>(comm, local, slab, problem);
  Parts& s = *parts_;
  if (problem.preconditioner == ConductionProblem::Preconditioner::multigrid && s.op.owned() > 0) s.multigrid.emplace(s.op);
  const ConductionMultigrid* mg = s.multigrid ? &*s.multigrid : nullptr;
  // where the vectors live: the factory's engine where every rank made one, else the host's
  s.engine = make_engine ? make_engine(s.op, mg, s.reading) : nullptr;
  if (comm.size() > 1 && comm.sum(std::uint64_t{s.engine ? 0u : 1u}) != 0) s.engine.reset();
  if (!s.engine) s.engine = make_host_conduction_engine(s.op, mg, s.reading);
  s.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

ConductionSystem::~ConductionSystem() = default;

double ConductionSystem::setup_seconds() const { return parts_->setup_seconds; }

void ConductionSystem::set_tolerance(double tolerance) { parts_->problem.tolerance = tolerance; }

double ConductionSystem::current(const std::vector<double>* x) const {
  const ConductionOperator& op = parts_->op;
  const int axis = parts_->problem.axis, links = op.links();
  if (x && x->size() != op.owned()) throw RuntimeFailure("internal: conduction: a potential of the wrong size");
  const std::array<double, 2> t = op.sums<2>([&](std::uint32_t, std::uint64_t i, std::array<double, 2>& a) {
    double d = 0;
    for (int l = 0; l < links; ++l) {
      const int e = link_component(links, l, axis);
      if (e == 0) continue;
      const double g = op.conductance(i, l);
      d += e * g;
      if (link_ahead(links, l)) a[0] += g;  // e^2 = 1, each link once
    }
    if (x) a[1] += (*x)[i] * d;
  });
  return t[0] + t[1];
}
std::string ConductionSystem::device() const { return parts_->engine->where(); }

ConductionResult solve_conduction(const parallel::Comm& comm, const lattice::SparseLattice& local,
                                  const ConductionSlab& slab, const ConductionProblem& problem, bool keep_potential,
                                  const ConductionProgress& progress, const ConductionEngineFactory& make_engine) {
  const auto started = std::chrono::steady_clock::now();
  ConductionSystem system(comm, local, slab, problem, make_engine);
  ConductionResult result = system.solve(keep_potential, progress);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

ConductionResult ConductionSystem::solve(bool keep_potential, const ConductionProgress& progress, const std::vector<double>* rhs) {
  const auto started = std::chrono::steady_clock::now();
  Parts& s = *parts_;
  const ConductionProblem& problem = s.problem;
  const ConductionOperator& op = s.op;
  const ConductionReadingSlabs& reading = s.reading;
  ConductionEngine* engine = s.engine.get();
  const int axis = problem.axis;
  const std::uint64_t owned = op.owned();
  const double voxels = static_cast<double>(problem.region_voxels);
  if (rhs && rhs->size() != owned) throw RuntimeFailure("internal: conduction: a right-hand side of the wrong size");
  const double setup_seconds = s.setup_seconds;

  std::vector<double> planes;
  engine->start(planes, rhs ? rhs->data() : nullptr);
  double rho = op.total<1>(planes)[0];
  const double rho0 = rho;

  // sigma_eff / sigma_w from the iterate x; `field` the mean field it divides by (for the sample's
  // own dissipation P per voxel, P / J: the uniform field that dissipates as much)
  double field = 1.0, current = 0.0;
  const auto conductivity = [&] {
    engine->read(planes);
    const std::array<double, 3> s = op.total<3>(planes);
    current = s[1] / voxels;  // per voxel of cross-section
    if (reading.kind == ConductionReadingSlabs::Kind::energy) return s[0] / voxels;
    const double dissipation = s[2] / reading.sample_voxels;
    if (!(dissipation > 0) || !(current > 0)) return 0.0;
    field = dissipation / current;
    return current / field;
  };

  const std::int64_t interval = std::max<std::int64_t>(1, problem.check_interval);
  const std::int64_t limit = problem.max_iterations > 0 ? problem.max_iterations : std::int64_t{1} << 40;
  ConductionResult result;
  std::vector<std::pair<std::int64_t, double>> history;  // (iteration, conductivity) at every check
  int agreeing = 0;
  std::int64_t n = 0;
  const auto check = [&]() -> bool {  // true: done
    if (problem.residual_stop) {
      result.residual = rho0 > 0 ? std::sqrt(std::max(0.0, rho) / rho0) : 0.0;
      result.iterations = n;
      result.converged = rho0 == 0 || result.residual < problem.tolerance;
      if (progress) progress({n, 0.0, result.residual, result.residual});
      if (result.converged || n >= limit) {
        history.emplace_back(n, 0.0);
        result.conductivity = conductivity();
        result.error = result.residual;
      }
      return result.converged;
    }
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
    // no drive, or solved to rounding (going on would only stir the rounding up): the readings
    // behind are those of earlier iterates (on a small sample the start itself), not this one's
    // error; what is left to change is bounded by the residual
    if (rho0 == 0 || rho == 0) {
      result.error = 0;
      result.converged = true;
      return true;
    }
    if (result.residual < rounding_residual) {
      result.error = rounding_error(result.residual);
      result.converged = result.error <= problem.tolerance;
      return true;
    }
    if (progress) progress({n, sigma, result.error, result.residual});
    // a residual far below the tolerance: as at rounding, the change still to come is bounded by
    // it, and going on only stirs the rounding (a fast cycle gets there within two checks, where the
    // readings behind still include the start's; and a singular operator's iterates then drift on
    // the constants of its closed pores: a 48^3 periodic pack's residual went 1e-13 -> 1e-8 in ten
    // more iterations, its closed pores' potential moving)
    if (n >= 2 * interval && result.residual < settled_residual * problem.tolerance) {
      result.error = rounding_error(result.residual);
      result.converged = true;
      return true;
    }
    agreeing = (n >= 2 * interval && result.error < problem.tolerance && result.residual < problem.tolerance) ? agreeing + 1 : 0;
    result.converged = agreeing >= 2;
    return result.converged;
  };

  bool exhausted = false;
  bool done = check();
  int restarts = 0;
  while (!done && n < limit) {
    engine->apply(planes);
    double pq = op.total<1>(planes)[0];
    if (!(pq > 0) && n > 0 && restarts < 3) {
      // the direction lost to rounding (it drifted into the operator's null space, the constants):
      // start again along the preconditioned residual, a few times at most
      ++restarts;
      engine->direct(0.0);
      engine->apply(planes);
      pq = op.total<1>(planes)[0];
    }
    if (!(pq > 0)) {  // the search direction vanished: solved to rounding
      exhausted = true;
      break;
    }
    const double alpha = rho / pq;
    engine->advance(alpha, planes);
    const double next = op.total<1>(planes)[0];
    const double beta = next / rho;
    rho = next;
    engine->direct(beta);
    ++n;
    if (n % interval == 0 || n >= limit) done = check();
  }
  if (!done && (history.empty() || history.back().first != n)) check();
  if (exhausted && result.residual < problem.tolerance) {  // nothing left to change but rounding
    result.error = rounding_error(result.residual);
    result.converged = result.error <= problem.tolerance;
  }
  // the finished potential, fetched once (from the device, on a GPU) for the interior check and the fields
  const bool check_interior = result.conductivity > 0 && has_interior(problem);
  std::vector<double> x;
  if (check_interior || keep_potential || problem.keep_solution) x = engine->solution();
  if (check_interior) result.interior_conductivity = interior_conductivity(op, problem, x, current);
  result.field = field;
  result.device = engine->where();
  result.setup_seconds = setup_seconds;
  if (keep_potential) {
    result.potential.resize(owned);
    for (std::uint64_t i = 0; i < owned; ++i) {
      const std::uint32_t c = op.begin() + static_cast<std::uint32_t>(i);
      result.potential[i] = static_cast<float>(x[i] - static_cast<double>(op.coordinate(c, axis)));
    }
  }
  if (problem.keep_solution) result.solution = std::move(x);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace rockperm::solve
