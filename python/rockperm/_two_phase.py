"""The two-phase results of rockperm.capillary_pressure and rockperm.relative_permeability: the
curves, the relative permeability points (quasi-static and by flow), the displacement's curves.
Re-exported by rockperm; import them from there."""

import numpy as _np


class CapillaryCurve:
    """One capillary pressure curve: numpy arrays, one value per pressure, in the curve's order
    (drainage: Pc rising; imbibition: falling). pc_Pa: the capillary pressure; radius_um: the
    inscribed radius it enters, 2 sigma cos(theta_w) / Pc; saturation: S_w, the wetting phase's
    fraction of the connected pore space; leverett_j: Pc sqrt(k / phi) / (sigma cos theta_w)."""

    def __init__(self, d):
        self.pc_Pa = _np.asarray(d["pc_Pa"], dtype=float)
        self.radius_um = _np.asarray(d["radius_um"], dtype=float)
        self.saturation = _np.asarray(d["saturation_wetting"], dtype=float)
        self.leverett_j = _np.asarray([_np.nan if j is None else j for j in d["leverett_j"]], dtype=float)

    def __len__(self):
        return len(self.pc_Pa)

    def __repr__(self):
        return "<rockperm.CapillaryCurve %d points, Pc %.4g..%.4g Pa, S_w %.4f..%.4f>" % (
            len(self), self.pc_Pa.min(), self.pc_Pa.max(), self.saturation.min(), self.saturation.max())


class FlowPoint:
    """k_r of one point by two-phase flow (relative_permeability(flow=True); the colour-gradient
    model, both phases driven alike from the point's morphology state, or a random draw of it:
    start, "morphology" or "random"): krw and krn with their
    stated errors krw_error and krn_error (NaN where not made, note says why), converged (both
    phases' flows steady to the tolerance; False: stopped at the step limit, the errors say how
    far), saturation (S_w at the end) and saturation_start, capillary_number, viscosity_ratio,
    wetting_spans and nonwetting_spans at the end, flux_spread_wetting and flux_spread_nonwetting
    (each phase's flow through the planes: (largest - smallest) / mean), fastest_lattice_speed (the
    largest speed of any cell at any check, lattice units: flow and spurious currents together),
    flags (trust checks that failed, in words), steps, seconds, backend."""

    def __init__(self, d):
        nan = float("nan")
        self.krw = nan if d["kr_w"] is None else d["kr_w"]
        self.krn = nan if d["kr_n"] is None else d["kr_n"]
        self.krw_error = nan if d["kr_w_error"] is None else d["kr_w_error"]
        self.krn_error = nan if d["kr_n_error"] is None else d["kr_n_error"]
        self.converged = bool(d["converged"])
        self.saturation, self.saturation_start = d["saturation_wetting"], d["saturation_wetting_start"]
        self.start = d["start"]
        self.capillary_number, self.viscosity_ratio = d["capillary_number"], d["viscosity_ratio"]
        self.wetting_spans, self.nonwetting_spans = d["wetting_spans"], d["nonwetting_spans"]
        self.flux_spread_wetting, self.flux_spread_nonwetting = d["flux_spread_wetting"], d["flux_spread_nonwetting"]
        self.fastest_lattice_speed = d["fastest_lattice_speed"]
        self.flags = list(d["flags"])
        self.steps, self.seconds, self.backend, self.note = d["steps"], d["seconds"], d["backend"], d["note"]

    def __repr__(self):
        return "<rockperm.FlowPoint S_w %.4f: krw %.4g +- %.2g, krn %.4g +- %.2g%s>" % (
            self.saturation, self.krw, self.krw_error, self.krn, self.krn_error,
            "" if self.converged else " (not converged)")


class DisplacedCurve:
    """A capillary pressure curve again by two-phase flow (capillary_pressure(displacement=True); the
    displacement between reservoirs, each pressure held until S_w settles): numpy arrays, one value
    per pressure of the quasi-static curve, in its order: pc_Pa, saturation (S_w of the sample's
    pore cells; NaN where the pressure was not held: its menisci would lie inside the model's
    interface, notes say so), saturation_quasi_static (the curve's), capillary_number (the fastest
    the displacement ran at that pressure), settled (bool), steps; notes: a list of strings."""

    def __init__(self, points):
        nan = float("nan")
        self.pc_Pa = _np.asarray([p["pc_Pa"] for p in points], dtype=float)
        self.saturation = _np.asarray([nan if p["saturation_wetting"] is None else p["saturation_wetting"]
                                       for p in points], dtype=float)
        self.saturation_quasi_static = _np.asarray([p["saturation_quasi_static"] for p in points], dtype=float)
        self.capillary_number = _np.asarray([p["capillary_number"] for p in points], dtype=float)
        self.settled = _np.asarray([p["settled"] for p in points], dtype=bool)
        self.steps = _np.asarray([p["steps"] for p in points], dtype=_np.int64)
        self.notes = [p["note"] for p in points]

    def __len__(self):
        return len(self.pc_Pa)

    def __repr__(self):
        return "<rockperm.DisplacedCurve %d pressures, %d settled>" % (len(self), int(self.settled.sum()))


