#include "pipeline/tensor.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/sha256.hpp"
#include "lib/base/system.hpp"
#include "pipeline/report_html.hpp"
#include "pipeline/report_json.hpp"
#include "pipeline/run.hpp"
#include "pipeline/run_directory.hpp"
#include "pipeline/slab_sample.hpp"

namespace rockperm::pipeline {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
constexpr const char* axis_names[3] = {"x", "y", "z"};

// How bad a status is, for the worst of three; a direction without a path is a k of 0, not a failure.
int severity(const std::optional<AxisOutcome>& a) {
  if (!a) return 3;  // never ended: interrupted
  if (a->no_path()) return 0;
  switch (a->status) {
    case RunStatus::converged: return 0;
    case RunStatus::not_converged: return 1;
    case RunStatus::interrupted: return 3;
    default: return 2;  // input_error, diverged, invalid_physics, runtime_error, output_error
  }
}

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(); }

Json to_json(const PermeabilityTensor& t, const std::string& sample_name) {
  const auto matrix = [&](const std::array<std::array<double, 3>, 3>& m) {
    Json rows = Json::array();
    for (int i = 0; i < 3; ++i) {
      Json row = Json::array();
      for (int j = 0; j < 3; ++j) row.push_back(t.known[i][j] ? Json(m[i][j]) : Json());
      rows.push_back(row);
    }
    return rows;
  };
  Json tensor;
  tensor["permeability_solved"] = t.flow;
  tensor["mD"] = matrix(t.k_md);
  tensor["lattice_voxel2"] = matrix(t.k_voxel2);
  tensor["diagonal_mD"] = t.diagonal_md();
  tensor["cross_terms_measured"] = t.cross_terms;
  if (!t.cross_terms && t.flow) {
    tensor["cross_terms_note"] =
        "sealed lateral faces or buffers stop any net flow across the drive; run with lbm.inlet_outlet = periodic "
        "and lbm.lateral = periodic for the off-diagonal terms";
  }
  if (t.symmetry_error) tensor["symmetry_error"] = *t.symmetry_error;
  if (t.principal_md) tensor["principal_mD"] = *t.principal_md;
  tensor["anisotropy"] = {{"max_over_min_diagonal", optional_number(t.max_over_min_diagonal)},
                          {"kz_over_mean_kx_ky", optional_number(t.kz_over_mean_kx_ky)}};
  Json j;
  j["sample"] = sample_name;
  j["status"] = to_string(t.status);
  j["message"] = t.message;
  j["tensor"] = tensor;
  // run.formation_factor: F along each axis (its own run's conduction), null where not made
  bool any_f = false;
  Json f = Json::array(), f_error = Json::array();
  for (const auto& a : t.axes) {
    any_f = any_f || (a && a->formation_factor);
    f.push_back(a && a->formation_factor ? Json(*a->formation_factor) : Json());
    f_error.push_back(a && a->formation_factor_error ? Json(*a->formation_factor_error) : Json());
  }
  if (any_f) j["formation_factor"] = {{"diagonal", f}, {"error", f_error}};
  // forchheimer.sweep: each axis's beta and onsets (its own report.json has the points)
  bool any_sweep = false;
  Json beta = Json::array(), re1 = Json::array(), re10 = Json::array();
  for (const auto& a : t.axes) {
    any_sweep = any_sweep || (a && a->forchheimer);
    beta.push_back(a ? optional_number(a->beta_per_m) : Json());
    re1.push_back(a ? optional_number(a->reynolds_1pct) : Json());
    re10.push_back(a ? optional_number(a->reynolds_10pct) : Json());
  }
  if (any_sweep) j["forchheimer"] = {{"beta_per_m", beta}, {"reynolds_1pct", re1}, {"reynolds_10pct", re10}};
  for (const auto& a : t.axes) {  // the sample's own figures, from the first axis that has them
    if (!a) continue;
    if (!j.contains("porosity") && a->porosity) j["porosity"] = *a->porosity;
    if (!j.contains("connected_porosity") && a->connected_porosity) j["connected_porosity"] = *a->connected_porosity;
    if (!j.contains("input")) j["input"] = input_json(a->input);
  }
  Json axes;
  for (int a = 0; a < 3; ++a) {
    const auto& r = t.axes[a];
    axes[axis_names[a]] = {{"status", r ? to_string(r->status) : "missing"},
                           {"k_mD", t.k_md[a][a]},
                           {"steps", r ? r->steps : 0},
                           {"report", std::string(axis_names[a]) + "/report.json"}};
  }
  j["axes"] = axes;
  return j;
}

