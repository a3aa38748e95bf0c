// The conduction solve's kernels (cuda/conduction_kernels.hpp): the host engine's loops of
// lib/solve/conduction.cpp, a thread per cell, and its per-plane sums a block per plane. The
// links are stored link-major ([l * n + i]): a warp's 32 cells read each link's slots in one
// coalesced access (the host's [i * links + l] made each read touch 32 cache lines).
#include "cuda/conduction_kernels.hpp"
#include "cuda/cuda_check.hpp"

namespace rockperm::cuda {

namespace {

using solve::conduction::link_ahead;
using solve::conduction::link_component;
using solve::conduction::link_weight;
using solve::conduction::none;
constexpr int cell_threads = 256;
constexpr int plane_threads = 512;

unsigned blocks_for(std::uint64_t n) { return static_cast<unsigned>((n + cell_threads - 1) / cell_threads); }

// Adds the block's K partial sums in a fixed tree and writes them to out[blockIdx.x * K + k].
template <int K>
__device__ void block_sum(double (&acc)[K], double* out) {
  __shared__ double shared[K][plane_threads];
  for (int k = 0; k < K; ++k) shared[k][threadIdx.x] = acc[k];
  __syncthreads();
  for (int half = plane_threads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) {
      for (int k = 0; k < K; ++k) shared[k][threadIdx.x] += shared[k][threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    for (int k = 0; k < K; ++k) out[static_cast<std::uint64_t>(blockIdx.x) * K + k] = shared[k][0];
  }
}

// (A p)_i of owned cell i, p over local cells
__device__ inline double product(const ConductionOperatorView& op, const double* p, std::uint64_t i) {
  double v = op.diagonal[i] * p[op.begin + i];
  const auto links = static_cast<unsigned>(op.links);
  for (unsigned f = 0; f < links; ++f) {
    const std::uint32_t j = op.neighbour[f * op.owned + i];
    if (j != none) v -= op.conductance[f * op.owned + i] * p[j];
  }
  return v;
}

__global__ void conductances_kernel(std::uint64_t owned, std::uint32_t begin, int links, const std::uint32_t* neighbour,
                                    const double* sigma, double* conductance) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= owned) return;
  const auto L = static_cast<unsigned>(links);
  for (unsigned f = 0; f < L; ++f) {
    const std::uint32_t j = neighbour[f * owned + i];
    conductance[f * owned + i] =
        j == none ? 0.0 : link_weight(links, static_cast<int>(f)) * solve::conduction::face_conductance(sigma[begin + i], sigma[j]);
  }
}

template <class T>
__global__ void link_major_kernel(const T* by_cell, T* by_link, std::uint64_t n, unsigned links) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (unsigned f = 0; f < links; ++f) by_link[f * n + i] = by_cell[i * links + f];
}

__global__ void drive_kernel(ConductionOperatorView op, int axis, double* r) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= op.owned) return;
  const auto L = static_cast<unsigned>(op.links);
  double b = 0;
  for (unsigned f = 0; f < L; ++f) {
    const int e = link_component(op.links, static_cast<int>(f), axis);
    if (e != 0) b += e == 1 ? -op.conductance[f * op.owned + i] : op.conductance[f * op.owned + i];
  }
  r[i] = b;
}

__global__ void apply_kernel(ConductionOperatorView op, const double* p, double* q, double* out) {
  double acc[1] = {0.0};
  for (std::uint64_t i = op.plane_first[blockIdx.x] + threadIdx.x; i < op.plane_end[blockIdx.x]; i += plane_threads) {
    const double v = product(op, p, i);
    q[i] = v;
    acc[0] += p[op.begin + i] * v;
  }
  block_sum<1>(acc, out);
}

__global__ void advance_kernel(ConductionOperatorView op, double alpha, double* x, const double* p, double* r,
                               const double* q) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= op.owned) return;
  x[op.begin + i] += alpha * p[op.begin + i];
  r[i] -= alpha * q[i];
}

__global__ void jacobi_kernel(ConductionOperatorView op, const double* r, double* z) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < op.owned) z[i] = op.inverse[i] * r[i];
}

__global__ void dot_kernel(ConductionOperatorView op, const double* a, const double* b, double* out) {
  double acc[1] = {0.0};
  for (std::uint64_t i = op.plane_first[blockIdx.x] + threadIdx.x; i < op.plane_end[blockIdx.x]; i += plane_threads) {
    acc[0] += a[i] * b[i];
  }
  block_sum<1>(acc, out);
}

__global__ void direct_kernel(ConductionOperatorView op, double beta, const double* z, double* p) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < op.owned) p[op.begin + i] = z[i] + beta * p[op.begin + i];
}

__global__ void read_kernel(ConductionOperatorView op, solve::ConductionReadingSlabs rd, const double* x, double* out) {
  double acc[3] = {0.0, 0.0, 0.0};
  const bool sample = rd.kind == solve::ConductionReadingSlabs::Kind::sample;
  for (std::uint64_t i = op.plane_first[blockIdx.x] + threadIdx.x; i < op.plane_end[blockIdx.x]; i += plane_threads) {
    const double xc = x[op.begin + i];
    const std::int64_t t = sample ? op.coordinate[i] : 0;
    const auto L = static_cast<unsigned>(op.links);
    for (unsigned f = 0; f < L; ++f) {  // each link once: the one ahead of its cell
      if (!link_ahead(op.links, static_cast<int>(f))) continue;
      const std::uint32_t j = op.neighbour[f * op.owned + i];
      if (j == none) continue;
      const double g = op.conductance[f * op.owned + i];
      solve::conduction::add_link_reading(xc, x[j], g, g / link_weight(op.links, static_cast<int>(f)),
                                          link_component(op.links, static_cast<int>(f), rd.axis), t, sample, rd.in, rd.out, acc);
    }
  }
  block_sum<3>(acc, out);
}

