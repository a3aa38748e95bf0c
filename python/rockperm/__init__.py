"""rockperm from Python: the permeability of a segmented volume held in a numpy array.

    import numpy as np, rockperm
    mask = rockperm.read("scan.raw", dims=(512, 512, 512), voxel_size_um=5.3)   # bool, [z, y, x]
    r = rockperm.permeability(mask, voxel_size_um=5.3, axis="z", fields=True)
    print(r.k_mD, r.k_error, r.status); report = r.to_dict()   # report.json as a dict
    uz = r.velocity()[..., 2]                                  # m/s, [z, y, x]
    t = rockperm.permeability(mask, voxel_size_um=5.3, axis="all").tensor   # 3x3, mD

Arrays are indexed [z, y, x] in C order (x fastest), as raw volumes and TIFF stacks are stored:
numpy axis 2 is x, 1 is y, 0 is z; an integer `axis` is a numpy axis of the array (0 is z). The
mask means what it means in PoreSpy and OpenPNM: a bool mask, and an integer array of 0 and 1
only, is 1/True where pore. An integer array with other values holds labels: give `pore_labels`
(and `grey_labels`) as in `rockperm run`, or options={"input.grey_map": ...}; without them the
call is refused rather than guessed. Every other option of `rockperm run` is given by its name in
`options`, e.g. options={"run.tolerance": 1e-5}, with the same validation and messages. A bad
value raises InputError (also a ValueError); a wrong type TypeError; a problem without a valid k
InvalidPhysics; NaN or a mass drift Diverged; a CUDA or MPI failure RuntimeFailure; a result
that cannot be written OutputError (all subclasses of rockperm.Error). A run that stops without
converging, and the run's warnings (Reynolds or Mach number too high, ...), are reported through
warnings.warn as RockpermWarning. Ctrl-C stops the run at its next check and raises
KeyboardInterrupt; an exception raised by a progress callback stops it the same way and reaches
the caller; the interpreter stays usable. The solver runs without the GIL.
"""
import numbers as _numbers
import os as _os
import shutil as _shutil
import signal as _signal
import sys as _sys
import tempfile as _tempfile
import threading as _threading
import warnings as _warnings

try:
    import numpy as _np
except ImportError as _e:  # pragma: no cover - depends on the interpreter
    raise ImportError(
        "rockperm needs numpy, which this interpreter (%s) does not have: install it into this interpreter "
        "(python -m pip install numpy), or use one that has it (Debian's /usr/bin/python3 with python3-numpy, "
        "or a venv made with --system-site-packages)" % _sys.executable) from _e

from ._rockperm import (Diverged, Error, InputError, InvalidPhysics, OutputError, Result,
                        RuntimeFailure, __version__)
from . import _rockperm
from ._two_phase import CapillaryCurve, DisplacedCurve, FlowPoint, RelPermPoint, TwoPhase

__all__ = ["permeability", "formation_factor", "capillary_pressure", "relative_permeability", "TwoPhase",
           "CapillaryCurve", "DisplacedCurve", "RelPermPoint", "FlowPoint", "forchheimer", "Forchheimer", "plan", "read", "Result", "Error", "InputError", "InvalidPhysics", "Diverged",
           "OutputError", "RuntimeFailure", "RockpermWarning", "__version__"]


class RockpermWarning(UserWarning):
    """A run's warning (its code in .code) or a run that stopped without converging."""

    def __init__(self, message, code=""):
        super().__init__(message)
        self.code = code


# an integer axis is the numpy axis of the [z, y, x] array
_NUMPY_AXES = {0: "z", 1: "y", 2: "x", -1: "x", -2: "y", -3: "z"}