// The tensor's page: the matrix, how far it is symmetric, principal values, anisotropy and a
// link to each axis's own report.
std::string tensor_html(const Json& j) {
  const Json& tensor = j["tensor"];
  const auto number = [](const Json& v, int digits = 7) { return v.is_number() ? html_number(v.get<double>(), digits) : "&#8212;"; };
  std::ostringstream o;
  o << "<h1>Permeability tensor: " << html_escape(j["sample"].get<std::string>()) << "</h1>\n"
    << "<p class=\"verdict " << (j["status"] == "converged" ? "converged" : "failed") << "\" id=\"verdict\">"
    << html_escape(j["message"].get<std::string>()) << " (" << html_escape(j["status"].get<std::string>()) << ")</p>\n"
    << "<h2>k (mD)</h2>\n<p>Row i, column j: k<sub>ij</sub> = &#957; q<sub>i</sub> / g<sub>j</sub>, the mean flow along i "
       "of the run driven along j.</p>\n<table id=\"tensor\"><tr><th></th><th>x</th><th>y</th><th>z</th></tr>\n";
  for (int i = 0; i < 3; ++i) {
    o << "<tr><th>" << axis_names[i] << "</th>";
    for (int c = 0; c < 3; ++c) {
      o << "<td id=\"k-" << axis_names[i] << axis_names[c] << "\">" << number(tensor["mD"][i][c]) << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n<table>\n";
  if (tensor.contains("cross_terms_note")) {
    o << "<tr><th>off-diagonal terms</th><td>" << html_escape(tensor["cross_terms_note"].get<std::string>())
      << "</td></tr>\n";
  }
  if (tensor.contains("symmetry_error")) {
    o << "<tr><th>symmetry error |k<sub>ij</sub> &#8722; k<sub>ji</sub>| / &#8730;(k<sub>ii</sub> k<sub>jj</sub>)</th>"
         "<td id=\"symmetry-error\">" << number(tensor["symmetry_error"], 3) << "</td></tr>\n";
  }
  if (tensor.contains("principal_mD")) {
    const Json& p = tensor["principal_mD"];
    o << "<tr><th>principal values (mD)</th><td id=\"principal\">" << number(p[0]) << ", " << number(p[1]) << ", "
      << number(p[2]) << "</td></tr>\n";
  }
  o << "<tr><th>anisotropy max/min of the diagonal</th><td id=\"anisotropy\">"
    << number(tensor["anisotropy"]["max_over_min_diagonal"], 4) << "</td></tr>\n"
    << "<tr><th>k<sub>z</sub> / mean(k<sub>x</sub>, k<sub>y</sub>)</th><td>"
    << number(tensor["anisotropy"]["kz_over_mean_kx_ky"], 4) << "</td></tr>\n";
  if (j.contains("formation_factor")) {
    const Json& f = j["formation_factor"]["diagonal"];
    o << "<tr><th>formation factor F along x, y, z</th><td id=\"formation-factor\">" << number(f[0], 6) << ", "
      << number(f[1], 6) << ", " << number(f[2], 6) << "</td></tr>\n";
  }
  if (j.contains("forchheimer")) {
    const Json& b = j["forchheimer"]["beta_per_m"];
    const Json& r1 = j["forchheimer"]["reynolds_1pct"];
    o << "<tr><th>Forchheimer &beta; along x, y, z (1/m)</th><td id=\"forchheimer-beta\">" << number(b[0], 4) << ", "
      << number(b[1], 4) << ", " << number(b[2], 4) << "</td></tr>\n"
      << "<tr><th>pore Re of a 1 % fall of k_app along x, y, z</th><td>" << number(r1[0], 3) << ", " << number(r1[1], 3)
      << ", " << number(r1[2], 3) << "</td></tr>\n";
  }
  if (j.contains("porosity")) o << "<tr><th>porosity</th><td>" << number(j["porosity"], 6) << "</td></tr>\n";
  o << "</table>\n<h2>The three runs</h2>\n<table><tr><th>flow along</th><th>status</th><th>k (mD)</th><th>steps</th>"
       "<th>report</th></tr>\n";
  for (int a = 0; a < 3; ++a) {
    const Json& axis = j["axes"][axis_names[a]];
    o << "<tr><td>" << axis_names[a] << "</td><td>" << html_escape(axis["status"].get<std::string>()) << "</td><td>"
      << number(axis["k_mD"]) << "</td><td>" << axis["steps"].get<std::int64_t>() << "</td><td><a href=\""
      << axis_names[a] << "/report.html\">" << axis_names[a] << "/report.html</a></td></tr>\n";
  }
  o << "</table>\n";
  return html_document("rockperm tensor: " + j["sample"].get<std::string>(), o.str());
}

}  // namespace

AxisOutcome AxisOutcome::of(const SampleResult& r) {
  AxisOutcome a;
  a.status = r.status;
  a.message = r.message;
  a.reason = r.reason;
  a.solved = r.steps > 0;  // as report.json: k exists once a check was made
  a.k_md = r.k.k_md;
  a.k_lattice = r.k.k_lattice;
  a.mean_velocity = r.mean_velocity;
  a.steps = r.steps;
  if (r.percolation.voxels > 0) {
    a.porosity = r.porosity();
    a.connected_porosity = r.connected_porosity();
  }
  if (r.conduction.done) {
    a.formation_factor = r.conduction.formation_factor;
    a.formation_factor_error = r.conduction.error;
  }
  const ForchheimerReport& f = r.forchheimer;
  a.forchheimer = f.asked;
  if (f.fit.done) a.beta_per_m = f.fit.beta_per_m;
  if (f.done && std::isfinite(f.reynolds_1pct)) a.reynolds_1pct = f.reynolds_1pct;
  if (f.done && std::isfinite(f.reynolds_10pct)) a.reynolds_10pct = f.reynolds_10pct;
  a.input = input_record(r);
  return a;
}

std::optional<AxisOutcome> read_axis_outcome(const fs::path& report_json) {
  std::ifstream in(report_json, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    const nlohmann::json r = nlohmann::json::parse(read_all_text(in));
    if (!r.is_object()) return std::nullopt;
    const auto status = parse_status(r.value("status", ""));
    if (!status) return std::nullopt;
    AxisOutcome a;
    a.status = *status;
    a.message = r.value("message", "");
    a.reason = r.value("reason", "");
    a.steps = r.value("steps", std::int64_t{0});
    const auto perm = r.find("permeability");
    if (perm != r.end() && perm->is_object() && (*perm)["mD"].is_number()) {
      a.solved = true;
      a.k_md = (*perm)["mD"].get<double>();
      a.k_lattice = (*perm)["lattice_voxel2"].get<double>();
    }
    const auto u = r.find("mean_velocity_lattice");
    if (u != r.end() && u->is_array() && u->size() == 3) {
      for (int i = 0; i < 3; ++i) a.mean_velocity[i] = (*u)[i].get<double>();
    }
    for (auto [key, slot] : {std::pair{"porosity", &a.porosity}, {"connected_porosity", &a.connected_porosity}}) {
      const auto v = r.find(key);
      if (v != r.end() && v->is_number()) *slot = v->get<double>();
    }
    if (const auto c = r.find("conduction"); c != r.end() && c->is_object() && (*c)["formation_factor"].is_number()) {
      a.formation_factor = (*c)["formation_factor"].get<double>();
      if ((*c)["formation_factor_error"].is_number()) a.formation_factor_error = (*c)["formation_factor_error"].get<double>();
    }
    if (const auto f = r.find("forchheimer"); f != r.end() && f->is_object()) {
      a.forchheimer = true;
      if (const auto fit = f->find("fit"); fit != f->end() && fit->is_object() && (*fit)["beta_per_m"].is_number()) {
        a.beta_per_m = (*fit)["beta_per_m"].get<double>();
      }
      for (auto [key, slot] : {std::pair{"reynolds_1pct", &a.reynolds_1pct}, {"reynolds_10pct", &a.reynolds_10pct}}) {
        const auto v = f->find(key);
        if (v != f->end() && v->is_number()) *slot = v->get<double>();
      }
    }
    if (const auto it = r.find("input"); it != r.end()) a.input = read_input_record(*it).value_or(InputRecord{});
    return a;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

bool measures_cross_terms(const FlowSpec& flow) {
  return flow.inlet_outlet == geometry::InletOutlet::periodic && flow.lateral_periodic[0] && flow.lateral_periodic[1] &&
         flow.lateral_periodic[2];
}

std::array<double, 3> symmetric_eigenvalues(const std::array<std::array<double, 3>, 3>& m) {
  Eigen::Matrix3d a;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a(i, j) = m[i][j];
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(a, Eigen::EigenvaluesOnly);
  const Eigen::Vector3d e = solver.eigenvalues();  // ascending
  return {e[0], e[1], e[2]};
}

PermeabilityTensor compose_tensor(const std::array<std::optional<AxisOutcome>, 3>& axes, bool cross_terms,
                                  bool flow) {
  PermeabilityTensor t;
  t.axes = axes;
  t.cross_terms = cross_terms && flow;
  t.flow = flow;
  int worst = 0;
  std::string failure;
  for (int a = 0; a < 3; ++a) {
    const int sev = severity(axes[a]);
    if (sev > worst || (sev == worst && sev > 0 && failure.empty())) {
      worst = sev;
      t.status = axes[a] ? axes[a]->status : RunStatus::interrupted;
      failure = std::string(axis_names[a]) + ": " +
                (axes[a] ? (axes[a]->message.empty() ? std::string(to_string(axes[a]->status)) : axes[a]->message)
                         : std::string("no result"));
    }
  }
  if (worst == 0) t.status = RunStatus::converged;

  for (int j = 0; j < 3; ++j) {  // column j from the run along j
    if (!axes[j]) continue;
    const AxisOutcome& r = *axes[j];
    if (r.no_path()) {  // no flow along j: k_jj = 0, and no cross flow either
      for (int i = 0; i < 3; ++i) t.known[i][j] = i == j || cross_terms;
      continue;
    }
    if (!r.solved) continue;
    t.k_md[j][j] = r.k_md;
    t.k_voxel2[j][j] = r.k_lattice;
    t.known[j][j] = true;
    if (!cross_terms || r.mean_velocity[j] == 0) continue;
    for (int i = 0; i < 3; ++i) {
      if (i == j) continue;
      const double ratio = r.mean_velocity[i] / r.mean_velocity[j];
      t.k_md[i][j] = r.k_md * ratio;
      t.k_voxel2[i][j] = r.k_lattice * ratio;
      t.known[i][j] = true;
    }
  }
  bool all_known = true;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) all_known = all_known && t.known[i][j];
  if (cross_terms && all_known) {
    double error = 0;
    std::array<std::array<double, 3>, 3> sym{};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        sym[i][j] = 0.5 * (t.k_md[i][j] + t.k_md[j][i]);
        const double scale = std::sqrt(t.k_md[i][i] * t.k_md[j][j]);
        if (i < j && scale > 0) error = std::max(error, std::abs(t.k_md[i][j] - t.k_md[j][i]) / scale);
      }
    }
    t.symmetry_error = error;
    t.principal_md = symmetric_eigenvalues(sym);
  }
  const auto d = t.diagonal_md();
  const double kmax = *std::max_element(d.begin(), d.end()), kmin = *std::min_element(d.begin(), d.end());
  const double kh = 0.5 * (d[0] + d[1]);
  if (kmin > 0) t.max_over_min_diagonal = kmax / kmin;
  if (kh > 0) t.kz_over_mean_kx_ky = d[2] / kh;
  std::ostringstream line;
  line.precision(6);
  if (flow) {
    line << "kx = " << d[0] << ", ky = " << d[1] << ", kz = " << d[2] << " mD";
  } else {  // F alone: the formation factor along each axis
    line << "F along x = " << (axes[0] && axes[0]->formation_factor ? *axes[0]->formation_factor : 0.0)
         << ", y = " << (axes[1] && axes[1]->formation_factor ? *axes[1]->formation_factor : 0.0)
         << ", z = " << (axes[2] && axes[2]->formation_factor ? *axes[2]->formation_factor : 0.0)
         << " (k not solved: F alone)";
  }
  t.message = worst == 0 ? line.str() : failure;
  return t;
}

