#pragma once
// The flow's Darcy-scale start (issue 67; docs/ACCURACY.md, "The Darcy-scale start").
//
// On tight rock a run from rest spends most of its steps on the slow pressure mode: poorly
// connected pore regions filling through narrow throats, a diffusion of the density whose time
// grows with the square of the sample's length. This start gives the lattice, before its first
// step, a density field that is already nearly steady, pore region by pore region, from an
// elliptic solve whose cost does not grow that way: Darcy's law cell by cell,
//
//   q = (c / nu) (g - c_s^2 grad rho'),  div q = 0   =>   div(c grad p) = div(c g),  p = c_s^2 rho',
//
// on the lattice's own cells and its 18 links (lib/solve/conduction.hpp, Stencil::links: what the
// flow joins, edge contacts included, and nothing the faces alone would split), solved by the
// conduction engine's multigrid CG on the host or the rank's GPU. The conductance of a cell is the
// square of its distance to the wall, (d - 1/2)^2, d the distance of its centre from the nearest
// solid voxel's (the bounce-back wall lies half a voxel from a wall cell's centre); averaged over
// a slit of width w it is w^2 / 12, the slit's own permeability in voxel^2, to a factor near one.
// A grey cell conducts its phase's permeability K (voxel^2), at most what an open cell there would.
// The scale of c does not matter (the equation is homogeneous in it); only its variation does.
//
// The drive is the conduction engine's: a unit mean gradient along the axis over the lattice's
// period (its buffers and mirror image included), the body force's twin; the solution x (the
// engine's periodic part, V = x - the coordinate) is the pressure per unit of force: rho' = 3 g x,
// less its mean over the fluid cells so that the start adds no mass.
//
// What it is not: the steady density. The model's conductances are the lattice's mobility only
// to a factor of order one cell by cell (3.5 % rms off the steady plane means on a 128^3 pack),
// and what is off relaxes at the slow mode's pace; the start saves the steps that took the
// density from zero to the model's field.
#include <cstdint>
#include <string>
#include <vector>

#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/solve/conduction.hpp"

namespace rockperm::solve {

struct DarcyStartProblem {
  int axis = 0;                           // of the drive
  std::uint64_t region_voxels = 0;        // all voxels of the lattice's whole period (every rank's)
  std::vector<double> grey_permeability;  // K of each grey phase (phase c = index + 1), voxel^2
  // of the solve: its relative residual (the model is a few per cent off the lattice's mobility;
  // a closer solve of it buys nothing)
  double tolerance = 1e-3;
  std::int64_t max_iterations = 0;        // 0: ConductionProblem::automatic_iterations of `whole`
  geometry::Dims whole;                   // the lattice's whole period
};

struct DarcyStart {
  // rho' / g of this rank's owned cells, in cell order: 3 (x - its mean over every rank's cells)
  std::vector<float> density_per_force;
  ConductionResult solve;  // its iterations, residual, seconds and device (conductivity: the model's, per voxel)
};

// The cells' conductances (every local cell, ghosts included): (d - 1/2)^2 from the distance d
// (voxels, exact up to `reach`, capped there beyond) to the nearest solid voxel of the local
// lattice's box; its sides count as solid where the lattice does not wrap and no ghost plane
// stands for a neighbour. `ghost_low`/`ghost_high`: whether the local lattice's first/last plane
// along z is a ghost plane (a Z-slab's).
inline constexpr int darcy_reach = 11;
std::vector<double> darcy_conductances(const lattice::SparseLattice& local, const std::vector<double>& grey_permeability,
                                       bool ghost_low, bool ghost_high);

// Collective over `comm`. Throws std::bad_alloc where the memory for it cannot be had (the
// caller then starts from rest and says so).
DarcyStart darcy_start(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
                       const DarcyStartProblem& problem, const ConductionEngineFactory& engine = {});

}  // namespace rockperm::solve