def _axis(axis):
    if isinstance(axis, str):
        if axis in ("x", "y", "z", "all"):
            return axis
    elif isinstance(axis, _numbers.Integral) and not isinstance(axis, bool):
        if int(axis) in _NUMPY_AXES:
            return _NUMPY_AXES[int(axis)]
    else:
        raise TypeError("axis must be 'x', 'y', 'z', 'all' or a numpy axis of the [z, y, x] array (0 = z, 1 = y, "
                        "2 = x), not %s" % type(axis).__name__)
    raise InputError("axis must be 'x', 'y', 'z', 'all' or a numpy axis of the [z, y, x] array (0 = z, 1 = y, "
                     "2 = x), not %r" % (axis,))


def _mask_and_labels(mask, pore_labels, options):
    """The array as the module reads it, and the pore labels it means: 1/True = pore for bool and for
    integer arrays of 0 and 1 only (PoreSpy's convention); other integer labels need pore_labels."""
    a = _np.asarray(mask)
    if a.dtype == bool:
        return a, pore_labels
    if a.dtype.kind not in "ui":
        raise TypeError("the mask must be a bool array (True = pore) or integer labels, not %s; for a 0/1 float "
                        "array write mask > 0.5" % a.dtype)
    declared = pore_labels is not None or any(k in (options or {}) for k in ("input.pore_labels", "input.grey_map"))
    if declared:
        return a, pore_labels
    lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
    if lo >= 0 and hi <= 1:
        return a, "1"  # 1 = pore, as in PoreSpy and OpenPNM
    raise InputError("the integer mask holds values %d..%d, not only 0 and 1: say which are pore with "
                     "pore_labels (e.g. pore_labels=\"0\" or \"1-3\"), or give options={\"input.grey_map\": ...} "
                     "for CT intensities; a 0/1 or bool mask is 1/True = pore" % (lo, hi))


def _progress_callback(progress):
    if progress is True:
        return _print_progress
    if progress is False or progress is None:
        return None
    if not callable(progress):
        raise TypeError("progress must be True, False or a callable progress(step, k_mD, error_estimate, seconds), "
                        "not %s" % type(progress).__name__)
    return progress


def _warn(result):
    for code, message in result.warnings:
        _warnings.warn(RockpermWarning("rockperm: " + message, code), stacklevel=3)
    if result.status == "not_converged" and not any(code == "not_converged" for code, _ in result.warnings):
        _warnings.warn(RockpermWarning("rockperm: the run stopped without converging: " + result.message,
                                      "not_converged"), stacklevel=3)


def _print_progress(step, k_md, error, seconds):
    error_text = "?" if error != error or error == float("inf") else "%.2e" % error
    print("rockperm: step %8d  k = %.8g mD  error %s  %.1f s" % (step, k_md, error_text, seconds),
          file=_sys.stderr, flush=True)


def permeability(mask, voxel_size_um, axis="x", pore_labels=None, grey_labels=None,
                 inlet_outlet="buffer", lateral="sealed", backend="auto", storage="auto",
                 progress=False, fields=False, output_dir=None, overwrite=False, formation_factor=False,
                 options=None):
    """Runs the sample to steady flow and returns its Result (k_mD, k_error_mD, status, to_dict()).

    mask: 3-D numpy array [z, y, x]: bool or 0/1 integers, 1/True = pore (as in PoreSpy); integer
    labels with pore_labels. voxel_size_um: the edge of a voxel in micrometres. axis: "x", "y" or
    "z", or a numpy axis of the array (0 = z, 1 = y, 2 = x), or "all": a run along each axis and
    the permeability tensor (Result.tensor, 3x3 in mD; k_mD is then NaN; to_dict() the tensor's
    report). inlet_outlet: buffer, mirror or periodic; lateral: sealed or periodic; backend:
    auto, cpu or cuda; storage: auto, fp32 or fp16. progress: True prints a line per check to
    stderr, or a callable progress(step, k_mD, error_estimate, seconds); an exception it raises
    stops the run and is raised here. fields: keep the velocity (m/s) and pressure (Pa) of every
    voxel: Result.velocity() [z, y, x, 3] and Result.pressure() [z, y, x] (one axis only; 16
    bytes per voxel). output_dir: the run directory, kept (report.json, config.ini, the
    checkpoint; Result.report_path); one that holds an earlier run's report or checkpoint is
    refused, as by `rockperm run`, unless overwrite=True (its results are then replaced). Without
    it the run works in a temporary directory that is removed when the call returns, on an
    exception, Ctrl-C or SIGTERM too (Result.report_path is None). formation_factor: also solve the
    electrical conduction of the brine (grains insulating): Result.formation_factor,
    formation_factor_error, tortuosity_factor (F phi) and cementation_exponent (Archie's m), NaN
    where not asked for. options: any other option of
    `rockperm run` by name. Warnings and a run that did not converge: warnings.warn
    (RockpermWarning).
    """
    axis = _axis(axis)
    if fields and axis == "all":
        raise InputError("fields=True keeps the fields of one run: choose axis 'x', 'y' or 'z'")
    callback = _progress_callback(progress)
    mask, pore_labels = _mask_and_labels(mask, pore_labels, options)
    o = _options(voxel_size_um, axis, pore_labels, grey_labels, inlet_outlet, lateral)
    o.update({"run.backend": backend, "run.storage": storage})
    if not isinstance(formation_factor, bool):
        raise TypeError("formation_factor must be True or False, not %s" % type(formation_factor).__name__)
    if formation_factor:
        o["run.formation_factor"] = "on"
    o.update(options or {})
    return _call(mask, o, callback, bool(fields), output_dir, overwrite)


