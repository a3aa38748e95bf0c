#pragma once
// Electrical conduction through the brine of the pore space (issue 51): the formation factor
// F = sigma_w / sigma_eff, from the same fluid lattice as the flow.
//
// The equation is div(sigma grad V) = 0 with sigma = sigma_w in open pore cells, the phase's
// own conductivity in grey cells (ConductionProblem::conductivity) and 0 in the grains, written
// as a finite-volume balance over the voxels' faces: a face between two conducting cells
// conducts g = 2 s_i s_j / (s_i + s_j) (the harmonic mean, so layers in series add their
// resistances exactly); cells that touch only along an edge do not conduct (the 6 face
// neighbours, as in PoreSpy's tortuosity_fd, not the 18 links of the flow).
//
// The drive is a mean potential gradient G = 1 along the axis over the lattice's period, the
// electrical twin of the flow's body force: V = phi - G x with phi periodic, so the same lattice
// serves (buffers of brine and the mirror image are part of its period). phi solves
// A phi = b, A the graph Laplacian of the face conductances (symmetric, semi-definite: phi up to
// a constant), b_i = -G sum over i's faces along the axis of g s (s = +1 ahead, -1 behind),
// by conjugate gradients with the diagonal as preconditioner (PCG, Jacobi).
//
// What is read, in units of sigma_w:
//  - periodic sample (no buffers): sigma_eff = the dissipation sum over faces of g (V_i - V_j)^2
//    per voxel of the period. CG lowers it at every iteration towards its limit (Thomson's
//    principle: the energy is an upper bound of sigma_eff, and its decrease over iterations n-d..n
//    is the energy-norm error of iterate n-d less that of n);
//  - mirror image: the same over the mirrored period, which is the sample between two
//    equipotential faces twice (the potential is odd about the junctions);
//  - buffers: the whole sample, face to face, as a lab measures a plug and PoreSpy's
//    tortuosity_fd reads it, from the power the sample itself dissipates: sigma_eff = J^2 / P,
//    J the current per voxel of cross-section, P the dissipation of the sample's own faces per
//    voxel of the sample (a face between a brine cell and a sample cell counted for the sample's
//    half of it, conduction::sample_share). The current's constriction into the pores of a face is
//    the sample's, as between a core holder's platens. Held at equipotential faces the sample
//    would dissipate least (Thomson), so the buffers' reading lies above that value, by second
//    order in how unevenly they feed the faces: 0.24 % on a 24-plane random sample where the
//    plane-mean potential beside the faces read 1.9 % above it (docs/ACCURACY.md, "The whole
//    sample"). The interior reading (lib/solve/pressure_planes.hpp: interior_slabs) is read from
//    the finished potential beside it, as a representative-volume check.
// The stated error is the largest relative change of that value against its readings over the
// last half of the iterations (at least two checks back); the solve stops when it and the
// relative residual are both below `tolerance` at two consecutive checks. A solve that reaches
// the rounding of its sums (relative residual below 1e-13) stops there, its stated error the
// residual: the readings behind it are earlier iterates' (on a small sample, the start's), not
// its own error.
//
// Every sum (dot products, currents, potentials) is taken plane by plane along z in a fixed
// order, each plane on one thread, and the planes' sums are added in plane order: the same
// iterates, to the bit, on any number of threads (and, with the Jacobi preconditioner, of Z-slab
// ranks). The default preconditioner is a multigrid cycle over 2 x 2 x 2 aggregates of each
// rank's cells (ConductionProblem::Preconditioner).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/parallel/partition.hpp"

