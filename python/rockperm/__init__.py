"""rockperm from Python: the permeability of a segmented volume held in a numpy array.

    import numpy as np, rockperm
    mask = rockperm.read("scan.raw", dims=(512, 512, 512), voxel_size_um=5.3)   # bool, [z, y, x]
    r = rockperm.permeability(mask, voxel_size_um=5.3, axis="z", fields=True)
    print(r.k_mD, r.k_error, r.status); report = r.to_dict()   # report.json as a dict
    uz = r.velocity()[..., 2]                                  # m/s, [z, y, x]
    t = rockperm.permeability(mask, voxel_size_um=5.3, axis="all").tensor   # 3x3, mD

Arrays are indexed [z, y, x] in C order (x fastest), as raw volumes and TIFF stacks are stored:
numpy axis 2 is x, 1 is y, 0 is z. A bool mask is True where pore; an integer array holds labels,
mapped by `pore_labels` (default "0") and `grey_labels` as in `rockperm run`. Every other option
of `rockperm run` is given by its name in `options`, e.g. options={"run.tolerance": 1e-5}, with
the same validation and messages. A bad value raises InputError; a problem without a valid k
InvalidPhysics; NaN or a mass drift Diverged; a CUDA or MPI failure RuntimeFailure; a result
that cannot be written OutputError (all subclasses of rockperm.Error). Ctrl-C stops the run at
its next check and raises KeyboardInterrupt; the interpreter stays usable. The solver runs
without the GIL.
"""
import os
import sys
import tempfile

from ._rockperm import (Diverged, Error, InputError, InvalidPhysics, OutputError, Result,
                        RuntimeFailure, __version__)
from . import _rockperm

__all__ = ["permeability", "plan", "read", "Result", "Error", "InputError", "InvalidPhysics", "Diverged",
           "OutputError", "RuntimeFailure", "__version__"]

_AXES = {"x": "x", "y": "y", "z": "z", 0: "x", 1: "y", 2: "z", "all": "all"}


def _print_progress(step, k_md, error, seconds):
    error_text = "?" if error != error or error == float("inf") else "%.2e" % error
    print("rockperm: step %8d  k = %.8g mD  error %s  %.1f s" % (step, k_md, error_text, seconds),
          file=sys.stderr, flush=True)


def permeability(mask, voxel_size_um, axis="x", pore_labels=None, grey_labels=None,
                 inlet_outlet="buffer", lateral="sealed", backend="auto", storage="auto",
                 progress=False, fields=False, output_dir=None, options=None):
    """Runs the sample to steady flow and returns its Result (k_mD, k_m2, k_error, status, to_dict()).

    mask: 3-D numpy array [z, y, x] (bool: True = pore; integers: labels). voxel_size_um: the edge
    of a voxel in micrometres. axis: "x", "y" or "z" (numpy axes 2, 1, 0), or "all": a run along
    each axis and the permeability tensor (Result.tensor, 3x3 in mD; to_dict() the tensor's
    report). inlet_outlet: buffer, mirror or periodic; lateral: sealed or periodic; backend:
    auto, cpu or cuda; storage: auto, fp32 or fp16. progress: True prints a line per check to
    stderr, or a callable progress(step, k_mD, error_estimate, seconds). fields: keep the
    velocity (m/s) and pressure (Pa) of every voxel: Result.velocity() [z, y, x, 3] and
    Result.pressure() [z, y, x] (one axis only; 16 bytes per voxel). output_dir: the run
    directory (report.json, config.ini; default a new temporary directory, kept:
    Result.report_path). options: any other option of `rockperm run` by name.
    """
    if fields and _AXES.get(axis) == "all":
        raise InputError("fields=True keeps the fields of one run: choose axis 'x', 'y' or 'z'")
    if output_dir is None:
        output_dir = tempfile.mkdtemp(prefix="rockperm-")
    o = _options(voxel_size_um, axis, pore_labels, grey_labels, inlet_outlet, lateral)
    o.update({"run.backend": backend, "run.storage": storage, "output.dir": os.fspath(output_dir)})
    o.update(options or {})
    callback = _print_progress if progress is True else (progress or None)
    return _rockperm._run(mask, o, callback, bool(fields))


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
    if _AXES.get(axis) == "all":
        raise InputError("plan one axis at a time: 'x', 'y' or 'z'")
    o = _options(voxel_size_um, axis, pore_labels, grey_labels, inlet_outlet, lateral)
    o["output.dir"] = tempfile.gettempdir()  # nothing is written
    o.update(options or {})
    return _rockperm._plan(mask, o, int(ranks), [float(g) for g in gpu_memory_gib])


def _options(voxel_size_um, axis, pore_labels, grey_labels, inlet_outlet, lateral):
    if axis not in _AXES:
        raise InputError("axis must be 'x', 'y', 'z' (numpy axes 2, 1, 0) or 'all', not %r" % (axis,))
    # input.file names the sample in reports; the mask itself comes from memory
    o = {"input.file": "numpy-array", "input.voxel_size_um": voxel_size_um, "lbm.flow_axis": _AXES[axis],
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
    o = {"input.file": os.fspath(path)}
    for key, value in input_options.items():
        o["input." + key] = value
    if "input.voxel_size_um" not in o:
        o["input.voxel_size_um"] = 0  # from the header, where there is one
    codes, voxel = _rockperm._read(o)
    mask = codes != 0
    return (mask, voxel) if with_voxel_size else mask