def _call(mask, o, callback, fields, output_dir, overwrite, phases=False):
    """A run of the prepared mask and options in output_dir (None: a temporary directory, removed)."""
    if not isinstance(overwrite, bool):
        raise TypeError("overwrite must be True or False, not %s" % type(overwrite).__name__)
    temporary = output_dir is None
    if temporary:
        output_dir = _tempfile.mkdtemp(prefix="rockperm-")
    o["output.dir"] = _os.fspath(output_dir)
    try:
        with _terminated_as_exit():
            result = _rockperm._run(mask, o, callback, fields, temporary, overwrite, phases)
    finally:
        if temporary:
            _shutil.rmtree(output_dir, ignore_errors=True)
    _warn(result)
    return result


class _terminated_as_exit:
    """SIGTERM during a run (a batch system's cancel, `kill`) stops it at its next check as Ctrl-C
    does and leaves the interpreter by SystemExit(143), so that the temporary directory is removed
    on the way out; where the program has a SIGTERM handler of its own, or this is not the main
    thread, nothing changes."""

    def __enter__(self):
        self._previous = None
        if _threading.current_thread() is _threading.main_thread() and \
                _signal.getsignal(_signal.SIGTERM) is _signal.SIG_DFL:
            self._previous = _signal.signal(_signal.SIGTERM, _terminated)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            _signal.signal(_signal.SIGTERM, self._previous)
        return False


def _terminated(signum, frame):
    raise SystemExit(128 + signum)


def formation_factor(mask, voxel_size_um, axis="x", pore_labels=None, grey_labels=None,
                     inlet_outlet="buffer", lateral="sealed", backend="auto", output_dir=None, overwrite=False,
                     options=None):
    """The formation factor alone: the electrical conduction of the brine (grains insulating) on
    the sample prepared as for permeability(), without solving the flow (`run.formation_factor =
    only`). Returns a Result whose formation_factor, formation_factor_error, tortuosity_factor (F
    phi) and cementation_exponent (Archie's m) are set, and whose k_mD and the other flow values
    are NaN (to_dict()'s permeability None). The arguments are permeability()'s; with axis="all"
    F is solved along each axis in turn: to_dict()["formation_factor"]["diagonal"] gives the three
    (the Result's tensor of k is NaN throughout).
    """
    o = dict(options or {})
    o["run.formation_factor"] = "only"
    return permeability(mask, voxel_size_um, axis=axis, pore_labels=pore_labels, grey_labels=grey_labels,
                        inlet_outlet=inlet_outlet, lateral=lateral, backend=backend, output_dir=output_dir,
                        overwrite=overwrite, options=o)


