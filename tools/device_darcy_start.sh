#!/usr/bin/env bash
# Issue 67 (time to k on tight rock) on a GPU host, in one call: the GPU tests of the 18-link
# conduction engine and of the Darcy-scale start, tight512 from its file to k with each way of
# starting (tools/time_to_k.sh), and packs of the stop table (tools/stop_cases.txt) with each.
# Ways (MODES): rest (the default), start (run.start = darcy), correct (run.extrapolation = darcy:
# the start and the density corrections).
# PARTS may also name formation: tight512's F alone (run.formation_factor = only).
# Run from the repository root after `source .devbundle/env.sh`:
#   OUT=DIR [PARTS="tests tight stops"] [MODES="rest start correct"] [STORAGES="fp32 fp16"] [CASES="..."]
#   bash tools/device_darcy_start.sh
set -uo pipefail
out=${OUT:-/tmp/darcy_start}
mkdir -p "$out"
parts=${PARTS:-tests tight stops}
modes=${MODES:-rest start correct}
storages=${STORAGES:-fp32 fp16}
options() {  # the run options of a way of starting
  case $1 in
    rest) echo "--run.start=rest" ;;
    start) echo "--run.start=darcy" ;;
    correct) echo "--run.extrapolation=darcy" ;;
  esac
}
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
if [[ $parts == *tests* ]]; then
  echo "== gpu_tests (conduction) and gpu_validation_tests (Darcy start)"
  { gpu_tests --gtest_filter='CudaConduction*'; gpu_validation_tests --gtest_filter='DarcyStart*'; } 2>&1 |
    tee "$out/gpu_tests.txt" | grep -E '^\[       OK|^\[  FAILED|^\[  PASSED|Failure' | head -30
fi
if [[ $parts == *tight* ]]; then
  echo "== tight512 from its file to k (tools/time_to_k.sh)"
  for storage in $storages; do
    for mode in $modes; do
      echo "-- $storage, $mode: $(options "$mode")"
      # shellcheck disable=SC2046
      WORK=$out/ttk bash "$here/time_to_k.sh" tight512 -- --run.storage=$storage $(options "$mode") | tee -a "$out/tight512.txt"
      cp "$out/ttk/tight512.log" "$out/tight512_${storage}_$mode.log"
    done
  done
fi
if [[ $parts == *formation* ]]; then
  echo "== tight512's formation factor alone (the same multigrid-CG as the model's solves)"
  WORK=$out/ttk bash "$here/time_to_k.sh" tight512 -- --run.formation_factor=only | tee -a "$out/tight512.txt"
  cp "$out/ttk/tight512.log" "$out/tight512_formation.log"
fi
if [[ $parts == *stops* ]]; then
  echo "== stop-table packs: each way against the same case at tolerance 1e-6 (mode ref, run first)"
  # shellcheck source=tools/pack_case.sh
  source "$here/pack_case.sh"
  cases=${CASES:-"128:0.10:buffer:5:4 256:0.10:buffer:3:16 256:0.12:buffer:23:6 256:0.15:buffer:9:8 256:0.20:buffer:13:16 256:0.25:mirror:7:8 256:0.18:periodic:31:10"}
  for c in $cases; do
    pack_case "$c" ds
    for mode in ${STOP_MODES:-ref $modes}; do
      if [ "$mode" = ref ]; then
        run_case rockperm "$case_dir/ref" --run.tolerance=1e-6 --run.resolution_study=off >"$case_dir/ref.log" 2>&1
      else
        # shellcheck disable=SC2046
        run_case rockperm "$case_dir/$mode" $(options "$mode") --run.resolution_study=off >"$case_dir/$mode.log" 2>&1
      fi
      python3 - "$case_dir/$mode/report.json" "$c" "$mode" "$case_dir/ref/report.json" <<'PY' | tee -a "$out/stops.txt"
import json, os, sys
r = json.load(open(sys.argv[1])); k = r["permeability"]["mD"]; st = r.get("start") or {}
ref = json.load(open(sys.argv[4]))["permeability"]["mD"] if os.path.exists(sys.argv[4]) else 0
off = "%+.1e" % (k / ref - 1) if ref > 0 else "no reference"
extra = ""
if st.get("done"):
    extra = ", start %d it %.2f s (set-up %.2f) on %s" % (st["iterations"], st["seconds"], st.get("setup_seconds", 0), st["device"])
    if st.get("corrections"):
        extra += "; %d corrections %.2f s, scale %.3g" % (st["corrections"], st["correction_seconds"], st["correction_scale"])
        if st.get("correction_converged"):
            extra += ", converged (floor %.1e)" % st["correction_error_floor"]
print("%-26s %-7s k %.7g mD (%s from ref, stating %.1e) in %6d steps, solve %.2f s%s" % (
    sys.argv[2], sys.argv[3], k, off, r["k_error_estimate"] or 0, r["steps"], r["performance"]["solve_seconds"], extra))
PY
    done
  done
fi
