#include "io/field_writer.hpp"

#include <algorithm>

#include <vtkCellData.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkStringArray.h>
#include <vtkUnsignedCharArray.h>
#include <vtkXMLImageDataWriter.h>

#include <limits>
#include <sstream>

#include "io/atomic_file.hpp"
#include "lib/physics/collision.hpp"
#include "lib/physics/permeability.hpp"
#include "lib/base/error.hpp"

namespace rockperm::io {

std::int64_t OutputGrid::first_k(std::int64_t z) const {
  const std::int64_t rel = z - out.offset[2];
  if (rel <= 0) return 0;
  return std::min<std::int64_t>(cells[2], (rel + out.stride - 1) / out.stride);
}

OutputGrid output_grid(const FieldOutput& out, const geometry::Dims& dims) {
  OutputGrid g;
  g.out = out;
  if (out.stride < 1) throw InputError("output.fields.stride", "the field stride must be at least 1");
  for (int a = 0; a < 3; ++a) {
    if (g.out.size[a] == 0) g.out.size[a] = dims[a] - out.offset[a];
    if (out.offset[a] < 0 || out.offset[a] >= dims[a] || g.out.size[a] <= 0 || out.offset[a] + g.out.size[a] > dims[a]) {
      throw InputError("output.fields.crop", "the field output crop along " + std::string(1, "xyz"[a]) +
                                                 " leaves the simulated volume of " + std::to_string(dims[a]) +
                                                 " voxels (buffer layers included)");
    }
    g.cells[a] = (g.out.size[a] + out.stride - 1) / out.stride;
  }
  return g;
}

namespace {
std::string piece_name(const OutputGrid& g, int rank) { return g.out.name + "_" + std::to_string(rank) + ".vti"; }

// `image` as the compressed .vti `path`, through a temporary name (never a partial file under the
// final one); `what` names it in the error.
void write_image(vtkImageData* image, const std::filesystem::path& path, const char* what) {
  const std::filesystem::path tmp = temporary_name(path);
  // VTK's own messages (coloured for a terminal) would come beside ours: the writer's error code
  // is read below and reported in one line naming the file
  vtkObject::GlobalWarningDisplayOff();
  vtkNew<vtkXMLImageDataWriter> writer;
  writer->SetFileName(tmp.string().c_str());
  writer->SetInputData(image);
  writer->SetCompressorTypeToZLib();
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();
  if (writer->Write() != 1 || writer->GetErrorCode() != 0) {
    discard_temporary(tmp);
    throw OutputError(path.string() + ": VTK could not write the " + what + " (VTK error " +
                      std::to_string(writer->GetErrorCode()) + ": disk full, file size limit or no permission)");
  }
  commit_file(tmp, path);
}
}  // namespace

std::string write_field_piece(const OutputGrid& g, const FieldPiece& piece, int rank) {
  const FieldOutput& o = g.out;
  const std::int64_t k0 = g.first_k(piece.z_begin), k1 = g.first_k(piece.z_end);
  if (k1 <= k0) return "";
  const std::int64_t nx = g.cells[0], ny = g.cells[1], nz = k1 - k0;
  const std::int64_t n = nx * ny * nz;

  vtkNew<vtkImageData> image;
  image->SetExtent(0, static_cast<int>(nx), 0, static_cast<int>(ny), static_cast<int>(k0), static_cast<int>(k1));
  const double h = o.voxel_size_m * o.stride;
  image->SetSpacing(h, h, h);
  image->SetOrigin((o.offset[0] + o.origin_voxels[0]) * o.voxel_size_m, (o.offset[1] + o.origin_voxels[1]) * o.voxel_size_m,
                   (o.offset[2] + o.origin_voxels[2]) * o.voxel_size_m);

  const auto make = [&](const char* name, int components) {
    vtkNew<vtkFloatArray> a;
    a->SetName(name);
    a->SetNumberOfComponents(components);
    a->SetNumberOfTuples(n);
    a->Fill(0.0);
    image->GetCellData()->AddArray(a);
    return a.GetPointer();
  };
  vtkFloatArray* velocity = o.flow ? make("velocity", 3) : nullptr;
  vtkFloatArray* pressure = o.flow ? make("pressure", 1) : nullptr;
  vtkFloatArray* velocity_lu = o.flow ? make("velocity_lattice", 3) : nullptr;
  vtkFloatArray* density_lu = o.flow ? make("density_lattice", 1) : nullptr;
  vtkNew<vtkUnsignedCharArray> pore;
  pore->SetName("pore");
  pore->SetNumberOfTuples(n);
  pore->Fill(0);
  image->GetCellData()->AddArray(pore);
  vtkFloatArray* potential = nullptr;
  if (o.potential) {
    potential = make("potential", 1);
    potential->Fill(std::numeric_limits<float>::quiet_NaN());  // no current in the grains
  }
  // what the arrays mean, in the file itself (ParaView shows field data in its Information panel)
  const auto note = [&](const char* name, const std::string& text) {
    vtkNew<vtkStringArray> a;
    a->SetName(name);
    a->InsertNextValue(text);
    image->GetFieldData()->AddArray(a);
  };
  note("units", o.flow ? "velocity: m/s; pressure: Pa; velocity_lattice: voxel/step; density_lattice: 1; pore: 1 pore, "
                         "0 solid; coordinates: m"
                       : "pore: 1 pore, 0 solid; potential: V; coordinates: m (no flow solved: run.formation_factor = only)");
  if (o.flow) {
    std::ostringstream d;
    d.precision(6);
    d << "velocity and pressure are the creeping flow of a mean pressure gradient of " << o.pressure_gradient_pa_m
      << " Pa/m along the flow axis across the sample (the drive its permeability k divides by: k = mu <u> / "
         "gradient, <u> the Darcy velocity over the sample) in a fluid of viscosity "
      << o.viscosity_pa_s << " Pa s; pressure is the deviation c_s^2 (rho - 1) on that scale, without the mean gradient";
    note("drive", d.str());
  }
  if (o.potential) {
    note("potential", "potential: V, the brine's electric potential for a mean field of 1 V/m along the flow axis "
                      "across the sample (grains insulating; run.formation_factor), up to a constant; NaN in the grains");
  }
  if (o.flow) image->GetCellData()->SetActiveVectors("velocity");
  image->GetCellData()->SetActiveScalars("pore");

  const physics::FieldScale scale =
      physics::field_scale(o.nu_lattice, o.g_lattice, o.pressure_gradient_pa_m, o.viscosity_pa_s, o.voxel_size_m);
  const double u_scale = piece.owned ? scale.velocity_m_per_s : 0.0;
  const double p_scale = scale.pressure_pa;
  const lattice::SparseLattice& lat = *piece.lattice;
  for (std::uint32_t c = lat.owned_begin(); c < lat.owned_end(); ++c) {
    const lattice::Coord& xyz = lat.coords()[c];
    const std::int64_t gx = xyz.x, gy = xyz.y, gz = piece.first_local_plane_z + xyz.z;
    if (gz < piece.z_begin || gz >= piece.z_end) continue;
    const std::int64_t rx = gx - o.offset[0], ry = gy - o.offset[1], rz = gz - o.offset[2];
    if (rx < 0 || ry < 0 || rz < 0 || rx >= o.size[0] || ry >= o.size[1] || rz >= o.size[2]) continue;
    if (rx % o.stride || ry % o.stride || rz % o.stride) continue;
    const std::int64_t id = ((rz / o.stride - k0) * ny + ry / o.stride) * nx + rx / o.stride;
    const std::size_t k = c - lat.owned_begin();
    if (o.flow) {
      const backend::Macroscopic& m = *piece.owned;
      const float u[3] = {m.ux[k], m.uy[k], m.uz[k]};
      for (int a = 0; a < 3; ++a) {
        velocity_lu->SetComponent(id, a, u[a]);
        velocity->SetComponent(id, a, static_cast<float>(u[a] * u_scale));
      }
      density_lu->SetValue(id, 1.0f + m.drho[k]);
      pressure->SetValue(id, static_cast<float>(m.drho[k] * p_scale));
    }
    pore->SetValue(id, 1);
    if (potential && piece.potential) potential->SetValue(id, (*piece.potential)[k]);
  }

  ensure_directory(o.dir);
  const std::string name = piece_name(g, rank);
  write_image(image, o.dir / name, "field piece");
  return name;
}

void write_label_image(const std::filesystem::path& path, const geometry::Dims& dims,
                       const std::vector<std::uint8_t>& labels, const std::string& name, const std::string& meaning,
                       double voxel_size_m) {
  vtkNew<vtkImageData> image;
  image->SetExtent(0, static_cast<int>(dims.nx), 0, static_cast<int>(dims.ny), 0, static_cast<int>(dims.nz));
  image->SetSpacing(voxel_size_m, voxel_size_m, voxel_size_m);
  vtkNew<vtkUnsignedCharArray> a;
  a->SetName(name.c_str());
  a->SetNumberOfTuples(static_cast<vtkIdType>(labels.size()));
  std::copy(labels.begin(), labels.end(), a->GetPointer(0));
  image->GetCellData()->AddArray(a);
  image->GetCellData()->SetActiveScalars(name.c_str());
  vtkNew<vtkStringArray> note;
  note->SetName("units");
  note->InsertNextValue(meaning);
  image->GetFieldData()->AddArray(note);
  ensure_directory(path.parent_path());
  write_image(image, path, "image");
}

void write_field_index(const OutputGrid& g, const std::vector<std::pair<std::int64_t, std::int64_t>>& slabs) {
  const FieldOutput& o = g.out;
  const double h = o.voxel_size_m * o.stride;
  std::ostringstream x;
  x.precision(12);
  x << "<?xml version=\"1.0\"?>\n"
    << "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
    << "  <PImageData WholeExtent=\"0 " << g.cells[0] << " 0 " << g.cells[1] << " 0 " << g.cells[2]
    << "\" GhostLevel=\"0\" Origin=\"" << (o.offset[0] + o.origin_voxels[0]) * o.voxel_size_m << ' '
    << (o.offset[1] + o.origin_voxels[1]) * o.voxel_size_m << ' ' << (o.offset[2] + o.origin_voxels[2]) * o.voxel_size_m
    << "\" Spacing=\"" << h << ' ' << h << ' ' << h << "\">\n"
    << (o.flow ? "    <PCellData Scalars=\"pore\" Vectors=\"velocity\">\n"
                 "      <PDataArray type=\"Float32\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
                 "      <PDataArray type=\"Float32\" Name=\"pressure\"/>\n"
                 "      <PDataArray type=\"Float32\" Name=\"velocity_lattice\" NumberOfComponents=\"3\"/>\n"
                 "      <PDataArray type=\"Float32\" Name=\"density_lattice\"/>\n"
               : "    <PCellData Scalars=\"pore\">\n")
    << "      <PDataArray type=\"UInt8\" Name=\"pore\"/>\n"
    << (o.potential ? "      <PDataArray type=\"Float32\" Name=\"potential\"/>\n" : "")
    << "    </PCellData>\n";
  for (std::size_t r = 0; r < slabs.size(); ++r) {
    const std::int64_t k0 = g.first_k(slabs[r].first), k1 = g.first_k(slabs[r].second);
    if (k1 <= k0) continue;
    x << "    <Piece Extent=\"0 " << g.cells[0] << " 0 " << g.cells[1] << ' ' << k0 << ' ' << k1 << "\" Source=\""
      << piece_name(g, static_cast<int>(r)) << "\"/>\n";
  }
  x << "  </PImageData>\n</VTKFile>\n";
  write_file_atomically(o.dir / (o.name + ".pvti"), x.str());
}

}  // namespace rockperm::io