def _two_phase(mask, voxel_size_um, axis, curves, fluids, sigma, theta, entry, trapping, pressures, count, relperm,
               phases, pore_labels, inlet_outlet, lateral, backend, progress, output_dir, overwrite, options):
    axis = _axis(axis)
    if axis == "all":
        raise InputError("two phases are made along one flow axis: choose 'x', 'y' or 'z'")
    if curves not in ("drainage", "both"):
        raise InputError("curves must be 'drainage' or 'both' (drainage, then imbibition), not %r" % (curves,))
    for name, value in (("trapping", trapping), ("phases", phases)):
        if value is not None and not isinstance(value, bool):
            raise TypeError("%s must be True or False, not %s" % (name, type(value).__name__))
    callback = _progress_callback(progress)
    mask, pore_labels = _mask_and_labels(mask, pore_labels, options)
    o = _options(voxel_size_um, axis, pore_labels, None, inlet_outlet, lateral)
    o.update({"run.backend": backend, "capillary.curves": curves, "capillary.fluids": fluids})
    if sigma is not None:
        o["capillary.sigma"] = sigma
    if theta is not None:
        o["capillary.theta"] = theta
    if entry is not None:
        o["capillary.entry"] = entry
    if trapping is not None:
        o["capillary.trapping"] = trapping
    if pressures is not None:
        values = [float(p) for p in _np.atleast_1d(_np.asarray(pressures, dtype=float))]
        o["capillary.pressures"] = ",".join(repr(p) for p in values)
    else:
        if isinstance(count, bool) or not isinstance(count, _numbers.Integral):
            raise TypeError("count must be an integer, not %s" % type(count).__name__)
        o["capillary.pressure_count"] = int(count)
    if isinstance(relperm, bool):
        raise TypeError("relperm must be a count or saturations, not bool")
    if isinstance(relperm, _numbers.Integral):
        o["capillary.relperm"] = int(relperm)
    else:
        values = [float(s) for s in _np.atleast_1d(_np.asarray(relperm, dtype=float))]
        if not values:
            raise InputError("relperm: give a count or at least one saturation in (0, 1)")
        o["capillary.relperm"] = ",".join(repr(v) for v in values)
    o.update(options or {})
    return TwoPhase(_call(mask, o, callback, False, output_dir, overwrite, bool(phases)))


def capillary_pressure(mask, voxel_size_um, axis="x", curves="drainage", fluids="brine-air", sigma=None, theta=None,
                       entry=None, trapping=None, pressures=None, count=20, phases=False, pore_labels=None,
                       inlet_outlet="buffer", lateral="sealed", backend="auto", progress=False, output_dir=None,
                       overwrite=False, displacement=False, options=None):
    """Capillary pressure curves of the mask by pore morphology (Hilpert & Miller 2001): drainage,
    or both (drainage, then imbibition). Returns a TwoPhase.

    fluids: 'brine-air' (sigma 0.072 N/m, theta 0, entry at the inlet face, wetting phase trapped)
    or 'mercury' (0.485 N/m, 140 degrees, all faces, no trapping: MICP); sigma (N/m), theta
    (degrees: below 90 through the wetting phase, above it through the invading one), entry
    ('inlet', 'both', 'all') and trapping override them. pressures: Pa, rising; else `count` of
    them from the entry pressure to that of a one-voxel radius. phases=True keeps the phases of
    every point (TwoPhase.phases(curve, point)). The single-phase k is solved too (Leverett's J
    needs it). The other arguments are permeability()'s; options: any `capillary.*` or other
    option of `rockperm run`.

    displacement=True also makes the curves by two-phase flow (TwoPhase.displaced_drainage and
    displaced_imbibition): the sample between a non-wetting reservoir at the inlet and a wetting one
    at the outlet, each pressure held by the colour-gradient model until S_w settles (at most
    `capillary.displacement_steps` steps each, an option).
    """
    if not isinstance(displacement, bool):
        raise TypeError("displacement must be True or False, not %s" % type(displacement).__name__)
    extra = {"capillary.displacement": "on"} if displacement else {}
    extra.update(options or {})
    return _two_phase(mask, voxel_size_um, axis, curves, fluids, sigma, theta, entry, trapping, pressures, count, 0,
                      phases, pore_labels, inlet_outlet, lateral, backend, progress, output_dir, overwrite, extra)


