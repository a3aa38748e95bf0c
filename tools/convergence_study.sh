#!/usr/bin/env bash
# Steps and seconds to a converged k on a synthetic pack (issue "A converged, trustworthy k"):
# every mode x tau at the default tolerance, against one reference run at a tight tolerance.
# A given tau runs with the force scaled with the viscosity (g = G nu / nu(tau = 1)), so that the
# velocities, and Ma, stay alike; tau "auto" is rockperm's default (auto tau and force).
# Prints one line per run; rockperm and rockperm-make-pack on PATH.
#   N=128 POROSITY=0.10 TAUS="auto 1.0" bash tools/convergence_study.sh
# Environment: N, POROSITY, RADIUS (default N/16), SEED, MODES (buffer periodic), TAUS (auto),
# TOL (default: rockperm's), REF_TOL (1e-6), REF_TAU (first of TAUS), MAX_STEPS, G (1e-5),
# EXTRA (more options).
set -uo pipefail
n=${N:-128} phi=${POROSITY:-0.10} radius=${RADIUS:-$((n / 16))} work=${WORK:-/tmp/convergence_$n}
mkdir -p "$work"
rockperm-make-pack --dims "$n $n $n" --porosity "$phi" --radius "$radius" --seed "${SEED:-3}" \
  --out "$work/pack.raw" | tail -1
printf '[input]\nfile = %s\ndims = %d %d %d\nvoxel_size_um = 5\n[output]\nfields = off\n' "$work/pack.raw" "$n" "$n" "$n" \
  >"$work/pack.ini"
field() { grep -oE "\"$2\": [^,]+" "$1/report.json" | head -1 | sed 's/.*: //'; }
run() {  # name mode tau tolerance
  local out="$work/$1" lateral=sealed physics="--lbm.tau=auto --lbm.force=auto"
  [ "$2" = periodic ] && lateral=periodic
  if [ "$3" != auto ]; then
    physics="--lbm.tau=$3 --lbm.force=$(awk -v G="${G:-1e-5}" -v t="$3" 'BEGIN { printf "%.6g", G * (t - 0.5) / 0.5 }')"
  fi
  # shellcheck disable=SC2086
  rockperm run --config "$work/pack.ini" --lbm.inlet_outlet="$2" --lbm.lateral="$lateral" $physics \
    ${4:+--run.tolerance=$4} --run.max_steps="${MAX_STEPS:-3000000}" --overwrite --output.dir "$out" ${EXTRA:-} \
    >"$out.log" 2>&1
  echo "$1 mode $2 tau $(field "$out" tau) tol ${4:-default} status $(field "$out" status) k_mD $(field "$out" mD)" \
    "steps $(field "$out" steps) solve_s $(field "$out" solve_seconds) error $(field "$out" k_error_estimate)" \
    "flux_spread $(field "$out" flux_nonuniformity)"
}
read -r -a taus <<<"${TAUS:-auto}"
for mode in ${MODES:-buffer periodic}; do
  run "ref-$mode" "$mode" "${REF_TAU:-${taus[0]}}" "${REF_TOL:-1e-6}"
  for tau in "${taus[@]}"; do run "$mode-$tau" "$mode" "$tau" "${TOL:-}"; done
done
