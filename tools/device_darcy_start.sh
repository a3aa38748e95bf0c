#!/usr/bin/env bash
# Issue 67 (time to k on tight rock) on a GPU host, in one call: the GPU tests of the 18-link
# conduction engine and of the Darcy-scale start, tight512 from its file to k with each start
# (tools/time_to_k.sh; fp32 and fp16), and packs of the stop table (tools/stop_cases.txt) with each
# start against their tolerance-1e-6 k.
# Run from the repository root after `source .devbundle/env.sh`:
#   OUT=DIR [PARTS="tests tight stops"] [CASES="..."] bash tools/device_darcy_start.sh
set -uo pipefail
out=${OUT:-/tmp/darcy_start}
mkdir -p "$out"
parts=${PARTS:-tests tight stops}
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
if [[ $parts == *tests* ]]; then
  echo "== gpu_tests (conduction) and gpu_validation_tests (Darcy start)"
  { gpu_tests --gtest_filter='CudaConduction*'; gpu_validation_tests --gtest_filter='DarcyStart*'; } 2>&1 |
    tee "$out/gpu_tests.txt" | grep -E '^\[       OK|^\[  FAILED|^\[  PASSED|Failure' | head -30
fi
if [[ $parts == *tight* ]]; then
  echo "== tight512 from its file to k (tools/time_to_k.sh)"
  for storage in fp32 fp16; do
    for start in rest darcy; do
      echo "-- $storage, run.start=$start"
      WORK=$out/ttk bash "$here/time_to_k.sh" tight512 -- --run.storage=$storage --run.start=$start | tee -a "$out/tight512.txt"
    done
  done
fi
if [[ $parts == *stops* ]]; then
  echo "== stop-table packs: each start against the tolerance-1e-6 k"
  # shellcheck source=tools/pack_case.sh
  source "$here/pack_case.sh"
  cases=${CASES:-"128:0.10:buffer:5:4 256:0.10:buffer:3:16 256:0.12:buffer:23:6 256:0.15:buffer:9:8 256:0.20:buffer:13:16 256:0.25:mirror:7:8 256:0.18:periodic:31:10"}
  for c in $cases; do
    pack_case "$c" ds
    ref=$(kept_reference "$c")
    for start in rest darcy; do
      run_case rockperm "$case_dir/$start" --run.start=$start --run.resolution_study=off >"$case_dir/$start.log" 2>&1
      python3 - "$case_dir/$start/report.json" "$c" "$start" "${ref:-0}" <<'PY' | tee -a "$out/stops.txt"
import json, sys
r = json.load(open(sys.argv[1])); ref = float(sys.argv[4]); k = r["permeability"]["mD"]; st = r.get("start") or {}
off = "%+.1e" % (k / ref - 1) if ref > 0 else "no reference"
print("%-26s %-5s k %.7g mD (%s from steady, stating %.1e) in %6d steps, solve %.2f s%s" % (
    sys.argv[2], sys.argv[3], k, off, r["k_error_estimate"] or 0, r["steps"], r["performance"]["solve_seconds"],
    ", start %d it %.2f s on %s" % (st["iterations"], st["seconds"], st["device"]) if st.get("done") else ""))
PY
    done
  done
fi
