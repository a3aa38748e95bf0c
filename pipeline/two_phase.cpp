#include "pipeline/two_phase.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "io/volume_source.hpp"
#include "lib/geometry/morphology.hpp"
#include "lib/geometry/percolation.hpp"
#include "lib/solve/colour_displacement.hpp"
#include "pipeline/colour_flow.hpp"
#include "pipeline/companion.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/forchheimer.hpp"
#include "pipeline/relperm_store.hpp"
#include "pipeline/sample.hpp"

namespace rockperm::pipeline {

namespace {

constexpr double pi = 3.14159265358979323846;

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}
std::string pressure_text(double pa) {
  std::ostringstream o;
  o << std::setprecision(4) << (pa >= 1e6 ? pa / 1e6 : pa >= 1e3 ? pa / 1e3 : pa)
    << (pa >= 1e6 ? " MPa" : pa >= 1e3 ? " kPa" : " Pa");
  return o.str();
}

// The curve's points nearest the targets, each once, in the curve's order.
std::vector<std::size_t> nearest_points(const std::vector<CapillaryPoint>& curve, const std::vector<double>& targets) {
  std::vector<std::size_t> chosen;
  for (const double t : targets) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < curve.size(); ++i) {
      if (std::abs(curve[i].saturation - t) < std::abs(curve[best].saturation - t)) best = i;
    }
    if (std::find(chosen.begin(), chosen.end(), best) == chosen.end()) chosen.push_back(best);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

struct TwoPhase::State {
  TwoPhaseReport report;
  geometry::Dims dims;
  std::vector<std::uint8_t> pore;  // the connected pore space (rank 0)
  geometry::Displacement drainage, imbibition;
  bool imbibed = false;
  double voxel_um = 0;
  struct Point {
    bool imbibition = false;
    std::size_t index = 0;
    double target = -1;
  };
  std::vector<Point> points;  // rank 0
  std::size_t point_count = 0;  // every rank
  // the flow's wetting by label (rank 0, empty without): per voxel 0, or 1 + the index in
  // spec.two_phase.wetting_labels of a solid voxel's label
  std::vector<std::uint8_t> wall_codes;
};

namespace {

// Each wetting label's solid voxels (spec.two_phase.wetting_labels), read from the scan's file
// through the label as if it were the pore label: 1 + the label's index where a voxel of `pore`
// (0 solid) carries it. Throws InputError naming a label that marks no solid voxel.
std::vector<std::uint8_t> wetting_codes(const RunRequest& request, const geometry::Dims& dims,
                                        const std::vector<std::uint8_t>& pore, TwoPhaseReport& report) {
  const auto& labels = request.spec.two_phase.wetting_labels;
  if (request.volume) {
    throw InputError("two_phase.wetting_labels", "wetting by label reads the scan's labels from its file, and this "
                                                 "run's sample is a mask in memory: run it from the labelled file");
  }
  std::vector<std::uint8_t> codes(dims.voxels(), 0);
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const std::string label = std::to_string(labels[k].label);
    if (request.spec.sample.pore_labels.contains(static_cast<int>(labels[k].label))) {
      throw InputError("two_phase.wetting_labels", "label " + label + " is a pore label (input.pore_labels): its "
                                                   "voxels are fluid, and only walls wet");
    }
    io::LoadedMask marked;
    try {
      marked = io::load_pore_mask(request.spec.sample.volume, geometry::LabelSelection::parse(label));
    } catch (const InputError&) {
      throw InputError("two_phase.wetting_labels", "label " + label + " marks no voxel of the sample: give labels "
                                                   "of its solid phases");
    }
    if (marked.mask.dims.voxels() != dims.voxels()) throw Error("internal: the labels' volume is not the sample's");
    std::uint64_t solid = 0;
    for (std::size_t v = 0; v < codes.size(); ++v) {
      if (marked.mask.pore[v] && !pore[v]) {
        codes[v] = static_cast<std::uint8_t>(k + 1);
        ++solid;
      }
    }
    if (solid == 0) {
      throw InputError("two_phase.wetting_labels", "label " + label + " marks no solid voxel of the sample");
    }
    report.wetting_labels.push_back({labels[k].label, labels[k].theta_deg, solid});
  }
  return codes;
}

}  // namespace