def relative_permeability(mask, voxel_size_um, saturations=5, axis="x", curves="drainage", fluids="brine-air",
                          sigma=None, theta=None, entry=None, trapping=None, pressures=None, count=20, phases=False,
                          pore_labels=None, inlet_outlet="buffer", lateral="sealed", backend="auto", progress=False,
                          output_dir=None, overwrite=False, flow=False, viscosity_ratio=None, capillary_number=None,
                          flow_start=None, options=None):
    """Quasi-static relative permeabilities: k of each phase by the flow solve in the cells it holds
    on the capillary pressure curves (the other phase a no-slip wall, which neglects the momentum
    passed across the interface), over the single-phase k. saturations: a count of points spread
    over each curve's two-phase range, or wetting saturations in (0, 1) (the curves' points nearest
    them; one no curve reaches is refused, naming the nearest reached). Returns a TwoPhase whose
    relperm lists the points. The other arguments are capillary_pressure()'s.

    flow=True also runs two-phase flow at every point (the colour-gradient model from the point's
    phases, both driven alike until their flows are steady; RelPermPoint.flow): viscosity_ratio
    (the non-wetting phase's dynamic viscosity over the wetting one's, default 1),
    capillary_number (of the drive, default 1e-3) and flow_start ("morphology", the default: the
    point's phases; "random": its pore voxels drawn again at its saturation) set it.
    """
    if not isinstance(flow, bool):
        raise TypeError("flow must be True or False, not %s" % type(flow).__name__)
    extra = {}
    if flow:
        extra["capillary.flow"] = "steady"
    for name, value, key in (("viscosity_ratio", viscosity_ratio, "capillary.viscosity_ratio"),
                             ("capillary_number", capillary_number, "capillary.capillary_number")):
        if value is None:
            continue
        if not flow:
            raise InputError("%s sets the two-phase flow: give flow=True with it" % name)
        if isinstance(value, bool) or not isinstance(value, _numbers.Real):
            raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
        extra[key] = float(value)
    if flow_start is not None:
        if not flow:
            raise InputError("flow_start sets the two-phase flow: give flow=True with it")
        if flow_start not in ("morphology", "random"):
            raise InputError("flow_start must be 'morphology' or 'random', not %r" % (flow_start,))
        extra["capillary.flow_start"] = flow_start
    extra.update(options or {})
    return _two_phase(mask, voxel_size_um, axis, curves, fluids, sigma, theta, entry, trapping, pressures, count,
                      saturations, phases, pore_labels, inlet_outlet, lateral, backend, progress, output_dir,
                      overwrite, extra)