__device__ inline double level_product(const ConductionLevelView& L, const double* x, std::uint64_t i) {
  double ax = L.diagonal[i] * x[i];
  const auto links = static_cast<unsigned>(L.links);
  for (unsigned f = 0; f < links; ++f) {
    const std::uint32_t j = L.col[f * L.n + i];
    if (j != none) ax -= static_cast<double>(L.val[f * L.n + i]) * x[j];
  }
  return ax;
}

__global__ void smooth_kernel(ConductionLevelView L, double omega, const double* b, const double* x, double* t) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= L.n) return;
  t[i] = L.inverse[i] == 0 ? x[i] : x[i] + omega * L.inverse[i] * (b[i] - level_product(L, x, i));
}

__global__ void residual_kernel(ConductionLevelView L, const double* b, const double* x, double* res) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < L.n) res[i] = b[i] - level_product(L, x, i);
}

__global__ void restrict_kernel(ConductionLevelView C, const double* fine_res, double* coarse_b) {
  const std::uint64_t a = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a >= C.n) return;
  double sum = 0;
  for (std::uint32_t ch = C.first_child[a]; ch < C.first_child[a + 1]; ++ch) sum += fine_res[C.children[ch]];
  coarse_b[a] = sum;
}

__global__ void prolong_kernel(ConductionLevelView L, double scale, const double* coarse_x, double* x) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < L.n) x[i] += scale * coarse_x[L.parent[i]];
}

}  // namespace

void launch_conduction_conductances(std::uint64_t owned, std::uint32_t begin, int links, const std::uint32_t* neighbour,
                                    const double* sigma, double* conductance, cudaStream_t stream) {
  if (owned == 0) return;
  conductances_kernel<<<blocks_for(owned), cell_threads, 0, stream>>>(owned, begin, links, neighbour, sigma, conductance);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class T>
void launch_link_major(const T* by_cell, T* by_link, std::uint64_t n, int links, cudaStream_t stream) {
  if (n == 0) return;
  link_major_kernel<<<blocks_for(n), cell_threads, 0, stream>>>(by_cell, by_link, n, static_cast<unsigned>(links));
  ROCKPERM_CUDA_CHECK_LAST();
}
template void launch_link_major(const std::uint32_t*, std::uint32_t*, std::uint64_t, int, cudaStream_t);
template void launch_link_major(const float*, float*, std::uint64_t, int, cudaStream_t);

void launch_conduction_drive(const ConductionOperatorView& op, int axis, double* r, cudaStream_t stream) {
  if (op.owned == 0) return;
  drive_kernel<<<blocks_for(op.owned), cell_threads, 0, stream>>>(op, axis, r);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_conduction_apply(const ConductionOperatorView& op, const double* p, double* q, double* out, cudaStream_t stream) {
  if (op.planes == 0) return;
  apply_kernel<<<op.planes, plane_threads, 0, stream>>>(op, p, q, out);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_conduction_advance(const ConductionOperatorView& op, double alpha, double* x, const double* p, double* r,
                               const double* q, cudaStream_t stream) {
  if (op.owned == 0) return;
  advance_kernel<<<blocks_for(op.owned), cell_threads, 0, stream>>>(op, alpha, x, p, r, q);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_conduction_jacobi(const ConductionOperatorView& op, const double* r, double* z, cudaStream_t stream) {
  if (op.owned == 0) return;
  jacobi_kernel<<<blocks_for(op.owned), cell_threads, 0, stream>>>(op, r, z);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_conduction_dot(const ConductionOperatorView& op, const double* a, const double* b, double* out,
                           cudaStream_t stream) {
  if (op.planes == 0) return;
  dot_kernel<<<op.planes, plane_threads, 0, stream>>>(op, a, b, out);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_conduction_direct(const ConductionOperatorView& op, double beta, const double* z, double* p, cudaStream_t stream) {
  if (op.owned == 0) return;
  direct_kernel<<<blocks_for(op.owned), cell_threads, 0, stream>>>(op, beta, z, p);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_conduction_read(const ConductionOperatorView& op, const solve::ConductionReadingSlabs& reading, const double* x,
                            double* out, cudaStream_t stream) {
  if (op.planes == 0) return;
  read_kernel<<<op.planes, plane_threads, 0, stream>>>(op, reading, x, out);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_multigrid_smooth(const ConductionLevelView& level, double omega, const double* b, const double* x, double* t,
                             cudaStream_t stream) {
  if (level.n == 0) return;
  smooth_kernel<<<blocks_for(level.n), cell_threads, 0, stream>>>(level, omega, b, x, t);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_multigrid_residual(const ConductionLevelView& level, const double* b, const double* x, double* res,
                               cudaStream_t stream) {
  if (level.n == 0) return;
  residual_kernel<<<blocks_for(level.n), cell_threads, 0, stream>>>(level, b, x, res);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_multigrid_restrict(const ConductionLevelView& coarse, const double* fine_res, double* coarse_b,
                               cudaStream_t stream) {
  if (coarse.n == 0) return;
  restrict_kernel<<<blocks_for(coarse.n), cell_threads, 0, stream>>>(coarse, fine_res, coarse_b);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_multigrid_prolong(const ConductionLevelView& level, double scale, const double* coarse_x, double* x,
                              cudaStream_t stream) {
  if (level.n == 0) return;
  prolong_kernel<<<blocks_for(level.n), cell_threads, 0, stream>>>(level, scale, coarse_x, x);
  ROCKPERM_CUDA_CHECK_LAST();
}

}  // namespace rockperm::cuda