TwoPhase::TwoPhase(const parallel::Comm& comm, const RunRequest& request) : s_(std::make_unique<State>()) {
  const auto start = std::chrono::steady_clock::now();
  const RunSpec& spec = request.spec;
  const TwoPhaseSpec& tp = spec.two_phase;
  State& s = *s_;
  TwoPhaseReport& r = s.report;
  r.asked = true;
  r.fluids = name_in(two_phase_fluid_names, tp.fluids);
  r.sigma_n_per_m = tp.sigma();
  r.theta_deg = tp.theta();
  r.wall_wetting = name_in(two_phase_wall_wetting_names, tp.wall_wetting);
  r.theta_wetting_deg = std::acos(tp.cos_wetting()) * 180.0 / pi;
  r.entry = geometry::to_string(tp.entry_faces());
  r.trapping = tp.trap_wetting();
  with_volume(comm, request, [&](const ReadVolume& volume) {
    geometry::PoreMask mask = volume.loaded.mask;
    s.voxel_um = volume.loaded.voxel_size_um;
    if (spec.sample.percolation_filter) {
      geometry::keep_percolating_pores(mask, spec.flow.flow_axis, spec.flow.periodicity(), spec.flow.edge_contacts);
    }
    s.dims = mask.dims;
    s.pore.assign(mask.pore.begin(), mask.pore.end());
    for (auto& p : s.pore) p = p ? 1 : 0;
    if (!tp.wetting_labels.empty()) s.wall_codes = wetting_codes(request, s.dims, s.pore, r);
    const std::vector<float> edt2 = geometry::squared_pore_distance(s.dims, s.pore);
    geometry::MorphologySpec m;
    m.flow_axis = spec.flow.flow_axis;
    m.entry = tp.entry_faces();
    m.trap_wetting = tp.trap_wetting();
    m.cos_theta = tp.cos_wetting();
    m.edges = spec.flow.edge_contacts;
    const double h = s.voxel_um * 1e-6;           // m
    const double two_sigma = 2.0 * tp.sigma();    // Pc = 2 sigma / R (R the meniscus radius, m)
    const auto pc_of = [&](double radius_voxels) { return two_sigma / (radius_voxels * h); };
    std::vector<float> inlet_reach;  // the flood from the inlet, made once for the entry radii and the drainage
    const geometry::EntryRadii entry = geometry::entry_radii(s.dims, s.pore, edt2, m, &inlet_reach);
    if (entry.entry <= 0) {
      throw InputError("two_phase.entry", std::string("no pore voxel of the connected pore space on the entry face") +
                                              (m.entry == geometry::EntryFaces::inlet ? "" : "s") + " (" +
                                              geometry::to_string(m.entry) + "): choose other entry faces");
    }
    r.entry_pressure_pa = pc_of(entry.entry);
    r.breakthrough_pressure_pa = entry.breakthrough > 0 ? pc_of(entry.breakthrough) : 0.0;
    std::vector<double> radii;
    if (tp.pressures_pa.empty()) {
      // from the entry to a one-voxel inscribed radius (the smallest the scan resolves), geometric;
      // where the non-wetting phase spans the sample only below it (tight rock: throats narrower
      // than a voxel), on to that breakthrough, down to half a voxel (every pore voxel a centre)
      double smallest = 1.0 / m.cos_theta;
      if (entry.breakthrough > 0 && entry.breakthrough < smallest) smallest = std::max(entry.breakthrough, 0.5 / m.cos_theta);
      const auto n = static_cast<std::size_t>(tp.pressure_count);
      if (entry.entry <= smallest * (1 + 1e-12)) {
        radii = {entry.entry};
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          radii.push_back(entry.entry * std::pow(smallest / entry.entry, static_cast<double>(i) / static_cast<double>(n - 1)));
        }
      }
    } else {
      for (const double pc : tp.pressures_pa) radii.push_back(two_sigma / (pc * h));
    }
    s.drainage = geometry::drain(s.dims, s.pore, edt2, m, radii, &inlet_reach);
    std::vector<float>().swap(inlet_reach);
    const auto domain = static_cast<double>(s.drainage.domain);
    r.pore_voxels = s.drainage.domain;
    for (std::size_t j = 0; j < radii.size(); ++j) {
      r.drainage.push_back({pc_of(radii[j]), radii[j] * m.cos_theta * s.voxel_um,
                            static_cast<double>(s.drainage.defending[j]) / domain, 0.0,
                            radii[j] * m.cos_theta >= 1.0 - 1e-9});
    }
    r.residual_wetting = static_cast<double>(s.drainage.trapped) / domain;
    if (tp.curves == TwoPhaseSpec::Curves::both) {
      std::vector<double> back(radii.rbegin(), radii.rend());
      s.imbibition = geometry::imbibe(s.dims, s.pore, edt2, m, s.drainage, back);
      s.imbibed = true;
      for (std::size_t j = 0; j < back.size(); ++j) {
        r.imbibition.push_back({pc_of(back[j]), back[j] * m.cos_theta * s.voxel_um,
                                static_cast<double>(s.imbibition.domain - s.imbibition.defending[j]) / domain, 0.0,
                                back[j] * m.cos_theta >= 1.0 - 1e-9});
      }
      r.residual_nonwetting = static_cast<double>(s.imbibition.trapped) / domain;
    }
    // the k_r points
    const auto range = [](const std::vector<CapillaryPoint>& c) {
      double lo = 1, hi = 0;
      for (const CapillaryPoint& p : c) {
        lo = std::min(lo, p.saturation);
        hi = std::max(hi, p.saturation);
      }
      return std::pair{lo, hi};
    };
    const auto add = [&](bool imbibition, const std::vector<CapillaryPoint>& curve) {
      const auto [lo, hi] = range(curve);
      if (!tp.relperm_saturations.empty()) {
        std::vector<double> reached;
        for (const double t : tp.relperm_saturations) {
          if (t >= lo - 1e-12 && t <= hi + 1e-12) reached.push_back(t);
        }
        for (const std::size_t i : nearest_points(curve, reached)) {
          double target = reached.front();
          for (const double t : reached) {
            if (std::abs(curve[i].saturation - t) < std::abs(curve[i].saturation - target)) target = t;
          }
          s.points.push_back({imbibition, i, target});
        }
        return;
      }
      // spread over the points where both phases are present
      double a = 1, b = 0;
      for (const CapillaryPoint& p : curve) {
        if (p.saturation <= 0 || p.saturation >= 1) continue;
        a = std::min(a, p.saturation);
        b = std::max(b, p.saturation);
      }
      if (a > b || tp.relperm_points == 0) return;
      std::vector<double> targets;
      const int n = tp.relperm_points;
      for (int i = 0; i < n; ++i) targets.push_back(n == 1 ? (a + b) / 2 : a + (b - a) * i / (n - 1));
      std::vector<CapillaryPoint> both;  // only the two-phase points are candidates
      std::vector<std::size_t> index;
      for (std::size_t i = 0; i < curve.size(); ++i) {
        if (curve[i].saturation > 0 && curve[i].saturation < 1) {
          both.push_back(curve[i]);
          index.push_back(i);
        }
      }
      for (const std::size_t i : nearest_points(both, targets)) {
        // the imbibition starts in the drainage's last state: its k_r there is the drainage's
        if (imbibition && curve[index[i]].saturation == r.drainage.back().saturation) continue;
        s.points.push_back({imbibition, index[i], -1});
      }
    };
    add(false, r.drainage);
    if (s.imbibed) add(true, r.imbibition);
    // a saturation no curve reaches: said with the nearest reached
    for (const double t : tp.relperm_saturations) {
      bool reached = false;
      for (const auto* c : {&r.drainage, &r.imbibition}) {
        if (c->empty()) continue;
        const auto [lo, hi] = range(*c);  // NOLINT
        reached = reached || (t >= lo - 1e-12 && t <= hi + 1e-12);
      }
      if (reached) continue;
      const CapillaryPoint* near = &r.drainage.front();
      for (const auto* c : {&r.drainage, &r.imbibition}) {
        for (const CapillaryPoint& p : *c) {
          if (std::abs(p.saturation - t) < std::abs(near->saturation - t)) near = &p;
        }
      }
      throw InputError("two_phase.relperm",
                       "relative permeability asked at S_w = " + fixed(t, 3) + ", which the " +
                           (s.imbibed ? "curves never reach" : "drainage curve never reaches") +
                           " at these pressures; the nearest reached is S_w = " + fixed(near->saturation, 3) + " at " +
                           pressure_text(near->pc_pa) +
                           (t < near->saturation ? " (raise the highest pressure, or ask a higher S_w: the trapped "
                                                   "wetting phase sets the lowest)"
                                                 : " (ask a lower S_w, or add pressures near the entry)"));
    }
    s.point_count = s.points.size();
  });
  s.point_count = static_cast<std::size_t>(comm.max(static_cast<double>(s.point_count)));
  r.morphology_seconds = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  r.done = true;
}

