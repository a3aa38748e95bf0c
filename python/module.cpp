// The Python module `rockperm` (issue 37): a numpy mask in, a typed result out, through the
// library's run object (pipeline::run) with the options of `rockperm run` (app/options.hpp):
// the same names, the same validation, the same messages, the same report.json.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "lib/base/build_info.hpp"
#include "rockperm/config.hpp"
#include "lib/base/error.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/report.hpp"
#include "pipeline/run.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/memory_plan.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/tensor.hpp"
#include "pipeline/two_phase.hpp"

namespace py = pybind11;
using namespace rockperm;

namespace {

// The mask of a numpy array indexed [z, y, x] (C order: x fastest, as raw volumes): bool (True =
// pore), or integer labels mapped through the spec's pore and grey labels.
geometry::PoreMask mask_of(const py::array& array, const pipeline::SampleSpec& spec) {
  if (array.ndim() != 3) {
    throw InputError("the mask must be a 3-D array indexed [z, y, x], not " + std::to_string(array.ndim()) + "-D");
  }
  const geometry::Dims dims{array.shape(2), array.shape(1), array.shape(0)};
  geometry::PoreMask mask{dims, std::vector<std::uint8_t>(dims.voxels())};
  const py::dtype dt = array.dtype();
  const char kind = dt.kind();
  if (kind == 'b') {  // bool: True is pore
    const auto a = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(array);
    const bool* p = a.data();
    for (std::size_t i = 0; i < mask.pore.size(); ++i)
      mask.pore[i] = p[i] ? geometry::PoreMask::open : geometry::PoreMask::solid;
    return mask;
  }
  if (kind != 'u' && kind != 'i') {
    throw InputError("the mask must hold bool (True = pore) or integer labels, not " + py::cast<std::string>(py::str(static_cast<const py::handle&>(dt))));
  }
  geometry::check_map_fits(spec.grey_map, static_cast<int>(dt.itemsize()), "the numpy array");
  const std::vector<std::uint8_t> lut = geometry::label_codes(spec.open_labels(), spec.grey());
  const auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(array);
  const std::int64_t* p = a.data();
  for (std::size_t i = 0; i < mask.pore.size(); ++i) {
    if (p[i] < 0 || p[i] > 65535) throw InputError("mask labels must lie in 0..65535; found " + std::to_string(p[i]));
    mask.pore[i] = lut[static_cast<std::size_t>(p[i])];
  }
  return mask;
}

// "--section.key=value" of a Python value (bool: on/off; sequences joined by spaces: dims)
std::string option_value(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "on" : "off";
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::string out;
    for (const auto& item : v) out += (out.empty() ? "" : " ") + std::string(py::str(item));
    return out;
  }
  return py::str(v);
}

std::vector<std::string> arguments(const py::dict& options) {
  std::vector<std::string> args;
  for (const auto& [key, value] : options) {
    if (value.is_none()) continue;
    args.push_back("--" + std::string(py::str(key)) + "=" + option_value(value));
  }
  return args;
}

// The options of a call parsed as rockperm run parses them; a key it does not know is named in
// Python's words (an options key, not a command-line flag).
app::RunOptions parsed_options(const py::dict& options) {
  bool help = false;
  try {
    return app::parse_run_options(arguments(options), help, false);
  } catch (const InputError& e) {
    std::string text = e.what();
    const std::string flag = "command line: ", see = "; see rockperm run --help";
    if (text.rfind(flag, 0) != 0) throw;
    text = text.substr(flag.size());
    if (const auto at = text.find(see); at != std::string::npos) text.erase(at);
    for (std::size_t at = text.find("'--"); at != std::string::npos; at = text.find("'--", at)) text.erase(at + 1, 2);
    throw InputError("options: " + text +
                     "; the keys are the options of rockperm run by name, as in options={\"run.tolerance\": 1e-5} "
                     "(every one in docs/reference/options.md)");
  }
}

// A run's status as its exception (docs/manual/running-a-sample.md, "Statuses and exit codes"); converged and
// not_converged come back as a result.
py::object exception_for(pipeline::RunStatus s, const py::module_& m) {
  switch (s) {
    case pipeline::RunStatus::input_error: return m.attr("InputError");
    case pipeline::RunStatus::invalid_physics: return m.attr("InvalidPhysics");
    case pipeline::RunStatus::diverged: return m.attr("Diverged");
    case pipeline::RunStatus::output_error: return m.attr("OutputError");
    case pipeline::RunStatus::runtime_error: return m.attr("RuntimeFailure");
    default: return m.attr("Error");
  }
}

