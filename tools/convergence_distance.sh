#!/usr/bin/env bash
# How far the default stop is from steady state (issue "A converged, trustworthy k"): a tight
# synthetic pack between buffers, run at the default tolerance and at 1e-9 with a large step
# limit; prints steps, seconds and k of both. Needs rockperm and rockperm-make-pack on PATH.
#   N=128 POROSITY=0.10 bash tools/convergence_distance.sh
set -uo pipefail
n=${N:-128} phi=${POROSITY:-0.10} work=${WORK:-/tmp/convergence_$n}
mkdir -p "$work"
rockperm-make-pack --dims "$n $n $n" --porosity "$phi" --radius $((n / 16)) --seed 3 --out "$work/pack.raw" | tail -1
printf '[input]\nfile = %s\ndims = %d %d %d\nvoxel_size_um = 5\n' "$work/pack.raw" "$n" "$n" "$n" >"$work/pack.ini"
for tol in 1e-6 1e-9; do
  rockperm run --config "$work/pack.ini" --run.tolerance=$tol --run.max_steps=3000000 --output.fields=off \
    --overwrite --output.dir "$work/tol$tol" 2>&1 | grep -E "pore space|permeability|converged in|NOT|status" | sed "s/^/[$tol] /"
  grep -E '"(mD|steps|solve_seconds)"' "$work/tol$tol/report.json" | tr -d ' \n'; echo
done
