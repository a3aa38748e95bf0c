#!/usr/bin/env bash
# Issue 66 (two phases) on a GPU host, in one call: the GPU validation of the two-phase cases, and
# on tight512 (tools/time_to_k.sh's: 512^3, 10 %, between buffers) the time of the drainage curve
# of 20 pressures (and of both curves) beside k's, and k_r at 10 points of the drainage curve.
# Run from the repository root after `source .devbundle/env.sh`:
#   OUT=DIR [PARTS="tests curves relperm"] [CASE=tight512|pack512] [RELPERM_OPTIONS="--run.storage=fp16"]
#   bash tools/device_two_phase.sh
# pack512: 512^3, 30 %, spheres 24 voxels across, between buffers (the non-wetting phase spans).
set -uo pipefail
out=${OUT:-/tmp/two_phase}
mkdir -p "$out"
parts=${PARTS:-tests curves relperm}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
nproc | sed 's/^/cores /'
if [[ $parts == *tests* ]]; then
  echo "== gpu_validation_tests (two phases)"
  gpu_validation_tests --gtest_filter='TwoPhase*' 2>&1 | tee "$out/gpu_validation.txt" |
    grep -E '^\[  (PASSED|FAILED|  OK) |^\[       OK|^\[  FAILED' | head -20
fi
work=/tmp/ttk
mkdir -p "$work"
case ${CASE:-tight512} in
  tight512) dims="512 512 512" phi=0.10 radius=8 mode=(--lbm.inlet_outlet=buffer --lbm.lateral=sealed) ;;
  pack512) dims="512 512 512" phi=0.30 radius=12 mode=(--lbm.inlet_outlet=buffer --lbm.lateral=sealed) ;;
esac
raw="$work/${CASE:-tight512}.raw"
[ -s "$raw" ] || rockperm-make-pack --dims "$dims" --porosity "$phi" --radius "$radius" --seed 7 --out "$raw" >/dev/null
common=(--input.file="$raw" --input.dims="$dims" --input.voxel_size_um=2 "${mode[@]}" --output.fields=off
        --run.resolution_study=off --overwrite)
summary() {
  python3 - "$1/report.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r.get("two_phase") or {}; p = r["performance"]
print("%-22s k %.6g mD in %d steps, solve %.2f s (ready %.2f s); curves %.2f s; k_r %d points in %.1f s; entry %.4g Pa, breakthrough %s Pa, S_w end %.4f" % (
    sys.argv[2], r["permeability"]["mD"], r["steps"], p["solve_seconds"], p["setup_seconds"], t.get("morphology_seconds", 0),
    len(t.get("relative_permeability", [])), t.get("relperm_seconds", 0), t.get("entry_pressure_Pa", 0),
    t.get("breakthrough_pressure_Pa"), t["drainage"]["saturation_wetting"][-1] if t else -1))
for q in t.get("relative_permeability", []):
    w, n = q["wetting"], q["nonwetting"]
    print("   %-10s S_w %.4f Pc %9.4g: k_rw %-10.4g (%5d steps %6.1f s) k_rn %-10.4g (%5d steps %6.1f s) %s" % (
        q["curve"], q["saturation_wetting"], q["pc_Pa"], w["kr"] or 0, w["steps"], w["seconds"], n["kr"] or 0, n["steps"],
        n["seconds"], (w["note"] + " " + n["note"]).strip()))
PY
}
if [[ $parts == *curves* ]]; then
  echo "== ${CASE:-tight512}: k alone, then k with the drainage curve (20 pressures), then both curves"
  rockperm run "${common[@]}" --output.dir "$work/k" >"$out/k.log" 2>&1; summary "$work/k" "k alone"
  rockperm run "${common[@]}" --capillary.curves=drainage --capillary.relperm=0 --output.dir "$work/drain" \
    >"$out/drain.log" 2>&1; summary "$work/drain" "drainage (20)"
  rockperm run "${common[@]}" --capillary.curves=both --capillary.relperm=0 --output.dir "$work/both" \
    >"$out/both.log" 2>&1; summary "$work/both" "drainage+imbibition"
  grep -A26 "^capillary" "$out/both.log" | head -30
fi
if [[ $parts == *relperm* ]]; then
  echo "== ${CASE:-tight512}: k_r at 10 points of the drainage curve"
  timeout "${RELPERM_LIMIT:-420}" rockperm run "${common[@]}" --capillary.curves=drainage --capillary.relperm=10 \
    ${RELPERM_OPTIONS:-} --output.dir "$work/kr" >"$out/kr.log" 2>&1
  echo "exit $? ${RELPERM_OPTIONS:-}"; summary "$work/kr" "k_r (10 points)" || tail -5 "$out/kr.log"
fi