TwoPhase::~TwoPhase() = default;

const TwoPhaseReport& TwoPhase::report() const { return s_->report; }
geometry::Dims TwoPhase::dims() const { return s_->dims; }

std::vector<std::uint8_t> TwoPhase::phases(const std::string& curve, std::size_t point) const {
  const State& s = *s_;
  if (curve == "drainage" && point < s.drainage.radii.size()) return geometry::drained_phases(s.pore, s.drainage, point);
  if (curve == "imbibition" && s.imbibed && point < s.imbibition.radii.size()) {
    return geometry::imbibed_phases(s.pore, s.drainage, s.imbibition, point);
  }
  throw InputError("two_phase.curves", "no point " + std::to_string(point) + " on a " + curve + " curve of this run");
}

void TwoPhase::finish(const parallel::Comm& comm, const RunRequest& request, SampleResult& result) {
  State& s = *s_;
  TwoPhaseReport& r = s.report;
  const auto start = std::chrono::steady_clock::now();
  r.k_md = result.converged() ? result.k.k_md : 0.0;
  // Leverett's J where k is known: Pc sqrt(k / phi) / (sigma cos theta_w)
  const double phi = result.connected_porosity();
  if (result.converged() && phi > 0) {
    const double scale = std::sqrt(result.k.k_m2 / phi) / (r.sigma_n_per_m * std::cos(r.theta_wetting_deg * pi / 180.0));
    for (auto* c : {&r.drainage, &r.imbibition}) {
      for (CapillaryPoint& p : *c) p.leverett_j = p.pc_pa * scale;
    }
  }
  if (s.point_count > 0 && !result.converged()) {
    r.note = "relative permeabilities not made: the single-phase run did not converge (k_r is relative to its k)";
  }
  if (s.point_count > 0 && result.converged()) {
    RunRequest phase_request = request;  // each phase's flow to the relative permeabilities' tolerance
    phase_request.spec.execution.monitor.tolerance = request.spec.two_phase.relperm_tolerance;
    phase_request.spec.sample.percolation_filter = true;  // a phase's pockets off the faces carry no flow
    const double k_error = std::isfinite(result.error_estimate) ? result.error_estimate : 0.0;
    // a phase's solve stops at ten times k's steps (at least 20000, at most the run's limit): a phase
    // near its percolation threshold relaxes far more slowly than the sample, and its k_r is then
    // stated with the error it has
    const std::int64_t phase_steps =
        std::min(request.spec.execution.max_steps, std::max<std::int64_t>(20000, 10 * result.steps));
    // two-phase flow at the same points (every rank, on its GPU where the plan has one: Z-slabs)
    std::unique_ptr<ColourFlowRuns> flows;
    if (request.spec.two_phase.flow != TwoPhaseSpec::Flow::off) {
      const ExecutionPlan plan = plan_execution(comm, request.spec.execution);
      const double voxel_m = s.voxel_um * 1e-6;
      flows = std::make_unique<ColourFlowRuns>(comm, request.spec, plan, s.dims, result.k.k_m2 / (voxel_m * voxel_m),
                                               pore_diameter_voxels(result.pores), s.wall_codes);
    }
    // the points a stopped run made before its stop (rank 0; a resume's): kept, not made again
    const std::filesystem::path store = request.spec.output.dir / relperm_store_name;
    const std::vector<RelPermPoint> kept =
        comm.root() && request.use == DirectoryUse::resume ? load_relperm_points(store) : std::vector<RelPermPoint>{};
    for (std::size_t i = 0; i < s.point_count; ++i) {
      RelPermPoint point;
      const State::Point* p = comm.root() ? &s.points[i] : nullptr;
      if (p) {
        const auto& curve = p->imbibition ? r.imbibition : r.drainage;
        point.curve = p->imbibition ? "imbibition" : "drainage";
        point.point = p->index;
        point.pc_pa = curve[p->index].pc_pa;
        point.saturation = curve[p->index].saturation;
        point.target = p->target;
      }
      const bool have = p && i < kept.size() && kept[i].curve == point.curve && kept[i].point == point.point &&
                        kept[i].saturation == point.saturation;
      if (comm.max(have ? 1.0 : 0.0) > 0) {  // alike on every rank: no flow to make
        if (comm.root()) {
          r.relperm.push_back(kept[i]);
          if (request.observer) request.observer->relperm_point(r.relperm.back(), i + 1, s.point_count);
        }
        continue;
      }
      // rank 0: the point's phases, once for both phases' masks and the field
      const std::vector<std::uint8_t> state = p ? phases(point.curve, point.point) : std::vector<std::uint8_t>{};
      for (const std::uint8_t phase : {geometry::phase_wetting, geometry::phase_nonwetting}) {
        PhaseFlow& flow = phase == geometry::phase_wetting ? point.wetting : point.nonwetting;
        geometry::PoreMask mask;  // rank 0: the phase's cells pore, the rest solid
        std::uint64_t cells = 0;
        if (p) {
          std::vector<std::uint8_t> codes(state.size());
          for (std::size_t v = 0; v < state.size(); ++v) {
            codes[v] = state[v] == phase ? geometry::PoreMask::open : geometry::PoreMask::solid;
            cells += codes[v];
          }
          mask = geometry::PoreMask(s.dims, codes);
        }
        if (comm.max(static_cast<double>(cells)) == 0) {
          flow.spans = false;
          flow.solved = true;
          flow.note = "the phase holds no pore voxel";
          continue;
        }
        const std::string name = result.input.name + " (" + (phase == geometry::phase_wetting ? "wetting" : "non-wetting") +
                                 " phase, " + point.curve + " S_w " + fixed(point.saturation, 3) + ")";
        const CompanionRun c =
            run_companion(comm, phase_request,
                          companion_sample(comm, phase_request, request.spec.flow, std::nullopt, SampleView{}, mask,
                                           s.voxel_um, name),
                          request.spec.flow, phase_steps);
        flow.steps = c.result.steps;
        flow.seconds = c.seconds;
        const bool stated = c.ending == CompanionRun::Ending::not_converged && std::isfinite(c.result.error_estimate) &&
                            c.result.k.k_md > 0;
        if (c.done() || stated) {
          // converged; or stopped at its step limit with k and a stated error (a phase whose pores barely
          // join the faces relaxes slowly): reported with that error, said so
          flow.solved = true;
          flow.converged = c.done();
          flow.k_md = c.result.k.k_md;
          flow.kr = result.k.k_md > 0 ? c.result.k.k_md / result.k.k_md : 0.0;
          const double e = std::isfinite(c.result.error_estimate) ? c.result.error_estimate : 0.0;
          flow.kr_error = flow.kr * (e + k_error);
          if (!c.done()) {
            flow.note = "did not converge in " + std::to_string(c.result.steps) +
                        " steps (its pores barely join the faces); k_r as it stood, with its stated error";
          }
        } else if (c.no_path) {
          flow.solved = true;
          flow.spans = false;
          flow.note = "the phase does not join the inlet and outlet faces: k_r = 0";
        } else {
          flow.note = "not made: " + c.note;
        }
      }
      if (request.spec.two_phase.flow != TwoPhaseSpec::Flow::off) {  // every rank steps; rank 0's point is the run's
        const std::string label = point.curve + " S_w " + fixed(point.saturation, 3);
        std::vector<std::uint8_t> end;
        parallel::collectively(comm, [&] {  // a failure that every rank meets alike ends the run on all
          ColourFlowPoint flow = flows->run(state, label, request.stop_requested, request.observer, &end);
          if (comm.root()) point.flow = std::move(flow);
        });
        parallel::collectively(comm, [&] {  // a failure on rank 0 is every rank's
          if (!comm.root()) return;
          if (request.spec.output.fields.enabled && fields_supported()) {
            point.flow.field = "flow_phases_" + point.curve + "_" + std::to_string(point.point) + ".vti";
            write_phase_field(request.spec.output.dir / point.flow.field, s.dims, end, s.voxel_um);
          }
        });
      }
      if (request.spec.output.fields.enabled && fields_supported()) {  // a failure on rank 0 is every rank's
        parallel::collectively(comm, [&] {
          if (!comm.root()) return;
          point.field = "phases_" + point.curve + "_" + std::to_string(point.point) + ".vti";
          write_phase_field(request.spec.output.dir / point.field, s.dims, state, s.voxel_um);
        });
      }
      if (comm.root()) {
        r.relperm.push_back(point);
        if (request.observer) request.observer->relperm_point(r.relperm.back(), i + 1, s.point_count);
      }
      // a stop asked by now may have cut this point's flows short: it is made again on resume, not kept
      const bool stop = request.stop_requested && request.stop_requested();
      const bool stopping = comm.max(stop ? 1.0 : 0.0) > 0;  // alike on every rank
      parallel::collectively(comm, [&] {  // a failure on rank 0 is every rank's
        if (comm.root() && !stopping) save_relperm_points(store, r.relperm);
      });
      if (stopping) {
        r.stopped = true;
        r.note = "relative permeabilities stopped after " + std::to_string(i + 1) + " of " + std::to_string(s.point_count) +
                 " points";
        break;
      }
    }
  }
  r.relperm_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (request.spec.two_phase.displacement && !r.stopped) displace(comm, request, result);
  if (!r.stopped && comm.root()) {  // every point made: the run's report holds them
    std::error_code ec;
    std::filesystem::remove(request.spec.output.dir / relperm_store_name, ec);
  }
  result.two_phase = r;
}

