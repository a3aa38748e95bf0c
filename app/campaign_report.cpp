#include "app/campaign_report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "pipeline/report_html.hpp"

namespace rockperm::app {

// The campaign's page: k against porosity (log axes) with a Kozeny-Carman fit k = C phi^3 /
// (1 - phi)^2 through the converged samples, the failures, and every sample's row.
std::string campaign_html(const Manifest& manifest, const nlohmann::ordered_json& summary) {
  using Json = nlohmann::ordered_json;
  using pipeline::html_escape;
  pipeline::SvgSeries measured, fit;
  measured.line = false;
  fit.colour = "#c0392b";
  double log_c = 0, phi_lo = 1, phi_hi = 0;
  int n = 0;
  for (const Json& row : summary["samples"]) {
    if (row["status"] != "converged" || !row["porosity"].is_number()) continue;
    const double phi = row["porosity"].get<double>();
    double k = row["k_mD"].is_number() ? row["k_mD"].get<double>() : 0;
    if (!row["k_mD"].is_number() && row["kx_mD"].is_number()) {
      k = (row["kx_mD"].get<double>() + row["ky_mD"].get<double>() + row["kz_mD"].get<double>()) / 3;
    }
    if (!(k > 0) || !(phi > 0 && phi < 1)) continue;
    measured.points.emplace_back(phi, k);
    log_c += std::log(k) - std::log(phi * phi * phi / ((1 - phi) * (1 - phi)));
    phi_lo = std::min(phi_lo, phi), phi_hi = std::max(phi_hi, phi);
    ++n;
  }
  const double c = n > 0 ? std::exp(log_c / n) : 0;
  if (n > 1 && phi_hi > phi_lo) {
    for (int i = 0; i <= 40; ++i) {
      const double phi = phi_lo + (phi_hi - phi_lo) * i / 40.0;
      fit.points.emplace_back(phi, c * phi * phi * phi / ((1 - phi) * (1 - phi)));
    }
  }
  std::ostringstream o;
  o << "<h1>Campaign: " << html_escape(manifest.source.filename().string()) << "</h1>\n";
  const Json& counts = summary["counts"];
  o << "<p id=\"counts\">" << counts["samples"].get<int>() << " samples: " << counts["converged"].get<int>()
    << " converged, " << counts["failed"].get<int>() << " failed, " << counts["interrupted"].get<int>()
    << " interrupted, " << counts["pending"].get<int>() << " pending (updated "
    << html_escape(summary["updated_utc"].get<std::string>()) << ").</p>\n";
  o << "<h2>k against porosity</h2>\n";
  if (n > 0) {
    std::ostringstream cs;
    cs.precision(4);
    cs << c;
    o << "<p>Dots: converged samples; line: Kozeny&#8211;Carman k = C &#966;&#179;/(1 &#8722; &#966;)&#178; fitted in log "
         "space, C = <span id=\"kc-constant\">" << cs.str() << "</span> mD.</p>\n"
      << pipeline::svg_chart({measured, fit}, "porosity", "k (mD)", true, true) << "\n";
  } else {
    o << "<p>No converged sample yet.</p>\n";
  }
  o << "<h2>Failed</h2>\n<ul id=\"failed\">";
  for (const Json& row : summary["samples"]) {
    const std::string status = row["status"].get<std::string>();
    if (status == "converged" || status == "pending" || status == "interrupted") continue;
    o << "<li class=\"failed\">" << html_escape(row["id"].get<std::string>()) << ": " << html_escape(status) << " &#8212; "
      << html_escape(row["message"].is_string() ? row["message"].get<std::string>() : std::string()) << "</li>";
  }
  bool tensors = false;
  for (const Json& row : summary["samples"]) tensors = tensors || row.contains("kx_mD");
  o << "</ul>\n<h2>Samples</h2>\n<table id=\"samples\"><tr><th>id</th><th>status</th><th>k (mD)</th>"
    << (tensors ? "<th>kx (mD)</th><th>ky (mD)</th><th>kz (mD)</th>" : "")
    << "<th>porosity</th><th>error estimate</th><th>report</th></tr>\n";
  for (const Json& row : summary["samples"]) {
    const auto text = [&](const char* key) {
      const Json& v = row[key];
      if (v.is_number()) {
        std::ostringstream t;
        t.precision(7);
        t << v.get<double>();
        return t.str();
      }
      return v.is_string() ? v.get<std::string>() : std::string();
    };
    const std::string id = html_escape(row["id"].get<std::string>());
    o << "<tr><td>" << id << "</td><td>" << html_escape(text("status")) << "</td><td id=\"k-" << id << "\">"
      << text("k_mD") << "</td>";
    if (tensors) {
      for (const char* key : {"kx_mD", "ky_mD", "kz_mD"}) o << "<td id=\"" << key[1] << "-" << id << "\">" << text(key) << "</td>";
    }
    o << "<td>" << text("porosity") << "</td><td>" << text("k_error_estimate")
      << "</td><td><a href=\"" << id << "/report.html\">report</a></td></tr>\n";
  }
  o << "</table>\n";
  return pipeline::html_document("rockperm campaign: " + manifest.source.filename().string(), o.str());
}

}  // namespace rockperm::app
