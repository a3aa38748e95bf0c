#include "pipeline/colour_flow.hpp"
#include "pipeline/colour_flow_state.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "lib/backend/colour_cpu.hpp"
#include "lib/base/error.hpp"
#include "lib/geometry/inlet_outlet.hpp"
#include "lib/geometry/morphology.hpp"
#include "lib/geometry/percolation.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/solve/colour_slabs.hpp"
#include "lib/solve/colour_steady.hpp"
#include "pipeline/decomposition.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/colour_gpu.hpp"
#endif

namespace rockperm::pipeline {

namespace {

namespace colour = physics::colour;

// The model's interfacial tension in lattice units: spurious currents mu u / sigma about 7e-4 of it
// (tests/validation/test_colour_flow.cpp), the drive set from the capillary number asked.
constexpr float lattice_tension = 0.01f;
constexpr std::int64_t check_interval = 100;
constexpr std::uint64_t random_seed = 69;  // the random start's draw (the same for every point and run)

}  // namespace

std::string colour_flow_memory_refusal(std::uint64_t cells, physics::Storage storage, double device_bytes) {
  const double need = static_cast<double>(cells) * backend::ColourBackend::bytes_per_cell(storage);
  if (need <= 0.9 * device_bytes) return {};
  const double gib = 1073741824.0;
  char text[400];
  std::snprintf(text, sizeof text,
                "the flow's %llu cells need %.1f GiB of GPU memory (%.0f B each in %s), more than 90 %% of the GPU's "
                "%.1f GiB: %s",
                static_cast<unsigned long long>(cells), need / gib, backend::ColourBackend::bytes_per_cell(storage),
                physics::to_string(storage), device_bytes / gib,
                storage == physics::Storage::float32 ? "run.storage=fp16 stores its populations in half the bytes, or crop the sample"
                                                     : "crop the sample, or run on a GPU with more memory");
  return text;
}

namespace {

// Each cell's wetting from the solid labels around it: its wall links are those its lattice's
// tables leave without a neighbour (periodicity and edge contacts as the lattice has them); each
// shows cos_of[code] of the voxel it reaches (`codes`: the extended domain's wall codes), or
// cos_of[0] where it leaves through a face that is not periodic; a cell's value is its wall links'
// mean.
std::vector<float> wall_phi_per_cell(const lattice::SparseLattice& lat, const geometry::PoreMask& codes,
                                     const std::vector<float>& cos_of) {
  lattice::NeighbourTables scratch;
  const auto [positive, negative] = lat.tables(scratch);
  const std::uint64_t stride = lat.stride();
  const geometry::Dims& e = codes.dims;
  std::vector<float> out(lat.fluid_count(), cos_of[0]);
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
    const lattice::Coord& k = lat.coords()[c];
    double sum = 0;
    int walls = 0;
    for (int i = 1; i < d3q19::q; ++i) {
      const std::uint32_t n = i <= d3q19::half ? positive[(i - 1) * stride + c] : negative[(i - 1 - d3q19::half) * stride + c];
      if (n != lattice::no_neighbour) continue;
      std::int64_t q[3] = {k.x + d3q19::cx(i), k.y + d3q19::cy(i), k.z + d3q19::cz(i)};
      bool beyond = false;
      for (int a = 0; a < 3; ++a) {
        if (q[a] >= 0 && q[a] < e[a]) continue;
        beyond = beyond || !lat.periodic()[a];
        q[a] = (q[a] + e[a]) % e[a];
      }
      sum += beyond ? cos_of[0] : cos_of[codes.pore[e.linear(q[0], q[1], q[2])]];
      ++walls;
    }
    if (walls > 0) out[c] = static_cast<float>(sum / walls);
  }
  return out;
}

// What the checks before a flow became NaN say of its speed: the largest speed of a cell ten checks
// before the last finite one and at it (a run that blew up from a slow growth, or at once).
std::string speed_before(const std::vector<solve::ColourCheck>& history) {
  // the last check is the one that found the values not finite
  if (history.size() < 2) return "";
  const std::size_t last = history.size() - 2, before = last >= 10 ? last - 10 : 0;
  char b[200];
  std::snprintf(b, sizeof b, " (the fastest cell's speed %.3g at step %lld, %.3g at step %lld, the last check before)",
                history[before].fastest, static_cast<long long>(history[before].step), history[last].fastest,
                static_cast<long long>(history[last].step));
  return b;
}

}  // namespace

