#include "app/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/atomic_file.hpp"
#include "lib/base/system.hpp"
#include "pipeline/report_html.hpp"
#include "lib/physics/collision.hpp"

namespace rockperm::app {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
constexpr const char* axis_names[3] = {"x", "y", "z"};

Json read_json(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Json();
  try {
    return Json::parse(read_all_text(in));
  } catch (const Json::exception&) {
    return Json();
  }
}

// How bad a status is, for the worst of three; a direction without a path is a k of 0, not a failure.
int severity(const std::string& status) {
  if (status == "converged") return 0;
  if (status == "not_converged") return 1;
  if (status == "interrupted") return 3;
  return 2;  // input_error, diverged, invalid_physics, runtime_error, output_error, missing
}

// the run's typed reason (PhysicsError::reason), written by the run itself
bool no_path(const Json& report) {
  return report.value("status", "") == "invalid_physics" && report.value("reason", "") == "no_path";
}

// Eigenvalues of a symmetric 3x3 matrix (cyclic Jacobi rotations), ascending.
std::array<double, 3> eigenvalues(std::array<std::array<double, 3>, 3> a) {
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0;
    for (int p = 0; p < 3; ++p)
      for (int q = p + 1; q < 3; ++q) off += a[p][q] * a[p][q];
    if (off < 1e-30) break;
    for (int p = 0; p < 3; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0) continue;
        const double theta = 0.5 * std::atan2(2 * a[p][q], a[q][q] - a[p][p]);
        const double c = std::cos(theta), s = std::sin(theta);
        for (int k = 0; k < 3; ++k) {  // columns p, q
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {  // rows p, q
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
      }
    }
  }
  std::array<double, 3> e{a[0][0], a[1][1], a[2][2]};
  std::sort(e.begin(), e.end());
  return e;
}

// The tensor's page: the matrix, how far it is symmetric, principal values, anisotropy and a
// link to each axis's own report.
std::string tensor_html(const Json& j) {
  using pipeline::html_escape;
  using pipeline::html_number;
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
  return pipeline::html_document("rockperm tensor: " + j["sample"].get<std::string>(), o.str());
}

}  // namespace

