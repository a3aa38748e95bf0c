#include "pipeline/report_html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "pipeline/report.hpp"

namespace rockperm::pipeline {

namespace {

std::string num(double v, int digits = 6) { return html_number(v, digits); }

const char* style =
    "body{font-family:sans-serif;margin:2em;max-width:72em;color:#222}"
    "table{border-collapse:collapse}td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}"
    ".verdict{font-size:1.2em;margin:1em 0}.converged{color:#146c2e}.failed{color:#a11}"
    "figure{display:inline-block;margin:0 2em 1em 0;vertical-align:top;max-width:26em}"
    "figure img{image-rendering:pixelated;width:24em;border:1px solid #888}figcaption{font-size:.9em}";

// A round number of ticks between lo and hi.
std::vector<double> ticks(double lo, double hi, bool log) {
  std::vector<double> t;
  if (log && hi - lo >= 1) {  // decades
    for (double e = std::floor(lo); e <= std::ceil(hi) && t.size() < 12; e += 1) t.push_back(e);
    return t;
  }
  if (log) {  // less than a decade: round values, placed on the logarithmic axis
    for (const double v : ticks(std::pow(10.0, lo), std::pow(10.0, hi), false)) {
      if (v > 0) t.push_back(std::log10(v));
    }
    return t;
  }
  const double span = hi > lo ? hi - lo : 1.0;
  const double step0 = std::pow(10.0, std::floor(std::log10(span / 5)));
  double step = step0;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = step0 * m;
    if (span / step <= 6) break;
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) t.push_back(v);
  return t;
}

}  // namespace