void TwoPhase::displace(const parallel::Comm& comm, const RunRequest& request, const SampleResult& result) {
  State& s = *s_;
  TwoPhaseReport& r = s.report;
  DisplacementReport& d = r.displacement;
  const auto start = std::chrono::steady_clock::now();
  d.asked = true;
  d.reservoir_planes = ColourFlowRuns::reservoir_planes;
  const solve::DisplacementControls controls;
  d.settle = controls.settle;
  d.window = controls.window;
  // each curve's pressures, rank 0's, on every rank (each pressure is a collective hold)
  const auto pressures = [&](const std::vector<CapillaryPoint>& curve) {
    std::vector<double> pa;
    for (const CapillaryPoint& p : curve) pa.push_back(p.pc_pa);
    std::vector<std::uint8_t> bytes(pa.size() * sizeof(double));
    if (!pa.empty()) std::memcpy(bytes.data(), pa.data(), bytes.size());
    comm.broadcast(bytes);
    pa.resize(bytes.size() / sizeof(double));
    if (!pa.empty()) std::memcpy(pa.data(), bytes.data(), bytes.size());
    return pa;
  };
  const double voxel_m = s.voxel_um * 1e-6;
  const ExecutionPlan plan = plan_execution(comm, request.spec.execution);
  parallel::collectively(comm, [&] {  // a failure that every rank meets alike ends the run on all
    ColourFlowRuns runs(comm, request.spec, plan, s.dims, result.k.k_m2 / (voxel_m * voxel_m), pore_diameter_voxels(result.pores),
                        s.wall_codes, ColourFlowRuns::Domain::reservoirs);
    // Pa per lattice unit of pressure: a meniscus's jump is sigma times its curvature, in either units
    const double pa_per_lattice = request.spec.two_phase.sigma() / (ColourFlowRuns::lattice_sigma() * voxel_m);
    const std::vector<std::uint8_t> pores = comm.root() ? phases("drainage", 0) : std::vector<std::uint8_t>{};
    const auto hold = [&](const char* name, const std::vector<CapillaryPoint>& curve, std::vector<DisplacementPoint>& into) {
      std::vector<double> quasi_static;
      for (const CapillaryPoint& p : curve) quasi_static.push_back(p.saturation);
      into = runs.displace(pores, name, pressures(curve), quasi_static, pa_per_lattice, request.stop_requested,
                           request.observer);
      return into.empty() || !into.back().stopped;
    };
    bool going = hold("drainage", r.drainage, d.drainage);
    if (going && comm.max(r.imbibition.empty() ? 0.0 : 1.0) > 0 && runs.note().empty()) {
      going = hold("imbibition", r.imbibition, d.imbibition);
    }
    d.backend = runs.backend();
    d.note = runs.note();
    d.flags = ColourFlowRuns::wetting_flags(request.spec.two_phase);
    if (!going) {
      r.stopped = true;
      d.note = "stopped: a resume makes the displacement again from its start";
    }
    d.done = going && d.note.empty();
  });
  d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace rockperm::pipeline