void ColourFlowRuns::State::build(const geometry::ExtendedSample& extended) {
  const int axis = spec.flow.flow_axis;
  geometry::PoreMask pore;  // rank 0: the extended domain's pore space
  if (comm.root()) {
    pore = extended.mask;
    for (auto& c : pore.pore) c = c == geometry::phase_solid ? geometry::PoreMask::solid : geometry::PoreMask::open;
  }
  geometry::PoreMask codes;  // rank 0: the wall codes of the extended domain
  if (comm.root() && !wall_codes.empty())
    codes = geometry::extend_along_flow(geometry::PoreMask(dims, wall_codes), axis, mode, layers).mask;
  if (comm.size() == 1) {
    domain_dims = pore.dims;
    lattice.emplace(lattice::SparseLattice::build(std::move(pore), periodic, /*with_negative=*/true, false,
                                                  spec.flow.edge_contacts));
  } else {
    // Z-slabs balanced by fluid cells, as the single phase's (pipeline/decomposition.hpp),
    std::vector<std::int64_t> shape(3, 0);
    std::vector<std::uint64_t> plane_fluid;
    if (comm.root()) {
      shape = {pore.dims.nx, pore.dims.ny, pore.dims.nz};
      plane_fluid = parallel::plane_fluid_counts(pore);
    }
    std::vector<std::uint8_t> bytes = as_bytes(shape);
    comm.broadcast(bytes);
    shape = from_bytes<std::int64_t>(bytes);
    domain_dims = geometry::Dims{shape[0], shape[1], shape[2]};
    bytes = as_bytes(plane_fluid);
    comm.broadcast(bytes);
    // in the shares k's run measured (a rank on the host's cores beside GPUs takes its share)
    const std::vector<std::uint64_t> counts = from_bytes<std::uint64_t>(bytes);
    slabs = plan.shares.empty() ? parallel::partition_slabs(counts, comm.size()) : parallel::partition_slabs(counts, plan.shares);
    domain = parallel::slab_domain(slabs, comm.rank(), domain_dims.nz, periodic[2]);
    lattice.emplace(parallel::build_slab_lattice(local(pore), *domain, periodic, /*with_negative=*/true,
                                                 spec.flow.edge_contacts));
    cell_offset = static_cast<std::uint32_t>(parallel::fluid_before(slabs, comm.rank()) - lattice->owned_begin());
  }
  if (labelled) {
    std::vector<float> cos_of(1, params.wall_phi);
    for (const auto& w : spec.two_phase.wetting_labels) cos_of.push_back(static_cast<float>(std::cos(w.theta_deg * M_PI / 180.0)));
    if (!comm.root()) codes = geometry::PoreMask(domain_dims, std::vector<std::uint8_t>{});
    wall_phi = wall_phi_per_cell(*lattice, local(codes), cos_of);
  }
  if (kind == Domain::reservoirs) {  // the reservoirs' walls neutral: their interface stays flat
    if (wall_phi.empty()) wall_phi.assign(lattice->fluid_count(), params.wall_phi);
    for (std::uint32_t c = 0; c < lattice->fluid_count(); ++c) {
      const std::int64_t p = along(lattice->coords()[c], axis);
      if (p < sample_begin || p >= sample_end) wall_phi[c] = 0.0f;
    }
  }
}

std::string ColourFlowRuns::State::memory_refusal() const {
  // every rank's GPU must hold its slab; the first refusal is every rank's
  std::string refusal =
      plan.cuda ? colour_flow_memory_refusal(lattice->fluid_count(), plan.storage, plan.memory_of(plan.device)) : "";
  if (!refusal.empty() && comm.size() > 1) refusal = "rank " + std::to_string(comm.rank()) + ": " + refusal;
  const std::vector<std::string> all = comm.gather(refusal);
  std::vector<std::uint8_t> first;
  for (const std::string& r : all) {
    if (!r.empty() && first.empty()) first.assign(r.begin(), r.end());
  }
  comm.broadcast(first);
  return std::string(first.begin(), first.end());
}

