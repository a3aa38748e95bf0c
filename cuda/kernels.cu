// The CUDA kernels: one thread per fluid cell, each calling the per-cell functions of
// lib/lattice/propagation.hpp that the CPU backend calls too, compiled for each population storage S.
#include <algorithm>
#include <type_traits>

#include "cuda/cuda_check.hpp"
#include "cuda/kernels.hpp"
#include "lib/lattice/block_order.hpp"
#include "lib/lattice/propagation.hpp"

namespace rockperm::cuda {

namespace {

constexpr int block_threads = 256;
// Blocks per multiprocessor the collide kernels are compiled for (registers: 65536 / (256 * n)).
// Before the L2 prefetch below, fp16 was bound by its memory latency at its occupancy: 3 blocks
// (80 registers) ran the fused 512^3 pack at 24.2 GFLUPS against 21.9 with 2 (up to 128
// registers), 19.2 with 4 (64, spilling), 23.6 and 21.6 with 6 and 7 blocks of 128 threads;
// fp32 runs at 18.3 with 2 and 17.5 with 3. (H200; the measurement: git log -p docs/PERFORMANCE.md)
template <class S>
constexpr int min_blocks = sizeof(S) == 2 ? 3 : 2;

// Prefetches into L2 what the warps `ahead` cells on will load first (blocks run roughly in
// order, so those are the warps that start as this one ends): their loads then wait for L2
// rather than for memory. Without it the steps were bound by the latency of their loads at the
// occupancy their registers allow; with it both storages' collide and odd kernels run at 90-95 %
// of the L2's throughput, and still gain from it (H200, ncu; docs/PERFORMANCE.md). One sector per lane.
__device__ inline void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// the 32-cell rows of `rows` arrays of T from `cell` (each 32 * sizeof(T) bytes: sizeof(T) sectors)
template <class T, class Index>
__device__ inline void prefetch_rows(const T* a, Index stride, int rows, std::uint32_t cell) {
  const int lane = threadIdx.x % 32;
  for (int s = lane; s < rows * static_cast<int>(sizeof(T)); s += 32) {
    prefetch_l2(a + (s / static_cast<int>(sizeof(T))) * stride + cell + (s % static_cast<int>(sizeof(T))) * (32 / sizeof(T)));
  }
}

// what the odd step loads first: its tables (none for the forms without a prefetch here)
template <class Tables>
__device__ inline void prefetch_tables(const Tables&, std::uint64_t, std::uint32_t) {}
__device__ inline void prefetch_tables(const lattice::GroupedPairTables& t, std::uint64_t stride, std::uint32_t cell) {
  prefetch_rows(t.delta, stride, d3q19::half, cell);
  const int lane = threadIdx.x % 32;  // 4 bases per direction and group: 144 bytes
  if (lane < 5) prefetch_l2(t.base + 4 * (cell / lattice::group_cells) * d3q19::half + 8 * lane);
}
__device__ inline void prefetch_tables(const lattice::LineTables& t, std::uint64_t stride, std::uint32_t cell) {
  prefetch_rows(t.mask, stride, 1, cell);
  prefetch_rows(t.ranks, stride, lattice::line_rank_rows, cell);
  const int lane = threadIdx.x % 32;  // 16 bases per group: 64 bytes
  if (lane < 2) prefetch_l2(t.base + 4 * lattice::line_rank_rows * (cell / lattice::group_cells) + 8 * lane);
}

// Grey: the lattice has grey cells (CollisionParams::phases), each collided by its phase; the
// kernels without them are compiled as before, so that an open sample runs the same code.
template <class S, class Index, bool Grey>
__global__ void __launch_bounds__(block_threads, min_blocks<S>) collide_kernel(S* __restrict__ f, Index stride, std::uint32_t first, std::uint32_t begin, std::uint32_t end,
                               physics::CollisionParams p, std::uint32_t ahead) {
  const std::uint32_t cell = first + blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t next = (cell & ~31u) + ahead;
  if (next < end) prefetch_rows(f, stride, d3q19::q, next);
  if (cell >= begin && cell < end) {
    if constexpr (Grey) lattice::propagation::collide_cell_by_phase<S, Index>(f, stride, Index{cell}, p);
    else lattice::propagation::collide_cell<S, Index>(f, stride, cell, p);
  }
}

template <class S, class Index, class Tables>
__global__ void swap_kernel(S* __restrict__ f, Index stride, std::uint32_t first, std::uint32_t begin, std::uint32_t end,
                            Tables neighbours) {
  const std::uint32_t cell = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (cell >= begin && cell < end) lattice::propagation::swap_cell<S, Index>(f, stride, neighbours, cell);
}

// order: null (block b holds the cells first + b B on), or the blocks in the order to visit them
// (block order[b] holds the cells from order[b] B; lib/lattice/block_order.hpp), the prefetch
// then following that order too.
template <class S, class Index, class Tables, bool Grey>
__global__ void __launch_bounds__(block_threads, min_blocks<S>)
    fused_odd_kernel(S* __restrict__ f, Index stride, std::uint32_t first, std::uint32_t begin, std::uint32_t end,
                     Tables tables, physics::CollisionParams p, std::uint32_t ahead,
                     const std::uint32_t* __restrict__ order) {
  std::uint32_t cell, next;
  if (order) {
    cell = __ldg(order + blockIdx.x) * block_threads + threadIdx.x;
    const std::uint32_t later = blockIdx.x + ahead / block_threads;
    next = later < gridDim.x ? __ldg(order + later) * block_threads + (threadIdx.x & ~31u) : end;
  } else {
    cell = first + blockIdx.x * blockDim.x + threadIdx.x;
    next = (cell & ~31u) + ahead;
  }
  if (next < end) {  // its tables, and its own rows (bounce-back and the x neighbours read there)
    prefetch_tables(tables, static_cast<std::uint64_t>(stride), next);
    prefetch_rows(f, stride, d3q19::q, next);
  }
  if (cell >= begin && cell < end) {
    if constexpr (Grey) lattice::propagation::fused_odd_cell_by_phase<S, Index>(f, stride, tables, Index{cell}, p);
    else lattice::propagation::fused_odd_cell<S, Index>(f, stride, tables, cell, p);
  }
}

// The exception cells of LineTables, numbers [first, first + count), that lie in [begin, end).
template <class S, class Index, bool Grey>
__global__ void __launch_bounds__(block_threads, min_blocks<S>)
    fused_odd_exceptions_kernel(S* __restrict__ f, Index stride, std::uint32_t first, std::uint32_t count,
                                std::uint32_t begin, std::uint32_t end, const std::uint32_t* __restrict__ records,
                                physics::CollisionParams p) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const lattice::LineException exception{records +
                                         static_cast<std::uint64_t>(first + k) * lattice::line_exception_words};
  const std::uint32_t cell = __ldg(exception.record + lattice::line_exception_cell);
  if (cell >= begin && cell < end) {
    if constexpr (Grey) lattice::propagation::fused_odd_cell_by_phase<S, Index>(f, stride, exception, Index{cell}, p);
    else lattice::propagation::fused_odd_cell<S, Index>(f, stride, exception, Index{cell}, p);
  }
}

template <class S>
__global__ void rest_kernel(S* __restrict__ f, std::uint64_t stride, std::uint32_t cells,
                            physics::CollisionParams p) {
  const std::uint64_t slot = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (slot >= stride) return;
  for (int i = 0; i < d3q19::q; ++i) {
    f[i * stride + slot] = physics::StorageTraits<S>::store(slot < cells ? physics::rest_population(i, p) : 0.0f);
  }
}

template <class S>
__global__ void macroscopic_kernel(const S* __restrict__ f, std::uint64_t stride, std::uint32_t begin,
                                   std::uint32_t end, physics::CollisionParams p, float* __restrict__ out) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t n = end - begin;
  if (k >= n) return;
  float v[d3q19::q];
  for (int i = 0; i < d3q19::q; ++i) v[i] = physics::StorageTraits<S>::load(f[i * stride + begin + k]);
  const physics::Moments m = physics::moments(v, p, p.drag[physics::cell_phase(p, begin + k)]);
  out[k] = m.drho;
  out[n + k] = m.u[0];
  out[2 * static_cast<std::uint64_t>(n) + k] = m.u[1];
  out[3 * static_cast<std::uint64_t>(n) + k] = m.u[2];
}

