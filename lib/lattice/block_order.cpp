#include "lib/lattice/block_order.hpp"

#include <algorithm>

namespace rockperm::lattice {

std::uint64_t odd_band_cells(const SparseLattice& lattice, double bytes_per_cell, std::uint64_t l2_bytes) {
  const double planes = static_cast<double>(std::max<std::int64_t>(lattice.dims().nz, 1));
  const double plane_bytes = lattice.fluid_count() / planes * bytes_per_cell;
  if (bytes_per_cell <= 0 || l2_bytes == 0 || plane_bytes <= l2_bytes / 2.0) return 0;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(l2_bytes / 4.0 / bytes_per_cell));
}

BlockBands block_bands(const SparseLattice& lattice, std::uint64_t band_cells) {
  BlockBands out;
  const geometry::Dims& d = lattice.dims();
  const auto ny = static_cast<std::uint64_t>(d.ny), cells = std::uint64_t{lattice.fluid_count()},
             lines = ny * static_cast<std::uint64_t>(d.nz);
  if (band_cells == 0 || cells == 0 || lines == 0) return out;
  // rows of voxels a band holds: band_cells over the mean fluid cells of a row
  out.rows = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(band_cells * lines / cells, 1, ny));
  out.bands = static_cast<std::uint32_t>((ny + out.rows - 1) / out.rows);
  if (out.bands <= 1) {
    out.bands = 1;
    return out;
  }
  const auto& coords = lattice.coords();
  out.band.resize((cells + order_block_cells - 1) / order_block_cells);
  for (std::size_t k = 0; k < out.band.size(); ++k)
    out.band[k] = static_cast<std::uint16_t>(coords[k * order_block_cells].y / out.rows);
  return out;
}

std::vector<std::uint32_t> block_order(const BlockBands& bands, std::uint32_t begin, std::uint32_t end) {
  std::vector<std::uint32_t> order;
  if (bands.bands <= 1 || end <= begin) return order;
  const std::uint32_t first = begin / order_block_cells, last = (end - 1) / order_block_cells + 1;
  // a stable counting sort of the blocks by band
  std::vector<std::uint32_t> start(bands.bands + 1, 0);
  for (std::uint32_t k = first; k < last; ++k) ++start[bands.band[k] + 1];
  if (std::count_if(start.begin() + 1, start.end(), [](std::uint32_t n) { return n != 0; }) <= 1) return order;
  for (std::uint32_t b = 0; b < bands.bands; ++b) start[b + 1] += start[b];
  order.resize(last - first);
  for (std::uint32_t k = first; k < last; ++k) order[start[bands.band[k]]++] = k;
  return order;
}

}  // namespace rockperm::lattice
