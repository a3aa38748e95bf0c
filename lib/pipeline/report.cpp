#include "lib/pipeline/report.hpp"

#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/atomic_file.hpp"

namespace rockperm::pipeline {

namespace {
std::string quoted_csv(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

std::string to_json(const SampleResult& r) {
  using nlohmann::ordered_json;
  const Permeability& k = r.k;
  const FlowSpec& f = r.flow;
  ordered_json warnings = ordered_json::array();
  for (const Warning& w : r.warnings) {
    warnings.push_back({{"code", w.code}, {"message", w.message}, {"value", w.value}, {"field", w.field}});
  }
  const ordered_json j = {
      {"sample", r.input.name},
      {"input", {{"path", r.input.path.string()}, {"format", r.input.format}, {"bytes", r.input.bytes}}},
      {"status", to_string(r.status)},
      {"permeability", {{"mD", k.k_md}, {"darcy", k.k_darcy}, {"m2", k.k_m2}, {"lattice_voxel2", k.k_lattice}}},
      {"porosity", r.percolation.total_porosity()},
      {"connected_porosity", r.percolation.connected_porosity()},
      {"removed_pore_fraction", r.percolation.removed_fraction()},
      {"tortuosity", k.tortuosity},
      {"converged", r.converged()},
      {"steps", r.steps},
      {"relative_change", r.relative_change},
      {"tolerance", r.tolerance},
      {"mass_drift", r.mass_drift},
      {"reynolds", k.reynolds},
      {"mach", k.mach},
      {"darcy_velocity_lattice", k.darcy_velocity},
      {"geometry",
       {{"dims", {r.dims.nx, r.dims.ny, r.dims.nz}},
        {"sample_dims", {r.sample_dims.nx, r.sample_dims.ny, r.sample_dims.nz}},
        {"voxel_size_um", r.voxel_size_um},
        {"voxels", r.dims.voxels()},
        {"fluid_cells", r.fluid_cells},
        {"flow_axis", std::string(1, "xyz"[f.flow_axis])},
        {"lateral", f.any_lateral_periodic() ? "periodic" : "sealed"},
        {"inlet_outlet", to_string(f.inlet_outlet)},
        {"buffer_layers", f.buffer_layers},
        {"edge_contacts", to_string(f.edge_contacts)},
        {"drive_ratio", r.drive.acceleration / f.force},
        {"drive_ratio_end_planes", r.drive.end_planes / f.force},
        {"pressure_margin_planes", r.drive.drop.margin}}},
      {"model",
       {{"collision", f.collision == physics::CollisionModel::trt ? "trt" : "bgk"},
        {"tau", f.tau},
        {"magic", f.magic},
        {"force_lattice", f.force}}},
      {"performance",
       {{"backend", r.performance.backend},
        {"propagation", to_string(r.performance.propagation)},
        {"ranks", r.performance.ranks},
        {"mflups", r.performance.mflups},
        {"bytes_per_fluid_cell", r.performance.bytes_per_cell},
        {"read_seconds", r.timings.read},
        {"percolation_seconds", r.timings.percolation},
        {"setup_seconds", r.timings.setup},
        {"solve_seconds", r.timings.solve},
        {"mpi_seconds", r.performance.mpi_seconds}}},
      {"warnings", warnings}};
  return j.dump(2) + "\n";
}

std::string csv_header() {
  return "sample,status,k_mD,k_m2,porosity,connected_porosity,tortuosity,converged,steps,relative_change,reynolds,"
         "mach,mflups,backend\n";
}

std::string to_csv_row(const SampleResult& r) {
  const Permeability& k = r.k;
  std::ostringstream o;
  o << std::setprecision(10) << quoted_csv(r.input.name) << ',' << to_string(r.status) << ',' << k.k_md << ','
    << k.k_m2 << ',' << r.percolation.total_porosity() << ',' << r.percolation.connected_porosity() << ','
    << k.tortuosity << ',' << (r.converged() ? 1 : 0) << ',' << r.steps << ',' << r.relative_change << ','
    << k.reynolds << ',' << k.mach << ',' << r.performance.mflups << ',' << quoted_csv(r.performance.backend) << "\n";
  return o.str();
}

void write_reports(const std::filesystem::path& dir, const SampleResult& result) {
  io::ensure_directory(dir);
  io::write_file_atomically(dir / "report.csv", csv_header() + to_csv_row(result));
  io::write_file_atomically(dir / "report.json", to_json(result));
}

}  // namespace rockperm::pipeline
