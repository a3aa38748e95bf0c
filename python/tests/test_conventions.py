"""Python's conventions (issue 49): what an array, an axis, a callback and a call without an
output directory mean to a Python user, each a defect found by an audit before it was fixed."""
import os
import tempfile
import warnings

import numpy as np
import pytest

import rockperm


def duct(n=12, side=4):
    """[z, y, x] bool: a square duct `side` voxels wide along numpy axis 0 (z) through solid."""
    mask = np.zeros((n, n, n), dtype=bool)
    lo = (n - side) // 2
    mask[:, lo:lo + side, lo:lo + side] = True
    return mask


COMMON = dict(voxel_size_um=2.0, inlet_outlet="periodic", lateral="periodic", backend="cpu")


def test_a_0_1_integer_array_is_1_for_pore_as_in_porespy(tmp_path):
    mask = duct()
    as_bool = rockperm.permeability(mask, axis="z", output_dir=tmp_path / "b", **COMMON)
    for dtype in (np.uint8, np.int32, np.int64):
        r = rockperm.permeability(mask.astype(dtype), axis="z", output_dir=tmp_path / str(np.dtype(dtype)), **COMMON)
        # before: 0 was pore, and the grains were simulated (porosity 0.889 for a duct of 0.111)
        assert r.porosity == pytest.approx(mask.mean())
        assert r.k_mD == as_bool.k_mD


def test_integer_labels_other_than_0_1_need_pore_labels(tmp_path):
    labels = np.where(duct(), 3, 7).astype(np.uint16)
    with pytest.raises(rockperm.InputError, match="pore_labels") as e:
        rockperm.permeability(labels, axis="z", output_dir=tmp_path / "a", **COMMON)
    assert isinstance(e.value, ValueError)
    r = rockperm.permeability(labels, axis="z", pore_labels="3", output_dir=tmp_path / "b", **COMMON)
    assert r.porosity == pytest.approx(duct().mean())
    with pytest.raises(TypeError, match="mask > 0.5"):
        rockperm.permeability(duct().astype(np.float32), axis="z", output_dir=tmp_path / "c", **COMMON)


def test_an_integer_axis_is_the_numpy_axis(tmp_path):
    mask = duct()  # open along numpy axis 0 only
    along = rockperm.permeability(mask, axis=0, output_dir=tmp_path / "0", **COMMON)
    assert along.k_mD == rockperm.permeability(mask, axis="z", output_dir=tmp_path / "z", **COMMON).k_mD
    assert along.to_dict()["geometry"]["flow_axis"] == "z"
    for axis in (2, -1):  # numpy axis 2 (and -1) is x: closed
        with pytest.raises(rockperm.InvalidPhysics, match="percolate"):
            rockperm.permeability(mask, axis=axis, output_dir=tmp_path / ("x%d" % axis), **COMMON)
    with pytest.raises(rockperm.InputError, match="numpy axis"):
        rockperm.permeability(mask, axis=3, **COMMON)
    with pytest.raises(TypeError, match="axis"):
        rockperm.permeability(mask, axis=True, **COMMON)


def test_a_tensor_result_has_no_single_k(tmp_path):
    r = rockperm.permeability(duct(), axis="all", output_dir=tmp_path / "t", **COMMON)
    assert np.isnan(r.k_mD) and np.isnan(r.k_m2) and np.isnan(r.k_error_mD)  # before: k_mD == 0.0
    assert r.tensor[2, 2] > 0 and r.tensor[0, 0] == 0
    assert r.steps > 0
    assert "k = 0" not in repr(r) and "kzz" in repr(r)
    assert r.porosity == pytest.approx(duct().mean())


def test_progress_is_checked_up_front_and_its_exception_stops_the_run(tmp_path):
    with pytest.raises(TypeError, match="progress"):
        rockperm.permeability(duct(), axis="z", progress="yes please", output_dir=tmp_path / "a", **COMMON)
    assert not (tmp_path / "a").exists()  # refused before anything ran

    class Enough(Exception):
        pass

    seen = []

    def progress(step, k, error, seconds):
        seen.append(step)
        raise Enough("stop at %d" % step)

    with pytest.raises(Enough, match="stop at"):
        rockperm.permeability(duct(), axis="z", progress=progress, output_dir=tmp_path / "b",
                              options={"run.tolerance": 1e-9, "run.max_steps": 100000}, **COMMON)
    assert len(seen) == 1  # called once: the run stopped at that check


def test_warnings_and_a_run_that_did_not_converge_are_python_warnings(tmp_path):
    with pytest.warns(rockperm.RockpermWarning, match="converg") as caught:
        r = rockperm.permeability(duct(), axis="z", output_dir=tmp_path / "w",
                                  options={"run.max_steps": 200, "run.tolerance": 1e-9}, **COMMON)
    assert r.status == "not_converged"
    assert any(w.message.code == "not_converged" for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a converged run warns of nothing
        rockperm.permeability(duct(), axis="z", output_dir=tmp_path / "c", **COMMON)


def test_a_call_without_output_dir_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    r = rockperm.permeability(duct(), axis="z", **COMMON)
    assert r.status == "converged" and r.report_path is None and r.to_dict()["status"] == "converged"
    with pytest.raises(rockperm.InvalidPhysics):
        rockperm.permeability(duct(), axis="x", **COMMON)
    assert os.listdir(tmp_path) == []  # before: a rockperm-* folder per call
    kept = rockperm.permeability(duct(), axis="z", output_dir=tmp_path / "kept", **COMMON)
    assert os.path.exists(kept.report_path)


def test_an_interpreter_without_numpy_is_told_so_at_import():
    # a pyenv shim without numpy: `import rockperm` succeeded and the first call failed with a
    # bare ModuleNotFoundError
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "import sys; sys.modules['numpy'] = None; import rockperm"],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "rockperm needs numpy" in out.stderr, out.stderr


def test_a_grey_phase_the_sample_does_not_hold_is_a_warning(tmp_path):
    # issue 49, 17: grey label 256 of 8-bit data (or any label the segmentation does not use) passed
    # without a word
    labels = np.where(duct(), 0, 1).astype(np.uint8)
    with pytest.warns(rockperm.RockpermWarning, match="grey labels 256 select no voxel") as caught:
        r = rockperm.permeability(labels, axis="z", pore_labels="0", grey_labels="256:0.2:1mD",
                                  output_dir=tmp_path / "g", **COMMON)
    assert r.status == "converged"
    assert any(w.message.code == "grey_phase_empty" for w in caught)


def test_a_grey_map_beyond_8_bit_data_is_refused(tmp_path):
    # issue 49, 17: a map to 300 over uint8 data read the brightest grains as porous
    ct = np.where(duct(), 20, 230).astype(np.uint8)
    with pytest.raises(rockperm.InputError, match="8-bit data"):
        rockperm.permeability(ct, axis="z", output_dir=tmp_path / "m",
                              options={"input.grey_map": "40:300", "input.grey_law": "power:50mD@0.5:3"}, **COMMON)
