"""The Python module against the command line and analytic k (issue 37). Run by ctest
(python.module) with PYTHONPATH pointing at the built module."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import rockperm

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "sphere_pack_64.raw"
# the bundled sample's k from `rockperm run samples/sphere_pack_64.ini` on the CPU
# (pinned to all digits by cli.sample_report_k_to_all_digits)
SAMPLE_K_MD = 5938.779146239063


def test_bundled_sample_gives_the_command_lines_k_bit_for_bit(tmp_path):
    mask = rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um=5.0)
    assert mask.shape == (64, 64, 64) and mask.dtype == bool
    r = rockperm.permeability(mask, voxel_size_um=5.0, axis="x", inlet_outlet="periodic",
                              lateral="periodic", backend="cpu", output_dir=tmp_path / "run")
    assert r.status == "converged"
    assert r.k_mD == SAMPLE_K_MD
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert r.to_dict() == report
    assert r.report_path == str(tmp_path / "run" / "report.json")


@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_slit_along_each_axis_has_the_exact_k(axis, tmp_path):
    # H fluid rows between one solid row on each side, normal to the numpy axis `normal`;
    # TRT with Lambda = 3/16 gives the midpoint sum of the parabola: (H^2 + 1/2) / 12 over the
    # fluid rows, times H / (H + 2) over all voxels
    H = 8
    normal = {"x": 1, "y": 0, "z": 2}[axis]  # a numpy axis across the flow
    shape = [4, 4, 4]
    shape[normal] = H + 2
    mask = np.ones(shape, dtype=bool)
    index = [slice(None)] * 3
    for wall in (0, H + 1):
        index[normal] = wall
        mask[tuple(index)] = False
    r = rockperm.permeability(mask, voxel_size_um=1.0, axis=axis, inlet_outlet="periodic",
                              lateral="periodic", backend="cpu", output_dir=tmp_path / axis,
                              formation_factor=True,
                              options={"run.tolerance": 1e-7, "lbm.tau": 0.8, "lbm.force": 1e-6})
    exact = (H * H + 0.5) / 12 * H / (H + 2)
    assert r.k_lattice == pytest.approx(exact, rel=2e-5)
    assert r.k_m2 == pytest.approx(exact * 1e-12, rel=2e-5)
    # the slit conducts as its share of the section: F = 1 / phi exactly, m = 1
    assert r.formation_factor == pytest.approx((H + 2) / H, rel=1e-9)
    assert r.tortuosity_factor == pytest.approx(1.0, rel=1e-9)
    assert r.cementation_exponent == pytest.approx(1.0, rel=1e-9)
    assert r.to_dict()["conduction"]["formation_factor"] == r.formation_factor


def test_the_formation_factor_alone_is_the_one_beside_k(tmp_path):
    # rockperm.formation_factor: no flow solved (k NaN, permeability None), the same F to the bit
    mask = rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um=5.0)
    both = rockperm.permeability(mask, voxel_size_um=5.0, backend="cpu", formation_factor=True)
    alone = rockperm.formation_factor(mask, voxel_size_um=5.0, backend="cpu", output_dir=tmp_path / "f")
    assert alone.status == "converged"
    assert alone.formation_factor == both.formation_factor
    assert alone.cementation_exponent == both.cementation_exponent
    assert alone.k_mD != alone.k_mD and alone.k_error_mD != alone.k_error_mD
    assert alone.to_dict()["permeability"] is None
    # along every axis: three F, the one along x the same bits, and no k
    axes = rockperm.formation_factor(mask, voxel_size_um=5.0, axis="all", backend="cpu", output_dir=tmp_path / "all")
    assert axes.status == "converged"
    diagonal = axes.to_dict()["formation_factor"]["diagonal"]
    assert diagonal[0] == alone.formation_factor
    assert all(f > 1 for f in diagonal)
    assert np.isnan(axes.tensor).all()


def test_formation_factor_is_nan_unless_asked(tmp_path):
    mask = np.ones((4, 6, 4), dtype=bool)
    mask[:, 0, :] = False
    r = rockperm.permeability(mask, voxel_size_um=1.0, inlet_outlet="periodic", lateral="periodic", backend="cpu")
    assert r.formation_factor != r.formation_factor and "conduction" not in r.to_dict()
    with pytest.raises(TypeError):
        rockperm.permeability(mask, voxel_size_um=1.0, backend="cpu", formation_factor="yes")


def test_integer_labels_and_grey_labels(tmp_path):
    mask = rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um=5.0)
    labels = np.where(mask, 7, 3).astype(np.uint16)
    r = rockperm.permeability(labels, voxel_size_um=5.0, pore_labels="7", inlet_outlet="periodic",
                              lateral="periodic", backend="cpu", output_dir=tmp_path / "l")
    assert r.k_mD == SAMPLE_K_MD
    labels[:, :, 40:44] = np.where(mask[:, :, 40:44], 7, 5)  # a slab of grey grains
    g = rockperm.permeability(labels, voxel_size_um=5.0, pore_labels="7", grey_labels="5:0.2:50mD",
                              inlet_outlet="periodic", lateral="periodic", backend="cpu",
                              output_dir=tmp_path / "g")
    assert g.k_mD > r.k_mD
    assert 0 < g.to_dict()["grey"]["flow_fraction"] < 1


def test_grey_map_of_intensities_equals_its_phases_as_labels(tmp_path):
    # a scan of intensities: pore 20, grain 230, a slab of grey grains at 100-139; with the map's
    # grey_map and grey_law, the k of the same phases declared one per intensity as grey labels
    mask = rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um=5.0)
    ct = np.where(mask, 20, 230).astype(np.uint8)
    grey = np.arange(64 * 64 * 4).reshape(64, 64, 4) % 40 + 100
    ct[:, :, 40:44] = np.where(mask[:, :, 40:44], 20, grey)
    common = dict(voxel_size_um=5.0, inlet_outlet="periodic", lateral="periodic", backend="cpu")
    m = rockperm.permeability(ct, output_dir=tmp_path / "m", **common,
                              options={"input.grey_map": "40:200", "input.grey_law": "power:50mD@0.5:3"})
    k = 50 * 9.869233e-16
    labels = ", ".join("%d:%r:%rm2" % (i, (200 - i) / 160, k * (((200 - i) / 160) / 0.5) ** 3) for i in range(100, 140))
    g = rockperm.permeability(ct, output_dir=tmp_path / "g", pore_labels="0-40", grey_labels=labels, **common)
    assert m.k_mD == g.k_mD
    assert m.to_dict()["grey"]["map"] == {"intensities": "40:200", "law": "power:%rm2@0.5:3" % k}
    assert len(m.to_dict()["grey"]["phases"]) == 40


def test_errors_raise_their_class_with_the_command_lines_message(tmp_path):
    mask = np.ones((8, 8, 8), dtype=bool)
    with pytest.raises(rockperm.InputError, match="voxel"):
        rockperm.permeability(mask, voxel_size_um=-1, output_dir=tmp_path / "a")
    with pytest.raises(rockperm.InputError, match="lbm.tau"):
        rockperm.permeability(mask, voxel_size_um=1, options={"lbm.tau": 0.3}, output_dir=tmp_path / "b")
    with pytest.raises(rockperm.InputError, match="not an option|unrecognised|unknown"):
        rockperm.permeability(mask, voxel_size_um=1, options={"lbm.colour": "red"}, output_dir=tmp_path / "c")
    with pytest.raises(rockperm.InputError, match="3-D"):
        rockperm.permeability(np.ones((4, 4), dtype=bool), voxel_size_um=1, output_dir=tmp_path / "d")
    blocked = np.ones((8, 8, 8), dtype=bool)
    blocked[:, :, 4] = False  # a solid wall across x
    with pytest.raises(rockperm.InvalidPhysics, match="percolate"):
        rockperm.permeability(blocked, voxel_size_um=1, backend="cpu", output_dir=tmp_path / "e")
    assert issubclass(rockperm.InvalidPhysics, rockperm.Error)
    # the failed run left its report, as the command line's does
    assert json.loads((tmp_path / "e" / "report.json").read_text())["status"] == "invalid_physics"


def test_ctrl_c_stops_the_run_and_the_interpreter_goes_on(tmp_path):
    script = textwrap.dedent("""
        import sys, numpy as np, rockperm
        mask = rockperm.read(sys.argv[1], dims=(64, 64, 64), voxel_size_um=5.0)
        print("started", flush=True)
        try:
            rockperm.permeability(mask, voxel_size_um=5.0, inlet_outlet="periodic", lateral="periodic",
                                  backend="cpu", output_dir=sys.argv[2],
                                  options={"run.tolerance": 1e-9, "run.max_steps": 10000000})
            print("not interrupted")
        except KeyboardInterrupt as e:
            print("interrupted:", e)
        print("still here", 6 * 7)
    """)
    p = subprocess.Popen([sys.executable, "-c", script, str(SAMPLE), str(tmp_path / "long")],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert p.stdout.readline().strip() == "started"
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=120)
    assert "interrupted: rockperm: stopped at step" in out, out
    assert "still here 42" in out, out
    assert p.returncode == 0, out
    report = json.loads((tmp_path / "long" / "report.json").read_text())
    assert report["status"] == "interrupted"


def test_progress_callback_sees_every_check(tmp_path):
    seen = []
    mask = rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um=5.0)
    r = rockperm.permeability(mask, voxel_size_um=5.0, inlet_outlet="periodic", lateral="periodic",
                              backend="cpu", output_dir=tmp_path / "p",
                              progress=lambda step, k, error, seconds: seen.append((step, k)))
    assert seen and seen[-1][0] == r.steps and seen[-1][1] == pytest.approx(r.k_mD, rel=1e-3)


def slit_stack(n=12, open_rows=4, period=6):
    """[z, y, x] bool: slits `open_rows` voxels high normal to z, between solid layers."""
    mask = np.zeros((n, n, n), dtype=bool)
    mask[np.arange(n) % period < open_rows, :, :] = True
    return mask


def test_fields_keep_darcys_law_on_the_masks_grid(tmp_path):
    mask = slit_stack()
    r = rockperm.permeability(mask, voxel_size_um=2.0, axis="x", inlet_outlet="periodic", lateral="periodic",
                              backend="cpu", fields=True, output_dir=tmp_path / "f",
                              options={"run.tolerance": 1e-7})
    u, p = r.velocity(), r.pressure()
    assert u.shape == mask.shape + (3,) and u.dtype == np.float32
    assert p.shape == mask.shape and p.dtype == np.float32
    assert not u.flags.writeable
    # Darcy: the mean velocity over all voxels is k G / mu, for the stated 1e5 Pa/m through water
    assert float(u[..., 0].astype(np.float64).mean()) == pytest.approx(r.k_m2 * 1e5 / 1e-3, rel=1e-5)
    assert abs(u[..., 2]).max() < 1e-6 * abs(u[..., 0]).max()  # (ux, uy, uz): flow along x is component 0
    assert np.all(u[~mask] == 0) and np.all(np.isnan(p[~mask])) and np.all(np.isfinite(p[mask]))
    # the parabola across each slit: its middle rows fastest, the rows beside the walls slowest
    profile = u[:4, 0, 0, 0]
    assert profile[1] == pytest.approx(profile[2], rel=1e-5) and profile[0] < profile[1]
    with pytest.raises(rockperm.InputError, match="fields=True"):
        rockperm.permeability(mask, voxel_size_um=2.0, axis="x", inlet_outlet="periodic", lateral="periodic",
                              backend="cpu", output_dir=tmp_path / "g").velocity()


def test_fields_with_buffers_cover_the_mask_only(tmp_path):
    mask = slit_stack()
    r = rockperm.permeability(mask, voxel_size_um=2.0, axis="x", inlet_outlet="buffer", backend="cpu",
                              fields=True, output_dir=tmp_path / "b")
    u = r.velocity()
    assert u.shape == mask.shape + (3,)
    # the sample's own planes, without the buffers: the same Darcy velocity through every plane
    flux = u[..., 0].astype(np.float64).mean(axis=(0, 1))
    assert flux.max() - flux.min() < 1e-3 * flux.mean()
    # k is read from the planes away from the faces: Darcy holds to their small difference
    assert flux.mean() == pytest.approx(r.k_m2 * 1e5 / 1e-3, rel=1e-3)


def test_tensor_of_a_slit_stack(tmp_path):
    # 4 open rows in 6 (TRT, Lambda 3/16: the midpoint sum of the parabola, 11/12 voxel^2);
    # nothing flows along z
    r = rockperm.permeability(slit_stack(), voxel_size_um=1.0, axis="all", inlet_outlet="periodic",
                              lateral="periodic", backend="cpu", output_dir=tmp_path / "t")
    assert r.status == "converged"
    t = r.tensor
    assert t.shape == (3, 3)
    exact_md = 11 / 12 * 1e-12 / 9.869233e-16
    assert t[0, 0] == pytest.approx(exact_md, rel=1e-5) and t[1, 1] == pytest.approx(exact_md, rel=1e-5)
    assert t[2, 2] == 0
    report = json.loads((tmp_path / "t" / "report.json").read_text())
    assert r.to_dict() == report
    for axis in "xyz":
        assert (tmp_path / "t" / axis / "report.json").exists()
    with pytest.raises(rockperm.InputError, match="one run"):
        rockperm.permeability(slit_stack(), voxel_size_um=1.0, axis="all", fields=True)


def test_resolution_study_of_a_mask_in_memory(tmp_path):
    mask = rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um=5.0)
    r = rockperm.permeability(mask, voxel_size_um=5.0, inlet_outlet="periodic", lateral="periodic",
                              backend="cpu", output_dir=tmp_path / "s",
                              options={"run.resolution_study": True})
    study = r.to_dict()["resolution"]
    assert study["done"], study
    assert r.k_mD == SAMPLE_K_MD


def test_plan_says_what_rockperm_plan_says():
    mask = rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um=5.0)
    p = rockperm.plan(mask, voxel_size_um=5.0, inlet_outlet="periodic", lateral="periodic", ranks=2,
                      gpu_memory_gib=(80,))
    assert p["dims"] == (64, 64, 64)
    assert [(l["propagation"], l["storage"]) for l in p["layouts"]] == [
        ("two-pass", "fp32"), ("fused", "fp32"), ("two-pass", "fp16"), ("fused", "fp16")]
    for layout in p["layouts"]:
        assert len(layout["ranks"]) == 2 and layout["fewest_gpus"] == {80.0: 1}
        assert sum(r["planes"][1] - r["planes"][0] for r in layout["ranks"]) == 64
        assert layout["bytes"] == pytest.approx(layout["bytes_per_cell"] * p["fluid_cells"])
    cli = os.environ.get("ROCKPERM_CLI")
    if not cli:
        pytest.skip("ROCKPERM_CLI (the rockperm binary) not set: run through ctest")
    out = subprocess.run([cli, "plan", "--input.file=" + str(SAMPLE), "--input.dims=64 64 64",
                          "--input.voxel_size_um=5", "--lbm.inlet_outlet=periodic", "--lbm.lateral=periodic",
                          "--ranks", "2", "--gpu-memory-gib", "80"],
                         capture_output=True, text=True, check=True).stdout
    assert "%d fluid cells to simulate" % p["fluid_cells"] in out, out
    assert "connected %.4f" % p["connected_porosity"] in out, out
    for layout in p["layouts"]:
        line = "%s propagation, %s: %.0f B per fluid cell" % (layout["propagation"], layout["storage"],
                                                            layout["bytes_per_cell"])
        assert line in out, out


def test_a_result_says_what_it_holds():
    # the repr names the status, k with its error or that k was not solved, F where made, the axis
    # and the porosity; never a made-up k = 0
    mask = np.zeros((16, 16, 16), dtype=bool)
    mask[:, 6:10, 6:10] = True
    mask[8, 6:10, 6:10] = False
    mask[8, 6:8, 6:8] = True
    f = rockperm.formation_factor(mask, voxel_size_um=1.0, axis="z", inlet_outlet="periodic", lateral="periodic",
                                  backend="cpu", options={"run.tolerance": 1e-9})
    text = repr(f)
    assert "k not solved" in text and "k = 0" not in text, text
    assert "F = 26.03" in text and "along z" in text and "porosity 0.0595" in text, text
    # the stated error of a solve that reached rounding is its own, not the distance to its start
    assert f.formation_factor_error <= 1e-9
    assert f.formation_factor == pytest.approx(26.02995, abs=5e-5)
    k = rockperm.permeability(mask, voxel_size_um=1.0, axis="z", inlet_outlet="periodic", lateral="periodic",
                              backend="cpu")
    assert "k = " in repr(k) and " +- " in repr(k) and "mD along z" in repr(k), repr(k)


def test_a_voxel_size_is_a_number():
    mask = np.ones((8, 8, 8), dtype=bool)
    for bad in ("5", True, None):
        with pytest.raises(TypeError, match="voxel_size_um"):
            rockperm.permeability(mask, voxel_size_um=bad, backend="cpu")
    with pytest.raises(TypeError, match="voxel_size_um"):
        rockperm.read(SAMPLE, dims=(64, 64, 64), voxel_size_um="5")


def test_an_output_dir_with_an_earlier_run_is_refused_unless_overwritten(tmp_path):
    mask = np.ones((8, 8, 8), dtype=bool)
    mask[:, 0, :] = False
    common = dict(voxel_size_um=1.0, inlet_outlet="periodic", lateral="periodic", backend="cpu",
                  output_dir=tmp_path / "run")
    first = rockperm.permeability(mask, **common)
    assert not (tmp_path / "run" / ".rockperm.lock").exists()  # the lock lives as long as the run
    with pytest.raises(rockperm.InputError, match="earlier run.*overwrite=True"):
        rockperm.permeability(mask, **common)
    again = rockperm.permeability(mask, overwrite=True, **common)
    assert again.k_mD == first.k_mD
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if p.name.startswith("."))  == []


def test_a_misspelt_option_is_named_in_pythons_words():
    mask = np.ones((8, 8, 8), dtype=bool)
    with pytest.raises(rockperm.InputError) as e:
        rockperm.permeability(mask, voxel_size_um=1.0, backend="cpu", options={"run.tolerence": 1e-6})
    text = str(e.value)
    assert "run.tolerence" in text and "options" in text, text
    assert "--help" not in text and "--run" not in text and "command line" not in text, text


def test_the_module_exposes_its_api_not_its_imports():
    for name in ("os", "sys", "shutil", "tempfile", "numbers", "warnings", "signal"):
        assert not hasattr(rockperm, name), name
    assert "total_porosity" in dir(rockperm.Result)


def test_sigterm_removes_the_temporary_run_directory(tmp_path):
    # a batch system's cancel: the run stops at its next check, the temporary directory goes, and
    # the interpreter leaves with 143 as after SIGTERM's default
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    script = textwrap.dedent("""
        import sys, rockperm
        mask = rockperm.read(sys.argv[1], dims=(64, 64, 64), voxel_size_um=5.0)
        print("started", flush=True)
        rockperm.permeability(mask, voxel_size_um=5.0, inlet_outlet="periodic", lateral="periodic",
                              backend="cpu", options={"run.tolerance": 1e-9, "run.max_steps": 10000000})
        print("not stopped")
    """)
    p = subprocess.Popen([sys.executable, "-c", script, str(SAMPLE)], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1", TMPDIR=str(scratch)))
    assert p.stdout.readline().strip() == "started"
    time.sleep(2.0)
    assert list(scratch.glob("rockperm-*")), "the run made no temporary directory"
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 143, out
    assert "not stopped" not in out, out
    assert not list(scratch.glob("rockperm-*")), out


def _tubes():
    """Two straight tubes along x (numpy axis 2) of radii 2.5 and 5 voxels, apart: [z, y, x]."""
    z, y = np.mgrid[0:16, 0:30]
    section = ((y - 7) ** 2 + (z - 7.5) ** 2 <= 2.5 ** 2) | ((y - 20) ** 2 + (z - 7.5) ** 2 <= 25)
    return np.repeat(section[:, :, None], 12, axis=2)


def test_capillary_pressure_gives_typed_curves_and_phases(tmp_path):
    t = rockperm.capillary_pressure(_tubes(), voxel_size_um=1.0, curves="both", count=8, phases=True,
                                    inlet_outlet="periodic", backend="cpu")
    assert isinstance(t, rockperm.TwoPhase) and isinstance(t.drainage, rockperm.CapillaryCurve)
    assert len(t.drainage) == 8 and len(t.imbibition) == 8
    assert t.drainage.pc_Pa.dtype == np.float64 and np.all(np.diff(t.drainage.pc_Pa) > 0)
    assert t.drainage.pc_Pa[0] == pytest.approx(t.entry_pressure_Pa, rel=1e-12)
    # the wide tube first (entry at its inscribed radius), S_w falling
    assert t.drainage.saturation[0] < 1 and np.all(np.diff(t.drainage.saturation) <= 0)
    assert np.all(t.drainage.leverett_j > 0)
    assert t.imbibition.saturation[0] == t.drainage.saturation[-1]
    assert t.relperm == [] and t.k_mD > 0
    p = t.phases("drainage", 0)
    assert p.shape == (16, 30, 12) and p.dtype == np.uint8
    assert set(np.unique(p)) <= {0, 1, 2} and (p == 2).sum() > 0
    assert np.array_equal(p > 0, _tubes())  # the pores are the mask's: [z, y, x], as numpy's
    assert p[7, 20, 0] == 2 and p[7, 7, 0] == 1  # the wide tube's core non-wetting, the narrow one wetting


def test_relative_permeability_at_asked_saturations_and_refusals():
    t = rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, saturations=[0.2], count=6,
                                       inlet_outlet="periodic", backend="cpu")
    assert len(t.relperm) == 1
    pt = t.relperm[0]
    assert isinstance(pt, rockperm.RelPermPoint) and pt.curve == "drainage" and pt.saturation_asked == 0.2
    assert pt.wetting_spans and pt.nonwetting_spans
    assert 0 < pt.krw < 1 and 0 < pt.krn < 1 and pt.krw + pt.krn < 1
    assert pt.flow is None  # two-phase flow only where asked
    with pytest.raises(rockperm.InputError, match="nearest reached"):
        rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, saturations=[0.001], count=6,
                                       inlet_outlet="periodic", backend="cpu")
    with pytest.raises(rockperm.InputError, match="90 degrees"):
        rockperm.capillary_pressure(_tubes(), voxel_size_um=1.0, theta=90, backend="cpu")
    with pytest.raises(rockperm.InputError, match="'drainage' or 'both'"):
        rockperm.capillary_pressure(_tubes(), voxel_size_um=1.0, curves="imbibition")
    with pytest.raises(TypeError):
        rockperm.capillary_pressure(_tubes(), voxel_size_um=1.0, trapping="yes")


def test_relative_permeability_by_flow_is_typed_and_refuses_its_options_alone():
    # at S_w 0.22 each phase fills whole tubes (the narrow one wetting, the wide one's core
    # non-wetting, its rim wetting): the flows share the single phase's, as the quasi-static k_r
    t = rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, saturations=[0.2], count=6,
                                       inlet_outlet="periodic", backend="cpu", flow=True, viscosity_ratio=2)
    pt = t.relperm[0]
    f = pt.flow
    assert isinstance(f, rockperm.FlowPoint) and f.converged and f.viscosity_ratio == 2
    assert f.krw == pytest.approx(pt.krw, abs=0.01) and f.krn == pytest.approx(pt.krn, abs=0.01)
    assert f.saturation == pytest.approx(pt.saturation, abs=0.02) and f.steps > 0 and f.backend.startswith("cpu")
    d = t.result.to_dict()["two_phase"]["relative_permeability"][0]["flow"]
    assert (f.krw, f.krn, f.flags) == (d["kr_w"], d["kr_n"], d["flags"])  # report.json's numbers
    assert f.start == "morphology" == d["start"]
    assert 0 < f.fastest_lattice_speed == d["fastest_lattice_speed"] < 0.075  # stable: no flag for it
    assert any(flag.startswith("the walls' contact angle, 0 degrees") for flag in f.flags), f.flags
    with pytest.raises(rockperm.InputError, match="give flow=True"):
        rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, viscosity_ratio=2)
    with pytest.raises(rockperm.InputError, match="give flow=True"):
        rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, flow_start="random")
    with pytest.raises(rockperm.InputError, match="'morphology' or 'random'"):
        rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, flow=True, flow_start="mixed")
    with pytest.raises(TypeError, match="flow must be True or False"):
        rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, flow="steady")
    with pytest.raises(TypeError, match="capillary_number must be a number"):
        rockperm.relative_permeability(_tubes(), voxel_size_um=1.0, flow=True, capillary_number="1e-3")


def _sphere_cell():
    """A periodic simple-cubic cell of one sphere (16^3, radius 5): pore outside, [z, y, x]."""
    z, y, x = np.mgrid[0:16, 0:16, 0:16] - 7.5
    return x ** 2 + y ** 2 + z ** 2 > 25


def test_forchheimer_gives_typed_points_a_fit_and_refusals():
    f = rockperm.forchheimer(_sphere_cell(), voxel_size_um=2.0, max_reynolds=40, min_reynolds=1, points=4,
                             inlet_outlet="periodic", lateral="periodic", backend="cpu")
    assert isinstance(f, rockperm.Forchheimer)
    assert f.reynolds.dtype == np.float64 and len(f.reynolds) == 5 and np.all(np.diff(f.reynolds) > 0)
    assert f.k_app_mD[0] == pytest.approx(f.k_mD, rel=1e-12)  # point 0 is the creeping k
    assert f.k_app_over_k[-1] < 0.99 and np.all(np.diff(f.k_app_over_k) < 1e-4)  # inertia lowers k_app
    assert f.converged.dtype == np.bool_ and f.steps.dtype == np.int64
    assert np.all(f.k_app_lattice_error >= 0) and f.k_app_lattice_error[-1] > f.k_app_lattice_error[0]
    # the sweep's numbers are report.json's, and the command line's for the same options
    d = f.result.to_dict()["forchheimer"]
    assert list(f.k_app_mD) == d["points"]["k_app_mD"]
    if f.fitted:
        assert f.beta_per_m > 0 and f.c_F == pytest.approx(f.beta_per_m * np.sqrt(f.fit_k_mD * 9.869233e-16), rel=1e-9)
    else:
        assert np.isnan(f.beta_per_m) and f.note
    with pytest.raises(rockperm.InputError, match="beyond the lattice's reach"):
        rockperm.forchheimer(_sphere_cell(), voxel_size_um=2.0, max_reynolds=900, inlet_outlet="periodic",
                             lateral="periodic", backend="cpu")
    with pytest.raises(rockperm.InputError, match="at least 2 rates"):
        rockperm.forchheimer(_sphere_cell(), voxel_size_um=2.0, points=1, backend="cpu")
    with pytest.raises(TypeError, match="points must be an integer"):
        rockperm.forchheimer(_sphere_cell(), voxel_size_um=2.0, points=2.5)
    with pytest.raises(rockperm.InputError, match="one flow axis"):
        rockperm.forchheimer(_sphere_cell(), voxel_size_um=2.0, axis="all")


def test_capillary_pressure_by_displacement_is_typed_and_is_report_jsons():
    # the plumbing, at a step limit (the physics: tests/validation/test_two_phase.cpp's tubes): one
    # pressure above the wide tube's entry 2 sigma / R (brine/air, R 5 um)
    entry = 2 * 0.072 / 5e-6
    t = rockperm.capillary_pressure(_tubes(), voxel_size_um=1.0, pressures=[1.4 * entry], backend="cpu",
                                    displacement=True, options={"capillary.displacement_steps": 1000})
    d = t.displaced_drainage
    assert isinstance(d, rockperm.DisplacedCurve) and len(d) == 1 and t.displaced_imbibition is None
    assert d.saturation.dtype == np.float64 and d.settled.dtype == bool and d.steps.dtype == np.int64
    assert np.array_equal(d.pc_Pa, t.drainage.pc_Pa)
    assert np.array_equal(d.saturation_quasi_static, t.drainage.saturation)
    assert 0 < d.saturation[0] < 1 and d.steps[0] == 1000 and not d.settled[0], (d.saturation, d.notes)
    assert "did not settle in 1000 steps" in d.notes[0] and t.displacement_note == ""
    assert len(t.displacement_flags) == 1 and "below what the model's walls hold" in t.displacement_flags[0]
    assert t.wall_wetting == "phase_field"
    report = t.result.to_dict()["two_phase"]["displacement"]["drainage"]
    assert [p["saturation_wetting"] for p in report] == list(d.saturation)  # report.json's numbers
    with pytest.raises(TypeError, match="displacement must be True or False"):
        rockperm.capillary_pressure(_tubes(), voxel_size_um=1.0, displacement="on")
