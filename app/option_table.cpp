#include "app/option_table.hpp"

#include "app/option_rows.hpp"

#include <cmath>
#include <sstream>

#include "lib/base/error.hpp"
#include "lib/base/number.hpp"
#include "pipeline/fields.hpp"

namespace rockperm::app {

namespace {

using pipeline::RunSpec;
using namespace option_rows;

std::string triple(const std::array<std::int64_t, 3>& v) {
  return std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]);
}

// the names of each choice are those of the enum's own table (lib/base/names.hpp)
const auto& formats = io::volume_format_names;
const auto& collisions = physics::collision_names;
constexpr std::array<Named<int>, 3> axes{{{"x", 0}, {"y", 1}, {"z", 2}}};
constexpr std::array<Named<int>, 2> sample_types{{{"uint8", 1}, {"uint16", 2}}};
const auto& inlet_outlets = geometry::inlet_outlet_names;
const auto& edge_contacts = geometry::edge_contact_names;
const auto& backends = pipeline::backend_names;
const auto& propagations = pipeline::propagation_names;
const auto& storages = pipeline::storage_names;

// A flow parameter that is a number or "auto" (chosen for the sample by pipeline::resolve_flow).
Option number_or_auto(const char* key, const char* field, const char* help, bool pipeline::FlowSpec::*automatic,
                      double pipeline::FlowSpec::*value) {
  return {key, field, "auto", help,
          [=](RunSpec& s, const std::string& v) {
            s.flow.*automatic = v == "auto";
            if (!(s.flow.*automatic)) s.flow.*value = parse_double(v);
          },
          [=](const RunSpec& s) { return s.flow.*automatic ? std::string("auto") : number(s.flow.*value); }};
}

}  // namespace

std::array<std::int64_t, 3> parse_triple(const std::string& text) {
  std::string s = text;
  for (char& ch : s) {
    if (ch == 'x' || ch == 'X' || ch == ',') ch = ' ';
  }
  std::istringstream in(s);
  std::array<std::int64_t, 3> v{};
  std::string rest;
  if (!(in >> v[0] >> v[1] >> v[2]) || (in >> rest)) {
    throw InputError("'" + text + "' is not three integers; write e.g. \"64 64 64\"");
  }
  return v;
}

