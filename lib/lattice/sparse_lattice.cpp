#include "lib/lattice/sparse_lattice.hpp"

#include <omp.h>

#include <algorithm>
#include <tuple>

#include "lib/base/checked_size.hpp"
#include "lib/lattice/link_rule.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/base/error.hpp"

namespace rockperm::lattice {

namespace {

// Fluid index of every voxel of one plane (none for solid): built per plane so that no
// dense voxel-to-cell map of the whole volume is ever held.
void plane_index_map(const geometry::PoreMask& mask, std::int64_t z, std::uint64_t first,
                     std::vector<std::uint32_t>& map) {
  const std::uint64_t plane = static_cast<std::uint64_t>(mask.dims.nx) * mask.dims.ny;
  map.resize(plane);
  const std::uint8_t* p = mask.pore.data() + plane * z;
  std::uint64_t next = first;
  for (std::uint64_t v = 0; v < plane; ++v) map[v] = p[v] ? static_cast<std::uint32_t>(next++) : none;
}

using link_rule::link_target;
using link_rule::step_axis;

// Both tables (the negative one where `negative` is not null) of the cells of planes [z_begin,
// z_end), cell c's entries at (i - 1) * stride + c - base (base: the first cell of plane z_begin
// for a window of those planes, 0 for whole tables): each thread sweeps a contiguous range of
// planes with a window of three plane maps (z-1, z, z+1), building each map once.
void fill_planes(const geometry::PoreMask& mask, const std::vector<std::uint64_t>& plane_offsets,
                 const geometry::Periodicity& periodic, geometry::EdgeContacts edges, std::int64_t z_begin,
                 std::int64_t z_end, std::uint64_t base, std::uint64_t stride, std::uint32_t* positive,
                 std::uint32_t* negative) {
  const geometry::Dims& d = mask.dims;
  // x and y of the neighbours one step away, with the periodic wrap or -1 (outside)
  std::vector<std::int64_t> xs[3], ys[3];
  for (int s = -1; s <= 1; ++s) {
    for (std::int64_t x = 0; x < d.nx; ++x) xs[s + 1].push_back(step_axis(x, s, d.nx, periodic[0]));
    for (std::int64_t y = 0; y < d.ny; ++y) ys[s + 1].push_back(step_axis(y, s, d.ny, periodic[1]));
  }
  const bool sealed = edges == geometry::EdgeContacts::sealed;
#pragma omp parallel
  {
    const int threads = omp_get_num_threads(), me = omp_get_thread_num();
    const std::int64_t span = z_end - z_begin;
    const std::int64_t z_lo = z_begin + span * me / threads, z_hi = z_begin + span * (me + 1) / threads;
    std::vector<std::uint32_t> maps[3];
    const auto build_map = [&](std::int64_t z, std::vector<std::uint32_t>& map) {
      if (z >= 0) plane_index_map(mask, z, plane_offsets[z], map);
      else map.clear();
    };
    if (z_lo < z_hi) {
      build_map(step_axis(z_lo, -1, d.nz, periodic[2]), maps[0]);
      build_map(z_lo, maps[1]);
    }
    for (std::int64_t z = z_lo; z < z_hi; ++z) {
      build_map(step_axis(z, 1, d.nz, periodic[2]), maps[2]);
      for (std::int64_t y = 0; y < d.ny; ++y) {
        for (std::int64_t x = 0; x < d.nx; ++x) {
          const std::uint32_t cell = maps[1][y * d.nx + x];
          if (cell == none) continue;
          // fluid index of the voxel one step (dx, dy, dz) away, each in -1..1
          const auto at = [&](int dx, int dy, int dz) {
            const std::int64_t xn = xs[1 + dx][x], yn = ys[1 + dy][y];
            const auto& map = maps[1 + dz];
            return (xn < 0 || yn < 0 || map.empty()) ? none : map[yn * d.nx + xn];
          };
          for (int i = 1; i <= d3q19::half; ++i) {
            const std::uint64_t slot = (i - 1) * stride + cell - base;
            positive[slot] = link_target(at, d3q19::cx(i), d3q19::cy(i), d3q19::cz(i), sealed);
            if (negative) negative[slot] = link_target(at, -d3q19::cx(i), -d3q19::cy(i), -d3q19::cz(i), sealed);
          }
        }
      }
      std::swap(maps[0], maps[1]);
      std::swap(maps[1], maps[2]);
    }
  }
}

// Both whole tables of the lattice of `mask`, the padding cells without neighbours.
void fill_tables(const geometry::PoreMask& mask, const std::vector<std::uint64_t>& plane_offsets,
                 const geometry::Periodicity& periodic, geometry::EdgeContacts edges, std::uint64_t stride,
                 std::uint32_t* positive, std::uint32_t* negative) {
  const std::uint64_t n = plane_offsets[mask.dims.nz];
  // the padding cells [n, stride) have no neighbours; every other entry is written below
  for (std::uint32_t* table : {positive, negative}) {
    if (!table) continue;
    for (int k = 0; k < d3q19::half; ++k) std::fill(table + k * stride + n, table + (k + 1) * stride, none);
  }
  fill_planes(mask, plane_offsets, periodic, edges, 0, mask.dims.nz, 0, stride, positive, negative);
}

}  // namespace


std::uint64_t padded_stride(std::uint64_t fluid_cells) {
  // A multiple of 32 (coalesced warps, aligned 128-byte rows) that is an *odd* multiple, so
  // the 19 population arrays never sit a large power of two apart: with a stride of 2^18, as
  // in a 64^3 fluid box, all 19 streams hit the same cache sets and the CPU ran 3x slower.
  std::uint64_t stride = round_up(fluid_cells, 32);
  if ((stride / 32) % 2 == 0) stride += 32;
  return stride;
}

SparseLattice SparseLattice::build(geometry::PoreMask mask, const geometry::Periodicity& periodic, bool with_negative,
                                   bool allow_empty, geometry::EdgeContacts edges, LatticeTables tables) {
  geometry::validate_dims(mask.dims, "pore mask");
  SparseLattice lat;
  lat.dims_ = mask.dims;
  lat.periodic_ = periodic;
  lat.edges_ = edges;
  lat.with_negative_ = with_negative;
  const geometry::Dims& d = mask.dims;
  const std::uint64_t plane = static_cast<std::uint64_t>(d.nx) * d.ny;

  // the fluid of each plane, and the highest phase code (grey phases above PoreMask::open), in one pass
  lat.plane_offsets_.assign(d.nz + 1, 0);
  std::uint8_t top_code = 0;
#pragma omp parallel for schedule(static) reduction(max : top_code)
  for (std::int64_t z = 0; z < d.nz; ++z) {
    const std::uint8_t* p = mask.pore.data() + plane * z;
    std::uint64_t fluid = 0;
    std::uint8_t top = 0;
    for (std::uint64_t v = 0; v < plane; ++v) {
      fluid += p[v] != 0;
      top = std::max(top, p[v]);
    }
    lat.plane_offsets_[z + 1] = fluid;
    top_code = std::max(top_code, top);
  }
  for (std::int64_t z = 0; z < d.nz; ++z) lat.plane_offsets_[z + 1] += lat.plane_offsets_[z];
  const std::uint64_t n = lat.plane_offsets_[d.nz];
  if (n == 0 && !allow_empty) throw InputError("the pore space is empty: no fluid cell to simulate");
  if (n >= none) {
    throw InputError("the sample has " + std::to_string(n) +
                     " fluid cells, more than one rank can index (2^32 - 1); crop it or run it on more ranks");
  }
  lat.stride_ = padded_stride(n);
  lat.coords_ = HostArray<Coord>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t z = 0; z < d.nz; ++z) {
    const std::uint8_t* p = mask.pore.data() + plane * z;
    Coord* out = lat.coords_.data() + lat.plane_offsets_[z];
    for (std::int64_t y = 0; y < d.ny; ++y) {
      for (std::int64_t x = 0; x < d.nx; ++x) {
        if (p[y * d.nx + x]) {
          *out++ = Coord{static_cast<std::uint16_t>(x), static_cast<std::uint16_t>(y), static_cast<std::uint16_t>(z)};
        }
      }
    }
  }
  // the phase of every cell where the mask holds grey codes (PoreMask: code - 1), else none kept
  if (top_code > geometry::PoreMask::open) {
    lat.phases_ = HostArray<std::uint8_t>(lat.stride_);
    std::fill(lat.phases_.data() + n, lat.phases_.data() + lat.stride_, std::uint8_t{0});
#pragma omp parallel for schedule(static)
    for (std::int64_t z = 0; z < d.nz; ++z) {
      const std::uint8_t* p = mask.pore.data() + plane * z;
      std::uint8_t* out = lat.phases_.data() + lat.plane_offsets_[z];
      for (std::uint64_t v = 0; v < plane; ++v) {
        if (p[v]) *out++ = static_cast<std::uint8_t>(p[v] - geometry::PoreMask::open);
      }
    }
  }
  if (tables == LatticeTables::host) {
    lat.neighbours_ = HostArray<std::uint32_t>(checked_mul(d3q19::half, lat.stride_, "neighbour table"));
    if (with_negative) lat.negative_neighbours_ = HostArray<std::uint32_t>(d3q19::half * lat.stride_);
    fill_tables(mask, lat.plane_offsets_, periodic, edges, lat.stride_, lat.neighbours_.data(),
                with_negative ? lat.negative_neighbours_.data() : nullptr);
  } else {
    lat.mask_ = std::move(mask);
  }
  lat.owned_begin_ = 0;
  lat.owned_end_ = static_cast<std::uint32_t>(n);
  return lat;
}