ColourFlowRuns::ColourFlowRuns(const parallel::Comm& comm, const RunSpec& spec, const ExecutionPlan& plan,
                               const geometry::Dims& dims, double k_voxels, double pore_voxels,
                               std::vector<std::uint8_t> wall_codes, Domain domain)
    : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.kind = domain;
  s.comm = comm;
  s.wall_codes = std::move(wall_codes);
  s.labelled = !spec.two_phase.wetting_labels.empty();
  // rank 0's k and pore width (a run's result holds them there): the drive is every rank's
  std::vector<std::uint8_t> known = as_bytes(std::vector<double>{k_voxels, pore_voxels});
  comm.broadcast(known);
  k_voxels = from_bytes<double>(known)[0];
  pore_voxels = from_bytes<double>(known)[1];
  s.pore_voxels = pore_voxels;
  s.spec = spec;
  s.plan = plan;
  s.dims = dims;
  s.k_voxels = k_voxels;
  const int axis = spec.flow.flow_axis;
  s.mode = domain == Domain::reservoirs                                  ? geometry::InletOutlet::buffer
           : spec.flow.inlet_outlet == geometry::InletOutlet::periodic ? geometry::InletOutlet::periodic
                                                                         : geometry::InletOutlet::mirror;
  s.layers = domain == Domain::reservoirs ? reservoir_planes : 0;
  const geometry::FlowExtent extent = geometry::extended_extent(dims[spec.flow.flow_axis], s.mode, s.layers);
  s.sample_begin = extent.sample_begin;
  s.sample_end = extent.sample_end;
  s.periodic = spec.flow.lateral_periodic;
  s.periodic[axis] = true;
  // the less viscous phase at tau 1, the other at the ratio (TwoPhaseSpec::validate bounds it)
  const double m = spec.two_phase.viscosity_ratio;
  colour::ColourParams& p = s.params;
  p.sigma = lattice_tension;
  p.nu[0] = static_cast<float>(m >= 1 ? 1.0 / 6.0 : 1.0 / (6.0 * m));
  p.nu[1] = static_cast<float>(p.nu[0] * m);
  p.wall_phi = static_cast<float>(spec.two_phase.cos_wetting());  // phase A is the wetting one
  p.geometric_wetting = spec.two_phase.wall_wetting == TwoPhaseSpec::WallWetting::geometric;
  // the drive: Ca = mu_w q / sigma with q = k g / nu_w, the single-phase Darcy velocity it gives
  const double g = spec.two_phase.capillary_number * lattice_tension / std::max(k_voxels, 1e-12);
  p.g[0][axis] = p.g[1][axis] = static_cast<float>(g);
}

ColourFlowRuns::~ColourFlowRuns() = default;

double ColourFlowRuns::lattice_sigma() { return lattice_tension; }

std::vector<std::string> ColourFlowRuns::wetting_flags(const TwoPhaseSpec& spec) {
  if (spec.wall_wetting == TwoPhaseSpec::WallWetting::geometric) return {};
  std::vector<std::pair<std::string, double>> asked = {{"the walls'", spec.theta()}};
  for (const auto& w : spec.wetting_labels) asked.emplace_back("label " + std::to_string(w.label) + "'s", w.theta_deg);
  std::vector<std::string> out;
  for (const auto& [whose, theta] : asked) {
    // through the wetting phase of the pair, or of its own label's wetting
    const double wetting = theta > 90 ? 180 - theta : theta;
    if (wetting >= min_held_angle_deg) continue;
    char b[400];
    std::snprintf(b, sizeof b,
                  "%s contact angle, %.0f degrees, is below what the model's walls hold: a tube's menisci give about "
                  "21 degrees however strongly the walls wet (36 in a tube of radius 4 voxels), so the phases wet less "
                  "than asked and a throat's entry pressure is about cos 21 = 0.93 of the asked one's (less in "
                  "narrow throats); capillary.wall_wetting=geometric holds it",
                  whose.c_str(), theta);
    out.emplace_back(b);
  }
  return out;
}

