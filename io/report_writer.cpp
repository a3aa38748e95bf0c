#include "io/report_writer.hpp"

#include <iomanip>
#include <sstream>

#include "io/atomic_file.hpp"

namespace rockperm::io {

namespace {
std::string json_string(const std::string& s) {
  std::ostringstream o;
  o << '"';
  for (const char ch : s) {
    switch (ch) {
      case '"': o << "\\\""; break;
      case '\\': o << "\\\\"; break;
      case '\n': o << "\\n"; break;
      case '\t': o << "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          o << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(ch) << std::dec;
        } else {
          o << ch;
        }
    }
  }
  o << '"';
  return o.str();
}
}  // namespace

std::string to_json(const RunReport& r) {
  const auto& k = r.result.k;
  const auto& c = r.config;
  std::ostringstream o;
  o << std::setprecision(10);
  o << "{\n"
    << "  \"sample\": " << json_string(r.sample) << ",\n"
    << "  \"permeability\": {\n"
    << "    \"mD\": " << k.k_md << ",\n"
    << "    \"darcy\": " << k.k_darcy << ",\n"
    << "    \"m2\": " << k.k_m2 << ",\n"
    << "    \"lattice_voxel2\": " << k.k_lattice << "\n"
    << "  },\n"
    << "  \"porosity\": " << r.percolation.total_porosity() << ",\n"
    << "  \"connected_porosity\": " << r.percolation.connected_porosity() << ",\n"
    << "  \"removed_pore_fraction\": " << r.percolation.removed_fraction() << ",\n"
    << "  \"tortuosity\": " << k.tortuosity << ",\n"
    << "  \"converged\": " << (r.result.converged ? "true" : "false") << ",\n"
    << "  \"steps\": " << r.result.steps << ",\n"
    << "  \"relative_change\": " << r.result.relative_change << ",\n"
    << "  \"tolerance\": " << c.run.monitor.tolerance << ",\n"
    << "  \"mass_drift\": " << r.result.mass_drift << ",\n"
    << "  \"reynolds\": " << k.reynolds << ",\n"
    << "  \"mach\": " << k.mach << ",\n"
    << "  \"darcy_velocity_lattice\": " << k.darcy_velocity << ",\n"
    << "  \"geometry\": {\n"
    << "    \"dims\": [" << c.input.dims.nx << ", " << c.input.dims.ny << ", " << c.input.dims.nz << "],\n"
    << "    \"voxel_size_um\": " << c.input.voxel_size_um << ",\n"
    << "    \"voxels\": " << r.voxels << ",\n"
    << "    \"fluid_cells\": " << r.fluid_cells << ",\n"
    << "    \"flow_axis\": \"" << "xyz"[c.lbm.flow_axis] << "\",\n"
    << "    \"lateral\": \"" << (c.lbm.lateral_periodic ? "periodic" : "sealed") << "\",\n"
    << "    \"inlet_outlet\": \"" << c.lbm.inlet_outlet << "\",\n"
    << "    \"buffer_layers\": " << c.lbm.buffer_layers << ",\n"
    << "    \"edge_contacts\": \"" << to_string(c.lbm.edge_contacts) << "\",\n"
    << "    \"drive_ratio\": " << r.drive_ratio << ",\n"
    << "    \"drive_ratio_end_planes\": " << r.drive_ratio_end_planes << ",\n"
    << "    \"pressure_margin_planes\": " << r.pressure_margin << "\n"
    << "  },\n"
    << "  \"model\": {\n"
    << "    \"collision\": \"" << (c.lbm.collision == physics::CollisionModel::trt ? "trt" : "bgk") << "\",\n"
    << "    \"tau\": " << c.lbm.tau << ",\n"
    << "    \"magic\": " << c.lbm.magic << ",\n"
    << "    \"force_lattice\": " << c.lbm.force << "\n"
    << "  },\n"
    << "  \"performance\": {\n"
    << "    \"backend\": " << json_string(r.backend) << ",\n"
    << "    \"propagation\": \"" << to_string(c.run.propagation) << "\",\n"
    << "    \"mflups\": " << r.result.mflups << ",\n"
    << "    \"bytes_per_fluid_cell\": " << r.bytes_per_cell << ",\n"
    << "    \"setup_seconds\": " << r.setup_seconds << ",\n"
    << "    \"solve_seconds\": " << r.result.seconds << "\n"
    << "  },\n"
    << "  \"warnings\": [";
  std::istringstream w(r.warnings);
  std::string line;
  bool first = true;
  while (std::getline(w, line)) {
    o << (first ? "" : ", ") << json_string(line);
    first = false;
  }
  o << "]\n}\n";
  return o.str();
}

std::string csv_header() {
  return "sample,k_mD,k_m2,porosity,connected_porosity,tortuosity,converged,steps,relative_change,reynolds,mach,"
         "mflups,backend\n";
}

std::string to_csv_row(const RunReport& r) {
  const auto& k = r.result.k;
  std::ostringstream o;
  o << std::setprecision(10) << r.sample << ',' << k.k_md << ',' << k.k_m2 << ','
    << r.percolation.total_porosity() << ',' << r.percolation.connected_porosity() << ',' << k.tortuosity << ',' << (r.result.converged ? 1 : 0) << ',' << r.result.steps << ','
    << r.result.relative_change << ',' << k.reynolds << ',' << k.mach << ',' << r.result.mflups << ",\""
    << r.backend << "\"\n";
  return o.str();
}

void write_run_reports(const std::filesystem::path& dir, const RunReport& report) {
  ensure_directory(dir);
  write_file_atomically(dir / "config.ini", config::to_ini(report.config));
  write_file_atomically(dir / "report.csv", csv_header() + to_csv_row(report));
  write_file_atomically(dir / "report.json", to_json(report));
}

}  // namespace rockperm::io