// Integer sums are order-free: per-block bins in shared memory when they fit, then one atomic
// per non-zero bin into the global sums (or global atomics throughout for very long samples).
template <class S>
__global__ void plane_sums_kernel(const S* __restrict__ f, std::uint64_t stride, std::uint32_t begin,
                                  std::uint32_t end, const std::uint16_t* __restrict__ plane_of, int axis,
                                  std::uint32_t planes, physics::CollisionParams p, unsigned long long* out,
                                  bool shared_bins) {
  extern __shared__ unsigned long long bins[];
  unsigned long long* target = shared_bins ? bins : out;
  if (shared_bins) {
    for (std::uint32_t b = threadIdx.x; b < 3 * planes; b += blockDim.x) bins[b] = 0;
    __syncthreads();
  }
  const std::uint32_t n = end - begin;
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    const physics::PlaneValues v = physics::cell_plane_values(f, stride, begin + k, axis, p);
    const std::uint32_t plane = plane_of[k];
    atomicAdd(&target[plane], static_cast<unsigned long long>(v.drho));  // two's complement: signed sums
    atomicAdd(&target[planes + plane], static_cast<unsigned long long>(v.flux));
    atomicAdd(&target[2 * planes + plane], static_cast<unsigned long long>(v.weighted));
  }
  if (shared_bins) {
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < 3 * planes; b += blockDim.x) {
      if (bins[b] != 0) atomicAdd(&out[b], bins[b]);
    }
  }
}

