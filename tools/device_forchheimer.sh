#!/usr/bin/env bash
# Issue 68 (beyond Darcy) on a GPU host, in one call: the GPU validation of the sweep, the bundled
# sample's sweep on the GPU beside the CPU's, and the time of a default sweep (8 rates to pore
# Re 10) on 512^3 scans beside their creeping k's (the issue's target: at most 3 times it).
# Run from the repository root after `source .devbundle/env.sh`:
#   OUT=DIR [PARTS="tests sample fp16 scans"] [CASES="tight512 pack512"] [SWEEP_OPTIONS="..."] bash tools/device_forchheimer.sh
# tight512: 512^3, 10 %, spheres 16 voxels across, between buffers (tools/time_to_k.sh's);
# pack512: 512^3, 30 %, spheres 24 voxels across, periodic.
set -uo pipefail
out=${OUT:-/tmp/forchheimer}
mkdir -p "$out"
parts=${PARTS:-tests sample fp16 scans}
read -ra sweep_options <<<"${SWEEP_OPTIONS:-}"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
summary() {  # report.json, label: k and the sweep, point by point
  python3 - "$1/report.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); f = r.get("forchheimer") or {}; p = r["performance"]
pts = f.get("points") or {}
print("%-14s k %.7g mD in %d steps, solve %.2f s; sweep %d steps in %.2f s (%.2f x the creeping solve); %s" % (
    sys.argv[2], r["permeability"]["mD"], r["steps"], p["solve_seconds"], f.get("steps", 0), f.get("seconds", 0),
    f.get("seconds", 0) / max(p["solve_seconds"], 1e-9), r["performance"]["backend"]))
for i, re in enumerate(pts.get("reynolds", [])):
    print("   Re %8.4g  Re_k %8.3g  k_app/k %.6f  lattice %.1e  Ma %.3f  tau %.4f  %6d steps%s" % (
        re, pts["reynolds_k"][i], pts["k_app_over_k"][i], pts["k_app_lattice_error"][i], pts["mach"][i], pts["tau"][i], pts["steps"][i],
        "" if pts["converged"][i] else "  not converged"))
fit = f.get("fit")
if fit:
    print("   fit: k %.6g mD, beta %.4g 1/m, c_F %.4g, residual %.2g over Re %.3g-%.3g" % (
        fit["k_mD"], fit["beta_per_m"], fit["c_F"], fit["residual"], *fit["reynolds_range"]))
print("   onsets: 1 %% at Re %s, 10 %% at Re %s; pore diameter %.4g um; %s" % (
    f.get("reynolds_1pct"), f.get("reynolds_10pct"), f.get("pore_diameter_um", 0), f.get("note", "")))
PY
}
if [[ $parts == *tests* ]]; then
  echo "== gpu_validation_tests (beyond Darcy)"
  gpu_validation_tests --gtest_filter='Forchheimer*' 2>&1 | tee "$out/gpu_validation.txt" |
    grep -E '^\[       OK|^\[  FAILED|^\[  PASSED' | head -20
fi
if [[ $parts == *sample* ]]; then
  echo "== the bundled sample's default sweep: CPU and GPU"
  for b in cpu cuda; do
    rockperm run --config samples/sphere_pack_64.ini --run.backend=$b --forchheimer.sweep=on --output.fields=off \
      --output.dir "$out/sample_$b" --overwrite "${sweep_options[@]}" >"$out/sample_$b.log" 2>&1
    summary "$out/sample_$b" "sample $b"
  done
  python3 - "$out/sample_cpu/report.json" "$out/sample_cuda/report.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["forchheimer"]["points"] for p in sys.argv[1:3])
d = max(abs(x / y - 1) for x, y in zip(a["k_app_mD"], b["k_app_mD"]))
print("   CPU against GPU: %d and %d rates, largest relative difference of k_app %.2e" % (len(a["k_app_mD"]), len(b["k_app_mD"]), d))
PY
fi
if [[ $parts == *fp16* ]]; then
  echo "== the bundled sample's default sweep in fp16 storage, against fp32"
  rockperm run --config samples/sphere_pack_64.ini --run.backend=cuda --run.storage=fp16 --forchheimer.sweep=on \
    --output.fields=off --output.dir "$out/sample_fp16" --overwrite "${sweep_options[@]}" >"$out/sample_fp16.log" 2>&1
  summary "$out/sample_fp16" "sample fp16"
  python3 - "$out/sample_cuda/report.json" "$out/sample_fp16/report.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["forchheimer"]["points"] for p in sys.argv[1:3])
d = max(abs(x / y - 1) for x, y in zip(a["k_app_mD"], b["k_app_mD"]))
print("   fp16 against fp32: %d and %d rates, largest relative difference of k_app %.2e" % (len(a["k_app_mD"]), len(b["k_app_mD"]), d))
PY
fi
if [[ $parts == *scans* ]]; then
  work=/tmp/ttk
  mkdir -p "$work"
  for c in ${CASES:-tight512 pack512}; do
    case $c in
      tight512) dims="512 512 512" phi=0.10 radius=8 mode=(--lbm.inlet_outlet=buffer --lbm.lateral=sealed) ;;
      pack512) dims="512 512 512" phi=0.30 radius=12 mode=(--lbm.inlet_outlet=periodic --lbm.lateral=periodic) ;;
      *) echo "device_forchheimer: unknown case $c" >&2; exit 2 ;;
    esac
    raw="$work/$c.raw"
    [ -s "$raw" ] || rockperm-make-pack --dims "$dims" --porosity "$phi" --radius "$radius" --seed 7 --out "$raw" >/dev/null
    echo "== $c: k, then the default sweep"
    rockperm run --input.file="$raw" --input.dims="$dims" --input.voxel_size_um=2 "${mode[@]}" --output.fields=off \
      --run.resolution_study=off --forchheimer.sweep=on --output.dir "$work/$c.out" --overwrite "${sweep_options[@]}" \
      >"$out/$c.log" 2>&1
    summary "$work/$c.out" "$c"
  done
fi