ColourFlowPoint ColourFlowRuns::run(const std::vector<std::uint8_t>& phases, const std::string& label,
                                    const std::function<bool()>& stop, RunObserver* observer,
                                    std::vector<std::uint8_t>* end) {
  State& s = *s_;
  const parallel::Comm& comm = s.comm;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const int axis = s.spec.flow.flow_axis;
  ColourFlowPoint out;
  out.asked = true;
  out.viscosity_ratio = s.spec.two_phase.viscosity_ratio;
  // the extended domain's phases (rank 0; a mirror image copies the codes as they are)
  geometry::ExtendedSample extended;
  const bool random = s.spec.two_phase.flow_start == TwoPhaseSpec::FlowStart::random;
  if (random) out.start = "random";
  if (comm.root()) {
    extended = geometry::extend_along_flow(
        geometry::PoreMask(s.dims, random ? geometry::random_phases(phases, random_seed) : phases), axis, s.mode, s.layers);
  }
  if (!s.lattice) s.build(extended);
  const lattice::SparseLattice& lat = *s.lattice;
  const std::uint32_t cells = lat.fluid_count();
  const std::uint32_t owned_begin = lat.owned_begin(), owned_end = lat.owned_end();
  out.backend = s.plan.cuda ? "cuda device " + std::to_string(s.plan.device) : "cpu";
  if (comm.size() > 1) out.backend += ", Z-slabs on " + std::to_string(comm.size()) + " ranks";
  if (const std::string refused = s.memory_refusal(); !refused.empty()) {
    out.note = "not made: " + refused;
    out.seconds = seconds();
    return out;
  }
  // the sums are every rank's (ColourSlabs), so is each check's decision; a stop asked on one rank
  // stops every rank at the same check
  const std::function<bool()> stop_all = [&] { return comm.max(stop && stop() ? 1.0 : 0.0) > 0; };
  const double voxels = static_cast<double>(s.domain_dims.voxels());
  const auto progress_for = [&](const std::string& what, double reference) {
    return [&, what, reference](const solve::ColourCheck& c, const solve::ColourEstimate& est) {
      if (!observer || !comm.root()) return;
      ColourFlowProgress p;
      p.label = what;
      p.step = c.step;
      p.saturation = c.saturation_a;
      const double ref = reference > 0 ? reference : c.flux[0];
      const double ratio = s.params.nu[1] / s.params.nu[0];
      p.known = est.known && ref > 0;
      p.kr_w = ref > 0 ? (est.known ? est.flux[0] : c.flux[0]) / ref : 0;
      p.kr_n = ref > 0 ? (est.known ? est.flux[1] : c.flux[1]) * ratio / ref : 0;
      p.error_w = p.known ? est.error[0] / ref : 0;
      p.error_n = p.known ? est.error[1] * ratio / ref : 0;
      observer->colour_flow_progress(p);
    };
  };
  solve::ColourSteadyControls controls;
  controls.flow_axis = axis;
  controls.check_interval = check_interval;
  controls.max_steps = s.spec.execution.max_steps;
  // the single phase's Darcy flux the drive was set for, summed over the domain (flux units)
  const double expected = s.k_voxels * s.params.g[0][axis] / s.params.nu[0] * voxels;
  if (s.reference_flux <= 0 && s.reference_note.empty()) {
    // the reference: phase A alone on the same lattice and drive, to a tenth of the tolerance
    // (its walls show phase A too: a wall that showed another phase field would put an interface's
    // force on a flow that has none)
    const std::vector<float> alone(cells, 1.0f);
    colour::ColourParams single = s.params;
    single.wall_phi = 1.0f;
    const auto model = s.model(alone, single);
    solve::ColourSteadyControls c = controls;
    c.tolerance = s.spec.two_phase.flow_tolerance / 10;
    c.reference_flux = expected;
    const solve::ColourSteadyResult r = solve::run_colour_steady(*model, c, progress_for("single phase", 0), stop_all);
    if (r.converged && r.estimate.flux[0] > 0) {
      s.reference_flux = r.estimate.flux[0];
      s.reference_error = r.estimate.error[0];
    } else {
      s.reference_note = r.stopped ? "stopped" : r.not_finite ? "its flux became NaN" :
                         "the single phase's flow did not converge in " + std::to_string(r.steps) + " steps";
    }
  }
  if (s.reference_flux <= 0) {
    out.note = "not made: the single-phase reference " + s.reference_note;
    out.seconds = seconds();
    return out;
  }
  // the point's phases on this rank's lattice: wetting +1 (phase A), non-wetting -1
  const geometry::PoreMask here = s.local(extended.mask);
  std::vector<float> phi(cells, 1.0f);
  double wetting = 0;
  for (std::uint32_t c = owned_begin; c < owned_end; ++c) {
    const lattice::Coord& k = lat.coords()[c];
    phi[c] = here.pore[here.dims.linear(k.x, k.y, k.z)] == geometry::phase_wetting ? 1.0f : -1.0f;
    wetting += phi[c] > 0;
  }
  const double all_cells = static_cast<double>(comm.sum(std::uint64_t{owned_end - owned_begin}));
  out.saturation_start = comm.sum(wetting) / all_cells;
  const auto model = s.model(phi, s.params);
  model->set_wall_phi(s.wall_phi);
  controls.tolerance = s.spec.two_phase.flow_tolerance;
  controls.plane_tolerance = 10 * s.spec.two_phase.flow_tolerance;
  controls.reference_flux = s.reference_flux;
  const solve::ColourSteadyResult r = solve::run_colour_steady(*model, controls, progress_for(label, s.reference_flux), stop_all);
  out.steps = r.steps;
  out.converged = r.converged;
  const double ratio = static_cast<double>(s.params.nu[1]) / s.params.nu[0];
  for (const solve::ColourCheck& c : r.history) out.fastest = std::max(out.fastest, c.fastest);
  if (r.not_finite) {
    out.note = "the flow's fluxes became NaN or infinite after " + std::to_string(r.steps) + " steps" +
               speed_before(r.history);
  } else if (!r.estimate.known) {
    out.note = r.stopped ? "stopped before its flux history could state an error" : "too few checks to state an error";
  } else {
    out.solved = true;
    const double ref_rel = s.reference_error / s.reference_flux;
    out.kr_w = r.estimate.flux[0] / s.reference_flux;
    out.kr_n = r.estimate.flux[1] * ratio / s.reference_flux;
    out.kr_w_error = r.estimate.error[0] / s.reference_flux + std::abs(out.kr_w) * ref_rel;
    out.kr_n_error = r.estimate.error[1] * ratio / s.reference_flux + std::abs(out.kr_n) * ref_rel;
    if (r.stopped) out.note = "stopped after " + std::to_string(r.steps) + " steps; k_r as it stood, with its stated error";
    else if (!r.converged)
      out.note = "did not converge in " + std::to_string(r.steps) + " steps; k_r as it stood, with its stated error";
  }
  // the end state: saturation, Ca, each phase spanning the sample's faces; the planes' fluxes
  // averaged over the last block of checks. Each rank's owned planes of the extended domain
  // (codes: 0 solid, wetting, non-wetting), gathered on rank 0 in plane order.
  const backend::ColourBackend::Fields f = model->fields();
  double fraction = 0, total = 0;
  const std::uint64_t plane = static_cast<std::uint64_t>(s.domain_dims.nx) * s.domain_dims.ny;
  const std::int64_t first_plane = s.slabs_run() ? (s.domain->ghost_low ? 1 : 0) : 0;
  const std::int64_t owned_planes = s.slabs_run() ? s.domain->slab.z_end - s.domain->slab.z_begin : s.domain_dims.nz;
  std::vector<std::uint8_t> mine(plane * owned_planes, geometry::phase_solid);
  for (std::uint32_t c = owned_begin; c < owned_end; ++c) {
    fraction += colour::fraction_a(f.phi[c]);
    total += f.u[3 * std::size_t{c} + axis];
    const lattice::Coord& k = lat.coords()[c];
    mine[plane * (k.z - first_plane) + static_cast<std::uint64_t>(k.y) * s.domain_dims.nx + k.x] =
        f.phi[c] > 0 ? geometry::phase_wetting : geometry::phase_nonwetting;
  }
  // the last check's fraction (a fixed-point sum over the cells, the same on any number of ranks),
  // of this state: no step since
  out.saturation = r.history.empty() ? comm.sum(fraction) / all_cells : r.history.back().saturation_a;
  out.capillary_number = s.params.nu[0] * (comm.sum(total) / voxels) / lattice_tension;
  out.flux_spread_w = r.plane_spread[0];
  out.flux_spread_n = r.plane_spread[1];
  const std::vector<std::uint8_t> whole = comm.gather_bytes(mine);
  if (!comm.root()) {
    out.seconds = seconds();
    return out;  // rank 0's point is the run's
  }
  // the sample's own voxels (a mirror image follows them)
  std::vector<std::uint8_t> w_codes(s.dims.voxels(), 0), n_codes(s.dims.voxels(), 0);
  if (end) end->assign(s.dims.voxels(), geometry::phase_solid);
  for (std::int64_t z = 0; z < s.dims.nz; ++z)
    for (std::int64_t y = 0; y < s.dims.ny; ++y)
      for (std::int64_t x = 0; x < s.dims.nx; ++x) {
        const std::uint8_t code = whole[s.domain_dims.linear(x, y, z)];
        const std::uint64_t v = s.dims.linear(x, y, z);
        w_codes[v] = code == geometry::phase_wetting ? geometry::PoreMask::open : geometry::PoreMask::solid;
        n_codes[v] = code == geometry::phase_nonwetting ? geometry::PoreMask::open : geometry::PoreMask::solid;
        if (end) (*end)[v] = code;
      }
  const auto spans = [&](std::vector<std::uint8_t>& codes) {
    geometry::PoreMask mask(s.dims, codes);
    try {
      geometry::keep_percolating_pores(mask, axis, s.spec.flow.lateral_periodic, s.spec.flow.edge_contacts);
      return true;
    } catch (const PhysicsError&) {
      return false;
    }
  };
  out.wetting_spans = spans(w_codes);
  out.nonwetting_spans = spans(n_codes);
  // the trust checks
  if (s.pore_voxels < min_pore_voxels) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3g", s.pore_voxels);
    out.flags.push_back(std::string("the pores are ") + b + " voxels across (4 phi / S), the interfaces about 4: "
                        "the phases flow as a mixture where they meet; k_r by flow needs pores of 10 voxels or more "
                        "(a finer scan)");
  }
  for (std::string& flag : wetting_flags(s.spec.two_phase)) out.flags.push_back(std::move(flag));
  if (out.solved) {
    if (out.kr_w < -out.kr_w_error) out.flags.push_back("k_rw is negative beyond its stated error");
    if (out.kr_n < -out.kr_n_error) out.flags.push_back("k_rn is negative beyond its stated error");
  }
  if (const double bound = (1.0 - s.params.beta) / 4; out.fastest > bound) {
    char b[200];
    std::snprintf(b, sizeof b,
                  "a cell moved at %.3g (lattice units), beyond the %.3g where the recolouring's populations turn "
                  "negative: the flow was unstable there, and its k_r are not to be trusted",
                  out.fastest, bound);
    out.flags.push_back(b);
  }
  if (std::abs(out.saturation - out.saturation_start) > 0.02) {
    out.flags.push_back("the saturation drifted from " + std::to_string(out.saturation_start).substr(0, 5) + " to " +
                        std::to_string(out.saturation).substr(0, 5));
  }
  for (const auto& [spread_of, kr, name] : {std::tuple{out.flux_spread_w, out.kr_w, "wetting"},
                                            std::tuple{out.flux_spread_n, out.kr_n, "non-wetting"}}) {
    if (kr > 0.01 && spread_of > 10 * s.spec.two_phase.flow_tolerance) {
      out.flags.push_back(std::string("the ") + name + " phase's flux differs by " +
                          std::to_string(static_cast<int>(std::lround(100 * spread_of))) +
                          " % between planes over the last checks (its phase distribution is not steady)");
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace rockperm::pipeline
