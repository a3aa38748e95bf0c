#pragma once
// Flow fields for ParaView: velocity (vector), pressure, the pore mask and (with the formation
// factor) the electric potential as VTK XML image
// data, one compressed .vti piece per rank plus a .pvti that opens them as one dataset.
//
// The simulation runs in lattice units with an arbitrary body force; Stokes flow is linear,
// so the fields are scaled to a stated physical case: a pressure gradient G (Pa/m) along the
// flow axis through a fluid of viscosity mu (Pa s), voxels of dx metres (field_scale,
// lib/physics/permeability.hpp; the pressure without the imposed mean gradient).
// Lattice-unit arrays are written too. Solid voxels have zero velocity and pore = 0.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm::io {

struct FieldOutput {
  std::filesystem::path dir;
  std::string name = "fields";            // fields.pvti and fields_<rank>.vti
  std::array<std::int64_t, 3> offset{0, 0, 0};  // output crop, in voxels of the simulated volume
  std::array<std::int64_t, 3> size{0, 0, 0};    // 0: to the end
  int stride = 1;                         // every stride-th voxel along each axis
  // scan coordinates of voxel (0,0,0) of the simulated volume, in voxels: buffer layers lie at
  // negative coordinates so that the sample keeps the frame of the scan
  std::array<std::int64_t, 3> origin_voxels{0, 0, 0};
  double voxel_size_m = 1e-6;
  double viscosity_pa_s = 1.0e-3;         // water at 20 C
  double pressure_gradient_pa_m = 1.0e5;  // 1 bar/m
  double nu_lattice = 1.0 / 6.0;
  double g_lattice = 1e-5;
  // run.formation_factor: the electric potential too (FieldPiece::potential, every rank alike)
  bool potential = false;
  // the flow's arrays (velocity, pressure and their lattice values); off for F alone
  // (run.formation_factor = only): the pore mask and the potential only
  bool flow = true;
};

// What one rank contributes: its local lattice and the macroscopic values of its owned cells
// (Backend::macroscopic, in cell order), the global z of its first local plane, and its owned
// global planes [z_begin, z_end).
struct FieldPiece {
  const lattice::SparseLattice* lattice = nullptr;
  const backend::Macroscopic* owned = nullptr;
  std::int64_t first_local_plane_z = 0;  // global z of local plane 0 (may be a ghost plane)
  std::int64_t z_begin = 0, z_end = 0;
  // FieldOutput::potential: the potential of the owned cells (V, in cell order); NaN elsewhere
  const std::vector<float>* potential = nullptr;
};

// The output extent (in output cells) of the whole volume and of each z-range, after the
// crop and stride; an empty range has begin == end.
struct OutputGrid {
  std::array<std::int64_t, 3> cells{0, 0, 0};
  std::int64_t first_k(std::int64_t z) const;  // first output plane at or after global z
  FieldOutput out;
};
OutputGrid output_grid(const FieldOutput& out, const geometry::Dims& dims);

// Writes this rank's piece (skipped when its planes hold no output plane); returns the
// piece's file name, or "" when skipped. Throws InputError when the directory is not writable.
std::string write_field_piece(const OutputGrid& grid, const FieldPiece& piece, int rank);

// A labelled volume (one byte a voxel, x fastest) as one .vti of cell data `name` of voxels
// `voxel_size_m`, with `meaning` as its note: the phases of a two-phase point (pipeline/two_phase.hpp).
// Written to a temporary name and renamed; throws OutputError naming the file.
void write_label_image(const std::filesystem::path& path, const geometry::Dims& dims,
                       const std::vector<std::uint8_t>& labels, const std::string& name, const std::string& meaning,
                       double voxel_size_m);

// Rank 0: the .pvti naming every non-empty piece, given every rank's [z_begin, z_end).
void write_field_index(const OutputGrid& grid, const std::vector<std::pair<std::int64_t, std::int64_t>>& slabs);

}  // namespace rockperm::io