struct Result {
  pipeline::SampleResult result;
  std::optional<std::string> report;  // report.json's path (none: a temporary directory, removed)

  bool tensor() const { return result.tensor != nullptr; }
  // a quantity of one run's flow; NaN for a tensor (its values are per axis: Result.tensor) and
  // for F alone (rockperm.formation_factor: no flow solved)
  double of_run(double value) const {
    return tensor() || result.formation_factor_alone() ? std::numeric_limits<double>::quiet_NaN() : value;
  }
};

// A number as %.*g would print it.
std::string number(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

// What a Result says of itself: the status, k with its error (or that it was not solved), F with
// its error where made, the axis and the porosity; a tensor's diagonal.
std::string describe(const Result& r) {
  const pipeline::SampleResult& s = r.result;
  std::string out = "<rockperm.Result " + std::string(pipeline::to_string(s.status)) + ": ";
  const auto error = [](double value, double relative) {
    return std::isfinite(relative) ? " +- " + number(relative * std::abs(value), 2) : std::string(" +- ?");
  };
  if (r.tensor()) {
    const auto d = s.tensor->diagonal_md();
    if (d[0] > 0 || d[1] > 0 || d[2] > 0) {
      out += "tensor, kxx = " + number(d[0], 6) + ", kyy = " + number(d[1], 6) + ", kzz = " + number(d[2], 6) + " mD";
    } else {
      out += "k not solved (F alone, per axis in to_dict())";
    }
    return out + ">";
  }
  if (s.formation_factor_alone()) {
    out += "k not solved";
  } else if (s.steps > 0) {
    out += "k = " + number(s.k.k_md, 6) + error(s.k.k_md, s.error_estimate) + " mD";
  } else {
    out += "no k (" + s.message + ")";
  }
  if (s.conduction.done) out += ", F = " + number(s.conduction.formation_factor, 6) + error(s.conduction.formation_factor, s.conduction.error);
  out += " along " + std::string(1, "xyz"[s.flow.flow_axis]) + ", porosity " + number(s.porosity(), 4);
  if (s.grey.any()) out += " (total " + number(s.total_porosity(), 4) + ")";
  return out + ">";
}


constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

// A field of a result as a numpy array over the result's memory (kept alive by the array):
// velocity [z, y, x, 3] or pressure [z, y, x].
py::array field_array(const Result& r, bool velocity) {
  const std::shared_ptr<const pipeline::FlowFields>& f = r.result.fields;
  if (!f) {
    throw InputError(r.result.tensor ? "a tensor keeps no fields: run one axis with fields=True"
                                     : "this result keeps no fields: run with fields=True");
  }
  const geometry::Dims& d = f->dims;
  const std::vector<float>& data = velocity ? f->velocity : f->pressure;
  auto* keep = new std::shared_ptr<const pipeline::FlowFields>(f);
  py::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<const pipeline::FlowFields>*>(p); });
  std::vector<py::ssize_t> shape{d.nz, d.ny, d.nx};
  if (velocity) shape.push_back(3);
  py::array a(py::dtype::of<float>(), shape, {}, data.data(), owner);
  a.attr("setflags")(py::arg("write") = false);  // every call shares the result's memory: read-only
  return a;
}

}  // namespace