const std::vector<Option>& option_table() {
  static const std::vector<Option> options = [] {
    std::vector<Option> t;
    // [input]
    t.push_back({"input.file", "sample.volume.path", "",
                 "the segmented volume: a raw file, an .nrrd/.nhdr or .mhd header, a multi-page .tif, or a directory "
                 "of 2-D .tif slices (natural name order); a relative path is relative to the INI file's folder "
                 "(required)",
                 [](RunSpec& s, const std::string& v) { s.sample.volume.path = v; },
                 [](const RunSpec& s) { return s.sample.volume.path.string(); }});
    t.push_back({"input.format", "sample.volume.format", "auto", "auto (from the name), raw, nrrd, mhd or tiff",
                 [](RunSpec& s, const std::string& v) { s.sample.volume.format = parse_choice(v, formats); },
                 [](const RunSpec& s) { return choice_name(s.sample.volume.format, formats); }});
    t.push_back({"input.dims", "sample.volume.dims", "",
                 "raw only: dimensions in voxels, \"NX NY NZ\", x fastest then y then z",
                 [](RunSpec& s, const std::string& v) {
                   if (v.empty()) return;
                   const auto d = parse_triple(v);
                   s.sample.volume.dims = geometry::Dims{d[0], d[1], d[2]};
                   geometry::validate_dims(s.sample.volume.dims, "the dimensions");
                 },
                 [](const RunSpec& s) {
                   const geometry::Dims& d = s.sample.volume.dims;
                   return d.nx ? triple({d.nx, d.ny, d.nz}) : std::string();
                 }});
    t.push_back({"input.type", "sample.volume.bytes_per_sample", "uint8", "raw only: uint8 or uint16",
                 [](RunSpec& s, const std::string& v) {
                   s.sample.volume.bytes_per_sample = parse_choice(v, sample_types);
                 },
                 [](const RunSpec& s) { return std::string(s.sample.volume.bytes_per_sample == 2 ? "uint16" : "uint8"); }});
    t.push_back({"input.byte_order", "sample.volume.big_endian", "little", "raw uint16 only: little or big",
                 [](RunSpec& s, const std::string& v) { s.sample.volume.big_endian = parse_switch(v, "big", "little"); },
                 [](const RunSpec& s) { return std::string(s.sample.volume.big_endian ? "big" : "little"); }});
    t.push_back({"input.header_bytes", "sample.volume.header_bytes", "0", "raw only: bytes to skip before the data",
                 [](RunSpec& s, const std::string& v) {
                   const std::int64_t n = parse_integer(v);
                   if (n < 0) throw InputError("must not be negative");
                   s.sample.volume.header_bytes = static_cast<std::uint64_t>(n);
                 },
                 [](const RunSpec& s) { return std::to_string(s.sample.volume.header_bytes); }});
    t.push_back({"input.pore_labels", "sample.pore_labels", "0",
                 "labels (or ranges of values) that are pore, e.g. 0 or 0,3 or 0-10; all others are solid",
                 [](RunSpec& s, const std::string& v) { s.sample.pore_labels = geometry::LabelSelection::parse(v); },
                 [](const RunSpec& s) { return s.sample.pore_labels.str(); }});
    t.push_back({"input.grey_labels", "sample.grey_labels", "",
                 "sub-resolution porous labels, each label:porosity:k with a unit (mD, D, um2, m2), e.g. "
                 "2:0.2:0.05mD, 3-4:0.1:1e-3D: fluid cells with the Darcy drag of that k (Darcy-Brinkman), "
                 "optionally :m, the phase's cementation exponent for run.formation_factor (2:0.2:0.05mD:1.8); "
                 "or @FILE: a table of them, one per line as label,porosity,k[,m] (a header line and # comments "
                 "allowed; relative to the INI file's folder); empty: none",
                 [](RunSpec& s, const std::string& v) { s.sample.grey_phases = geometry::parse_grey_phases(v); },
                 [](const RunSpec& s) { return to_string(s.sample.grey_phases); }});
    t.push_back({"input.grey_map", "sample.grey_map", "",
                 "grey phases from CT intensities where the volume holds them, not labels: PORE:SOLID, the intensity "
                 "of resolved pore (porosity 1; it and beyond is open pore) and of solid grain (porosity 0; it and "
                 "beyond is solid), e.g. 40:200; every intensity between is a grey voxel of porosity linear between "
                 "them and k from input.grey_law; empty: none",
                 [](RunSpec& s, const std::string& v) { geometry::parse_grey_intensities(v, s.sample.grey_map); },
                 [](const RunSpec& s) { return s.sample.grey_map.intensities_str(); }});
    t.push_back({"input.grey_law", "sample.grey_law", "",
                 "with input.grey_map, k of a grey voxel from its porosity, through one calibrated point: "
                 "kozeny-carman:K@PHI (k = K (phi^3/(1-phi)^2) / (PHI^3/(1-PHI)^2)) or power:K@PHI:N (k = K "
                 "(phi/PHI)^N), K with a unit (mD, D, um2, m2), e.g. kozeny-carman:0.5mD@0.3",
                 [](RunSpec& s, const std::string& v) { geometry::parse_grey_law(v, s.sample.grey_map); },
                 [](const RunSpec& s) { return s.sample.grey_map.law_str(); }});
    t.push_back({"input.voxel_size_um", "sample.volume.voxel_size_um", "0",
                 "edge length of one voxel in micrometres (0: from the header; required unless an NRRD/MHD header "
                 "gives it)",
                 [](RunSpec& s, const std::string& v) {
                   const double um = parse_double(v);
                   if (um < 0) throw InputError("must be positive (micrometres), or 0 to take it from the header");
                   s.sample.volume.voxel_size_um = um;
                 },
                 [](const RunSpec& s) { return number(s.sample.volume.voxel_size_um); }});
    t.push_back({"input.crop_offset", "sample.volume.crop", "0 0 0", "first voxel of the crop, \"X Y Z\"",
                 [](RunSpec& s, const std::string& v) {
                   s.sample.volume.crop.offset = parse_triple(v);
                   for (const auto o : s.sample.volume.crop.offset)
                     if (o < 0) throw InputError("must not be negative");
                 },
                 [](const RunSpec& s) { return triple(s.sample.volume.crop.offset); }});
    t.push_back({"input.crop_size", "sample.volume.crop", "0 0 0",
                 "size of the crop in voxels, \"X Y Z\" (0: to the end); applied while reading",
                 [](RunSpec& s, const std::string& v) {
                   s.sample.volume.crop.size = parse_triple(v);
                   for (const auto o : s.sample.volume.crop.size)
                     if (o < 0) throw InputError("must not be negative");
                 },
                 [](const RunSpec& s) { return triple(s.sample.volume.crop.size); }});
    t.push_back({"input.percolation_filter", "sample.percolation_filter", "on",
                 "on: keep only pore clusters joining the inlet and outlet faces (18-connected; face-connected with "
                 "lbm.edge_contacts = sealed); off: keep all pores",
                 [](RunSpec& s, const std::string& v) { s.sample.percolation_filter = parse_switch(v, "on", "off"); },
                 [](const RunSpec& s) { return std::string(s.sample.percolation_filter ? "on" : "off"); }});
    // [lbm]
    t.push_back({"lbm.collision", "flow.collision", "trt", "trt or bgk",
                 [](RunSpec& s, const std::string& v) { s.flow.collision = parse_choice(v, collisions); },
                 [](const RunSpec& s) { return choice_name(s.flow.collision, collisions); }});
    t.push_back(number_or_auto("lbm.tau", "flow.tau",
                               "relaxation time, > 0.5 (viscosity nu = (tau - 1/2)/3), or auto: the fastest to steady "
                               "flow for this sample, from its pore size, porosity and length (TRT: k does not depend "
                               "on tau)",
                               &pipeline::FlowSpec::auto_tau, &pipeline::FlowSpec::tau));
    t.push_back({"lbm.magic", "flow.magic", "0.1875", "TRT magic parameter Lambda; 3/16 makes k independent of tau",
                 [](RunSpec& s, const std::string& v) { s.flow.magic = parse_double(v); },
                 [](const RunSpec& s) { return number(s.flow.magic); }});
    t.push_back(number_or_auto("lbm.force", "flow.force",
                               "body acceleration along the flow axis, lattice units (voxel/step^2), or auto: 1e-5 "
                               "scaled with the viscosity, lowered where Re or Ma (estimated, then measured) would "
                               "exceed 0.01",
                               &pipeline::FlowSpec::auto_force, &pipeline::FlowSpec::force));
    t.push_back({"lbm.flow_axis", "flow.flow_axis", "x",
                 "x, y or z; all: the permeability tensor (a run along each axis, in <output.dir>/x, y, z)",
                 [](RunSpec& s, const std::string& v) {
                   s.all_axes = v == "all";
                   s.flow.flow_axis = s.all_axes ? 0 : parse_choice(v, axes);
                 },
                 [](const RunSpec& s) { return s.all_axes ? std::string("all") : choice_name(s.flow.flow_axis, axes); }});
    t.push_back({"lbm.lateral", "flow.lateral_periodic", "sealed",
                 "faces parallel to the flow: sealed (walls) or periodic",
                 [](RunSpec& s, const std::string& v) { s.flow.set_lateral_periodic(parse_switch(v, "periodic", "sealed")); },
                 [](const RunSpec& s) { return std::string(s.flow.any_lateral_periodic() ? "periodic" : "sealed"); }});
    t.push_back({"lbm.inlet_outlet", "flow.inlet_outlet", "buffer",
                 "the faces across the flow: buffer (fluid layers before and after the sample, lateral faces sealed, "
                 "k divided by the drive inside the sample), mirror (the sample followed by its mirror image), or "
                 "periodic (the sample is one period, e.g. a synthetic periodic medium)",
                 [](RunSpec& s, const std::string& v) { s.flow.inlet_outlet = parse_choice(v, inlet_outlets); },
                 [](const RunSpec& s) { return choice_name(s.flow.inlet_outlet, inlet_outlets); }});
    t.push_back({"lbm.buffer_layers", "flow.buffer_layers", "10", "fluid layers before and after the sample (buffer)",
                 [](RunSpec& s, const std::string& v) { s.flow.buffer_layers = static_cast<int>(parse_integer(v)); },
                 [](const RunSpec& s) { return std::to_string(s.flow.buffer_layers); }});
    t.push_back({"lbm.edge_contacts", "flow.edge_contacts", "open",
                 "pore voxels touching only along an edge: open (a diagonal D3Q19 link carries flow; the pore space "
                 "is 18-connected) or sealed (no flow through a contact of zero width; face-connected, as voxel "
                 "finite-volume solvers see it); docs/ACCURACY.md compares them",
                 [](RunSpec& s, const std::string& v) { s.flow.edge_contacts = parse_choice(v, edge_contacts); },
                 [](const RunSpec& s) { return choice_name(s.flow.edge_contacts, edge_contacts); }});
    // [run]
    t.push_back({"run.backend", "execution.backend", "auto", "auto, cuda or cpu",
                 [](RunSpec& s, const std::string& v) { s.execution.backend = parse_choice(v, backends); },
                 [](const RunSpec& s) { return choice_name(s.execution.backend, backends); }});
    t.push_back({"run.devices", "execution.devices", "",
                 "CUDA devices for the ranks of one host, e.g. 0,2 (default: rank k gets the number of ranks before "
                 "it on the same host)",
                 [](RunSpec& s, const std::string& v) {
                   s.execution.devices.clear();
                   std::istringstream in(v);
                   for (std::string item; std::getline(in, item, ',');) {
                     const std::int64_t d = parse_integer(item);
                     if (d < 0) throw InputError("'" + item + "' is not a device index; write e.g. 0,1");
                     s.execution.devices.push_back(static_cast<int>(d));
                   }
                 },
                 [](const RunSpec& s) {
                   std::string d;
                   for (const int v : s.execution.devices) d += (d.empty() ? "" : ",") + std::to_string(v);
                   return d;
                 }});
    t.push_back({"run.cuda_aware_mpi", "execution.cuda_aware_mpi", "auto",
                 "auto (hand MPI device buffers when the MPI library reports CUDA support at run time) or off "
                 "(stage halos through pinned host memory)",
                 [](RunSpec& s, const std::string& v) { s.execution.cuda_aware_mpi = parse_switch(v, "auto", "off"); },
                 [](const RunSpec& s) { return std::string(s.execution.cuda_aware_mpi ? "auto" : "off"); }});
    t.push_back(
        {"run.halo_transport", "execution.halo_transport", "auto",
         "how halos travel between GPU ranks: auto (the first that starts of ipc on one host, ipc+nccl "
         "on several, nccl, cuda-aware, staged), staged (pinned host buffers), cuda-aware (MPI given "
         "device buffers), ipc (CUDA IPC device-to-device copies between ranks of one host), nccl (NCCL "
         "point-to-point; a GPU per rank, libnccl.so.2 on the library path) or ipc+nccl (each pair of "
         "neighbours by what serves it: ipc within a host, nccl across hosts)",
         [](RunSpec& s, const std::string& v) { s.execution.halo_transport = parallel::parse_halo_transport(v); },
         [](const RunSpec& s) { return std::string(to_string(s.execution.halo_transport)); }});
    t.push_back({"run.propagation", "execution.propagation", "auto",
                 "auto (fused on a GPU, two-pass on the CPU), two-pass (swap) or fused (A-A)",
                 [](RunSpec& s, const std::string& v) { s.execution.propagation = parse_choice(v, propagations); },
                 [](const RunSpec& s) { return choice_name(s.execution.propagation, propagations); }});
    t.push_back({"run.storage", "execution.storage", "auto",
                 "population storage: fp32, fp16 (half the bytes: larger samples per GPU, faster steps; "
                 "docs/ACCURACY.md says how k compares) or auto (fp32, or fp16 on GPUs that fp32 does not fit)",
                 [](RunSpec& s, const std::string& v) { s.execution.storage = parse_choice(v, storages); },
                 [](const RunSpec& s) { return choice_name(s.execution.storage, storages); }});
    t.push_back({"run.resolution_study", "resolution_study", "auto",
                 "on: also run the sample coarsened 2x and 4x (majority of each block, 1/8 + 1/64 of the cells, each "
                 "grid for at most 4 times the sample's steps) and "
                 "extrapolate k to zero voxel size: report.json's resolution block, the verdict's discretisation "
                 "error; auto: where more than 10 % of the flow passes pores narrower than 3 voxels; off",
                 [](RunSpec& s, const std::string& v) {
                   if (v != "auto" && v != "on" && v != "off") throw InputError("'" + v + "' is unknown; use auto, on or off");
                   s.resolution_study = v == "auto" ? RunSpec::Study::automatic
                                        : v == "on" ? RunSpec::Study::on
                                                    : RunSpec::Study::off;
                 },
                 [](const RunSpec& s) {
                   return std::string(s.resolution_study == RunSpec::Study::automatic ? "auto"
                                      : s.resolution_study == RunSpec::Study::on     ? "on"
                                                                                     : "off");
                 }});
    t.push_back({"run.host_share", "execution.host_share", "auto",
                 "where a host runs one rank more than it has GPUs, that rank computes on the host's cores: auto "
                 "(its share of the cells from the measured speeds, or what the GPUs' memory does not hold), a "
                 "fraction of the cells in (0, 1), or off (refuse such a rank)",
                 [](RunSpec& s, const std::string& v) { s.execution.host_share = parallel::parse_host_share(v); },
                 [](const RunSpec& s) { return s.execution.host_share.str(); }});
    t.push_back({"run.gpu_memory_gib", "execution.gpu_memory_gib", "0",
                 "plan with at most this much memory of each GPU (GiB; 0: all of it), e.g. on a GPU shared with "
                 "other work: the sample then needs more GPUs, fp16 storage, or the host's cores (run.host_share)",
                 [](RunSpec& s, const std::string& v) { s.execution.gpu_memory_gib = parse_double(v); },
                 [](const RunSpec& s) {
                   std::ostringstream o;
                   o << s.execution.gpu_memory_gib;
                   return o.str();
                 }});
    t.push_back({"run.without_grey", "without_grey", "on",
                 "where grey labels are declared, also run the sample with its grey voxels solid and report k of "
                 "the resolved pores alone beside k with them (report.json's grey.without_grey; off saves that run)",
                 [](RunSpec& s, const std::string& v) { s.without_grey = parse_switch(v, "on", "off"); },
                 [](const RunSpec& s) { return std::string(s.without_grey ? "on" : "off"); }});
    t.push_back({"run.formation_factor", "formation_factor", "off",
                 "on: after k, also solve the electrical conduction of the brine in the same pore space (grains "
                 "insulating) and report the formation factor F = sigma_w / sigma_eff along the flow axis, the "
                 "tortuosity factor F phi and Archie's cementation exponent m = -ln F / ln phi, each to "
                 "run.tolerance (report.json's conduction block); only: F alone, the sample read and prepared as "
                 "for k but no step of the flow taken (report.json's permeability null)",
                 [](RunSpec& s, const std::string& v) {
                   if (v == "only") {
                     s.formation_factor = true;
                     s.permeability = false;
                     return;
                   }
                   if (v != "on" && v != "off") throw InputError("'" + v + "' is unknown; use on, off or only");
                   s.formation_factor = v == "on";
                   s.permeability = true;
                 },
                 [](const RunSpec& s) { return std::string(!s.permeability ? "only" : s.formation_factor ? "on" : "off"); }});
    t.push_back({"run.grey_cementation", "grey_cementation", "2",
                 "with run.formation_factor: a grey voxel conducts as sigma_w phi^m, phi its declared porosity and "
                 "m this exponent (Archie's law of its unresolved pores), in [1, 5], unless its phase declares its "
                 "own in input.grey_labels",
                 [](RunSpec& s, const std::string& v) {
                   const double m = parse_double(v);
                   if (!(m >= 1.0 && m <= 5.0)) throw InputError("'" + v + "' is outside [1, 5] (Archie's m: about 2)");
                   s.grey_cementation = m;
                 },
                 [](const RunSpec& s) { return number(s.grey_cementation); }});
    t.push_back({"run.max_steps", "execution.max_steps", "200000", "stop after this many steps",
                 [](RunSpec& s, const std::string& v) { s.execution.max_steps = parse_integer(v); },
                 [](const RunSpec& s) { return std::to_string(s.execution.max_steps); }});
    t.push_back({"run.check_interval", "execution.check_interval", "100", "steps between convergence checks",
                 [](RunSpec& s, const std::string& v) { s.execution.check_interval = parse_integer(v); },
                 [](const RunSpec& s) { return std::to_string(s.execution.check_interval); }});
    t.push_back({"run.tolerance", "execution.monitor.tolerance", "1e-4",
                 "steady when the remaining change of k, estimated from the decay of its history, is below this "
                 "(relative) and the flux through every plane agrees to run.flux_tolerance, on two consecutive "
                 "checks; at least 1e-9, what float populations resolve",
                 [](RunSpec& s, const std::string& v) { s.execution.monitor.tolerance = parse_double(v); },
                 [](const RunSpec& s) { return number(s.execution.monitor.tolerance); }});
    t.push_back({"run.flux_tolerance", "execution.monitor.flux_tolerance", "auto",
                 "steady only when the volume flux through every plane across the flow agrees to this "
                 "((largest - smallest) / mean): the mass balance of a steady flow; auto: half of run.tolerance, "
                 "at least 1e-5; after a pressure jump, once the history spans the jump's slow time, k's slope "
                 "over that time stands in for it",
                 [](RunSpec& s, const std::string& v) {
                   s.execution.monitor.auto_flux_tolerance = v == "auto";
                   if (v != "auto") s.execution.monitor.flux_tolerance = parse_double(v);
                 },
                 [](const RunSpec& s) {
                   return s.execution.monitor.auto_flux_tolerance ? std::string("auto")
                                                                   : number(s.execution.monitor.flux_tolerance);
                 }});
    t.push_back({"run.extrapolation", "execution.extrapolation", "on",
                 "on: where the pressure along the sample relaxes slowly (tight rock), jump every cell's density "
                 "to the limit its last changes head for, and go on from there (the same steady state in fewer "
                 "steps; docs/ACCURACY.md); darcy: instead, start from a Darcy-scale pressure field (run.start = "
                 "darcy) and correct the density every 600 steps by that model applied to the lattice's own rate "
                 "of change, the model's scale measured as it goes (issue 67; docs/ACCURACY.md, \"The Darcy-scale "
                 "start and corrections\"); off: plain time stepping",
                 [](RunSpec& s, const std::string& v) {
                   if (v != "on" && v != "off" && v != "darcy") throw InputError("'" + v + "' is unknown; use on, off or darcy");
                   s.execution.extrapolation.enabled = v == "on";
                   s.execution.correction = v == "darcy";
                 },
                 [](const RunSpec& s) {
                   return std::string(s.execution.correction ? "darcy" : (s.execution.extrapolation.enabled ? "on" : "off"));
                 }});
    t.push_back({"run.start", "execution.start", "rest",
                 "rest: the flow starts at rest; darcy: at rest with the density of a Darcy-scale pressure solve "
                 "over the pore cells (conductance from the distance to the wall, the lattice's 18 links, multigrid "
                 "CG on the GPU or the host), so that poorly connected pore regions need not fill by the lattice's "
                 "own steps (issue 67; docs/ACCURACY.md, \"The Darcy-scale start\"); the same k to the tolerance",
                 [](RunSpec& s, const std::string& v) {
                   s.execution.start = parse_switch(v, "darcy", "rest") ? pipeline::ExecutionSpec::Start::darcy : pipeline::ExecutionSpec::Start::rest;
                 },
                 [](const RunSpec& s) { return std::string(s.execution.start == pipeline::ExecutionSpec::Start::darcy ? "darcy" : "rest"); }});
    t.push_back({"run.checkpoint_interval", "execution.checkpoint_interval", "0",
                 "write a checkpoint (checkpoint.rpk in the run directory) every this many steps; 0: not by steps",
                 [](RunSpec& s, const std::string& v) { s.execution.checkpoint_interval = parse_integer(v); },
                 [](const RunSpec& s) { return std::to_string(s.execution.checkpoint_interval); }});
    t.push_back({"run.checkpoint_minutes", "execution.checkpoint_minutes", "30",
                 "write a checkpoint every this many minutes of wall time; 0: not by time",
                 [](RunSpec& s, const std::string& v) { s.execution.checkpoint_minutes = parse_double(v); },
                 [](const RunSpec& s) { return number(s.execution.checkpoint_minutes); }});
    t.push_back({"run.checkpoint_at_end", "execution.checkpoint_at_end", "off",
                 "on: also write a checkpoint when the run ends (to continue it later with a tighter tolerance)",
                 [](RunSpec& s, const std::string& v) { s.execution.checkpoint_at_end = parse_switch(v, "on", "off"); },
                 [](const RunSpec& s) { return std::string(s.execution.checkpoint_at_end ? "on" : "off"); }});
    t.push_back({"run.walltime_minutes", "execution.walltime_minutes", "0",
                 "stop cleanly (checkpoint, report with status interrupted) before this many minutes of wall time, "
                 "e.g. a batch job's limit; 0: no limit",
                 [](RunSpec& s, const std::string& v) { s.execution.walltime_minutes = parse_double(v); },
                 [](const RunSpec& s) { return number(s.execution.walltime_minutes); }});
    add_capillary_and_forchheimer_rows(t);
    // [output]
    t.push_back({"output.dir", "output.dir", "",
                 "run directory for report.json, report.csv, config.ini and the fields (default: <config name>.out "
                 "in the current folder); created if missing, and checked to be writable before the run",
                 [](RunSpec& s, const std::string& v) { s.output.dir = v; },
                 [](const RunSpec& s) { return s.output.dir.string(); }});
    t.push_back({"output.fields", "output.fields.enabled", pipeline::fields_supported() ? "on" : "off",
                 "on: write velocity, pressure and the pore mask for ParaView (fields.pvti + one .vti per rank); off "
                 "(the default of a build without VTK, which cannot write them)",
                 [](RunSpec& s, const std::string& v) { s.output.fields.enabled = parse_switch(v, "on", "off"); },
                 [](const RunSpec& s) { return std::string(s.output.fields.enabled ? "on" : "off"); }});
    t.push_back({"output.fields_crop_offset", "output.fields.crop", "0 0 0",
                 "first voxel of the field output, \"X Y Z\", in voxels of the simulated volume",
                 [](RunSpec& s, const std::string& v) { s.output.fields.crop.offset = parse_triple(v); },
                 [](const RunSpec& s) { return triple(s.output.fields.crop.offset); }});
    t.push_back({"output.fields_crop_size", "output.fields.crop", "0 0 0",
                 "size of the field output in voxels (0: to the end)",
                 [](RunSpec& s, const std::string& v) { s.output.fields.crop.size = parse_triple(v); },
                 [](const RunSpec& s) { return triple(s.output.fields.crop.size); }});
    t.push_back({"output.fields_stride", "output.fields.stride", "1", "write every n-th voxel along each axis",
                 [](RunSpec& s, const std::string& v) { s.output.fields.stride = static_cast<int>(parse_integer(v)); },
                 [](const RunSpec& s) { return std::to_string(s.output.fields.stride); }});
    t.push_back({"output.progress_seconds", "output.progress_seconds", "1",
                 "seconds between progress lines on the console (0: one line at every convergence check)",
                 [](RunSpec& s, const std::string& v) { s.output.progress_seconds = parse_double(v); },
                 [](const RunSpec& s) { return number(s.output.progress_seconds); }});
    t.push_back({"output.viscosity_pa_s", "output.fields.viscosity_pa_s", "0.001",
                 "fluid viscosity (Pa s) of the physical case the fields are scaled to (k does not depend on it)",
                 [](RunSpec& s, const std::string& v) { s.output.fields.viscosity_pa_s = parse_double(v); },
                 [](const RunSpec& s) { return number(s.output.fields.viscosity_pa_s); }});
    t.push_back({"output.pressure_gradient_pa_per_m", "output.fields.pressure_gradient_pa_per_m", "1e5",
                 "pressure gradient (Pa/m) along the flow axis of that physical case",
                 [](RunSpec& s, const std::string& v) { s.output.fields.pressure_gradient_pa_per_m = parse_double(v); },
                 [](const RunSpec& s) { return number(s.output.fields.pressure_gradient_pa_per_m); }});
    return t;
  }();
  return options;
}

}  // namespace rockperm::app
