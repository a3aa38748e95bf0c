"""rockperm's PEP 517 build backend: `pip install .` configures and builds the Python module with
CMake (the extension _rockperm and the package rockperm/, for the interpreter that runs pip) and
packs them as a wheel. Standard library only, so that pip's isolated build needs no index.

Environment:
  ROCKPERM_BUILD_DIR   an existing CMake build of this tree made for the same Python version: its
                       module is used (built if stale) instead of configuring a new build
  ROCKPERM_CMAKE_ARGS  more arguments for the configure step, e.g. "-DROCKPERM_ENABLE_CUDA=OFF"
"""
import base64
import hashlib
import importlib.machinery
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PY_FILES = ROOT / "python" / "rockperm"


def _version():
    text = (ROOT / "CMakeLists.txt").read_text()
    m = re.search(r"project\(rockperm VERSION ([0-9.]+)", text)
    if not m:
        raise RuntimeError("rockperm_build: no version in CMakeLists.txt's project()")
    return m.group(1)


def _tag():
    v = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (v, v, platform)


def _run(command):
    print("rockperm_build: " + " ".join(shlex.quote(c) for c in command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, stdout=sys.stderr)


def _announce(extra_args):
    """Says before the build what it makes and how long that takes, and the switch that shortens it:
    with nvcc on the PATH the module carries the CUDA backend (GPU runs), whose kernels take most of
    the build (tens of minutes on 2 cores, against a few without)."""
    cuda_off = any(a.replace(" ", "").upper() in ("-DROCKPERM_ENABLE_CUDA=OFF", "-DROCKPERM_ENABLE_CUDA=0")
                   for a in extra_args)
    nvcc = shutil.which("nvcc") or (os.path.exists("/usr/local/cuda/bin/nvcc") and "/usr/local/cuda/bin/nvcc")
    if nvcc and not cuda_off:
        what = ("nvcc found (%s): building the module WITH the CUDA backend (GPU runs), tens of minutes on a few "
                "cores; for a CPU-only module in a few minutes: ROCKPERM_CMAKE_ARGS=-DROCKPERM_ENABLE_CUDA=OFF pip install ."
                % nvcc)
    else:
        what = "building the module for the CPU only (%s)" % ("ROCKPERM_ENABLE_CUDA=OFF" if cuda_off else "no nvcc found")
    print("rockperm_build: " + what + "; the module links rockperm's whole library (runs, campaigns, the "
          "service's code), as `rockperm` does", file=sys.stderr, flush=True)


def _built_module():
    given = os.environ.get("ROCKPERM_BUILD_DIR")
    build = pathlib.Path(given) if given else ROOT / "build" / ("python-" + _tag())
    if not given:
        _announce(shlex.split(os.environ.get("ROCKPERM_CMAKE_ARGS", "")))
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     "-DPython3_EXECUTABLE=" + sys.executable, "-DROCKPERM_ENABLE_PYTHON=ON",
                     "-DROCKPERM_BUILD_TESTS=OFF"]
        configure += shlex.split(os.environ.get("ROCKPERM_CMAKE_ARGS", ""))
        _run(configure)
    _run(["cmake", "--build", str(build), "--target", "_rockperm", "-j", str(os.cpu_count() or 1)])
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    found = [p for p in (build / "python" / "rockperm").glob("_rockperm*") if any(p.name.endswith(s) for s in suffixes)]
    if not found:
        raise RuntimeError("rockperm_build: %s holds no _rockperm module for this Python (%s, suffixes %s): build it "
                           "for this interpreter (-DPython3_EXECUTABLE=%s) or leave ROCKPERM_BUILD_DIR unset"
                           % (build, sys.version.split()[0], " ".join(suffixes), sys.executable))
    return found[0]


def _metadata():
    return ("Metadata-Version: 2.1\nName: rockperm\nVersion: %s\n"
            "Summary: Permeability of segmented micro-CT rock by sparse lattice Boltzmann (GPU and CPU)\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\n" % _version())


def _dist_info():
    return "rockperm-%s.dist-info" % _version()


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = pathlib.Path(metadata_directory) / _dist_info()
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata())
    (info / "WHEEL").write_text(_wheel_text())
    return info.name


def _wheel_text():
    return "Wheel-Version: 1.0\nGenerator: rockperm_build\nRoot-Is-Purelib: false\nTag: %s\n" % _tag()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    module = _built_module()
    files = {"rockperm/" + module.name: module.read_bytes()}
    for name in ("__init__.py", "_two_phase.py", "__init__.pyi", "py.typed"):
        files["rockperm/" + name] = (PY_FILES / name).read_bytes()
    info = _dist_info()
    files[info + "/METADATA"] = _metadata().encode()
    files[info + "/WHEEL"] = _wheel_text().encode()
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
    record.append(info + "/RECORD,,")
    files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = "rockperm-%s-%s.whl" % (_version(), _tag())
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info_entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info_entry.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info_entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info_entry, data)
    return wheel