std::string tensor_json(const PermeabilityTensor& tensor, const std::string& sample_name) {
  return to_json(tensor, sample_name).dump(2) + "\n";
}

void write_tensor_reports(const fs::path& dir, const PermeabilityTensor& tensor, const std::string& sample_name) {
  const Json j = to_json(tensor, sample_name);
  io::write_file_atomically(dir / "report.html", tensor_html(j));
  io::write_file_atomically(dir / "report.json", j.dump(2) + "\n");  // last: the mark of a finished tensor
}

SampleResult run_tensor(const parallel::Comm& comm, const RunRequest& request) {
  RunObserver* observer = comm.root() ? request.observer : nullptr;
  const RunSpec& spec = request.spec;
  // the tensor's own files are rewritten whether it starts or continues; its axes keep theirs
  const DirectoryUse use = request.use == DirectoryUse::fresh ? DirectoryUse::fresh : DirectoryUse::overwrite;
  const RunDirectory directory(comm, spec.output.dir, use);
  const fs::path dir = directory.path();
  if (request.configuration) {
    parallel::collectively(comm, [&] {
      if (comm.root()) io::write_file_atomically(dir / "config.ini", request.configuration(spec));
    });
  }
  SampleResult result;
  result.provenance = start_provenance(comm, request);
  // The volume: read once on rank 0 for the three axes, or where every rank can read its own
  // planes of the file (read_on_slabs) read so by each axis, no rank holding the whole
  ReadVolume read;
  const ReadVolume* volume = &read;  // rank 0's, without slabs
  bool on_slabs = false;
  InputIdentity input;  // every rank's, with slabs: once an axis has read the file
  try {
    parallel::collectively(comm, [&] { request.validate ? request.validate() : spec.validate(); });
    on_slabs = !request.volume && read_on_slabs(comm, spec.sample);
    if (on_slabs) {
      input = file_identity(spec.sample.volume);
      if (request.use == DirectoryUse::resume) {  // each axis is checked against it: hashed once, on every rank
        std::vector<std::uint8_t> text;
        parallel::collectively(comm, [&] {
          if (!comm.root()) return;
          const std::string h = io::hash_volume(spec.sample.volume.path);
          text.assign(h.begin(), h.end());
        });
        comm.broadcast(text);
        input.sha256.assign(text.begin(), text.end());
      }
    } else {
      parallel::collectively(comm, [&] {
        if (comm.root()) volume = &request_volume(request, read, true);
      });
    }
  } catch (const Error& e) {
    report_failure(comm, dir, e, request.describe_input, result);
    throw;
  }
  const auto input_sha256 = [&]() -> const std::string& { return on_slabs ? input.sha256 : volume->input.sha256; };
  if (observer) observer->tensor_started(spec, dir);
  std::array<std::optional<AxisOutcome>, 3> outcomes;  // rank 0's; an axis never ended stays empty
  for (int a = 0; a < 3; ++a) {
    const bool stop = request.stop_requested && request.stop_requested();
    if (comm.max(stop ? 1.0 : 0.0) > 0) break;  // agreed: every rank leaves at the same axis
    RunRequest axis = request;
    axis.spec.all_axes = false;
    axis.spec.flow.flow_axis = a;
    axis.spec.output.dir = dir / axis_names[a];
    axis.read = nullptr;
    if (on_slabs) axis.input_sha256 = input.sha256;  // empty until an axis has hashed it
    else axis.volume = [volume]() -> const ReadVolume& { return *volume; };
    std::vector<std::uint8_t> state{static_cast<std::uint8_t>(RunState::fresh)};
    if (request.use == DirectoryUse::resume) {
      parallel::collectively(comm, [&] {
        if (comm.root()) {
          const std::string config = request.configuration ? request.configuration(axis.spec) : std::string();
          state[0] = static_cast<std::uint8_t>(inspect_run(axis.spec, config, input_sha256()));
        }
      });
      comm.broadcast(state);
    }
    const auto s = static_cast<RunState>(state[0]);
    const fs::path report = axis.spec.output.dir / "report.json";
    if (s == RunState::done || s == RunState::failed) {
      if (observer) observer->axis_started(a, true, false);
      if (comm.root()) outcomes[a] = read_axis_outcome(report);
      continue;
    }
    axis.use = s == RunState::resume ? DirectoryUse::resume : DirectoryUse::overwrite;
    if (observer) observer->axis_started(a, false, s == RunState::resume);
    SampleResult r;
    try {
      r = run(comm, axis);
      outcomes[a] = AxisOutcome::of(r);
      if (on_slabs && input.sha256.empty()) input = r.input;  // every rank's
    } catch (const Error& e) {  // recorded in the axis's report; the tensor says which axis failed
      // read by each axis, an input error is the file's, the same for every axis: the tensor's,
      // as where rank 0 read it first
      if (on_slabs && e.all_ranks && dynamic_cast<const InputError*>(&e)) {
        report_failure(comm, dir, e, request.describe_input, result);
        throw;
      }
      record_failure(e, request.describe_input, r);
      if (e.all_ranks) outcomes[a] = AxisOutcome::of(r);
    }
    if (observer) observer->axis_ended(a, r, report);
  }
  auto tensor = std::make_shared<PermeabilityTensor>();
  parallel::collectively(comm, [&] {
    if (!comm.root()) return;
    *tensor = compose_tensor(outcomes, measures_cross_terms(spec.flow), spec.permeability);
    write_tensor_reports(dir, *tensor, on_slabs ? input.name : volume->input.name);
  });
  std::vector<std::uint8_t> status{static_cast<std::uint8_t>(tensor->status)};
  comm.broadcast(status);
  result.status = static_cast<RunStatus>(status.at(0));
  result.input = on_slabs ? input : volume->input;
  result.message = tensor->message;
  if (comm.root()) result.tensor = tensor;
  if (observer) observer->tensor_ready(*tensor, result.status, dir / "report.json");
  return result;
}

}  // namespace rockperm::pipeline
