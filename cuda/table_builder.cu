// The grouped tables built on the device (cuda/table_builder.hpp).
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "cuda/cuda_check.hpp"
#include "cuda/table_builder.hpp"
#include "lib/lattice/link_rule.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::cuda {

namespace {

constexpr int block_threads = 256;
constexpr int warps_per_block = block_threads / 32;
constexpr std::uint64_t chunk_voxels = std::uint64_t{1} << 28;  // bytes of mask per upload (a multiple of 32)

std::uint64_t mask_words(const lattice::SparseLattice& lattice) { return (lattice.dims().voxels() + 31) / 32; }

// One bit per voxel: warp lanes read 32 consecutive bytes and lane 0 stores their ballot.
// `first` (a multiple of 32) is the chunk's first voxel, `count` its voxels.
__global__ void pack_bits_kernel(const std::uint8_t* __restrict__ chunk, std::uint64_t first, std::uint64_t count,
                                 std::uint32_t* __restrict__ bits) {
  const std::uint64_t t = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const bool pore = t < count && chunk[t] != 0;
  const std::uint32_t word = __ballot_sync(0xFFFFFFFFu, pore);
  if (threadIdx.x % 32 == 0 && t < count) bits[(first + t) / 32] = word;
}

__global__ void count_bits_kernel(const std::uint32_t* __restrict__ bits, std::uint64_t words,
                                  std::uint32_t* __restrict__ counts) {
  const std::uint64_t w = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (w < words) counts[w] = __popc(bits[w]);
}

// The mask as a rank structure: the fluid index of a voxel, its voxel's coordinates for a cell.
struct MaskIndex {
  const std::uint32_t* bits;
  const std::uint32_t* prefix;  // fluid voxels before each word
  std::uint64_t words;
  std::int64_t nx, ny, nz;
  bool periodic[3];

  __device__ std::uint32_t index(std::uint64_t v) const {
    const std::uint32_t word = bits[v / 32], bit = 1u << (v % 32);
    return (word & bit) ? prefix[v / 32] + __popc(word & (bit - 1)) : lattice::link_rule::no_cell;
  }
  // the voxel of fluid cell c (c below the fluid count): the last word whose prefix is at most
  // c holds it, as its (c - prefix)-th set bit
  __device__ std::uint64_t voxel(std::uint32_t c) const {
    std::uint64_t lo = 0, hi = words;
    while (hi - lo > 1) {
      const std::uint64_t mid = (lo + hi) / 2;
      if (prefix[mid] <= c) lo = mid;
      else hi = mid;
    }
    std::uint32_t word = bits[lo];
    for (std::uint32_t j = c - prefix[lo]; j > 0; --j) word &= word - 1;
    return lo * 32 + (__ffs(word) - 1);
  }
};

// `at` of the link rule for the voxel (x, y, z)
struct At {
  const MaskIndex& m;
  std::int64_t x, y, z;
  __device__ std::uint32_t operator()(int dx, int dy, int dz) const {
    const std::int64_t xn = lattice::link_rule::step_axis(x, dx, m.nx, m.periodic[0]);
    const std::int64_t yn = lattice::link_rule::step_axis(y, dy, m.ny, m.periodic[1]);
    const std::int64_t zn = lattice::link_rule::step_axis(z, dz, m.nz, m.periodic[2]);
    if (xn < 0 || yn < 0 || zn < 0) return lattice::link_rule::no_cell;
    return m.index(static_cast<std::uint64_t>((zn * m.ny + yn) * m.nx + xn));
  }
};

// One warp per group of 32 cells (lane = cell of the group), direction by direction and side by
// side (the positive table, then the negative): the link's target, its offset, the group's bases
// from its offsets sorted by rank (ties by lane, so every lane sorts the same), the entry's bits.
__global__ void grouped_tables_kernel(MaskIndex m, std::uint32_t cells, std::uint64_t stride, bool sealed,
                                      std::uint32_t* __restrict__ delta, std::int32_t* __restrict__ base,
                                      int* __restrict__ failed) {
  __shared__ std::int64_t sorted[warps_per_block][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::uint64_t group = blockIdx.x * static_cast<std::uint64_t>(warps_per_block) + warp;
  if (group >= stride / lattice::group_cells) return;  // the whole warp
  const std::uint64_t cell = group * lattice::group_cells + lane;
  const bool fluid = cell < cells;
  std::int64_t x = 0, y = 0, z = 0;
  if (fluid) {
    const std::uint64_t v = m.voxel(static_cast<std::uint32_t>(cell));
    x = static_cast<std::int64_t>(v % m.nx);
    y = static_cast<std::int64_t>((v / m.nx) % m.ny);
    z = static_cast<std::int64_t>(v / (m.nx * m.ny));
  }
  const At at{m, x, y, z};
  constexpr std::int64_t absent = INT64_MAX;
  for (int k = 0; k < d3q19::half; ++k) {
    std::uint32_t entry = 0;
    for (int side = 0; side < 2; ++side) {
      const int sign = side == 0 ? 1 : -1;
      const std::uint32_t t =
          fluid ? lattice::link_rule::link_target(at, sign * d3q19::cx(k + 1), sign * d3q19::cy(k + 1),
                                                  sign * d3q19::cz(k + 1), sealed)
                : lattice::link_rule::no_cell;
      const bool present = t != lattice::link_rule::no_cell;
      const std::int64_t offset = present ? lattice::grouped_offset(t, static_cast<std::int64_t>(cell)) : 0;
      const std::int64_t key = present ? offset : absent;
      int rank = 0;
      for (int l = 0; l < 32; ++l) {
        const std::int64_t other = __shfl_sync(0xFFFFFFFFu, key, l);
        rank += other < key || (other == key && l < lane);
      }
      sorted[warp][rank] = key;
      __syncwarp();
      const int n = __popc(__ballot_sync(0xFFFFFFFFu, present));
      lattice::GroupBases bases;
      const bool fits = lattice::group_bases_sorted(sorted[warp], n, bases);
      __syncwarp();  // every lane has read `sorted` before the next side writes it
      if (!fits) {
        if (lane == 0) atomicExch(failed, 1);
        continue;
      }
      if (lane == 0) {
        std::int32_t* stored = base + (group * d3q19::half + k) * 4 + 2 * side;
        stored[0] = static_cast<std::int32_t>(bases.base[0]);
        stored[1] = static_cast<std::int32_t>(bases.base[1]);
      }
      entry |= lattice::grouped_bits(bases, offset, present) << (16 * side);
    }
    delta[k * stride + cell] = entry;
  }
}

std::uint64_t blocks_for(std::uint64_t threads) { return (threads + block_threads - 1) / block_threads; }

std::size_t scan_scratch_bytes(std::uint64_t words) {
  std::size_t bytes = 0;
  ROCKPERM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                                    static_cast<std::uint32_t*>(nullptr), static_cast<std::int64_t>(words)));
  return bytes;
}

}  // namespace

