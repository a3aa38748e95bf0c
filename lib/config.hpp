#pragma once
// The run configuration: an INI file ([input], [lbm], [run], [output]) whose every key can be
// overridden on the command line as --section.key=value, parsed once into a validated struct.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/physics/collision.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/solve/solver.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/geometry/volume.hpp"

namespace rockperm::config {

enum class BackendChoice { auto_select, cpu, cuda };
enum class PropagationChoice { auto_select, two_pass, fused };

struct InputConfig {
  std::filesystem::path file;      // a volume file or a directory of TIFF slices
  std::string format = "auto";     // auto, raw, nrrd, mhd, tiff
  Dims dims;                       // raw only; 0 when not given
  int bytes_per_sample = 1;        // raw: 1 (uint8) or 2 (uint16)
  bool big_endian = false;         // raw, 16-bit
  std::uint64_t header_bytes = 0;  // raw: bytes to skip
  std::string pore_labels = "0";
  double voxel_size_um = 0;        // 0: from the file's header
  std::string crop_offset = "0 0 0";
  std::string crop_size = "0 0 0";  // 0: to the end
  bool percolation_filter = true;
};

struct LbmConfig {
  physics::CollisionModel collision = physics::CollisionModel::trt;
  double tau = 1.0;
  double magic = 3.0 / 16.0;
  double force = 1e-5;  // body acceleration along the flow axis, lattice units
  int flow_axis = 0;
  bool lateral_periodic = false;  // false: the faces parallel to the flow are sealed walls
  std::string inlet_outlet = "buffer";  // periodic, buffer or mirror (lib/inlet_outlet.hpp)
  int buffer_layers = 10;
  EdgeContacts edge_contacts = EdgeContacts::open;  // lib/sparse_lattice.hpp
};

struct OutputConfig {
  std::filesystem::path dir;
  bool fields = true;                   // VTK image data of velocity, pressure and the pore mask
  std::string fields_crop_offset = "0 0 0";
  std::string fields_crop_size = "0 0 0";
  int fields_stride = 1;
  double viscosity_pa_s = 1.0e-3;         // the physical case the fields are scaled to
  double pressure_gradient_pa_per_m = 1.0e5;
};

struct RunConfig {
  std::filesystem::path config_file;
  InputConfig input;
  LbmConfig lbm;
  RunControls run;  // run.propagation is set from `propagation` once the backend is known
  PropagationChoice propagation = PropagationChoice::auto_select;
  BackendChoice backend = BackendChoice::auto_select;
  bool cuda_aware_mpi = true;  // run.cuda_aware_mpi: use it when the library reports it
  std::vector<int> devices;  // run.devices: device index for each rank of a host, in order
  OutputConfig output;

  Periodicity periodicity() const;
};

// Parses `rockperm run` arguments (without the leading "run"). Throws InputError naming the
// option or file on any problem. Sets `help` instead when --help is among the arguments.
RunConfig parse_run_arguments(const std::vector<std::string>& args, bool& help);

// The option reference printed by `rockperm run --help`.
std::string run_options_help();

// The resolved configuration as an INI file, written into the run directory.
std::string to_ini(const RunConfig& config);

Dims parse_dims(const std::string& text, const std::string& option);
int parse_axis(const std::string& text, const std::string& option);
const char* to_string(BackendChoice b);
const char* to_string(PropagationChoice p);
PropagationChoice parse_propagation_choice(const std::string& text, const std::string& option);

}  // namespace rockperm::config