TensorSummary write_tensor_report(const fs::path& dir, const RunOptions& options) {
  TensorSummary t;
  std::array<Json, 3> runs;
  int worst = 0;
  std::string failure;
  for (int a = 0; a < 3; ++a) {
    runs[a] = read_json(dir / axis_names[a] / "report.json");
    const std::string status = runs[a].is_object() ? runs[a].value("status", "missing") : "missing";
    const int sev = no_path(runs[a]) ? 0 : severity(status);
    if (sev > worst || (sev == worst && sev > 0 && failure.empty())) {
      worst = sev;
      t.status = status == "missing" ? "interrupted" : status;
      failure = std::string(axis_names[a]) + ": " +
                (runs[a].is_object() ? runs[a].value("message", status) : std::string("no result"));
    }
  }
  if (worst == 0) t.status = "converged";
  const pipeline::FlowSpec& flow = options.spec.flow;
  t.cross_terms = flow.inlet_outlet == InletOutlet::periodic && flow.lateral_periodic[0] && flow.lateral_periodic[1] &&
                  flow.lateral_periodic[2];

  // column j from the run along j
  std::array<std::array<double, 3>, 3> k_md{}, k_voxel2{};
  std::array<std::array<bool, 3>, 3> known{};
  for (int j = 0; j < 3; ++j) {
    const Json& r = runs[j];
    if (!r.is_object()) continue;
    if (no_path(r)) {  // no flow along j: k_jj = 0, and no cross flow either
      for (int i = 0; i < 3; ++i) known[i][j] = i == j || t.cross_terms;
      continue;
    }
    const Json& perm = r["permeability"];
    if (!perm.is_object() || !perm["mD"].is_number()) continue;
    const double kjj = perm["mD"].get<double>(), kjj_vox = perm["lattice_voxel2"].get<double>();
    k_md[j][j] = kjj;
    k_voxel2[j][j] = kjj_vox;
    known[j][j] = true;
    const Json& u = r["mean_velocity_lattice"];
    if (!t.cross_terms || !u.is_array() || u.size() != 3 || u[j].get<double>() == 0) continue;
    for (int i = 0; i < 3; ++i) {
      if (i == j) continue;
      const double ratio = u[i].get<double>() / u[j].get<double>();
      k_md[i][j] = kjj * ratio;
      k_voxel2[i][j] = kjj_vox * ratio;
      known[i][j] = true;
    }
  }
  for (int a = 0; a < 3; ++a) t.diagonal_md[a] = k_md[a][a];
  const auto matrix = [&](const std::array<std::array<double, 3>, 3>& m) {
    Json rows = Json::array();
    for (int i = 0; i < 3; ++i) {
      Json row = Json::array();
      for (int j = 0; j < 3; ++j) row.push_back(known[i][j] ? Json(m[i][j]) : Json());
      rows.push_back(row);
    }
    return rows;
  };
  Json tensor;
  tensor["mD"] = matrix(k_md);
  tensor["lattice_voxel2"] = matrix(k_voxel2);
  tensor["diagonal_mD"] = t.diagonal_md;
  tensor["cross_terms_measured"] = t.cross_terms;
  if (!t.cross_terms) {
    tensor["cross_terms_note"] =
        "sealed lateral faces or buffers stop any net flow across the drive; run with lbm.inlet_outlet = periodic "
        "and lbm.lateral = periodic for the off-diagonal terms";
  }
  bool all_known = true;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) all_known = all_known && known[i][j];
  if (t.cross_terms && all_known) {
    for (int i = 0; i < 3; ++i) {
      for (int j = i + 1; j < 3; ++j) {
        const double scale = std::sqrt(k_md[i][i] * k_md[j][j]);
        if (scale > 0) t.symmetry_error = std::max(t.symmetry_error, std::abs(k_md[i][j] - k_md[j][i]) / scale);
      }
    }
    tensor["symmetry_error"] = t.symmetry_error;
    std::array<std::array<double, 3>, 3> sym{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) sym[i][j] = 0.5 * (k_md[i][j] + k_md[j][i]);
    tensor["principal_mD"] = eigenvalues(sym);
  }
  const double kmax = *std::max_element(t.diagonal_md.begin(), t.diagonal_md.end());
  const double kmin = *std::min_element(t.diagonal_md.begin(), t.diagonal_md.end());
  const double kh = 0.5 * (t.diagonal_md[0] + t.diagonal_md[1]);
  tensor["anisotropy"] = {{"max_over_min_diagonal", kmin > 0 ? Json(kmax / kmin) : Json()},
                          {"kz_over_mean_kx_ky", kh > 0 ? Json(t.diagonal_md[2] / kh) : Json()}};

  std::ostringstream line;
  line.precision(6);
  line << "kx = " << t.diagonal_md[0] << ", ky = " << t.diagonal_md[1] << ", kz = " << t.diagonal_md[2] << " mD";
  t.message = worst == 0 ? line.str() : failure;

  Json j;
  j["sample"] = options.spec.sample.volume.path.filename().string();
  j["status"] = t.status;
  j["message"] = t.message;
  j["tensor"] = tensor;
  for (int a = 0; a < 3; ++a) {
    if (!runs[a].is_object()) continue;
    for (const char* key : {"porosity", "connected_porosity"}) {
      if (!j.contains(key) && runs[a].contains(key)) j[key] = runs[a][key];
    }
    if (!j.contains("input") && runs[a].contains("input")) j["input"] = runs[a]["input"];
  }
  Json axes;
  for (int a = 0; a < 3; ++a) {
    const Json& r = runs[a];
    axes[axis_names[a]] = {{"status", r.is_object() ? r.value("status", "missing") : "missing"},
                           {"k_mD", k_md[a][a]},
                           {"steps", r.is_object() ? r.value("steps", 0) : 0},
                           {"report", std::string(axis_names[a]) + "/report.json"}};
  }
  j["axes"] = axes;
  io::write_file_atomically(dir / "report.html", tensor_html(j));
  io::write_file_atomically(dir / "report.json", j.dump(2) + "\n");  // last: the mark of a finished tensor
  return t;
}

}  // namespace rockperm::app
