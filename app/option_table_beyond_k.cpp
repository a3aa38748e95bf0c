// The [capillary] and [forchheimer] rows of the option table (app/option_table.cpp), in its order.
#include <cmath>
#include <sstream>
#include <string>

#include "app/option_rows.hpp"
#include "lib/geometry/morphology.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::app::option_rows {

using pipeline::RunSpec;

void add_capillary_and_forchheimer_rows(std::vector<Option>& t) {
  // [capillary]: two phases by pore morphology (pipeline/two_phase.hpp)
  t.push_back({"capillary.curves", "two_phase.curves", "off",
               "two phases from the scan by pore morphology: drainage (the capillary pressure curve as the "
               "non-wetting phase invades) or both (drainage, then imbibition back from its last state: "
               "hysteresis and the trapped non-wetting phase), with the relative permeabilities of each phase "
               "at points of the curves (capillary.relperm); off: none",
               [](RunSpec& s, const std::string& v) { s.two_phase.curves = parse_choice(v, pipeline::two_phase_curve_names); },
               [](const RunSpec& s) { return choice_name(s.two_phase.curves, pipeline::two_phase_curve_names); }});
  t.push_back({"capillary.fluids", "two_phase.fluids", "brine-air",
               "the fluid pair whose values the auto settings below take: brine-air (sigma 0.072 N/m, theta 0, "
               "entry at the inlet, wetting phase trapped: a porous-plate test) or mercury (0.485 N/m, 140 "
               "degrees, entry at all faces, no trapping: mercury injection, MICP)",
               [](RunSpec& s, const std::string& v) { s.two_phase.fluids = parse_choice(v, pipeline::two_phase_fluid_names); },
               [](const RunSpec& s) { return choice_name(s.two_phase.fluids, pipeline::two_phase_fluid_names); }});
  t.push_back({"capillary.sigma", "two_phase.sigma", "auto",
               "interfacial tension (N/m), positive; auto: capillary.fluids'",
               [](RunSpec& s, const std::string& v) {
                 if (v == "auto") {
                   s.two_phase.sigma_n_per_m = 0;
                   return;
                 }
                 const double sigma = parse_double(v);
                 if (!(sigma > 0)) throw InputError("'" + v + "' is not positive: the interfacial tension is in N/m (brine/air 0.072)");
                 s.two_phase.sigma_n_per_m = sigma;
               },
               [](const RunSpec& s) { return s.two_phase.sigma_n_per_m > 0 ? number(s.two_phase.sigma_n_per_m) : std::string("auto"); }});
  t.push_back({"capillary.theta", "two_phase.theta", "auto",
               "contact angle (degrees) in [0, 180), not 90: below 90 measured through the wetting phase (brine "
               "0), above it through the invading one (mercury 140), which then wets at 180 - theta; the "
               "invading phase is the non-wetting one; auto: capillary.fluids'",
               [](RunSpec& s, const std::string& v) {
                 if (v == "auto") {
                   s.two_phase.theta_deg = -1;
                   return;
                 }
                 const double theta = parse_double(v);
                 if (!(theta >= 0 && theta < 180)) throw InputError("'" + v + "' is outside [0, 180) degrees");
                 s.two_phase.theta_deg = theta;
               },
               [](const RunSpec& s) { return s.two_phase.theta_deg >= 0 ? number(s.two_phase.theta_deg) : std::string("auto"); }});
  t.push_back({"capillary.entry", "two_phase.entry", "auto",
               "where the non-wetting phase enters: inlet (the flow axis's first face; the wetting phase leaves "
               "through the last), both (both faces of the flow axis) or all (the six faces); auto: "
               "capillary.fluids'",
               [](RunSpec& s, const std::string& v) {
                 if (v == "auto") s.two_phase.entry.reset();
                 else s.two_phase.entry = parse_choice(v, geometry::entry_face_names);
               },
               [](const RunSpec& s) {
                 return s.two_phase.entry ? choice_name(*s.two_phase.entry, geometry::entry_face_names) : std::string("auto");
               }});
  t.push_back({"capillary.trapping", "two_phase.trapping", "auto",
               "on: in drainage, wetting phase that has lost every path to the outlet face stays (as on a "
               "porous plate; needs capillary.entry = inlet); off: it drains wherever the non-wetting phase "
               "reaches; auto: capillary.fluids'. Imbibition always traps the non-wetting phase",
               [](RunSpec& s, const std::string& v) {
                 if (v == "auto") s.two_phase.trapping.reset();
                 else s.two_phase.trapping = parse_switch(v, "on", "off");
               },
               [](const RunSpec& s) {
                 return s.two_phase.trapping ? std::string(*s.two_phase.trapping ? "on" : "off") : std::string("auto");
               }});
  t.push_back({"capillary.pressures", "two_phase.pressures", "",
               "the capillary pressures of the curves (Pa), rising, separated by commas; empty: "
               "capillary.pressure_count of them from the entry pressure to that of a one-voxel radius",
               [](RunSpec& s, const std::string& v) { s.two_phase.pressures_pa = parse_number_list(v, "pressure list"); },
               [](const RunSpec& s) {
                 std::string out;
                 for (const double p : s.two_phase.pressures_pa) out += (out.empty() ? "" : ",") + number(p);
                 return out;
               }});
  t.push_back({"capillary.pressure_count", "two_phase.pressures", "20",
               "with capillary.pressures empty: this many pressures, geometric from the entry pressure to that "
               "of a one-voxel inscribed radius (the smallest the scan resolves), or on to the breakthrough where "
               "the non-wetting phase spans the sample only below a voxel (at most half a voxel); at least 2",
               [](RunSpec& s, const std::string& v) { s.two_phase.pressure_count = static_cast<int>(parse_integer(v)); },
               [](const RunSpec& s) { return std::to_string(s.two_phase.pressure_count); }});
  t.push_back({"capillary.relperm", "two_phase.relperm", "5",
               "relative permeabilities: a count of points spread over each curve's two-phase range (0: none), "
               "or wetting saturations in (0, 1) separated by commas (the curves' points nearest them); k of "
               "each phase by the flow solve in the cells it holds, the other phase a no-slip wall",
               [](RunSpec& s, const std::string& v) {
                 s.two_phase.relperm_saturations.clear();
                 if (v.find_first_of(".,eE") == std::string::npos) {
                   s.two_phase.relperm_points = static_cast<int>(parse_integer(v));
                   return;
                 }
                 for (const double sw : parse_number_list(v, "saturation list")) {
                   if (!(sw > 0 && sw < 1)) throw InputError("saturation " + number(sw) + " is outside (0, 1)");
                   s.two_phase.relperm_saturations.push_back(sw);
                 }
               },
               [](const RunSpec& s) {
                 if (s.two_phase.relperm_saturations.empty()) return std::to_string(s.two_phase.relperm_points);
                 std::string out;
                 for (const double sw : s.two_phase.relperm_saturations) out += (out.empty() ? "" : ",") + number(sw);
                 return out;
               }});
  t.push_back({"capillary.relperm_tolerance", "two_phase.relperm_tolerance", "1e-3",
               "each phase's flow is steady when its k may still change by less than this (relative; as "
               "run.tolerance for k); k_r's stated error adds k's",
               [](RunSpec& s, const std::string& v) { s.two_phase.relperm_tolerance = parse_double(v); },
               [](const RunSpec& s) { return number(s.two_phase.relperm_tolerance); }});
  t.push_back({"capillary.flow", "two_phase.flow", "off",
               "steady: at each relative permeability point also drive both phases alike from the point's "
               "state by the colour-gradient two-phase model until their fluxes are steady, and report k_r by "
               "flow (the interfaces passing momentum, each phase at its viscosity) beside the quasi-static k_r; "
               "runs on every rank, a Z-slab each (their GPUs where they have them); off: quasi-static k_r only",
               [](RunSpec& s, const std::string& v) { s.two_phase.flow = parse_choice(v, pipeline::two_phase_flow_names); },
               [](const RunSpec& s) { return choice_name(s.two_phase.flow, pipeline::two_phase_flow_names); }});
  t.push_back({"capillary.flow_start", "two_phase.flow_start", "morphology",
               "with capillary.flow: where each point's flow starts: morphology (the point's phases from the "
               "capillary curve) or random (its pore voxels drawn again, each wetting with the point's saturation "
               "as probability: the interfaces then coarsen before they flow, a start that does not depend on the "
               "curve's path)",
               [](RunSpec& s, const std::string& v) {
                 s.two_phase.flow_start = parse_choice(v, pipeline::two_phase_flow_start_names);
               },
               [](const RunSpec& s) { return choice_name(s.two_phase.flow_start, pipeline::two_phase_flow_start_names); }});
  t.push_back({"capillary.wall_wetting", "two_phase.wall_wetting", "phase_field",
               "with capillary.flow or capillary.displacement: how the flow's walls wet: phase_field (each wall "
               "shows the phase field cos theta, LBPM's way; no angle below about 21 degrees is held) or geometric "
               "(the interface is made to meet each wall at theta: 0 degrees gives 6 in a tube of radius 8 voxels, "
               "60 gives 60; not yet the default)",
               [](RunSpec& s, const std::string& v) {
                 s.two_phase.wall_wetting = parse_choice(v, pipeline::two_phase_wall_wetting_names);
               },
               [](const RunSpec& s) { return choice_name(s.two_phase.wall_wetting, pipeline::two_phase_wall_wetting_names); }});
  t.push_back({"capillary.displacement", "two_phase.displacement", "off",
               "on: the capillary pressure curves again by two-phase flow (the unsteady protocol): the sample "
               "between a reservoir of the non-wetting phase at the inlet and one of the wetting phase at the "
               "outlet, each pressure of the drainage curve held in turn (the imbibition's after it with "
               "capillary.curves=both) until the saturation settles; each pressure's saturation beside the "
               "quasi-static one, with the capillary number the displacement reached",
               [](RunSpec& s, const std::string& v) { s.two_phase.displacement = parse_switch(v, "on", "off"); },
               [](const RunSpec& s) { return std::string(s.two_phase.displacement ? "on" : "off"); }});
  t.push_back({"capillary.displacement_steps", "two_phase.displacement_steps", "200000",
               "with capillary.displacement: at most this many steps per pressure (one that has not settled by "
               "then is reported as it stood, said so)",
               [](RunSpec& s, const std::string& v) { s.two_phase.displacement_steps = parse_integer(v); },
               [](const RunSpec& s) { return std::to_string(s.two_phase.displacement_steps); }});
  t.push_back({"capillary.viscosity_ratio", "two_phase.viscosity_ratio", "1",
               "with capillary.flow or capillary.displacement: the non-wetting phase's dynamic viscosity over the wetting phase's, in "
               "[0.05, 20] (oil/brine about 1-10)",
               [](RunSpec& s, const std::string& v) { s.two_phase.viscosity_ratio = parse_double(v); },
               [](const RunSpec& s) { return number(s.two_phase.viscosity_ratio); }});
  t.push_back({"capillary.capillary_number", "two_phase.capillary_number", "1e-3",
               "with capillary.flow: the drive's capillary number mu_w q / sigma, q the single-phase Darcy "
               "velocity it would give, in [1e-6, 1e-2]; a lab's steady state is 1e-6-1e-5, where the model's "
               "spurious currents (mu u / sigma about 7e-4) outrun the flow",
               [](RunSpec& s, const std::string& v) { s.two_phase.capillary_number = parse_double(v); },
               [](const RunSpec& s) { return number(s.two_phase.capillary_number); }});
  t.push_back({"capillary.flow_tolerance", "two_phase.flow_tolerance", "1e-2",
               "with capillary.flow: each phase's flux is steady when what it may still change plus the noise "
               "of its mean is below this (relative; for a k_r below 0.1 absolute, this times 0.1)",
               [](RunSpec& s, const std::string& v) { s.two_phase.flow_tolerance = parse_double(v); },
               [](const RunSpec& s) { return number(s.two_phase.flow_tolerance); }});
  t.push_back({"capillary.wetting_labels", "two_phase.wetting_labels", "",
               "with capillary.flow: label:angle pairs, e.g. \"3:30,4:120\": the walls of that solid label show "
               "that contact angle (degrees, through the wetting phase) in the two-phase flow (mixed "
               "wettability); other walls capillary.theta's; the quasi-static curves keep one angle",
               [](RunSpec& s, const std::string& v) {
                 s.two_phase.wetting_labels.clear();
                 std::istringstream items(v);
                 std::string item;
                 while (std::getline(items, item, ',')) {
                   const std::size_t colon = item.find(':');
                   if (colon == std::string::npos) {
                     throw InputError("'" + item + "' is not label:angle, e.g. 3:30");
                   }
                   const double label = parse_double(item.substr(0, colon));
                   if (!(label >= 0 && label <= 65535 && label == std::floor(label))) {
                     throw InputError("'" + item.substr(0, colon) + "' is not a label (0-65535)");
                   }
                   s.two_phase.wetting_labels.push_back({static_cast<std::uint32_t>(label), parse_double(item.substr(colon + 1))});
                 }
               },
               [](const RunSpec& s) {
                 std::string out;
                 for (const auto& w : s.two_phase.wetting_labels) {
                   out += (out.empty() ? "" : ",") + std::to_string(w.label) + ":" + number(w.theta_deg);
                 }
                 return out;
               }});
  // [forchheimer]: beyond Darcy, a rate sweep after k (pipeline/forchheimer.hpp)
  t.push_back({"forchheimer.sweep", "forchheimer.sweep", "off",
               "on: after k, raise the drive in steps to forchheimer.max_reynolds and report the apparent "
               "permeability k_app at each pore Reynolds number, Forchheimer's beta (1/k_app = 1/k + beta rho q / mu) "
               "and where k_app falls 1 % and 10 % below k; off: creeping flow only",
               [](RunSpec& s, const std::string& v) { s.forchheimer.enabled = parse_switch(v, "on", "off"); },
               [](const RunSpec& s) { return std::string(s.forchheimer.enabled ? "on" : "off"); }});
  t.push_back({"forchheimer.max_reynolds", "forchheimer.max_reynolds", "10",
               "the sweep's top pore Reynolds number, Re = rho (q / phi) d / mu on the pore diameter d = 4 phi / S",
               [](RunSpec& s, const std::string& v) { s.forchheimer.max_reynolds = parse_double(v); },
               [](const RunSpec& s) { return number(s.forchheimer.max_reynolds); }});
  t.push_back({"forchheimer.min_reynolds", "forchheimer.min_reynolds", "auto",
               "the sweep's first pore Reynolds number above the creeping run; auto: forchheimer.max_reynolds / 100",
               [](RunSpec& s, const std::string& v) { s.forchheimer.min_reynolds = v == "auto" ? 0.0 : parse_double(v); },
               [](const RunSpec& s) {
                 return s.forchheimer.min_reynolds > 0 ? number(s.forchheimer.min_reynolds) : std::string("auto");
               }});
  t.push_back({"forchheimer.points", "forchheimer.points", "8",
               "rates in the sweep above the creeping run, geometric from forchheimer.min_reynolds to "
               "forchheimer.max_reynolds (at least 2)",
               [](RunSpec& s, const std::string& v) { s.forchheimer.points = static_cast<int>(parse_integer(v)); },
               [](const RunSpec& s) { return std::to_string(s.forchheimer.points); }});
  t.push_back({"forchheimer.tolerance", "forchheimer.tolerance", "1e-3",
               "each rate's flow is steady when its k_app may still change by less than this (relative; as "
               "run.tolerance for k)",
               [](RunSpec& s, const std::string& v) { s.forchheimer.tolerance = parse_double(v); },
               [](const RunSpec& s) { return number(s.forchheimer.tolerance); }});
}

}  // namespace rockperm::app::option_rows
