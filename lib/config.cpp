#include "lib/config.hpp"

#include <boost/program_options.hpp>
#include <fstream>
#include <sstream>

#include "lib/base/error.hpp"
#include "lib/geometry/inlet_outlet.hpp"

namespace po = boost::program_options;

namespace rockperm::config {

namespace {

po::options_description file_options() {
  po::options_description input("[input] the segmented volume");
  input.add_options()
      ("input.file", po::value<std::string>(), "the segmented volume: a raw file, an .nrrd/.nhdr or .mhd header, "
                                              "a multi-page .tif, or a directory of 2-D .tif slices (natural name "
                                              "order); a relative path is relative to the INI file's folder (required)")
      ("input.format", po::value<std::string>()->default_value("auto"),
       "auto (from the name), raw, nrrd, mhd or tiff")
      ("input.dims", po::value<std::string>()->default_value(""),
       "raw only: dimensions in voxels, \"NX NY NZ\", x fastest then y then z")
      ("input.type", po::value<std::string>()->default_value("uint8"), "raw only: uint8 or uint16")
      ("input.byte_order", po::value<std::string>()->default_value("little"), "raw uint16 only: little or big")
      ("input.header_bytes", po::value<std::uint64_t>()->default_value(0), "raw only: bytes to skip before the data")
      ("input.pore_labels", po::value<std::string>()->default_value("0"),
       "labels (or ranges of values) that are pore, e.g. 0 or 0,3 or 0-10; all others are solid")
      ("input.voxel_size_um", po::value<double>()->default_value(0.0, "from the header"),
       "edge length of one voxel in micrometres (required unless an NRRD/MHD header gives it)")
      ("input.crop_offset", po::value<std::string>()->default_value("0 0 0"), "first voxel of the crop, \"X Y Z\"")
      ("input.crop_size", po::value<std::string>()->default_value("0 0 0"),
       "size of the crop in voxels, \"X Y Z\" (0: to the end); applied while reading")
      ("input.percolation_filter", po::value<std::string>()->default_value("on"),
       "on: keep only pore clusters joining the inlet and outlet faces (18-connected); off: keep all pores");
  po::options_description lbm("[lbm] lattice Boltzmann model (lattice units)");
  lbm.add_options()
      ("lbm.collision", po::value<std::string>()->default_value("trt"), "trt or bgk")
      ("lbm.tau", po::value<double>()->default_value(1.0), "relaxation time, > 0.5; viscosity nu = (tau - 1/2)/3")
      ("lbm.magic", po::value<double>()->default_value(3.0 / 16.0, "0.1875"),
       "TRT magic parameter Lambda; 3/16 makes k independent of tau")
      ("lbm.force", po::value<double>()->default_value(1e-5, "1e-5"),
       "body acceleration along the flow axis, lattice units (voxel/step^2)")
      ("lbm.flow_axis", po::value<std::string>()->default_value("x"), "x, y or z")
      ("lbm.lateral", po::value<std::string>()->default_value("sealed"),
       "faces parallel to the flow: sealed (walls) or periodic")
      ("lbm.inlet_outlet", po::value<std::string>()->default_value("buffer"),
       "the faces across the flow: buffer (fluid layers before and after the sample, lateral faces sealed, "
       "k corrected for the pressure drop across the sample), mirror (the sample followed by its mirror "
       "image), or periodic (the sample is one period, e.g. a synthetic periodic medium)")
      ("lbm.buffer_layers", po::value<int>()->default_value(10), "fluid layers before and after the sample (buffer)")
      ("lbm.edge_contacts", po::value<std::string>()->default_value("open"),
       "pore voxels touching only along an edge: open (a diagonal D3Q19 link carries flow; the pore space is "
       "18-connected) or sealed (no flow through a contact of zero width; face-connected, as voxel "
       "finite-volume solvers see it); docs/ACCURACY.md compares them");
  po::options_description run("[run] time loop");
  run.add_options()
      ("run.backend", po::value<std::string>()->default_value("auto"), "auto, cuda or cpu")
      ("run.devices", po::value<std::string>()->default_value(""),
       "CUDA devices for the ranks of one host, e.g. 0,2 (default: rank k gets the number of ranks "
       "before it on the same host)")
      ("run.cuda_aware_mpi", po::value<std::string>()->default_value("auto"),
       "auto (hand MPI device buffers when the MPI library reports CUDA support at run time) or off "
       "(stage halos through pinned host memory)")
      ("run.propagation", po::value<std::string>()->default_value("auto"),
       "auto (fused on a GPU, two-pass on the CPU), two-pass (swap) or fused (A-A)")
      ("run.max_steps", po::value<std::int64_t>()->default_value(200000), "stop after this many steps")
      ("run.check_interval", po::value<std::int64_t>()->default_value(100), "steps between convergence checks")
      ("run.tolerance", po::value<double>()->default_value(1e-6, "1e-6"),
       "steady when k changes by less than this (relative) on two consecutive checks");
  po::options_description output("[output]");
  output.add_options()
      ("output.dir", po::value<std::string>(), "run directory for report.json, report.csv, config.ini and the "
                                               "fields (default: <config name>.out in the current folder)")
      ("output.fields", po::value<std::string>()->default_value("on"),
       "on: write velocity, pressure and the pore mask for ParaView (fields.pvti + one .vti per rank); off")
      ("output.fields_crop_offset", po::value<std::string>()->default_value("0 0 0"),
       "first voxel of the field output, \"X Y Z\"")
      ("output.fields_crop_size", po::value<std::string>()->default_value("0 0 0"),
       "size of the field output in voxels (0: to the end)")
      ("output.fields_stride", po::value<int>()->default_value(1), "write every n-th voxel along each axis")
      ("output.viscosity_pa_s", po::value<double>()->default_value(1.0e-3, "0.001"),
       "fluid viscosity (Pa s) of the physical case the fields are scaled to (k does not depend on it)")
      ("output.pressure_gradient_pa_per_m", po::value<double>()->default_value(1.0e5, "1e5"),
       "pressure gradient (Pa/m) along the flow axis of that physical case");
  po::options_description all;
  all.add(input).add(lbm).add(run).add(output);
  return all;
}

double positive(const po::variables_map& vm, const std::string& key) {
  const double v = vm[key].as<double>();
  if (!(v > 0.0)) throw InputError("option " + key + " = " + std::to_string(v) + " must be positive");
  return v;
}

}  // namespace

Dims parse_dims(const std::string& text, const std::string& option) {
  std::string s = text;
  for (char& ch : s) {
    if (ch == 'x' || ch == 'X' || ch == ',') ch = ' ';
  }
  std::istringstream in(s);
  Dims d;
  std::string rest;
  if (!(in >> d.nx >> d.ny >> d.nz) || (in >> rest)) {
    throw InputError("option " + option + " = '" + text + "' is not three dimensions; write e.g. \"64 64 64\"");
  }
  validate_dims(d, "option " + option);
  return d;
}

int parse_axis(const std::string& text, const std::string& option) {
  if (text == "x" || text == "X" || text == "0") return 0;
  if (text == "y" || text == "Y" || text == "1") return 1;
  if (text == "z" || text == "Z" || text == "2") return 2;
  throw InputError("option " + option + " = '" + text + "' is not an axis; use x, y or z");
}

const char* to_string(PropagationChoice p) {
  return p == PropagationChoice::two_pass ? "two-pass" : (p == PropagationChoice::fused ? "fused" : "auto");
}

PropagationChoice parse_propagation_choice(const std::string& text, const std::string& option) {
  if (text == "auto") return PropagationChoice::auto_select;
  try {
    return parse_propagation(text) == Propagation::two_pass ? PropagationChoice::two_pass : PropagationChoice::fused;
  } catch (const InputError&) {
    throw InputError("option " + option + " = '" + text + "' is unknown; use auto, two-pass or fused");
  }
}

const char* to_string(BackendChoice b) {
  return b == BackendChoice::cpu ? "cpu" : (b == BackendChoice::cuda ? "cuda" : "auto");
}

Periodicity RunConfig::periodicity() const {
  Periodicity p{lbm.lateral_periodic, lbm.lateral_periodic, lbm.lateral_periodic};
  p[lbm.flow_axis] = true;  // driven by a body force: periodic along the flow
  return p;
}

std::string run_options_help() {
  std::ostringstream out;
  out << "usage: rockperm run --config FILE.ini [--section.key=value ...]\n\n"
         "Every INI key can be given on the command line as --section.key=value and then overrides the file.\n\n"
         "  --config FILE.ini    the run configuration (INI)\n"
         "  --help               this text\n"
      << file_options();
  return out.str();
}

RunConfig parse_run_arguments(const std::vector<std::string>& args, bool& help) {
  po::options_description generic;
  generic.add_options()("config", po::value<std::string>())("help,h", "");
  po::options_description cmdline;
  cmdline.add(generic).add(file_options());
  po::variables_map cli;
  try {
    po::store(po::command_line_parser(args).options(cmdline).run(), cli);
  } catch (const po::error& e) {
    throw InputError(std::string("command line: ") + e.what() + "; see rockperm run --help");
  }
  help = cli.count("help") > 0;
  RunConfig cfg;
  if (help) return cfg;

  po::variables_map vm = cli;
  std::filesystem::path base = std::filesystem::current_path();
  if (cli.count("config")) {
    cfg.config_file = cli["config"].as<std::string>();
    std::ifstream in(cfg.config_file);
    if (!in) throw InputError("config file " + cfg.config_file.string() + ": cannot be opened; check the path");
    try {
      po::store(po::parse_config_file(in, file_options(), false), vm);
    } catch (const po::error& e) {
      throw InputError("config file " + cfg.config_file.string() + ": " + e.what());
    }
    base = std::filesystem::absolute(cfg.config_file).parent_path();
  }
  po::notify(vm);

  for (const char* key : {"input.file"}) {
    if (!vm.count(key)) {
      throw InputError(std::string("option ") + key + " is required; set it in the [input] section or as --" + key);
    }
  }
  std::filesystem::path file = vm["input.file"].as<std::string>();
  // a path from the INI file is relative to the INI file; one from the command line to the cwd
  if (file.is_relative() && !cli.count("input.file")) file = base / file;
  cfg.input.file = file.lexically_normal();
  if (!vm["input.dims"].as<std::string>().empty()) {
    cfg.input.dims = parse_dims(vm["input.dims"].as<std::string>(), "input.dims");
  }
  cfg.input.format = vm["input.format"].as<std::string>();
  const std::string type = vm["input.type"].as<std::string>();
  if (type != "uint8" && type != "uint16") {
    throw InputError("option input.type = '" + type + "' is not supported; use uint8 or uint16");
  }
  cfg.input.bytes_per_sample = type == "uint16" ? 2 : 1;
  const std::string order = vm["input.byte_order"].as<std::string>();
  if (order != "little" && order != "big") {
    throw InputError("option input.byte_order = '" + order + "' is unknown; use little or big");
  }
  cfg.input.big_endian = order == "big";
  cfg.input.header_bytes = vm["input.header_bytes"].as<std::uint64_t>();
  cfg.input.pore_labels = vm["input.pore_labels"].as<std::string>();
  (void)LabelSelection::parse(cfg.input.pore_labels);
  cfg.input.voxel_size_um = vm["input.voxel_size_um"].as<double>();
  if (cfg.input.voxel_size_um < 0) throw InputError("option input.voxel_size_um must be positive (micrometres)");
  cfg.input.crop_offset = vm["input.crop_offset"].as<std::string>();
  cfg.input.crop_size = vm["input.crop_size"].as<std::string>();
  const std::string filter = vm["input.percolation_filter"].as<std::string>();
  if (filter != "on" && filter != "off") {
    throw InputError("option input.percolation_filter = '" + filter + "' is unknown; use on or off");
  }
  cfg.input.percolation_filter = filter == "on";

  const std::string collision = vm["lbm.collision"].as<std::string>();
  if (collision == "trt") {
    cfg.lbm.collision = physics::CollisionModel::trt;
  } else if (collision == "bgk") {
    cfg.lbm.collision = physics::CollisionModel::bgk;
  } else {
    throw InputError("option lbm.collision = '" + collision + "' is unknown; use trt or bgk");
  }
  cfg.lbm.tau = vm["lbm.tau"].as<double>();
  if (!(cfg.lbm.tau > 0.5 && cfg.lbm.tau < 100.0)) {
    throw InputError("option lbm.tau = " + std::to_string(cfg.lbm.tau) + " must be in (0.5, 100); 1.0 is a good choice");
  }
  cfg.lbm.magic = positive(vm, "lbm.magic");
  cfg.lbm.force = positive(vm, "lbm.force");
  cfg.lbm.flow_axis = parse_axis(vm["lbm.flow_axis"].as<std::string>(), "lbm.flow_axis");
  const std::string lateral = vm["lbm.lateral"].as<std::string>();
  if (lateral != "sealed" && lateral != "periodic") {
    throw InputError("option lbm.lateral = '" + lateral + "' is unknown; use sealed or periodic");
  }
  cfg.lbm.lateral_periodic = lateral == "periodic";
  cfg.lbm.inlet_outlet = vm["lbm.inlet_outlet"].as<std::string>();
  const InletOutlet io_mode = parse_inlet_outlet(cfg.lbm.inlet_outlet);
  cfg.lbm.buffer_layers = vm["lbm.buffer_layers"].as<int>();
  if (io_mode == InletOutlet::buffer && cfg.lbm.buffer_layers < 1) {
    throw InputError("option lbm.buffer_layers must be at least 1 with inlet_outlet = buffer");
  }
  cfg.lbm.edge_contacts = parse_edge_contacts(vm["lbm.edge_contacts"].as<std::string>());
  if (io_mode == InletOutlet::buffer && cfg.lbm.lateral_periodic) {
    throw InputError("lbm.lateral = periodic contradicts lbm.inlet_outlet = buffer (the buffers need sealed lateral "
                     "faces); use lateral = sealed, or inlet_outlet = mirror or periodic");
  }

  const std::string backend = vm["run.backend"].as<std::string>();
  if (backend == "auto") {
    cfg.backend = BackendChoice::auto_select;
  } else if (backend == "cpu") {
    cfg.backend = BackendChoice::cpu;
  } else if (backend == "cuda") {
    cfg.backend = BackendChoice::cuda;
  } else {
    throw InputError("option run.backend = '" + backend + "' is unknown; use auto, cuda or cpu");
  }
  {
    std::istringstream in(vm["run.devices"].as<std::string>());
    for (std::string item; std::getline(in, item, ',');) {
      try {
        cfg.devices.push_back(std::stoi(item));
        if (cfg.devices.back() < 0) throw std::out_of_range("negative");
      } catch (const std::exception&) {
        throw InputError("option run.devices: '" + item + "' is not a device index; write e.g. 0,1");
      }
    }
  }
  {
    const std::string aware = vm["run.cuda_aware_mpi"].as<std::string>();
    if (aware != "auto" && aware != "off") {
      throw InputError("option run.cuda_aware_mpi = '" + aware + "' is unknown; use auto or off");
    }
    cfg.cuda_aware_mpi = aware == "auto";
  }
  cfg.propagation = parse_propagation_choice(vm["run.propagation"].as<std::string>(), "run.propagation");
  cfg.run.max_steps = vm["run.max_steps"].as<std::int64_t>();
  cfg.run.check_interval = vm["run.check_interval"].as<std::int64_t>();
  if (cfg.run.max_steps < 1) throw InputError("option run.max_steps must be at least 1");
  if (cfg.run.check_interval < 1) throw InputError("option run.check_interval must be at least 1");
  cfg.run.monitor.tolerance = positive(vm, "run.tolerance");

  const std::string fields = vm["output.fields"].as<std::string>();
  if (fields != "on" && fields != "off") throw InputError("option output.fields = '" + fields + "': use on or off");
  cfg.output.fields = fields == "on";
  cfg.output.fields_crop_offset = vm["output.fields_crop_offset"].as<std::string>();
  cfg.output.fields_crop_size = vm["output.fields_crop_size"].as<std::string>();
  cfg.output.fields_stride = vm["output.fields_stride"].as<int>();
  if (cfg.output.fields_stride < 1) throw InputError("option output.fields_stride must be at least 1");
  cfg.output.viscosity_pa_s = positive(vm, "output.viscosity_pa_s");
  cfg.output.pressure_gradient_pa_per_m = positive(vm, "output.pressure_gradient_pa_per_m");
  if (vm.count("output.dir")) {
    cfg.output.dir = vm["output.dir"].as<std::string>();
  } else {
    const std::string stem = cfg.config_file.empty() ? std::string("rockperm") : cfg.config_file.stem().string();
    cfg.output.dir = std::filesystem::current_path() / (stem + ".out");
  }
  return cfg;
}

std::string to_ini(const RunConfig& c) {
  std::ostringstream o;
  o.precision(17);
  o << "# resolved configuration of this run\n"
    << "[input]\nfile = " << c.input.file.string() << "\nformat = " << c.input.format << "\ndims = "
    << (c.input.dims.nx ? std::to_string(c.input.dims.nx) + " " + std::to_string(c.input.dims.ny) + " " +
                              std::to_string(c.input.dims.nz)
                        : std::string())
    << "\ntype = " << (c.input.bytes_per_sample == 2 ? "uint16" : "uint8")
    << "\nbyte_order = " << (c.input.big_endian ? "big" : "little") << "\nheader_bytes = " << c.input.header_bytes
    << "\npore_labels = " << c.input.pore_labels << "\nvoxel_size_um = " << c.input.voxel_size_um
    << "\ncrop_offset = " << c.input.crop_offset << "\ncrop_size = " << c.input.crop_size
    << "\npercolation_filter = " << (c.input.percolation_filter ? "on" : "off")
    << "\n\n[lbm]\ncollision = " << (c.lbm.collision == physics::CollisionModel::trt ? "trt" : "bgk")
    << "\ntau = " << c.lbm.tau << "\nmagic = " << c.lbm.magic << "\nforce = " << c.lbm.force
    << "\nflow_axis = " << "xyz"[c.lbm.flow_axis] << "\nlateral = " << (c.lbm.lateral_periodic ? "periodic" : "sealed")
    << "\ninlet_outlet = " << c.lbm.inlet_outlet << "\nbuffer_layers = " << c.lbm.buffer_layers
    << "\nedge_contacts = " << to_string(c.lbm.edge_contacts)
    << "\n\n[run]\nbackend = " << to_string(c.backend) << "\npropagation = " << to_string(c.propagation)
    << "\ncuda_aware_mpi = " << (c.cuda_aware_mpi ? "auto" : "off") << "\ndevices = " << [&] {
         std::string d;
         for (int v : c.devices) d += (d.empty() ? "" : ",") + std::to_string(v);
         return d;
       }()
    << "\nmax_steps = " << c.run.max_steps << "\ncheck_interval = " << c.run.check_interval
    << "\ntolerance = " << c.run.monitor.tolerance << "\n\n[output]\ndir = " << c.output.dir.string()
    << "\nfields = " << (c.output.fields ? "on" : "off") << "\nfields_crop_offset = " << c.output.fields_crop_offset
    << "\nfields_crop_size = " << c.output.fields_crop_size << "\nfields_stride = " << c.output.fields_stride
    << "\nviscosity_pa_s = " << c.output.viscosity_pa_s
    << "\npressure_gradient_pa_per_m = " << c.output.pressure_gradient_pa_per_m << "\n";
  return o.str();
}

}  // namespace rockperm::config
