#!/usr/bin/env bash
# Issue 54 (an honest error on multi-scale rock), case by case in one call: the reference at
# tolerance 1e-6 (tools/trajectory_study.sh) and the default stops of the builds in ROCKPERMS
# (tools/stop_study.sh), so that what a time limit leaves is whole cases. Cases as pack_case.sh:
# the multi-scale packs (vugs joined through a finer pack) and the packs whose stops follow a
# pressure jump (docs/ACCURACY.md, "Honest stops after a pressure jump").
#   OUT=DIR [CASES="..."] ROCKPERMS="rockperm-old rockperm" bash tools/device_stop_study.sh
# Without CASES: every case of tools/stop_cases.txt (the whole table); a case whose reference is
# kept there is not run to 1e-6 again unless REFRESH=1.
set -uo pipefail
here=$(dirname "$0")
# shellcheck source=tools/pack_case.sh
source "$here/pack_case.sh"
out=${OUT:-/tmp/device_stop_study}
mkdir -p "$out/refs"
cases=${CASES:-$(grep -E '^[0-9]' "$here/stop_cases.txt" | awk '{print $1}')}
for c in $cases; do
  kept=$(kept_reference "$c")
  if [ -z "$kept" ] || [ "${REFRESH:-0}" = 1 ]; then
    OUT="$out/refs" TOL=1e-6 FLUX=1e-5 INTERVAL=100 MAX_STEPS=${MAX_STEPS:-200000} CASES="$c" \
      bash "$here/trajectory_study.sh" >>"$out/refs.txt"
  fi
  REFS="$out/refs" CASES="$c" ROCKPERMS="${ROCKPERMS:-rockperm-old rockperm}" EXTRA="${EXTRA:-}" \
    bash "$here/stop_study.sh" | tee -a "$out/stops.txt"
done