template <class S>
__global__ void scale_kernel(S* __restrict__ f, std::uint64_t count, float factor) {
  const std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (k < count) f[k] = physics::StorageTraits<S>::store(factor * physics::StorageTraits<S>::load(f[k]));
}

// Each block reduces reduction_block consecutive cells in double.
template <class S>
__global__ void sums_kernel(const S* __restrict__ f, std::uint64_t stride, std::uint32_t begin,
                            std::uint32_t end, physics::CollisionParams p, physics::FlowSums* partial) {
  // raw storage: __shared__ variables cannot have constructors
  __shared__ alignas(physics::FlowSums) unsigned char storage[sizeof(physics::FlowSums) * block_threads];
  physics::FlowSums* shared = reinterpret_cast<physics::FlowSums*>(storage);
  physics::FlowSums mine;
  const std::uint64_t first = begin + static_cast<std::uint64_t>(blockIdx.x) * physics::reduction_block;
  const std::uint64_t last = min(first + physics::reduction_block, static_cast<std::uint64_t>(end));
  for (std::uint64_t c = first + threadIdx.x; c < last; c += blockDim.x) {
    mine.add(physics::cell_sums(f, stride, static_cast<std::uint32_t>(c), p));
  }
  shared[threadIdx.x] = mine;
  __syncthreads();
  for (int width = blockDim.x / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) shared[threadIdx.x].add(shared[threadIdx.x + width]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = shared[0];
}

// The packs and unpacks run beside the interior and are bound by the latency of their loads: each
// thread moves halo_per_thread entries (a block's entries k, k + 256, ...), all loads first, so
// that fewer threads hold the multiprocessors' slots for less time. bench --loopback on an H200,
// 768^2 x 96 pack (of alone, fp32 / fp16): 1 entry 97.3 / 96.5-96.6 %, 4 entries 97.8 / 96.2-97.4,
// 8 entries 97.9 / 97.4-97.8 (the measurement: git log -p docs/PERFORMANCE.md).
constexpr int halo_per_thread = 8;

template <class S>
__global__ void pack_kernel(const S* __restrict__ f, std::uint64_t stride, const std::uint32_t* __restrict__ cells,
                            parallel::HaloRows rows, S* __restrict__ buffer) {
  const std::uint32_t first = blockIdx.x * blockDim.x * halo_per_thread + threadIdx.x, n = rows.count();
  S v[halo_per_thread];
#pragma unroll
  for (int j = 0; j < halo_per_thread; ++j) {
    const std::uint32_t k = first + j * blockDim.x;
    if (k < n) v[j] = f[rows.offset(k, cells[k], stride)];
  }
#pragma unroll
  for (int j = 0; j < halo_per_thread; ++j) {
    const std::uint32_t k = first + j * blockDim.x;
    if (k < n) buffer[k] = v[j];
  }
}

template <class S>
__global__ void unpack_kernel(S* __restrict__ f, std::uint64_t stride, const std::uint32_t* __restrict__ cells,
                              parallel::HaloRows rows, const S* __restrict__ buffer) {
  const std::uint32_t first = blockIdx.x * blockDim.x * halo_per_thread + threadIdx.x, n = rows.count();
  S v[halo_per_thread];
  std::uint32_t cell[halo_per_thread];
#pragma unroll
  for (int j = 0; j < halo_per_thread; ++j) {
    const std::uint32_t k = first + j * blockDim.x;
    if (k < n) {
      v[j] = buffer[k];
      cell[j] = cells[k];
    }
  }
#pragma unroll
  for (int j = 0; j < halo_per_thread; ++j) {
    const std::uint32_t k = first + j * blockDim.x;
    if (k < n) f[rows.offset(k, cell[j], stride)] = v[j];
  }
}

unsigned grid_for(std::uint32_t cells) { return (cells + block_threads - 1) / block_threads; }

// The first thread of a cell range: its cell rounded down to a multiple of 32, so that every
// warp's slots start on a 128-byte line of each population row (the rows' stride is a multiple
// of 32 cells). A range that starts elsewhere (a slab's interior, after its boundary planes)
// would otherwise split each warp's loads and stores across two lines.
std::uint32_t warp_aligned(std::uint32_t begin) { return begin & ~31u; }

// 32-bit offsets when every population offset fits (see lib/lattice/propagation.hpp).
bool narrow(std::uint64_t stride) { return d3q19::q * stride <= 0xFFFFFFFFull; }

// Calls launch(narrow, grey) with std::bool_constant arguments: 32-bit offsets where they fit,
// and the grey kernels only where the lattice has grey cells.
template <class Launch>
void with_index_and_phases(std::uint64_t stride, const physics::CollisionParams& p, const Launch& launch) {
  const bool grey = p.phases != nullptr;
  if (narrow(stride)) {
    if (grey) launch(std::true_type{}, std::true_type{});
    else launch(std::true_type{}, std::false_type{});
  } else {
    if (grey) launch(std::false_type{}, std::true_type{});
    else launch(std::false_type{}, std::false_type{});
  }
}

// How far ahead the collide kernels prefetch: half the cells of the blocks resident at once on the
// current device (its multiprocessors times the kernel's blocks per multiprocessor). On an H200's
// 512^3 pack a quarter and three quarters of them ran 0.4-0.6 % slower than a half, all of them
// 0.2-0.4 %, twice 0.8-2.7 %, four times 6-12 % (docs/PERFORMANCE.md).
template <class S>
std::uint32_t prefetch_distance() {
  int device = 0, sms = 0;
  ROCKPERM_CUDA_CHECK(cudaGetDevice(&device));
  ROCKPERM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<std::uint32_t>(sms * min_blocks<S> * block_threads / 2) & ~31u;
}

}  // namespace

