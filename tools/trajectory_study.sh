#!/usr/bin/env bash
# The whole convergence history of k on synthetic packs (issue "A converged, trustworthy k"):
# one long run per case to a tight tolerance with a progress line at every check, so that the
# distance to the final k, the error estimate and the flux spread can be compared check by check
# (tools/trajectory_table.py reads the logs). rockperm and rockperm-make-pack on PATH.
#   CASES="128:0.10:buffer 128:0.20:periodic" bash tools/trajectory_study.sh
# A case is N:POROSITY:MODE[:SEED[:RADIUS]] (radius N/16 by default, seed 3); environment:
# TOL (1e-6), FLUX (the flux tolerance: TOL), INTERVAL (200), MAX_STEPS (400000), OUT (where the logs
# go), EXTRA (more options).
set -uo pipefail
# shellcheck source=tools/pack_case.sh
source "$(dirname "$0")/pack_case.sh"
out=${OUT:-/tmp/trajectories}
mkdir -p "$out"
for c in ${CASES:-128:0.10:buffer}; do
  pack_case "$c" trajectory || exit 1
  # shellcheck disable=SC2086
  run_case rockperm "$case_dir/out" --run.tolerance="${TOL:-1e-6}" --run.flux_tolerance="${FLUX:-${TOL:-1e-6}}" \
    --run.max_steps="${MAX_STEPS:-400000}" --run.check_interval="${INTERVAL:-200}" --output.progress_seconds=0 \
    ${EXTRA:-} >"$out/$case_name.log" 2>&1
  echo "$case_name: $(grep -E '^(flow|converged|NOT)' "$out/$case_name.log" | cut -c1-90 | tr '\n' ' ')"
done