class Forchheimer:
    """A rate sweep beyond Darcy (forchheimer()): per rate, numpy arrays reynolds (the pore Reynolds
    number rho (q/phi) d / mu), reynolds_k (rho q sqrt(k_app) / mu), rho_q_over_mu (1/m), k_app_mD,
    k_app_over_k, k_app_error (relative, the stop's; NaN where unknown), k_app_lattice_error
    (relative, one-sided: the lattice's own error at speed), mach, tau, steps and converged (bool);
    point 0 is the creeping run. k_mD: the creeping k; fitted (False where the sweep has fewer than
    two rates past a 1 % fall of k_app: note says why), and then Forchheimer's line
    1/k_app = 1/k + beta rho q / mu: fit_k_mD, beta_per_m, c_F (beta sqrt(k), Ward's), fit_residual;
    NaN otherwise. reynolds_1pct and reynolds_10pct: the pore Re where k_app first falls 1 % and
    10 % below k (NaN: beyond the sweep). pore_diameter_um: d. result: the run's Result (to_dict()
    holds report.json)."""

    def __init__(self, result):
        f = result.to_dict()["forchheimer"]
        nan = float("nan")
        p = f["points"]
        self.result = result
        self.reynolds = _np.asarray(p["reynolds"], dtype=float)
        self.reynolds_k = _np.asarray(p["reynolds_k"], dtype=float)
        self.rho_q_over_mu = _np.asarray(p["rho_q_over_mu_per_m"], dtype=float)
        self.k_app_mD = _np.asarray(p["k_app_mD"], dtype=float)
        self.k_app_over_k = _np.asarray(p["k_app_over_k"], dtype=float)
        self.k_app_error = _np.asarray([nan if e is None else e for e in p["k_app_error"]], dtype=float)
        self.k_app_lattice_error = _np.asarray(p["k_app_lattice_error"], dtype=float)
        self.mach = _np.asarray(p["mach"], dtype=float)
        self.tau = _np.asarray(p["tau"], dtype=float)
        self.steps = _np.asarray(p["steps"], dtype=_np.int64)
        self.converged = _np.asarray(p["converged"], dtype=bool)
        self.k_mD = f["k_mD"]
        self.pore_diameter_um = f["pore_diameter_um"]
        fit = f["fit"]
        self.fitted = fit is not None
        self.fit_k_mD = fit["k_mD"] if fit else nan
        self.beta_per_m = fit["beta_per_m"] if fit else nan
        self.c_F = fit["c_F"] if fit else nan
        self.fit_residual = fit["residual"] if fit else nan
        self.reynolds_1pct = nan if f["reynolds_1pct"] is None else f["reynolds_1pct"]
        self.reynolds_10pct = nan if f["reynolds_10pct"] is None else f["reynolds_10pct"]
        self.note = f["note"]

    def __repr__(self):
        return "<rockperm.Forchheimer %d rate(s) to Re %.3g: beta %.4g 1/m, k_app/k %.4f at the top>" % (
            len(self.reynolds), self.reynolds[-1] if len(self.reynolds) else float("nan"), self.beta_per_m,
            self.k_app_over_k[-1] if len(self.k_app_over_k) else float("nan"))


def forchheimer(mask, voxel_size_um, max_reynolds=10.0, points=8, min_reynolds=None, axis="x", pore_labels=None,
                inlet_outlet="buffer", lateral="sealed", backend="auto", progress=False, output_dir=None,
                overwrite=False, options=None):
    """Beyond Darcy: k, then the drive raised in `points` rates geometric from min_reynolds (None: a
    hundredth of max_reynolds) to max_reynolds (the pore Reynolds number rho (q/phi) d / mu, d = 4
    phi / S), each rate's apparent permeability k_app, and Forchheimer's beta fitted. Returns a
    Forchheimer. A top the lattice cannot reach on the sample's pores raises InputError naming the
    reach. The other arguments are permeability()'s; options: any `forchheimer.*` or other option
    of `rockperm run`.
    """
    axis = _axis(axis)
    if axis == "all":
        raise InputError("a Forchheimer sweep runs along one flow axis here: choose 'x', 'y' or 'z' "
                         "(rockperm run with lbm.flow_axis = all makes one per axis)")
    if isinstance(points, bool) or not isinstance(points, _numbers.Integral):
        raise TypeError("points must be an integer, not %s" % type(points).__name__)
    for name, value in (("max_reynolds", max_reynolds), ("min_reynolds", min_reynolds)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, _numbers.Real)):
            raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
    callback = _progress_callback(progress)
    mask, pore_labels = _mask_and_labels(mask, pore_labels, options)
    o = _options(voxel_size_um, axis, pore_labels, None, inlet_outlet, lateral)
    o.update({"run.backend": backend, "forchheimer.sweep": "on", "forchheimer.max_reynolds": float(max_reynolds),
              "forchheimer.points": int(points)})
    if min_reynolds is not None:
        o["forchheimer.min_reynolds"] = float(min_reynolds)
    o.update(options or {})
    return Forchheimer(_call(mask, o, callback, False, output_dir, overwrite))


