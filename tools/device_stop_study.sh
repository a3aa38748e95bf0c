#!/usr/bin/env bash
# Issue 54 (an honest error on multi-scale rock), case by case in one call: the reference at
# tolerance 1e-6 (tools/trajectory_study.sh) and the default stops of the builds in ROCKPERMS
# (tools/stop_study.sh), so that what a time limit leaves is whole cases. Cases as pack_case.sh:
# the multi-scale packs (vugs joined through a finer pack) and the packs whose stops follow a
# pressure jump (docs/ACCURACY.md, "Honest stops after a pressure jump").
#   OUT=DIR CASES="..." ROCKPERMS="rockperm-old rockperm" bash tools/device_stop_study.sh
set -uo pipefail
here=$(dirname "$0")
out=${OUT:-/tmp/device_stop_study}
mkdir -p "$out/refs"
for c in ${CASES:?CASES: see tools/pack_case.sh}; do
  OUT="$out/refs" TOL=1e-6 FLUX=1e-5 INTERVAL=100 MAX_STEPS=${MAX_STEPS:-200000} CASES="$c" \
    bash "$here/trajectory_study.sh" >>"$out/refs.txt"
  REFS="$out/refs" CASES="$c" ROCKPERMS="${ROCKPERMS:-rockperm-old rockperm}" EXTRA="${EXTRA:-}" \
    bash "$here/stop_study.sh" | tee -a "$out/stops.txt"
done