template <class S>
void launch_rest_state(S* f, std::uint64_t stride, std::uint32_t cells, const physics::CollisionParams& p,
                       cudaStream_t stream) {
  if (stride == 0) return;
  rest_kernel<S><<<static_cast<unsigned>((stride + block_threads - 1) / block_threads), block_threads, 0, stream>>>(
      f, stride, cells, p);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_collide(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                    const physics::CollisionParams& p, cudaStream_t stream) {
  if (end <= begin) return;
  const std::uint32_t first = warp_aligned(begin), cells = end - first;
  const auto launch = [&](auto narrow_index, auto grey) {
    using Index = std::conditional_t<decltype(narrow_index)::value, std::uint32_t, std::uint64_t>;
    collide_kernel<S, Index, decltype(grey)::value><<<grid_for(cells), block_threads, 0, stream>>>(
        f, stride, first, begin, end, p, prefetch_distance<S>());
  };
  with_index_and_phases(stride, p, launch);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S, class Tables>
void launch_swap(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end, Tables neighbours,
                 cudaStream_t stream) {
  if (end <= begin) return;
  const std::uint32_t first = warp_aligned(begin), cells = end - first;
  if (narrow(stride)) {
    swap_kernel<S, std::uint32_t, Tables><<<grid_for(cells), block_threads, 0, stream>>>(f, stride, first, begin, end, neighbours);
  } else {
    swap_kernel<S, std::uint64_t, Tables><<<grid_for(cells), block_threads, 0, stream>>>(f, stride, first, begin, end, neighbours);
  }
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S, class Tables>
void launch_fused_odd(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end, Tables tables,
                      const physics::CollisionParams& p, const std::uint32_t* order, std::uint32_t order_blocks,
                      cudaStream_t stream) {
  static_assert(block_threads == lattice::order_block_cells);
  if (end <= begin) return;
  const std::uint32_t first = warp_aligned(begin), cells = end - first;
  const auto launch = [&](auto narrow_index, auto grey) {
    using Index = std::conditional_t<decltype(narrow_index)::value, std::uint32_t, std::uint64_t>;
    fused_odd_kernel<S, Index, Tables, decltype(grey)::value>
        <<<order ? order_blocks : grid_for(cells), block_threads, 0, stream>>>(f, stride, first, begin, end, tables, p,
                                                                               prefetch_distance<S>(), order);
  };
  with_index_and_phases(stride, p, launch);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_fused_odd_exceptions(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                                 const lattice::LineTables& tables, std::uint32_t first, std::uint32_t last,
                                 const physics::CollisionParams& p, cudaStream_t stream) {
  if (end <= begin || last <= first) return;
  const std::uint32_t count = last - first;
  const auto launch = [&](auto narrow_index, auto grey) {
    using Index = std::conditional_t<decltype(narrow_index)::value, std::uint32_t, std::uint64_t>;
    fused_odd_exceptions_kernel<S, Index, decltype(grey)::value><<<grid_for(count), block_threads, 0, stream>>>(
        f, stride, first, count, begin, end, tables.exceptions, p);
  };
  with_index_and_phases(stride, p, launch);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_sums(const S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                 const physics::CollisionParams& p, physics::FlowSums* partial, cudaStream_t stream) {
  if (end <= begin) return;
  sums_kernel<S><<<sum_blocks(end - begin), block_threads, 0, stream>>>(f, stride, begin, end, p, partial);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_macroscopic(const S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                        const physics::CollisionParams& p, float* out, cudaStream_t stream) {
  if (end <= begin) return;
  const std::uint32_t n = end - begin;
  macroscopic_kernel<S><<<(n + block_threads - 1) / block_threads, block_threads, 0, stream>>>(f, stride, begin, end, p,
                                                                                             out);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_plane_sums(const S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                       const std::uint16_t* plane_of, int axis, std::uint32_t planes,
                       const physics::CollisionParams& p, unsigned long long* out, int blocks,
                       cudaStream_t stream) {
  if (end <= begin) return;
  const std::size_t shared = 3 * static_cast<std::size_t>(planes) * sizeof(unsigned long long);
  const bool shared_bins = shared <= 48 * 1024;
  const int grid = static_cast<int>(std::min<std::uint32_t>(grid_for(end - begin), static_cast<std::uint32_t>(blocks)));
  plane_sums_kernel<S><<<grid, block_threads, shared_bins ? shared : 0, stream>>>(f, stride, begin, end, plane_of, axis,
                                                                               planes, p, out, shared_bins);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_scale(S* f, std::uint64_t count, float factor, cudaStream_t stream) {
  if (count == 0) return;
  const auto grid = static_cast<unsigned>((count + block_threads - 1) / block_threads);
  scale_kernel<S><<<grid, block_threads, 0, stream>>>(f, count, factor);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_pack(const S* f, std::uint64_t stride, const std::uint32_t* cells, const parallel::HaloRows& rows,
                 S* buffer, cudaStream_t stream) {
  if (rows.count() == 0) return;
  const unsigned blocks = grid_for((rows.count() + halo_per_thread - 1) / halo_per_thread);
  pack_kernel<S><<<blocks, block_threads, 0, stream>>>(f, stride, cells, rows, buffer);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_unpack(S* f, std::uint64_t stride, const std::uint32_t* cells, const parallel::HaloRows& rows,
                   const S* buffer, cudaStream_t stream) {
  if (rows.count() == 0) return;
  const unsigned blocks = grid_for((rows.count() + halo_per_thread - 1) / halo_per_thread);
  unpack_kernel<S><<<blocks, block_threads, 0, stream>>>(f, stride, cells, rows, buffer);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
__global__ void density_pass_kernel(DensityPass pass, S* __restrict__ f, std::uint64_t stride, std::uint32_t begin,
                                    std::uint32_t end, float* __restrict__ pairs, float arg,
                                    unsigned long long* out, float gx, float gy, float gz) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t n = end - begin;
  float peak = 0.0f;
  physics::DensityProducts products;
  if (k < n) {
    const std::uint32_t cell = begin + k;
    float& held = pairs[2 * static_cast<std::uint64_t>(k)];
    float& change = pairs[2 * static_cast<std::uint64_t>(k) + 1];
    switch (pass) {
      case DensityPass::hold:
        physics::hold_cell(physics::cell_density(f, stride, cell), held, change, arg != 0.0f);
        break;
      case DensityPass::peak:
        peak = physics::cell_change_peak(physics::cell_density(f, stride, cell), held, change);
        break;
      case DensityPass::products:
        products = physics::cell_products(change, physics::cell_density(f, stride, cell) - held, arg);
        break;
      case DensityPass::extrapolate:
        physics::extrapolate_cell(f, stride, cell, held, change, arg);
        break;
      case DensityPass::extrapolate_at_rest:
        physics::extrapolate_cell_at_rest(f, stride, cell, held, change, arg, gx, gy, gz);
        break;
    }
  }
  if (pass == DensityPass::peak) {  // non-negative floats order as their bits
    for (int o = 16; o > 0; o /= 2) peak = fmaxf(peak, __shfl_down_sync(0xffffffffu, peak, o));
    if (threadIdx.x % 32 == 0 && peak > 0.0f) atomicMax(out, static_cast<unsigned long long>(__float_as_uint(peak)));
  } else if (pass == DensityPass::products) {  // integer sums: any order gives the same
    for (int o = 16; o > 0; o /= 2) {
      products.d11 += __shfl_down_sync(0xffffffffu, products.d11, o);
      products.d21 += __shfl_down_sync(0xffffffffu, products.d21, o);
      products.d22 += __shfl_down_sync(0xffffffffu, products.d22, o);
    }
    if (threadIdx.x % 32 == 0) {
      atomicAdd(&out[0], static_cast<unsigned long long>(products.d11));
      atomicAdd(&out[1], static_cast<unsigned long long>(products.d21));
      atomicAdd(&out[2], static_cast<unsigned long long>(products.d22));
    }
  }
}

template <class S>
void launch_density_pass(DensityPass pass, S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                         float* pairs, float arg, unsigned long long* out, cudaStream_t stream, float gx, float gy,
                         float gz) {
  if (end <= begin) return;
  density_pass_kernel<S><<<grid_for(end - begin), block_threads, 0, stream>>>(pass, f, stride, begin, end, pairs, arg,
                                                                             out, gx, gy, gz);
  ROCKPERM_CUDA_CHECK_LAST();
}

// the launchers for each storage (lib/physics/storage.hpp)
#define ROCKPERM_STORAGE_LAUNCHERS(S)                                                                                  \
  template void launch_rest_state<S>(S*, std::uint64_t, std::uint32_t, const physics::CollisionParams&, cudaStream_t); \
  template void launch_collide<S>(S*, std::uint64_t, std::uint32_t, std::uint32_t, const physics::CollisionParams&,    \
                                  cudaStream_t);                                                                       \
  template void launch_swap<S, lattice::IndexTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,                  \
                                                     lattice::IndexTables, cudaStream_t);                              \
  template void launch_swap<S, lattice::PackedTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,                 \
                                                      lattice::PackedTables, cudaStream_t);                            \
  template void launch_swap<S, lattice::PackedPairTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,             \
                                                          lattice::PackedPairTables, cudaStream_t);                    \
  template void launch_fused_odd<S, lattice::IndexTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,             \
                                          lattice::IndexTables, const physics::CollisionParams&,                       \
                                          const std::uint32_t*, std::uint32_t, cudaStream_t);                          \
  template void launch_fused_odd<S, lattice::PackedPairTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,        \
                                          lattice::PackedPairTables, const physics::CollisionParams&,                  \
                                          const std::uint32_t*, std::uint32_t, cudaStream_t);                          \
  template void launch_swap<S, lattice::GroupedPairTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,            \
                                     lattice::GroupedPairTables, cudaStream_t);                                        \
  template void launch_fused_odd<S, lattice::GroupedPairTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,       \
                                          lattice::GroupedPairTables, const physics::CollisionParams&,                 \
                                          const std::uint32_t*, std::uint32_t, cudaStream_t);                          \
  template void launch_swap<S, lattice::LineTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,                   \
                                     lattice::LineTables, cudaStream_t);                                               \
  template void launch_fused_odd<S, lattice::LineTables>(S*, std::uint64_t, std::uint32_t, std::uint32_t,              \
                                          lattice::LineTables, const physics::CollisionParams&,                        \
                                          const std::uint32_t*, std::uint32_t, cudaStream_t);                          \
  template void launch_fused_odd_exceptions<S>(S*, std::uint64_t, std::uint32_t, std::uint32_t,                        \
                                               const lattice::LineTables&, std::uint32_t, std::uint32_t,               \
                                               const physics::CollisionParams&, cudaStream_t);                         \
  template void launch_density_pass<S>(DensityPass, S*, std::uint64_t, std::uint32_t, std::uint32_t, float*, float,    \
                                       unsigned long long*, cudaStream_t, float, float, float);                        \
  template void launch_sums<S>(const S*, std::uint64_t, std::uint32_t, std::uint32_t, const physics::CollisionParams&, \
                               physics::FlowSums*, cudaStream_t);                                                      \
  template void launch_macroscopic<S>(const S*, std::uint64_t, std::uint32_t, std::uint32_t,                           \
                                      const physics::CollisionParams&, float*, cudaStream_t);                          \
  template void launch_plane_sums<S>(const S*, std::uint64_t, std::uint32_t, std::uint32_t, const std::uint16_t*, int, \
                                     std::uint32_t, const physics::CollisionParams&, unsigned long long*, int,         \
                                     cudaStream_t);                                                                    \
  template void launch_scale<S>(S*, std::uint64_t, float, cudaStream_t);                                               \
  template void launch_pack<S>(const S*, std::uint64_t, const std::uint32_t*, const parallel::HaloRows&, S*,           \
                               cudaStream_t);                                                                          \
  template void launch_unpack<S>(S*, std::uint64_t, const std::uint32_t*, const parallel::HaloRows&, const S*,         \
                                 cudaStream_t);
ROCKPERM_STORAGE_LAUNCHERS(float)
ROCKPERM_STORAGE_LAUNCHERS(physics::Half)
#undef ROCKPERM_STORAGE_LAUNCHERS

}  // namespace rockperm::cuda