def plan(mask, voxel_size_um, axis="x", pore_labels=None, grey_labels=None, inlet_outlet="buffer",
         lateral="sealed", ranks=1, gpu_memory_gib=(80, 141), options=None):
    """What a run of `mask` needs before anything is allocated, as `rockperm plan` says it.

    Returns a dict: dims (x, y, z, buffers or mirror image included), porosity and
    connected_porosity of the mask, fluid_cells to simulate, and layouts: for each propagation
    (two-pass, fused) and storage (fp32, fp16) the bytes per fluid cell on a GPU, bytes in all,
    the slabs of `ranks` GPUs (planes [begin, end), cells, bytes) and fewest_gpus {GiB: count}
    for each size of `gpu_memory_gib` (0: not even at one plane per GPU). The other arguments
    are those of permeability().
    """
    axis = _axis(axis)
    if axis == "all":
        raise InputError("plan one axis at a time: 'x', 'y' or 'z'")
    if isinstance(ranks, bool) or not isinstance(ranks, _numbers.Integral):
        raise TypeError("ranks must be an integer, not %s" % type(ranks).__name__)
    if not 1 <= ranks <= 65536:
        raise InputError("ranks must be 1..65536, not %d" % ranks)
    sizes = [float(g) for g in gpu_memory_gib]
    if not sizes or not all(0 < g < 1e6 for g in sizes):
        raise InputError("gpu_memory_gib must be one or more sizes in GiB, each > 0, not %r" % (gpu_memory_gib,))
    mask, pore_labels = _mask_and_labels(mask, pore_labels, options)
    o = _options(voxel_size_um, axis, pore_labels, grey_labels, inlet_outlet, lateral)
    o["output.dir"] = _tempfile.gettempdir()  # nothing is written
    o.update(options or {})
    return _rockperm._plan(mask, o, int(ranks), sizes)


def _voxel_size(voxel_size_um):
    """The voxel size as a number of micrometres: a string or a bool is a mistake, not a number."""
    if isinstance(voxel_size_um, bool) or not isinstance(voxel_size_um, _numbers.Real):
        raise TypeError("voxel_size_um must be a number of micrometres (e.g. voxel_size_um=5.3), not %s %r"
                        % (type(voxel_size_um).__name__, voxel_size_um))
    return float(voxel_size_um)


def _options(voxel_size_um, axis, pore_labels, grey_labels, inlet_outlet, lateral):
    voxel_size_um = _voxel_size(voxel_size_um)
    # input.file names the sample in reports; the mask itself comes from memory
    o = {"input.file": "numpy-array", "input.voxel_size_um": voxel_size_um, "lbm.flow_axis": axis,
         "lbm.inlet_outlet": inlet_outlet, "lbm.lateral": lateral, "output.fields": "off",
         "output.progress_seconds": 0}
    if pore_labels is not None:
        o["input.pore_labels"] = pore_labels
    if grey_labels is not None:
        o["input.grey_labels"] = grey_labels
    return o


def read(path, with_voxel_size=False, **input_options):
    """The pore mask `rockperm run` would read from `path` (bool, [z, y, x]).

    input_options: the [input] options by their key, e.g. dims=(64, 64, 64), voxel_size_um=5,
    pore_labels="0", type="uint16", crop_offset=(0, 0, 0), crop_size=(100, 100, 100).
    with_voxel_size: also return the voxel size (from the header or voxel_size_um).
    """
    o = {"input.file": _os.fspath(path)}
    for key, value in input_options.items():
        o["input." + key] = _voxel_size(value) if key == "voxel_size_um" else value
    if "input.voxel_size_um" not in o:
        o["input.voxel_size_um"] = 0  # from the header, where there is one
    codes, voxel = _rockperm._read(o)
    mask = codes != 0
    return (mask, voxel) if with_voxel_size else mask