class RelPermPoint:
    """One relative permeability point: curve ('drainage' or 'imbibition') and its index point,
    saturation (S_w), pc_Pa, krw and krn with their stated errors krw_error and krn_error (k_r = 0
    where the phase does not span: wetting_spans, nonwetting_spans; NaN where not made, note says
    why; converged False where a phase stopped at its step limit, its k_r stated with its error),
    saturation_asked (NaN: spread by count). These are quasi-static (the other phase a no-slip
    wall); flow: the same point's k_r by two-phase flow, a FlowPoint (None unless asked)."""

    def __init__(self, d):
        nan = float("nan")
        self.curve, self.point = d["curve"], d["point"]
        self.saturation, self.pc_Pa = d["saturation_wetting"], d["pc_Pa"]
        asked = d["saturation_asked"]
        self.saturation_asked = nan if asked is None else asked
        w, n = d["wetting"], d["nonwetting"]
        self.krw = nan if w["kr"] is None else w["kr"]
        self.krn = nan if n["kr"] is None else n["kr"]
        self.krw_error = nan if w["kr_error"] is None else w["kr_error"]
        self.krn_error = nan if n["kr_error"] is None else n["kr_error"]
        self.wetting_spans, self.nonwetting_spans = w["spans"], n["spans"]
        self.converged = bool(w["converged"] or not w["solved"]) and bool(n["converged"] or not n["solved"])
        self.note = "; ".join(x for x in (w["note"], n["note"]) if x)
        self.flow = None if d.get("flow") is None else FlowPoint(d["flow"])

    def __repr__(self):
        return "<rockperm.RelPermPoint %s S_w %.4f: krw %.4g, krn %.4g>" % (self.curve, self.saturation, self.krw,
                                                                             self.krn)


class TwoPhase:
    """Two phases from the scan by pore morphology (capillary_pressure, relative_permeability):
    drainage and imbibition (None where not made) as CapillaryCurve, entry_pressure_Pa,
    breakthrough_pressure_Pa (NaN: the non-wetting phase never spans), residual_wetting and
    residual_nonwetting saturations (trapped; NaN without imbibition), relperm: the RelPermPoint
    list, k_mD (the single-phase k the k_r are relative to), result: the run's Result (to_dict()
    holds report.json), and phases(curve, point): uint8 [z, y, x] (0 solid, 1 wetting, 2
    non-wetting) where asked with phases=True. With capillary_pressure(displacement=True):
    displaced_drainage and displaced_imbibition, each a DisplacedCurve (None where not made),
    displacement_note and displacement_flags (trust checks that failed, in words). wall_wetting: how
    the flow's walls wet ("phase_field" or "geometric": the capillary.wall_wetting option)."""

    def __init__(self, result):
        t = result.to_dict()["two_phase"]
        nan = float("nan")
        self.result = result
        self.drainage = CapillaryCurve(t["drainage"])
        self.imbibition = None if t["imbibition"] is None else CapillaryCurve(t["imbibition"])
        self.entry_pressure_Pa = t["entry_pressure_Pa"]
        self.breakthrough_pressure_Pa = nan if t["breakthrough_pressure_Pa"] is None else t["breakthrough_pressure_Pa"]
        self.residual_wetting = t["residual_wetting_saturation"]
        r = t["residual_nonwetting_saturation"]
        self.residual_nonwetting = nan if r is None else r
        self.relperm = [RelPermPoint(p) for p in t["relative_permeability"]]
        self.k_mD = nan if t["k_mD"] is None else t["k_mD"]
        self.sigma_N_per_m, self.theta_deg = t["sigma_N_per_m"], t["theta_deg"]
        self.wall_wetting = t["wall_wetting"]  # the flow's walls: "phase_field" or "geometric"
        self.note = t["note"]
        d = t.get("displacement")
        self.displaced_drainage = None if d is None else DisplacedCurve(d["drainage"])
        self.displaced_imbibition = None if d is None or d["imbibition"] is None else DisplacedCurve(d["imbibition"])
        self.displacement_note = "" if d is None else d["note"]
        self.displacement_flags = [] if d is None else list(d["flags"])

    def phases(self, curve, point):
        return self.result.phases(curve, point)

    def __repr__(self):
        return "<rockperm.TwoPhase entry %.4g Pa, residual S_w %.4f, %d k_r point(s)>" % (
            self.entry_pressure_Pa, self.residual_wetting, len(self.relperm))
