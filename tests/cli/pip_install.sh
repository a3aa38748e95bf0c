#!/usr/bin/env bash
# `pip install .` as a Python user installs rockperm (issue 49, 6): into a venv that sees Debian's
# numpy, with no package index (the build backend needs nothing from one), from the module this
# build made; then the installed package runs a sample from another folder, with its type stubs.
#   pip_install.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
python=/usr/bin/python3
"$python" -m venv --system-site-packages "$work/venv" ||
  { echo "pip_install: python3 -m venv failed (install python3-venv: packaging/install-deps.sh)" >&2; exit 1; }
ROCKPERM_BUILD_DIR=$build "$work/venv/bin/pip" install --no-index --no-cache-dir --disable-pip-version-check \
  "$src" >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; echo "pip_install: pip install . failed" >&2; exit 1; }
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
for f in __init__.py _two_phase.py __init__.pyi py.typed; do
  [ -f "$site/rockperm/$f" ] || { echo "pip_install: $f was not installed into $site/rockperm" >&2; exit 1; }
done
shown=$("$work/venv/bin/pip" show rockperm)  # whole, before grep: grep -q closing the pipe early broke pip's stdout
grep -q '^Requires: numpy' <<<"$shown" ||
  { echo "pip_install: the installed package does not declare numpy: $shown" >&2; exit 1; }
cd "$work"
PYTHONPATH= "$work/venv/bin/python" - <<'PY'
import numpy as np, rockperm
assert rockperm.__file__.startswith(__import__("sysconfig").get_paths()["platlib"]), rockperm.__file__
mask = np.zeros((8, 8, 8), dtype=np.uint8)
mask[:, 2:6, 2:6] = 1   # a duct along numpy axis 0 (z), 1 = pore
r = rockperm.permeability(mask, voxel_size_um=1.0, axis=0, inlet_outlet="periodic", lateral="periodic", backend="cpu")
assert r.status == "converged" and r.k_mD > 0 and abs(r.porosity - 0.25) < 1e-12, r
print("pip_install: OK, k =", r.k_mD, "mD from", rockperm.__file__)
PY
"$work/venv/bin/pip" uninstall -y rockperm >/dev/null