NeighbourTables SparseLattice::make_tables() const {
  if (has_tables()) throw Error("internal: make_tables on a lattice that holds its tables");
  NeighbourTables t;
  t.positive = HostArray<std::uint32_t>(checked_mul(d3q19::half, stride_, "neighbour table"));
  if (with_negative_) t.negative = HostArray<std::uint32_t>(d3q19::half * stride_);
  fill_tables(mask_, plane_offsets_, periodic_, edges_, stride_, t.positive.data(),
              with_negative_ ? t.negative.data() : nullptr);
  return t;
}

std::pair<const std::uint32_t*, const std::uint32_t*> SparseLattice::tables(NeighbourTables& scratch) const {
  if (has_tables()) return {neighbours_.data(), negative_neighbours_.empty() ? nullptr : negative_neighbours_.data()};
  if (scratch.positive.empty()) scratch = make_tables();
  return {scratch.positive.data(), scratch.negative.empty() ? nullptr : scratch.negative.data()};
}

TableWindow SparseLattice::table_window(std::uint64_t first, std::uint64_t end, NeighbourTables& scratch) const {
  if (has_tables()) throw Error("internal: table_window on a lattice that holds its tables");
  const auto plane_of = [&](std::uint64_t cell) {  // the plane that holds `cell`
    return static_cast<std::int64_t>(std::upper_bound(plane_offsets_.begin(), plane_offsets_.end(), cell) -
                                     plane_offsets_.begin()) - 1;
  };
  const std::int64_t z_begin = plane_of(first), z_end = plane_of(end - 1) + 1;
  const std::uint64_t base = plane_offsets_[z_begin], n = plane_offsets_[z_end] - base;
  if (scratch.positive.size() < d3q19::half * n) scratch.positive = HostArray<std::uint32_t>(d3q19::half * n);
  if (with_negative_ && scratch.negative.size() < d3q19::half * n) {
    scratch.negative = HostArray<std::uint32_t>(d3q19::half * n);
  }
  fill_planes(mask_, plane_offsets_, periodic_, edges_, z_begin, z_end, base, n, scratch.positive.data(),
              with_negative_ ? scratch.negative.data() : nullptr);
  return TableWindow{base, base + n, n, scratch.positive.data(), with_negative_ ? scratch.negative.data() : nullptr};
}

