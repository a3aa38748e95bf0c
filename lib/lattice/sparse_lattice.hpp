#pragma once
// The fluid-only lattice (core paper, section 2): fluid cells numbered in raster order
// (z slowest, x fastest), their coordinates, and for each cell the index of the fluid
// neighbour along each of the 9 positive directions (NONE for solid, outside, or a sealed
// edge contact).
//
// Its memory per fluid cell is the byte model's (lib/backend/byte_model.hpp) times padding().
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/host_array.hpp"
#include "lib/geometry/connectivity.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/geometry/volume.hpp"

namespace rockperm::lattice {

inline constexpr std::uint32_t none = 0xFFFFFFFFu;

// Population stride for `fluid_cells` cells: an odd multiple of 32 (see the definition).
std::uint64_t padded_stride(std::uint64_t fluid_cells);

struct Coord {
  std::uint16_t x, y, z;
};


// Where the neighbour tables are built. `host`: with the lattice (the CPU backend needs them).
// `deferred`: the lattice keeps its mask instead (1 byte per voxel, against 36 or 72 bytes per
// fluid cell) and the backend builds what it reads: the GPU its packed tables on the device
// (cuda/table_builder.hpp), without the 11 GB of full tables of a 768^3 pack on the host; any
// other reader calls make_tables().
enum class LatticeTables { host, deferred };

struct NeighbourTables {
  HostArray<std::uint32_t> positive;  // as SparseLattice::neighbours()
  HostArray<std::uint32_t> negative;  // as SparseLattice::negative_neighbours(); empty unless with_negative
};

// Both full tables of a run of cells [first, end) (and maybe more around it), as
// SparseLattice::table_window gives them: the entry of
// direction i (1..9) of cell c at positive[(i - 1) * stride + c - first], negative alike.
struct TableWindow {
  std::uint64_t first = 0, end = 0;
  std::uint64_t stride = 0;
  const std::uint32_t* positive = nullptr;
  const std::uint32_t* negative = nullptr;
};

class SparseLattice {
 public:
  // Builds the lattice of `mask`. `with_negative`: the lattice is for the fused A-A kernel, which
  // also reads the table of the 9 negative directions on odd steps.
  // `allow_empty`: a rank's slab may hold no fluid cell at all.
  static SparseLattice build(geometry::PoreMask mask, const geometry::Periodicity& periodic, bool with_negative = false,
                             bool allow_empty = false, geometry::EdgeContacts edges = geometry::EdgeContacts::open,
                             LatticeTables tables = LatticeTables::host);

  const geometry::Dims& dims() const { return dims_; }
  const geometry::Periodicity& periodic() const { return periodic_; }
  geometry::EdgeContacts edges() const { return edges_; }
  std::uint32_t fluid_count() const { return static_cast<std::uint32_t>(coords_.size()); }
  std::uint64_t stride() const { return stride_; }  // padded_stride(fluid count)
  const HostArray<Coord>& coords() const { return coords_; }
  // neighbours()[k * stride + cell] = fluid index of cell + e_{k+1}, k in 0..8; empty when deferred
  const HostArray<std::uint32_t>& neighbours() const { return neighbours_; }
  // negative_neighbours()[k * stride + cell] = fluid index of cell - e_{k+1}; empty unless built
  // with_negative (and the tables on the host)
  const HostArray<std::uint32_t>& negative_neighbours() const { return negative_neighbours_; }
  bool has_negative() const { return with_negative_; }  // built for the fused propagation
  bool has_tables() const { return mask_.pore.empty(); }  // built with LatticeTables::host
  // Deferred tables: the mask the lattice was built from, and its tables built now (as the host
  // form would hold them). make_tables throws on a lattice that holds its tables.
  const geometry::PoreMask& mask() const { return mask_; }
  NeighbourTables make_tables() const;
  // The full tables a backend reads (positive, negative; the negative null unless with_negative):
  // the lattice's own, or, where it deferred them, built into `scratch` the first time.
  std::pair<const std::uint32_t*, const std::uint32_t*> tables(NeighbourTables& scratch) const;
  // Deferred tables: both tables (the negative one where with_negative) of the planes that hold
  // cells [first, end), built into `scratch` (grown as needed) and seen through a window: 72 B per
  // cell of those planes, not of the lattice (lib/lattice/line_tables.hpp packs by windows).
  TableWindow table_window(std::uint64_t first, std::uint64_t end, NeighbourTables& scratch) const;
  // The phase of every cell (0: open pore, c: grey phase c of the mask, PoreMask), padded to the
  // stride; empty where every cell is open.
  const HostArray<std::uint8_t>& phases() const { return phases_; }
  bool has_grey() const { return phases_.size() != 0; }
  // first fluid index of plane z; plane_offsets()[nz] = fluid count
  const std::vector<std::uint64_t>& plane_offsets() const { return plane_offsets_; }

  // Fluid index of voxel (x,y,z), or none when it is solid (binary search on the raster order).
  std::uint32_t index_of(std::int64_t x, std::int64_t y, std::int64_t z) const;
  // Fluid index of cell + e_i for any i in 0..18, or none (also for a sealed edge contact).
  std::uint32_t neighbour(std::uint32_t cell, int i) const;

  // Slots per fluid cell: stride / fluid count (>= 1; arrays are padded to the stride).
  double padding() const;

  // The cells a rank updates; the rest are ghost copies of its neighbours' boundary planes.
  // A lattice of the whole sample owns every cell.
  std::uint32_t owned_begin() const { return owned_begin_; }
  std::uint32_t owned_end() const { return owned_end_; }
  void set_owned_planes(std::int64_t first_plane, std::int64_t end_plane);

 private:
  geometry::Dims dims_;
  geometry::Periodicity periodic_{};
  geometry::EdgeContacts edges_ = geometry::EdgeContacts::open;
  std::uint64_t stride_ = 0;
  HostArray<Coord> coords_;
  std::vector<std::uint64_t> plane_offsets_;
  HostArray<std::uint32_t> neighbours_;
  HostArray<std::uint32_t> negative_neighbours_;
  bool with_negative_ = false;
  HostArray<std::uint8_t> phases_;
  geometry::PoreMask mask_;  // deferred tables only
  std::uint32_t owned_begin_ = 0, owned_end_ = 0;
};

}  // namespace rockperm::lattice
