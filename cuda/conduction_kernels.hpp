#pragma once
// Launchers of the conduction solve's kernels (conduction_kernels.cu) for the GPU engine
// (cuda/conduction_engine.hpp): the operations of lib/solve/conduction.cpp's host engine, on
// vectors of doubles in device memory. Host code calls these and never writes <<<>>>; each
// checks its launch and returns without synchronizing.
//
// Per-plane sums: one block per owned plane, its cells strided over the block's threads and
// added in a fixed tree, so the sums are the same bits at every run (not the host's: the order
// of the additions differs); `out[plane * K + k]`.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "lib/solve/conduction_face.hpp"

namespace rockperm::cuda {

// The operator of a rank's owned cells: link l of owned cell i at [l * owned + i] (link-major: the
// host's [i * links + l] transposed, so that a warp's reads of one link coalesce).
struct ConductionOperatorView {
  std::uint64_t owned = 0;
  std::uint32_t begin = 0;           // local index of the first owned cell
  int links = solve::conduction::faces;  // the stencil's (conduction_face.hpp)
  const std::uint32_t* neighbour;    // local index (ghosts included), or 0xffffffff
  const double* conductance;         // 0 where there is no neighbour
  const double* diagonal;
  const double* inverse;
  const std::int32_t* coordinate;    // global coordinate along the drive's axis (the sample reading between buffers only; else null)
  const std::uint64_t* plane_first;  // per owned plane, its owned cells [first, end) counted from `begin`
  const std::uint64_t* plane_end;
  std::uint32_t planes = 0;
};

// A multigrid level (lib/solve/conduction_system.hpp, ConductionMultigrid::Level): slot f of
// cell i at [f * n + i] (link-major, as the operator's).
struct ConductionLevelView {
  std::uint64_t n = 0;
  int links = solve::conduction::faces;
  const std::uint32_t* col;
  const float* val;
  const double* diagonal;
  const double* inverse;
  const std::uint32_t* parent;       // its aggregate on the next level (null on the coarsest)
  const std::uint32_t* first_child;  // of aggregate a on this level: children of the level above
  const std::uint32_t* children;
};

// conductance[l * owned + i] = link_weight(l) face_conductance(sigma[begin + i], sigma[j]) of
// neighbour j = neighbour[l * owned + i], 0 where none
void launch_conduction_conductances(std::uint64_t owned, std::uint32_t begin, int links, const std::uint32_t* neighbour,
                                    const double* sigma, double* conductance, cudaStream_t stream);
// by_link[l * n + i] = by_cell[i * links + l]: the host's per-cell slots of n cells, link-major
// (made for std::uint32_t and float)
template <class T>
void launch_link_major(const T* by_cell, T* by_link, std::uint64_t n, int links, cudaStream_t stream);
// r = -sum over the links of g e along `axis` (on faces: g behind - g ahead)
void launch_conduction_drive(const ConductionOperatorView& op, int axis, double* r, cudaStream_t stream);
// q = A p (p over local cells), out[plane] = sum of p.q
void launch_conduction_apply(const ConductionOperatorView& op, const double* p, double* q, double* out, cudaStream_t stream);
// x += alpha p (local), r -= alpha q (owned)
void launch_conduction_advance(const ConductionOperatorView& op, double alpha, double* x, const double* p, double* r,
                               const double* q, cudaStream_t stream);
// z = D^-1 r
void launch_conduction_jacobi(const ConductionOperatorView& op, const double* r, double* z, cudaStream_t stream);
// out[plane] = sum of a.b over the owned cells (a and b indexed by owned cell)
void launch_conduction_dot(const ConductionOperatorView& op, const double* a, const double* b, double* out,
                           cudaStream_t stream);
// p = z + beta p
void launch_conduction_direct(const ConductionOperatorView& op, double beta, const double* z, double* p, cudaStream_t stream);
// out[plane * 4 + k]: the dissipation and current ahead, x over the slabs in and out
void launch_conduction_read(const ConductionOperatorView& op, const solve::ConductionReadingSlabs& reading, const double* x,
                            double* out, cudaStream_t stream);

// Multigrid: t = x + omega D^-1 (b - A x) (t = x where D^-1 is 0)
void launch_multigrid_smooth(const ConductionLevelView& level, double omega, const double* b, const double* x, double* t,
                             cudaStream_t stream);
// res = b - A x
void launch_multigrid_residual(const ConductionLevelView& level, const double* b, const double* x, double* res,
                               cudaStream_t stream);
// coarse_b[a] = the sum of fine_res over a's children, in their order (`coarse` holds first_child, children)
void launch_multigrid_restrict(const ConductionLevelView& coarse, const double* fine_res, double* coarse_b,
                               cudaStream_t stream);
// x[i] += scale * coarse_x[parent[i]]
void launch_multigrid_prolong(const ConductionLevelView& level, double scale, const double* coarse_x, double* x,
                              cudaStream_t stream);

}  // namespace rockperm::cuda
