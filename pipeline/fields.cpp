#include "pipeline/fields.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "lib/base/error.hpp"
#include "lib/physics/permeability.hpp"
#include "rockperm/config.hpp"
#if ROCKPERM_HAVE_VTK
#include "io/field_writer.hpp"
#include "io/slice_image.hpp"
#endif

namespace rockperm::pipeline {

#if ROCKPERM_HAVE_VTK
struct FieldsPlan {
  io::OutputGrid grid;
};
bool fields_supported() { return true; }
#else
struct FieldsPlan {};
bool fields_supported() { return false; }
#endif

void write_phase_field(const std::filesystem::path& path, const geometry::Dims& dims,
                       const std::vector<std::uint8_t>& phases, double voxel_size_um) {
#if ROCKPERM_HAVE_VTK
  io::write_label_image(path, dims, phases, "phase",
                        "phase: 0 solid, 1 wetting, 2 non-wetting (pore morphology, report.json's two_phase); "
                        "coordinates: m, the sample's own voxels",
                        voxel_size_um * 1e-6);
#else
  (void)path, (void)dims, (void)phases, (void)voxel_size_um;
#endif
}

FieldsOutput::~FieldsOutput() = default;
FieldsOutput::FieldsOutput(FieldsOutput&&) noexcept = default;

FieldsOutput::FieldsOutput(const FieldSpec& spec, const std::filesystem::path& dir, const Sample& sample,
                           const FlowSpec& flow) {
  if (!spec.enabled) return;
#if ROCKPERM_HAVE_VTK
  io::FieldOutput out;
  out.dir = dir;
  out.offset = spec.crop.offset;
  out.size = spec.crop.size;
  out.stride = spec.stride;
  out.voxel_size_m = sample.voxel_size_um * 1e-6;
  out.viscosity_pa_s = spec.viscosity_pa_s;
  out.pressure_gradient_pa_m = spec.pressure_gradient_pa_per_m;
  out.nu_lattice = physics::viscosity(flow.tau);
  out.g_lattice = flow.force;
  out.origin_voxels[flow.flow_axis] = -sample.sample_begin;  // the sample keeps the frame of the scan
  plan_ = std::make_unique<FieldsPlan>();
  try {
    plan_->grid = io::output_grid(out, sample.dims);
  } catch (const InputError& e) {  // every rank has the same sample, so every rank fails alike
    throw on_all_ranks(InputError(e.field(), e.detail()));
  }
#else
  (void)dir;
  (void)sample;
  (void)flow;
  throw on_all_ranks(InputError("output.fields.enabled",
                                "this rockperm was built without VTK, so it cannot write flow fields; turn them off"));
#endif
}

double FieldsOutput::bytes_bound() const {
#if ROCKPERM_HAVE_VTK
  if (plan_) {
    const auto& c = plan_->grid.cells;
    return static_cast<double>(c[0]) * static_cast<double>(c[1]) * static_cast<double>(c[2]) * (9 * 4 + 1);  // 9 floats with the potential
  }
#endif
  return 0.0;
}

FieldsWritten FieldsOutput::write(const parallel::Comm& comm, const Simulation& simulation,
                                  const std::vector<float>* potential, bool flow) const {
  FieldsWritten written;
  if (!plan_) return written;
#if ROCKPERM_HAVE_VTK
  const auto start = std::chrono::steady_clock::now();
  const RankLattice& r = simulation.rank_lattice();
  const backend::Macroscopic& owned = simulation.owned_macroscopic();
  const io::FieldPiece piece{&r.lattice, &owned, r.first_local_z, r.z_begin, r.z_end, potential};
  // scaled by the drive k divides by: with buffers or mirror the sample sees g less the gradient
  // its ends build up, and an auto force may have been lowered since the plan was made; so the
  // fields hold the flow of the stated pressure gradient across the sample, the k reported
  io::OutputGrid grid = plan_->grid;
  grid.out.g_lattice = simulation.drive().acceleration;
  grid.out.potential = potential != nullptr;
  grid.out.flow = flow;
  written.flow = flow;
  parallel::collectively(comm, [&] { io::write_field_piece(grid, piece, comm.rank()); });
  if (comm.root()) {
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (const parallel::Slab& s : r.slabs) ranges.emplace_back(s.z_begin, s.z_end);
    io::write_field_index(grid, ranges);
  }
  written.index = plan_->grid.out.dir / (plan_->grid.out.name + ".pvti");
  written.cells = plan_->grid.cells;
  written.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#else
  (void)comm;
  (void)simulation;
  (void)potential;
  (void)flow;
#endif
  return written;
}

FlowFields gather_fields(const parallel::Comm& comm, const Simulation& simulation, const FieldSpec& spec) {
  FlowFields fields;
  const Sample& sample = simulation.sample();
  const FlowSpec& flow = simulation.flow();
  const int axis = flow.flow_axis;
  fields.dims = sample.sample_dims;
  fields.pressure_gradient_pa_per_m = spec.pressure_gradient_pa_per_m;
  fields.viscosity_pa_s = spec.viscosity_pa_s;
  const physics::FieldScale scale = physics::field_scale(physics::viscosity(flow.tau), simulation.drive().acceleration,
                                       spec.pressure_gradient_pa_per_m, spec.viscosity_pa_s,
                                       sample.voxel_size_um * 1e-6);
  // this rank's cells inside the sample: its voxel index, then ux, uy, uz, p (scaled)
  struct Cell {
    std::uint64_t voxel;
    float value[4];
  };
  std::vector<Cell> cells;
  const RankLattice& r = simulation.rank_lattice();
  const backend::Macroscopic& owned = simulation.owned_macroscopic();
  const lattice::SparseLattice& lat = r.lattice;
  const geometry::Dims& d = fields.dims;
  for (std::uint32_t c = lat.owned_begin(); c < lat.owned_end(); ++c) {
    const lattice::Coord& xyz = lat.coords()[c];
    std::int64_t g[3] = {xyz.x, xyz.y, r.first_local_z + xyz.z};
    if (g[axis] < sample.sample_begin || g[axis] >= sample.sample_end) continue;  // a buffer or the mirror
    g[axis] -= sample.sample_begin;
    const std::size_t k = c - lat.owned_begin();
    cells.push_back({static_cast<std::uint64_t>((g[2] * d.ny + g[1]) * d.nx + g[0]),
                     {static_cast<float>(owned.ux[k] * scale.velocity_m_per_s),
                      static_cast<float>(owned.uy[k] * scale.velocity_m_per_s),
                      static_cast<float>(owned.uz[k] * scale.velocity_m_per_s),
                      static_cast<float>(owned.drho[k] * scale.pressure_pa)}});
  }
  std::vector<std::uint8_t> bytes(cells.size() * sizeof(Cell));
  std::memcpy(bytes.data(), cells.data(), bytes.size());
  if (comm.size() > 1) bytes = comm.gather_bytes(bytes);
  if (!comm.root()) return FlowFields{};
  fields.velocity.assign(3 * d.voxels(), 0.0f);
  fields.pressure.assign(d.voxels(), std::numeric_limits<float>::quiet_NaN());
  for (std::size_t at = 0; at + sizeof(Cell) <= bytes.size(); at += sizeof(Cell)) {
    Cell cell;
    std::memcpy(&cell, bytes.data() + at, sizeof(Cell));
    for (int a = 0; a < 3; ++a) fields.velocity[3 * cell.voxel + a] = cell.value[a];
    fields.pressure[cell.voxel] = cell.value[3];
  }
  return fields;
}

std::vector<SliceImage> mid_slices(const parallel::Comm& comm, const Simulation& simulation, int flow_axis) {
  std::vector<SliceImage> images;
#if ROCKPERM_HAVE_VTK
  const RankLattice& r = simulation.rank_lattice();
  const geometry::Dims& dims = simulation.sample().dims;
  const std::int64_t n[3] = {dims.nx, dims.ny, dims.nz};
  const int normal = flow_axis == 2 ? 1 : 2;  // the plane holds x and the flow axis
  const int across = 0, up = normal == 2 ? 1 : 2;
  const std::int64_t at = n[normal] / 2;
  const std::int64_t stride = std::max<std::int64_t>(1, (std::max(n[across], n[up]) + 1023) / 1024);
  const std::int64_t width = (n[across] + stride - 1) / stride, height = (n[up] + stride - 1) / stride;
  const std::size_t pixels = static_cast<std::size_t>(width * height);
  // [0, pixels): 1 where a fluid cell is; [pixels, 2 pixels): |u| there (lattice units)
  std::vector<double> plane(2 * pixels, 0.0);
  const backend::Macroscopic& owned = simulation.owned_macroscopic();
  const lattice::SparseLattice& lat = r.lattice;
  for (std::uint32_t c = lat.owned_begin(); c < lat.owned_end(); ++c) {
    const lattice::Coord& xyz = lat.coords()[c];
    const std::int64_t g[3] = {xyz.x, xyz.y, r.first_local_z + xyz.z};
    if (g[normal] != at || g[across] % stride || g[up] % stride) continue;
    const std::size_t k = c - lat.owned_begin();
    const std::size_t p = static_cast<std::size_t>((g[up] / stride) * width + g[across] / stride);
    plane[p] = 1.0;
    plane[pixels + p] = std::sqrt(static_cast<double>(owned.ux[k]) * owned.ux[k] +
                                  static_cast<double>(owned.uy[k]) * owned.uy[k] +
                                  static_cast<double>(owned.uz[k]) * owned.uz[k]);
  }
  plane = comm.sum(plane);  // each cell is owned by one rank: the sum puts the plane together
  if (!comm.root()) return images;
  io::SliceRaster mask{static_cast<int>(width), static_cast<int>(height), std::vector<float>(pixels)};
  io::SliceRaster speed = mask;
  double top = 0;
  for (std::size_t p = 0; p < pixels; ++p) top = std::max(top, plane[pixels + p]);
  for (std::size_t p = 0; p < pixels; ++p) {
    mask.value[p] = static_cast<float>(plane[p]);
    speed.value[p] = plane[p] > 0 ? static_cast<float>(top > 0 ? plane[pixels + p] / top : 0.0) : -1.0f;
  }
  const char* names = "xyz";
  std::ostringstream where;
  where << "Plane " << names[normal] << " = " << at << " of the simulated volume (" << names[across] << " across, "
        << names[up] << " up, " << n[across] << " x " << n[up] << " voxels";
  if (stride > 1) where << ", every " << stride << "th voxel shown";
  where << "), flow along " << names[flow_axis] << ". ";
  std::ostringstream top_text;
  top_text.precision(4);
  top_text << top;
  images.push_back({"slice-pores", "pore space",
                    where.str() + "White: pore space that carries the flow; grey: solid and pores cut off from it.", ""});
  images.push_back({"slice-velocity", "velocity magnitude",
                    where.str() + "|u| from 0 (dark blue) to the largest on the plane (yellow), " + top_text.str() +
                        " in lattice units; grey: no flow.",
                    ""});
  try {
    images[0].data_uri = io::png_data_uri(mask, io::SlicePalette::pore_mask);
    images[1].data_uri = io::png_data_uri(speed, io::SlicePalette::magnitude);
  } catch (const OutputError& e) {  // a picture is not worth the run: the report says why it is missing
    for (SliceImage& image : images) image.caption = e.what(), image.data_uri.clear();
  }
#else
  (void)comm;
  (void)simulation;
  (void)flow_axis;
#endif
  return images;
}

}  // namespace rockperm::pipeline