PYBIND11_MODULE(_rockperm, m) {
  m.doc() = "rockperm's library: permeability of a segmented volume held in memory";
  m.attr("__version__") = ROCKPERM_VERSION;
  m.attr("__commit__") = build_commit();
  // the classes of the statuses, each translated from the library's error (most derived first)
  const py::object error = py::register_exception<Error>(m, "Error");
  // a bad value is also a ValueError, as Python users catch it
  py::register_exception<InputError>(m, "InputError", py::make_tuple(error, py::handle(PyExc_ValueError)));
  py::register_exception<PhysicsError>(m, "InvalidPhysics", error);
  py::register_exception<SimulationError>(m, "Diverged", error);
  py::register_exception<OutputError>(m, "OutputError", error);
  py::register_exception<RuntimeFailure>(m, "RuntimeFailure", error);

  py::class_<Result>(m, "Result", "The typed result of a run (report.json as to_dict())")
      .def_property_readonly("status", [](const Result& r) { return pipeline::to_string(r.result.status); })
      .def_property_readonly("message", [](const Result& r) { return r.result.message; })
      .def_property_readonly("k_mD", [](const Result& r) { return r.of_run(r.result.k.k_md); },
                             "k in mD; NaN for axis='all' (see tensor)")
      .def_property_readonly("k_m2", [](const Result& r) { return r.of_run(r.result.k.k_m2); })
      .def_property_readonly("k_lattice", [](const Result& r) { return r.of_run(r.result.k.k_lattice); },
                             "k in voxel^2")
      .def_property_readonly("k_error", [](const Result& r) { return r.of_run(r.result.error_estimate); },
                             "relative remaining change of k estimated from its history (convergence)")
      .def_property_readonly("k_error_mD", [](const Result& r) {
        return r.of_run(r.result.converged() || r.result.status == pipeline::RunStatus::not_converged
                            ? r.result.error_estimate * r.result.k.k_md : not_a_number);
      }, "the same in mD (report.json's k_error_estimate_mD)")
      .def_property_readonly("formation_factor", [](const Result& r) {
        return r.result.conduction.done ? r.result.conduction.formation_factor : not_a_number;
      }, "formation_factor=True: F = sigma_w / sigma_eff along the axis (brine in the pores, grains insulating); NaN "
         "where not asked for or not made")
      .def_property_readonly("formation_factor_error", [](const Result& r) {
        return r.result.conduction.done ? r.result.conduction.error : not_a_number;
      }, "relative error of F stated by its solve")
      .def_property_readonly("tortuosity_factor", [](const Result& r) {
        return r.result.conduction.done ? r.result.conduction.tortuosity_factor : not_a_number;
      }, "F times the porosity (resolved and grey pores)")
      .def_property_readonly("cementation_exponent", [](const Result& r) {
        return r.result.conduction.done ? r.result.conduction.cementation_exponent : not_a_number;
      }, "Archie's m = -ln F / ln porosity")
      .def_property_readonly("porosity", [](const Result& r) {
        if (!r.tensor()) return r.result.porosity();
        for (const auto& a : r.result.tensor->axes) {
          if (a && a->porosity) return *a->porosity;
        }
        return not_a_number;
      }, "porosity of the resolved pores of the mask (grey voxels not counted)")
      .def_property_readonly("total_porosity", [](const Result& r) {
        return r.tensor() ? not_a_number : r.result.total_porosity();
      }, "the total porosity a lab measures: the resolved pores and each grey phase's own porosity times its "
         "voxels (porosity where no grey phase is declared; NaN for axis='all')")
      .def_property_readonly("connected_porosity", [](const Result& r) { return r.of_run(r.result.connected_porosity()); },
                             "porosity of the pores joined to both flow faces (NaN for axis='all': per axis in to_dict())")
      .def_property_readonly("steps", [](const Result& r) {
        if (!r.tensor()) return r.result.steps;
        std::int64_t steps = 0;
        for (const auto& a : r.result.tensor->axes) steps += a ? a->steps : 0;
        return steps;
      }, "steps run (axis='all': of the three runs together)")
      .def_property_readonly("report_path", [](const Result& r) -> py::object {
        return r.report ? py::object(py::str(*r.report)) : py::object(py::none());
      }, "report.json in output_dir; None when the run worked in a temporary directory")
      .def_property_readonly("warnings", [](const Result& r) {
        py::list out;
        for (const pipeline::Warning& w : r.result.warnings) out.append(py::make_tuple(w.code, w.message));
        return out;
      }, "the run's warnings as (code, message) pairs")
      .def_property_readonly("tensor", [](const Result& r) -> py::object {
        if (!r.result.tensor) return py::none();
        py::array_t<double> t({3, 3});
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            t.mutable_at(i, j) = r.result.tensor->known[i][j] ? r.result.tensor->k_md[i][j]
                                                               : std::numeric_limits<double>::quiet_NaN();
        return t;
      }, "axis='all': the permeability tensor in mD, 3x3 [i, j] with x, y, z = 0, 1, 2 (NaN where not measured); "
         "None otherwise")
      .def("velocity", [](const Result& r) { return field_array(r, true); },
           "fields=True: the velocity (m/s) of every voxel of the mask, [z, y, x, 3] float32 with components "
           "(ux, uy, uz), 0 where nothing flows, for the pressure gradient and viscosity of the options "
           "output.fields.pressure_gradient_pa_per_m and output.fields.viscosity_pa_s (1e5 Pa/m, water)")
      .def("pressure", [](const Result& r) { return field_array(r, false); },
           "fields=True: the pressure (Pa) of every voxel of the mask, [z, y, x] float32, the deviation from the "
           "mean gradient's; NaN where nothing flows")
      .def("phases", [](const Result& r, const std::string& curve, std::size_t point) {
        const auto& state = r.result.two_phase_state;
        if (!state) throw InputError("this result keeps no phases: run capillary_pressure or relative_permeability with phases=True");
        const geometry::Dims d = state->dims();
        std::vector<std::uint8_t> p = state->phases(curve, point);
        py::array_t<std::uint8_t> out({d.nz, d.ny, d.nx});
        std::copy(p.begin(), p.end(), out.mutable_data());
        return out;
      }, py::arg("curve"), py::arg("point"),
         "phases=True: the phases at point `point` of `curve` ('drainage' or 'imbibition') as uint8 [z, y, x]: 0 "
         "solid, 1 wetting, 2 non-wetting (the sample's voxels, the pores cut off from the faces solid)")
      .def("to_dict", [](const Result& r) {
        const std::string text = r.result.tensor ? pipeline::tensor_json(*r.result.tensor, r.result.input.name)
                                                 : pipeline::to_json(r.result);
        return py::module_::import("json").attr("loads")(text);
      }, "report.json as a dict")
      .def("__repr__", [](const Result& r) { return describe(r); });

  m.def(
      "_run",
      [m](const py::array& mask, const py::dict& options, const py::object& progress, bool keep_fields, bool temporary,
          bool overwrite, bool keep_phases) {
        const app::RunOptions parsed = parsed_options(options);
        app::validate_run_options(parsed);
        // the mask as the volume the run (the tensor's axes, the resolution study) reads
        std::optional<pipeline::ReadVolume> volume;
        try {
          volume = pipeline::volume_from_mask(mask_of(mask, parsed.spec.sample),
                                              parsed.spec.sample.volume.voxel_size_um, "numpy array");
        } catch (const InputError& e) {
          PyErr_SetString(m.attr("InputError").ptr(), app::option_message(e).c_str());
          throw py::error_already_set();
        }
        pipeline::RunRequest request;
        request.spec = parsed.spec;
        // a temporary directory is the call's own; a directory the caller names follows the command
        // line's rule: an earlier run's results are refused unless overwrite=True
        request.use = temporary || overwrite ? pipeline::DirectoryUse::overwrite : pipeline::DirectoryUse::fresh;
        request.configuration = [](const pipeline::RunSpec& spec) { return app::to_ini(spec); };
        request.command_line = "python: rockperm.permeability";
        request.validate = [&parsed] { app::validate_run_options(parsed); };
        // the run directory's refusal in Python's words (overwrite=True, no --resume here)
        request.describe_input = [](const InputError& e) {
          std::string text = app::option_message(e);
          const std::string cli = "replace it with --overwrite, or continue it with --resume ";
          if (const auto at = text.find(cli); at != std::string::npos) {
            const auto end = text.find_first_of(" [", at + cli.size());
            text.replace(at, (end == std::string::npos ? text.size() : end) - at, "or replace it with overwrite=True");
          }
          return text;
        };
        request.volume = [&volume]() -> const pipeline::ReadVolume& { return *volume; };
        request.keep_fields = keep_fields;
        request.keep_phases = keep_phases;
        // Ctrl-C: Python's handler only marks the signal while this thread holds no GIL; the run
        // asks at every check, stops there (status interrupted), and KeyboardInterrupt follows
        std::atomic<bool> interrupted{false};
        // an exception raised by the progress callback: the run stops at that check and the
        // exception reaches the caller
        std::unique_ptr<py::error_already_set> callback_error;
        std::atomic<bool> callback_failed{false};
        // what a signal handler raised other than KeyboardInterrupt (rockperm's SIGTERM handler:
        // SystemExit) reaches the caller as it is, once the run has stopped
        std::unique_ptr<py::error_already_set> signal_error;
        request.stop_requested = [&interrupted, &callback_failed, &signal_error] {
          if (interrupted || callback_failed) return true;
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) {
            if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) PyErr_Clear();
            else signal_error = std::make_unique<py::error_already_set>();
            interrupted = true;
          }
          return interrupted.load();
        };
        if (!progress.is_none()) {
          request.progress = [&progress, &callback_error, &callback_failed](const solve::Progress& p) {
            if (callback_failed) return;
            py::gil_scoped_acquire gil;
            try {
              progress(p.step, p.k.k_md, p.error_estimate, p.seconds);
            } catch (py::error_already_set& e) {
              callback_error = std::make_unique<py::error_already_set>(std::move(e));
              callback_failed = true;
            }
          };
        }
        Result r;
        if (!temporary) r.report = (parsed.spec.output.dir / "report.json").string();
        try {
          py::gil_scoped_release release;
          r.result = pipeline::run(parallel::Comm(), request);
        } catch (const Error& e) {
          if (interrupted) throw py::error_already_set();  // unreachable: a stop returns a result
          if (callback_error) throw py::error_already_set(std::move(*callback_error));
          if (signal_error) throw py::error_already_set(std::move(*signal_error));
          pipeline::SampleResult failed;
          pipeline::record_failure(e, request.describe_input, failed);
          PyErr_SetString(exception_for(failed.status, m).ptr(), failed.message.c_str());
          throw py::error_already_set();
        }
        if (callback_error) throw py::error_already_set(std::move(*callback_error));
        if (signal_error) throw py::error_already_set(std::move(*signal_error));
        if (interrupted || r.result.status == pipeline::RunStatus::interrupted) {
          const std::string text = "rockperm: stopped at step " + std::to_string(r.result.steps) + " (interrupted); " +
                                   (temporary ? std::string("give output_dir to keep a stopped run's checkpoint")
                                              : "its checkpoint is in " + parsed.spec.output.dir.string());
          PyErr_SetString(PyExc_KeyboardInterrupt, text.c_str());
          throw py::error_already_set();
        }
        return r;
      },
      py::arg("mask"), py::arg("options"), py::arg("progress") = py::none(), py::arg("fields") = false,
      py::arg("temporary") = false, py::arg("overwrite") = false, py::arg("phases") = false);

  m.def(
      "_plan",
      [m](const py::array& mask, const py::dict& options, int ranks, const std::vector<double>& gib) {
        const app::RunOptions parsed = parsed_options(options);
        app::validate_run_options(parsed);
        const pipeline::RunSpec& spec = parsed.spec;
        const pipeline::ReadVolume volume =
            pipeline::volume_from_mask(mask_of(mask, spec.sample), spec.sample.volume.voxel_size_um, "numpy array");
        const pipeline::Sample sample = pipeline::read_sample(parallel::Comm(), volume, spec.sample, spec.flow);
        const pipeline::SamplePlan plan = pipeline::plan_sample(sample, ranks, gib);
        py::list layouts;
        for (const pipeline::LayoutPlan& l : plan.layouts) {
          py::list slabs;
          for (const parallel::RankMemory& r : l.ranks) {
            slabs.append(py::dict(py::arg("planes") = py::make_tuple(r.slab.z_begin, r.slab.z_end),
                                  py::arg("cells") = r.cells, py::arg("bytes") = r.bytes));
          }
          py::dict fewest;
          for (const auto& [g, n] : l.fewest_gpus) fewest[py::float_(g)] = n;
          layouts.append(py::dict(py::arg("propagation") = to_string(l.propagation),
                                  py::arg("storage") = to_string(l.storage),
                                  py::arg("bytes_per_cell") = l.bytes_per_cell, py::arg("bytes") = l.total_bytes,
                                  py::arg("index_bytes") = l.index_bytes,
                                  py::arg("bytes_moved_per_update") = l.traffic_per_update,
                                  py::arg("ranks") = slabs, py::arg("fewest_gpus") = fewest));
        }
        return py::dict(py::arg("dims") = py::make_tuple(plan.dims.nx, plan.dims.ny, plan.dims.nz),
                        py::arg("porosity") = plan.porosity, py::arg("connected_porosity") = plan.connected_porosity,
                        py::arg("fluid_cells") = plan.fluid, py::arg("layouts") = layouts);
      },
      py::arg("mask"), py::arg("options"), py::arg("ranks"), py::arg("gpu_memory_gib"));

  m.def(
      "_read",
      [](const py::dict& options) {
        const app::RunOptions parsed = parsed_options(options);
        parsed.spec.sample.validate();
        const pipeline::ReadVolume v = pipeline::read_volume(parsed.spec.sample, false);
        const geometry::PoreMask& mask = v.loaded.mask;
        const geometry::Dims& d = mask.dims;
        py::array_t<std::uint8_t> out({d.nz, d.ny, d.nx});
        std::copy(mask.pore.begin(), mask.pore.end(), out.mutable_data());
        return py::make_tuple(out, v.loaded.voxel_size_um);
      },
      py::arg("options"));
}