namespace rockperm::solve {

struct ConductionProblem {
  int axis = 0;  // of the drive, 0..2
  // conductivity / sigma_w of each phase of the lattice's cells (0: open pore, c: grey phase c);
  // a phase beyond the list is an internal error
  std::vector<double> conductivity{1.0};
  // where not empty: the conductivity of each of the lattice's local cells (ghosts included), in
  // place of its phase's (the flow's Darcy-scale start: a conductance from the pore width)
  std::vector<double> cell_conductivity;
  // the links a cell conducts through: its 6 faces (the formation factor, as PoreSpy), or the
  // flow's 18 D3Q19 links weighted 6 w_q (conduction_face.hpp), which join whatever the flow joins
  enum class Stencil { faces, links };
  Stencil stencil = Stencil::faces;
  bool keep_solution = false;  // ConductionResult::solution
  // stop on the relative residual alone (below `tolerance` at a check), the conductivity read once
  // at the end: a solve whose answer is the field (the Darcy-scale start), not sigma_eff
  bool residual_stop = false;
  std::uint64_t region_voxels = 0;  // all voxels of the lattice's whole period (every rank's), fluid and solid
  // the sample's planes along the axis inside the period; `interior`: read inside the sample
  // (buffers or mirror image), else the whole period is the sample
  std::int64_t sample_begin = 0, sample_end = 0;
  bool interior = false;
  std::uint64_t sample_voxels = 0;  // the sample's voxels, conducting or not (needed between buffers)
  double tolerance = 1e-4;            // relative, for the stated error and the residual
  std::int64_t max_iterations = 0;    // 0: automatic (ConductionProblem::automatic_iterations)
  std::int64_t check_interval = 10;   // iterations between readings
  // multigrid: a cycle over aggregates of each rank's cells (iterations about independent of
  // the size; the iterates depend on the rank count, F within its error); jacobi: the diagonal
  // (iterations grow with the size; the same bits on any rank count)
  enum class Preconditioner { jacobi, multigrid };
  Preconditioner preconditioner = Preconditioner::multigrid;
  // 20 times the lattice's extent along its three axes: what a tortuous pore space needs
  static std::int64_t automatic_iterations(const geometry::Dims& whole);
};

// Where this rank's lattice sits: its global first plane, and on Z-slabs its neighbours and
// ghost planes (absent: the lattice is the whole sample, periodic where its periodicity says).
struct ConductionSlab {
  std::int64_t first_local_z = 0;
  std::int64_t planes_z = 0;  // of the whole lattice along z (every rank's)
  const parallel::SlabDomain* domain = nullptr;
};

struct ConductionResult {
  bool converged = false;
  double conductivity = 0;     // sigma_eff / sigma_w of the sample
  double error = 0;            // stated, relative (the change over the last quarter of the iterations)
  double residual = 0;         // relative, sqrt(r.z / r0.z0)
  double field = 1;            // the mean field inside the sample per unit of the drive G (1: the energy reading)
  // between buffers or mirrored (8 planes or more): sigma_eff / sigma_w read over the sample's
  // interior only (the pressure reading's interior slabs), a representative-volume check; 0: none
  double interior_conductivity = 0;
  double formation_factor() const { return conductivity > 0 ? 1.0 / conductivity : 0.0; }
  std::int64_t iterations = 0;
  double seconds = 0;
  double setup_seconds = 0;     // of `seconds`: the operator, the multigrid levels and the engine's start
  std::string device = "host";  // where it ran (ConductionEngine::where)
  // the potential V / (G voxel) = phi - x along the axis of this rank's owned cells, in cell order
  std::vector<float> potential;
  // with ConductionProblem::keep_solution: x of the owned cells (V / (G voxel) = x - the coordinate
  // along the axis), in cell order, in double precision
  std::vector<double> solution;
};

struct ConductionReading {
  std::int64_t iteration = 0;
  double conductivity = 0, error = 0, residual = 0;
};
using ConductionProgress = std::function<void(const ConductionReading&)>;

class ConductionOperator;
class ConductionMultigrid;
struct ConductionReadingSlabs;
class ConductionEngine;
// Makes the engine that holds the solve's vectors (lib/solve/conduction_system.hpp) for the
// operator, the multigrid (null: Jacobi) and the reading, or none where it cannot run here: the
// host's cores then serve.
using ConductionEngineFactory = std::function<std::unique_ptr<ConductionEngine>(
    const ConductionOperator&, const ConductionMultigrid*, const ConductionReadingSlabs&)>;

// The solve's parts built once (the operator, the multigrid levels, the engine and its vectors) for
// solves of several right-hand sides on the same lattice and conductivities (the Darcy-scale
// model's corrections, lib/solve/darcy_start.hpp). Collective over `comm`, as solve_conduction.
class ConductionSystem {
 public:
  ConductionSystem(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
                   const ConductionProblem& problem, const ConductionEngineFactory& engine = {});
  ~ConductionSystem();
  ConductionSystem(const ConductionSystem&) = delete;
  ConductionSystem& operator=(const ConductionSystem&) = delete;
  // A solve from x = 0 of the drive, or of `rhs` (a value per owned cell, in cell order) where
  // given; the problem's stop. ConductionResult::seconds: this solve's; setup_seconds: the build's.
  ConductionResult solve(bool keep_potential = false, const ConductionProgress& progress = {},
                         const std::vector<double>* rhs = nullptr);
  double setup_seconds() const;
  std::string device() const;  // where its vectors live: "host" or the GPU's name
  // The relative residual or error the next solves stop at (the problem's, until set again).
  void set_tolerance(double tolerance);
  // The current along the axis under the unit drive with the potential x (a value per owned cell,
  // in cell order; none: x = 0), summed over every rank's links: sum over the links of G e (e - (x_j
  // - x_c)), e the link's component along the axis, read as sum G e^2 + sum_c x_c d_c with d_c =
  // sum over c's links of G e (summation by parts: no ghost values needed). Collective.
  double current(const std::vector<double>* x = nullptr) const;

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// Collective over `comm` (every rank its slab). `keep_potential`: fill ConductionResult::potential.
// `engine`: where the vectors live (empty: the host's cores); every rank must make the same choice
// of factory, and an engine that is not made on one rank is not made on any (the choice is agreed).
ConductionResult solve_conduction(const parallel::Comm& comm, const lattice::SparseLattice& local,
                                  const ConductionSlab& slab, const ConductionProblem& problem,
                                  bool keep_potential = false, const ConductionProgress& progress = {},
                                  const ConductionEngineFactory& engine = {});

}  // namespace rockperm::solve
