#!/usr/bin/env bash
# Where the default stop lands against the steady k, case by case (issue "Time to k"; docs/ACCURACY.md
# "Honest stops after a pressure jump"): each case runs at the defaults, and its k and stated error are compared
# with the last k of the same case's long run by tools/trajectory_study.sh (REFS: the folder of those
# logs). rockperm and rockperm-make-pack on PATH; ROCKPERMS names the binaries to compare (default
# rockperm), each run on the same pack.
#   REFS=/tmp/trajectories CASES="128:0.20:mirror:3:8 512:0.10:buffer:7:8" bash tools/stop_study.sh
# A case is N:POROSITY:MODE[:SEED[:RADIUS]] (tools/pack_case.sh); EXTRA: more options for every run.
# One line per case and binary: steps, jumps, k (mD), the stated error and the true distance
# (relative), with "OUTSIDE" where the distance passes the tolerance (1e-4 unless EXTRA sets another).
# A case without a log in REFS takes its reference from tools/stop_cases.txt where one is kept there.
set -uo pipefail
# shellcheck source=tools/pack_case.sh
source "$(dirname "$0")/pack_case.sh"
refs=${REFS:-/nonexistent}
tol=1e-4
[[ ${EXTRA:-} =~ --run.tolerance=([^ ]+) ]] && tol=${BASH_REMATCH[1]}
for c in ${CASES:?CASES: N:POROSITY:MODE[:SEED[:RADIUS]] ...}; do
  pack_case "$c" stop || exit 1
  ref=$(grep -E '^  step .* k = ' "$refs/$case_name.log" 2>/dev/null | tail -1 | awk '{print $5}')
  # or the reference kept in tools/stop_cases.txt (fp32 runs': not an fp16 run's reference)
  [ -n "$ref" ] || [[ ${EXTRA:-} =~ storage[=\ ]fp16 ]] || ref=$(kept_reference "$c")
  [ -n "$ref" ] || { echo "$case_name: no reference log $refs/$case_name.log nor one in tools/stop_cases.txt" >&2; continue; }
  for bin in ${ROCKPERMS:-rockperm}; do
    # shellcheck disable=SC2086
    run_case "$bin" "$case_dir/out" ${EXTRA:-} >"$case_dir/run.log" 2>&1
    python3 - "$case_dir/out/report.json" "$ref" "$tol" "$case_name" "$(basename "$bin")" \
      "$(grep -c 'pressure extrapolated:' "$case_dir/run.log")" <<'PY'
import json, sys
path, ref, tol, name, binary, jumps = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), *sys.argv[4:]
r = json.load(open(path))
k = r["permeability"]["mD"]
distance = abs(k - ref) / ref
flag = " OUTSIDE" if distance > tol else (" above its error" if distance > r["k_error_estimate"] else "")
print(f"{name:30s} {binary:14s} {r['status']:13s} {r['steps']:7d} steps {jumps} jumps  k {k:.8g}  "
      f"error {r['k_error_estimate']:.1e}  distance {distance:.1e}{flag}")
PY
  done
done