std::string html_number(double v, int digits) {
  if (!std::isfinite(v)) return "?";
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

std::string html_document(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>" + html_escape(title) +
         "</title><style>" + style + "</style></head><body>\n" + body + "</body></html>\n";
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_chart(const std::vector<SvgSeries>& series, const std::string& x_label, const std::string& y_label,
                      bool log_x, bool log_y) {
  const double w = 560, h = 320, left = 70, right = 15, top = 15, bottom = 45;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  const auto tx = [&](double v) { return log_x ? std::log10(v) : v; };
  const auto ty = [&](double v) { return log_y ? std::log10(v) : v; };
  for (const SvgSeries& s : series) {
    for (const auto& [x, y] : s.points) {
      if ((log_x && !(x > 0)) || (log_y && !(y > 0)) || !std::isfinite(x) || !std::isfinite(y)) continue;
      x0 = std::min(x0, tx(x)), x1 = std::max(x1, tx(x)), y0 = std::min(y0, ty(y)), y1 = std::max(y1, ty(y));
    }
  }
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w
    << ' ' << h << "\" role=\"img\">";
  if (!(x1 >= x0) || !(y1 >= y0)) return o.str() + "<text x=\"20\" y=\"40\">no data</text></svg>";
  if (x1 == x0) x0 -= 1, x1 += 1;
  const double pad_x = 0.03 * (x1 - x0), pad_y = 0.04 * (y1 - y0);  // points off the frame
  x0 -= pad_x, x1 += pad_x, y0 -= pad_y, y1 += pad_y;
  if (y1 == y0) {
    const double pad = std::max(std::abs(y0) * 1e-6, 1e-12);
    y0 -= pad, y1 += pad;
  }
  const auto px = [&](double v) { return left + (tx(v) - x0) / (x1 - x0) * (w - left - right); };
  const auto py = [&](double v) { return h - bottom - (ty(v) - y0) / (y1 - y0) * (h - top - bottom); };
  o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << w - left - right << "\" height=\""
    << h - top - bottom << "\" fill=\"none\" stroke=\"#888\"/>";
  for (const double t : ticks(x0, x1, log_x)) {
    const double v = log_x ? std::pow(10.0, t) : t;
    if (t < x0 || t > x1) continue;
    o << "<text x=\"" << px(v) << "\" y=\"" << h - bottom + 16 << "\" font-size=\"11\" text-anchor=\"middle\">"
      << num(v, 4) << "</text>";
  }
  for (const double t : ticks(y0, y1, log_y)) {
    const double v = log_y ? std::pow(10.0, t) : t;
    if (t < y0 || t > y1) continue;
    o << "<text x=\"" << left - 5 << "\" y=\"" << py(v) + 4 << "\" font-size=\"11\" text-anchor=\"end\">" << num(v, 6)
      << "</text>";
  }
  o << "<text x=\"" << (left + w - right) / 2 << "\" y=\"" << h - 8 << "\" font-size=\"12\" text-anchor=\"middle\">"
    << html_escape(x_label) << "</text>";
  o << "<text x=\"14\" y=\"" << (top + h - bottom) / 2 << "\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
    << (top + h - bottom) / 2 << ")\">" << html_escape(y_label) << "</text>";
  for (const SvgSeries& s : series) {
    std::ostringstream path;
    for (const auto& [x, y] : s.points) {
      if ((log_x && !(x > 0)) || (log_y && !(y > 0)) || !std::isfinite(x) || !std::isfinite(y)) continue;
      if (s.line) {
        path << (path.tellp() == 0 ? "M" : " L") << num(px(x), 7) << ' ' << num(py(y), 7);
      } else {
        o << "<circle cx=\"" << num(px(x), 7) << "\" cy=\"" << num(py(y), 7) << "\" r=\"3\" fill=\"" << s.colour
          << "\"/>";
      }
    }
    if (s.line && path.tellp() > 0) {
      o << "<path d=\"" << path.str() << "\" fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"1.5\"/>";
    }
  }
  o << "</svg>";
  return o.str();
}

std::string to_html(const SampleResult& r) {
  std::ostringstream o;
  const bool has_k = r.steps > 0;
  o << "<h1>" << html_escape(r.input.name) << "</h1>\n";
  o << "<p class=\"verdict " << (r.converged() ? "converged" : "failed") << "\" id=\"verdict\">"
    << html_escape(verdict(r)) << "</p>\n";
  o << "<table>\n";
  const auto row = [&](const char* id, const std::string& name, const std::string& value) {
    o << "<tr><th>" << name << "</th><td id=\"" << id << "\">" << html_escape(value) << "</td></tr>\n";
  };
  row("status", "status", to_string(r.status));
  if (!r.message.empty()) row("message", "message", r.message);
  if (has_k) {
    row("k-mD", "permeability (mD)", num(r.k.k_md, 10));
    row("k-error", "estimated error of k (relative)", num(r.error_estimate, 3));
    row("flux-spread", "flux spread across the planes", num(r.flux_nonuniformity, 3));
  }
  row("porosity", "porosity of the resolved pores", num(r.porosity(), 6));
  row("connected-porosity", "connected porosity (resolved pores joining the faces)", num(r.connected_porosity(), 6));
  if (r.grey.any()) row("total-porosity", "total porosity (resolved and the grey phases' own pores)", num(r.total_porosity(), 6));
  if (has_k) {
    row("tortuosity", "tortuosity", num(r.k.tortuosity, 5));
    row("reynolds", "Reynolds number", num(r.k.reynolds, 3));
    row("mach", "Mach number", num(r.k.mach, 3));
    if (r.conduction.done) {
      row("formation-factor", "formation factor F (along the flow)", num(r.conduction.formation_factor, 6));
      row("formation-factor-error", "estimated error of F (relative)", num(r.conduction.error, 3));
      if (r.conduction.formation_factor_interior > 0) {
        row("formation-factor-interior", "F of the interior alone (a check; F is the whole sample's)",
            num(r.conduction.formation_factor_interior, 6));
      }
      row("tortuosity-factor", "tortuosity factor F phi", num(r.conduction.tortuosity_factor, 5));
      row("cementation-exponent", "Archie's cementation exponent m", num(r.conduction.cementation_exponent, 4));
    } else if (r.conduction.asked) {
      row("formation-factor", "formation factor F", "not made: " + r.conduction.note);
    }
    row("steps", "steps", std::to_string(r.steps));
    row("tau", "TRT relaxation time", num(r.flow.tau, 4));
    row("force", "body force (lattice)", num(r.flow.force, 4));
    row("solve-seconds", "time in the solver (s)", num(r.timings.solve, 4));
    row("mflups", "speed (MFLUPS)", num(r.performance.mflups, 5));
  }
  row("dims", "simulated volume (voxels)",
      std::to_string(r.dims.nx) + " x " + std::to_string(r.dims.ny) + " x " + std::to_string(r.dims.nz));
  row("voxel-size", "voxel size (um)", num(r.voxel_size_um, 6));
  o << "</table>\n";
  if (!r.history_md.empty()) {
    SvgSeries k;
    for (const auto& [step, value] : r.history_md) k.points.emplace_back(static_cast<double>(step), value);
    o << "<h2>Convergence</h2>\n<p>k at the checks (thinned to 256 values over the run).</p>\n"
      << svg_chart({k}, "step", "k (mD)") << "\n";
  }
  if (has_k) {
    o << "<h2>Pores</h2>\n<table><tr><th>pore width (voxels)</th><th>share of the pore volume</th></tr>\n";
    const char* classes[] = {"under 3", "3 to 5", "5 to 10", "10 and over"};
    for (int c = 0; c < 4; ++c) {
      o << "<tr><td>" << classes[c] << "</td><td id=\"width-" << c << "\">"
        << num(100 * r.width_fraction[static_cast<std::size_t>(c)], 4) << " %</td></tr>\n";
    }
    o << "</table>\n<p>Share of the flow through pores narrower than 3 voxels: <span id=\"narrow-flow\">"
      << num(100 * r.narrow_flow_fraction, 4) << "</span> %. k of the two halves along the flow: <span id=\"halves\">"
      << num(r.k_halves_md[0], 6) << " and " << num(r.k_halves_md[1], 6) << "</span> mD.";
    if (r.k_interior_md > 0) {  // k is the whole sample's; the interior is a representative-volume check
      o << " k of the interior alone (the middle planes, L/8 in from each face): <span id=\"k-interior\">"
        << num(r.k_interior_md, 6) << "</span> mD, " << num(100 * interior_difference(r), 3)
        << " % off the whole sample's.";
    }
    o << "</p>\n";
  }
  if (r.two_phase.done) {
    const TwoPhaseReport& t = r.two_phase;
    o << "<h2 id=\"two-phases\">Two phases</h2>\n<p>Pore morphology (Hilpert &amp; Miller 2001; contact angle as "
         "Schulz et al. 2015): sigma "
      << num(t.sigma_n_per_m, 4) << " N/m, theta " << num(t.theta_deg, 4) << "&deg; (the wetting phase's "
      << num(t.theta_wetting_deg, 4) << "&deg;), entry " << html_escape(t.entry) << ", wetting trapping "
      << (t.trapping ? "on" : "off") << ". Entry pressure <span id=\"entry-pressure\">" << num(t.entry_pressure_pa, 6)
      << "</span> Pa, breakthrough <span id=\"breakthrough-pressure\">"
      << (t.breakthrough_pressure_pa > 0 ? num(t.breakthrough_pressure_pa, 6) : std::string("none")) << "</span> Pa. "
      << "Residual wetting saturation <span id=\"residual-wetting\">" << num(t.residual_wetting, 4) << "</span>";
    if (!t.imbibition.empty()) {
      o << ", residual non-wetting saturation <span id=\"residual-nonwetting\">" << num(t.residual_nonwetting, 4)
        << "</span> (imbibition to Pc = 0)";
    }
    o << ". S_w is a fraction of the connected pore space.</p>\n";
    SvgSeries drainage{{}, true, "#1f5fa8"}, imbibition{{}, true, "#c2571a"};
    for (const CapillaryPoint& p : t.drainage) drainage.points.emplace_back(p.saturation, p.pc_pa);
    for (const CapillaryPoint& p : t.imbibition) imbibition.points.emplace_back(p.saturation, p.pc_pa);
    // the displacement's points (capillary.displacement): the same pressures by two-phase flow
    SvgSeries displaced_d{{}, false, "#6fa0d8"}, displaced_i{{}, false, "#e8a37a"};
    const DisplacementReport& dr = t.displacement;
    for (const auto& [from, into] : {std::pair{&dr.drainage, &displaced_d}, std::pair{&dr.imbibition, &displaced_i}}) {
      for (const DisplacementPoint& p : *from) {
        if (p.steps > 0) into->points.emplace_back(p.saturation, p.pc_pa);
      }
    }
    o << "<figure id=\"capillary-pressure\">"
      << svg_chart({drainage, imbibition, displaced_d, displaced_i}, "wetting saturation S_w", "Pc (Pa)", false, true)
      << "<figcaption>Capillary pressure: drainage (blue)" << (t.imbibition.empty() ? "" : ", imbibition (orange)");
    if (dr.asked) {
      o << "; light points: the same pressures by displacement (two-phase flow between reservoirs, each held until S_w "
           "settled" << (dr.note.empty() ? "" : ": " + html_escape(dr.note)) << ")";
    }
    o << ".</figcaption></figure>\n";
    if (!t.relperm.empty()) {
      SvgSeries krw_d{{}, false, "#1f5fa8"}, krn_d{{}, false, "#c2571a"}, krw_i{{}, false, "#6fa0d8"},
          krn_i{{}, false, "#e8a37a"};
      for (const RelPermPoint& p : t.relperm) {
        const bool d = p.curve == "drainage";
        if (p.wetting.solved) (d ? krw_d : krw_i).points.emplace_back(p.saturation, p.wetting.kr);
        if (p.nonwetting.solved) (d ? krn_d : krn_i).points.emplace_back(p.saturation, p.nonwetting.kr);
      }
      o << "<figure id=\"relative-permeability\">" << svg_chart({krw_d, krn_d, krw_i, krn_i}, "wetting saturation S_w", "k_r")
        << "<figcaption>Relative permeability, quasi-static (the other phase a no-slip wall): k_rw blue, k_rn orange; "
           "drainage dark, imbibition light.</figcaption></figure>\n";
      // k_r by two-phase flow (capillary.flow), a different quantity: its own chart and columns
      bool flow = false;
      SvgSeries fw{{}, false, "#1f5fa8"}, fn{{}, false, "#c2571a"};
      for (const RelPermPoint& p : t.relperm) {
        if (!p.flow.asked) continue;
        flow = true;
        if (p.flow.solved) {
          fw.points.emplace_back(p.flow.saturation, p.flow.kr_w);
          fn.points.emplace_back(p.flow.saturation, p.flow.kr_n);
        }
      }
      if (flow) {
        o << "<figure id=\"relative-permeability-flow\">" << svg_chart({fw, fn}, "wetting saturation S_w", "k_r")
          << "<figcaption>Relative permeability by two-phase flow (colour-gradient model, both phases driven alike): "
             "k_rw blue, k_rn orange.</figcaption></figure>\n";
      }
      o << "<table id=\"relperm-table\"><tr><th>curve</th><th>S_w</th><th>Pc (Pa)</th><th>k_rw</th><th>k_rn</th>"
        << (flow ? "<th>k_rw by flow</th><th>k_rn by flow</th><th>checks</th>" : "") << "</tr>\n";
      const auto kr = [](const PhaseFlow& f) {
        return !f.solved ? std::string("not made") : !f.spans ? std::string("0 (does not span)")
                                                             : html_number(f.kr, 5) + " &plusmn; " + html_number(f.kr_error, 2) +
                                                                   (f.converged ? "" : " (not converged)");
      };
      const auto by_flow = [](const ColourFlowPoint& f, bool wetting) {
        if (!f.solved) return std::string("not made");
        const double v = wetting ? f.kr_w : f.kr_n, e = wetting ? f.kr_w_error : f.kr_n_error;
        return html_number(v, 4) + " &plusmn; " + html_number(e, 2) + (f.converged ? "" : " (not converged)");
      };
      for (const RelPermPoint& p : t.relperm) {
        o << "<tr><td>" << p.curve << "</td><td>" << num(p.saturation, 4) << "</td><td>" << num(p.pc_pa, 5) << "</td><td>"
          << kr(p.wetting) << "</td><td>" << kr(p.nonwetting) << "</td>";
        if (flow) {
          std::string checks;
          for (const std::string& c : p.flow.flags) checks += (checks.empty() ? "" : "; ") + c;
          if (!p.flow.solved) checks = p.flow.note;
          o << "<td>" << by_flow(p.flow, true) << "</td><td>" << by_flow(p.flow, false) << "</td><td>"
            << html_escape(checks.empty() ? std::string("none failed") : checks) << "</td>";
        }
        o << "</tr>\n";
      }
      o << "</table>\n";
    }
    if (!t.note.empty()) o << "<p>" << html_escape(t.note) << "</p>\n";
  }
  if (r.forchheimer.asked) {
    const ForchheimerReport& f = r.forchheimer;
    o << "<h2 id=\"forchheimer\">Beyond Darcy</h2>\n<p>A rate sweep from the creeping state: k_app = &mu; q / "
         "(&minus;&nabla;p) at each pore Reynolds number Re = &rho; (q / &phi;) d / &mu; on the pore diameter d = 4 "
         "&phi; / S = "
      << num(f.pore_diameter_um, 4) << " &micro;m.";
    if (f.fit.done) {
      o << " Forchheimer's line 1/k_app = 1/k + &beta; &rho; q / &mu; over Re " << num(f.points[f.fit.first].reynolds, 3)
        << " to " << num(f.points[f.fit.last].reynolds, 3) << ": k <span id=\"forchheimer-k\">" << num(f.fit.k_md, 5)
        << "</span> mD (creeping " << num(f.k_md, 5) << " mD), &beta; <span id=\"forchheimer-beta\">"
        << num(f.fit.beta_per_m, 4) << "</span> 1/m, c_F = &beta; &radic;k <span id=\"forchheimer-cf\">"
        << num(f.fit.c_f, 4) << "</span> (Ward), residual " << num(100 * f.fit.residual, 2) << " %.";
    }
    if (f.done) {
      o << " k_app falls 1 % below k at Re <span id=\"reynolds-1pct\">"
        << (std::isfinite(f.reynolds_1pct) ? num(f.reynolds_1pct, 3) : std::string("beyond the sweep"))
        << "</span> and 10 % at Re <span id=\"reynolds-10pct\">"
        << (std::isfinite(f.reynolds_10pct) ? num(f.reynolds_10pct, 3) : std::string("beyond the sweep")) << "</span>.";
    }
    o << "</p>\n";
    if (f.done) {
      SvgSeries measured{{}, false, "#1f5fa8"}, line{{}, true, "#c2571a"};
      for (const ForchheimerPoint& p : f.points) {
        measured.points.emplace_back(p.inertial_per_m, 1.0 / (p.k_md * 1e-3 * physics::m2_per_darcy));
      }
      if (f.fit.done) {
        const double a = 1.0 / (f.fit.k_md * 1e-3 * physics::m2_per_darcy);
        for (const ForchheimerPoint& p : {f.points.front(), f.points.back()}) {
          line.points.emplace_back(p.inertial_per_m, a + f.fit.beta_per_m * p.inertial_per_m);
        }
      }
      o << "<figure id=\"forchheimer-plot\">" << svg_chart({measured, line}, "rho q / mu (1/m)", "1 / k_app (1/m^2)")
        << "<figcaption>1/k_app against &rho; q / &mu; (blue)" << (f.fit.done ? ", Forchheimer's line (orange)" : "")
        << ".</figcaption></figure>\n";
      o << "<table id=\"forchheimer-table\"><tr><th>Re</th><th>Re_k</th><th>k_app (mD)</th><th>k_app / k</th>"
           "<th>Ma</th><th>tau</th><th>steps</th></tr>\n";
      for (const ForchheimerPoint& p : f.points) {
        o << "<tr><td>" << num(p.reynolds, 4) << "</td><td>" << num(p.reynolds_k, 4) << "</td><td>" << num(p.k_md, 6)
          << (std::isfinite(p.error) ? " &plusmn; " + html_number((p.error + p.lattice_error) * p.k_md, 2) : std::string())
          << "</td><td>"
          << num(p.k_ratio, 5) << (p.converged ? "" : " (not converged)") << "</td><td>" << num(p.mach, 3)
          << "</td><td>" << num(p.tau, 4) << "</td><td>" << p.steps << "</td></tr>\n";
      }
      o << "</table>\n";
    }
    if (!f.note.empty()) o << "<p>" << html_escape(f.note) << "</p>\n";
  }
  if (!r.slices.empty()) {
    o << "<h2>Mid slice</h2>\n";
    for (const SliceImage& image : r.slices) {
      o << "<figure id=\"" << image.id << "\">";
      if (!image.data_uri.empty()) {
        o << "<img alt=\"" << html_escape(image.title) << "\" src=\"" << image.data_uri << "\"/>";
      }
      o << "<figcaption><b>" << html_escape(image.title) << "</b>. " << html_escape(image.caption)
        << "</figcaption></figure>\n";
    }
  }
  o << "<h2>Provenance</h2>\n<table>\n";
  row("version", "rockperm", r.provenance.version + " (" + r.provenance.commit + ", " + r.provenance.build_type + ")");
  row("date", "date (UTC)", r.provenance.date_utc);
  row("host", "host", r.provenance.host);
  row("command", "command", r.provenance.command_line);
  row("input", "input", r.input.path.string());
  row("sha256", "input SHA-256", r.input.sha256);
  o << "</table>\n";
  return html_document("rockperm: " + r.input.name, o.str());
}

}  // namespace rockperm::pipeline