void SparseLattice::set_owned_planes(std::int64_t first_plane, std::int64_t end_plane) {
  owned_begin_ = static_cast<std::uint32_t>(plane_offsets_[first_plane]);
  owned_end_ = static_cast<std::uint32_t>(plane_offsets_[end_plane]);
}

std::uint32_t SparseLattice::index_of(std::int64_t x, std::int64_t y, std::int64_t z) const {
  if (x < 0 || y < 0 || z < 0 || x >= dims_.nx || y >= dims_.ny || z >= dims_.nz) return none;
  const auto key = [](const Coord& c) { return std::tuple(c.z, c.y, c.x); };
  const auto target = std::tuple(static_cast<std::uint16_t>(z), static_cast<std::uint16_t>(y),
                                 static_cast<std::uint16_t>(x));
  const auto first = coords_.begin() + static_cast<std::ptrdiff_t>(plane_offsets_[z]);
  const auto last = coords_.begin() + static_cast<std::ptrdiff_t>(plane_offsets_[z + 1]);
  const auto it = std::lower_bound(first, last, target, [&](const Coord& c, const auto& t) { return key(c) < t; });
  if (it == last || key(*it) != target) return none;
  return static_cast<std::uint32_t>(it - coords_.begin());
}

std::uint32_t SparseLattice::neighbour(std::uint32_t cell, int i) const {
  if (i == 0) return cell;
  if (i <= d3q19::half && has_tables()) return neighbours_[(i - 1) * stride_ + cell];
  if (i > d3q19::half && !negative_neighbours_.empty())
    return negative_neighbours_[(i - 1 - d3q19::half) * stride_ + cell];
  const Coord& c = coords_[cell];
  const auto at = [&](int dx, int dy, int dz) {
    const std::int64_t x = step_axis(c.x, dx, dims_.nx, periodic_[0]);
    const std::int64_t y = step_axis(c.y, dy, dims_.ny, periodic_[1]);
    const std::int64_t z = step_axis(c.z, dz, dims_.nz, periodic_[2]);
    return (x < 0 || y < 0 || z < 0) ? none : index_of(x, y, z);
  };
  return link_target(at, d3q19::cx(i), d3q19::cy(i), d3q19::cz(i), edges_ == geometry::EdgeContacts::sealed);
}

double SparseLattice::padding() const {
  return static_cast<double>(stride_) / std::max<double>(1.0, fluid_count());  // a rank may own no cell
}

}  // namespace rockperm::lattice