double grouped_build_scratch_bytes(const lattice::SparseLattice& lattice) {
  const std::uint64_t words = mask_words(lattice);
  return 3.0 * words * 4 + static_cast<double>(std::min(lattice.dims().voxels(), chunk_voxels)) +
         static_cast<double>(scan_scratch_bytes(words));
}

bool build_grouped_tables(const lattice::SparseLattice& lattice, DeviceBuffer<std::uint32_t>& delta,
                          DeviceBuffer<std::int32_t>& base, cudaStream_t stream) {
  const geometry::PoreMask& mask = lattice.mask();
  const std::uint64_t stride = lattice.stride(), voxels = lattice.dims().voxels();
  const std::uint32_t cells = lattice.fluid_count();
  if (mask.pore.size() != voxels || !lattice.has_negative()) {
    throw Error("internal: device tables need a lattice with its mask and the negative directions");
  }
  if (!lattice::packable_size(cells) || stride % lattice::group_cells != 0) return false;
  const std::uint64_t words = mask_words(lattice), groups = stride / lattice::group_cells;

  DeviceBuffer<std::uint32_t> bits(words), counts(words), prefix(words);
  {
    DeviceBuffer<std::uint8_t> chunk(std::min(voxels, chunk_voxels));
    for (std::uint64_t first = 0; first < voxels; first += chunk_voxels) {
      const std::uint64_t count = std::min(chunk_voxels, voxels - first);
      ROCKPERM_CUDA_CHECK(
          cudaMemcpyAsync(chunk.data(), mask.pore.data() + first, count, cudaMemcpyHostToDevice, stream));
      pack_bits_kernel<<<blocks_for(count), block_threads, 0, stream>>>(chunk.data(), first, count, bits.data());
      ROCKPERM_CUDA_CHECK_LAST();
    }
    ROCKPERM_CUDA_CHECK(cudaStreamSynchronize(stream));  // the chunk is released below
  }
  count_bits_kernel<<<blocks_for(words), block_threads, 0, stream>>>(bits.data(), words, counts.data());
  ROCKPERM_CUDA_CHECK_LAST();
  std::size_t scratch_bytes = scan_scratch_bytes(words);
  DeviceBuffer<std::uint8_t> scratch(std::max<std::size_t>(scratch_bytes, 1));
  ROCKPERM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), scratch_bytes, counts.data(), prefix.data(),
                                                    static_cast<std::int64_t>(words), stream));

  const MaskIndex m{bits.data(), prefix.data(), words, lattice.dims().nx, lattice.dims().ny, lattice.dims().nz,
                    {lattice.periodic()[0], lattice.periodic()[1], lattice.periodic()[2]}};
  delta = DeviceBuffer<std::uint32_t>(d3q19::half * stride);
  base = DeviceBuffer<std::int32_t>(groups * 4 * d3q19::half);
  DeviceBuffer<int> failed(1);
  ROCKPERM_CUDA_CHECK(cudaMemsetAsync(failed.data(), 0, sizeof(int), stream));
  const std::uint64_t blocks = (groups + warps_per_block - 1) / warps_per_block;
  grouped_tables_kernel<<<blocks, block_threads, 0, stream>>>(
      m, cells, stride, lattice.edges() == geometry::EdgeContacts::sealed, delta.data(), base.data(), failed.data());
  ROCKPERM_CUDA_CHECK_LAST();
  int host_failed = 0;
  ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(&host_failed, failed.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  ROCKPERM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_failed) {
    delta = DeviceBuffer<std::uint32_t>();
    base = DeviceBuffer<std::int32_t>();
    return false;
  }
  return true;
}

}  // namespace rockperm::cuda
