#!/usr/bin/env bash
# The tau study of docs/ACCURACY.md: one tight sphere pack (64^3, 12 % porosity), k at
# tau = 0.6, 1 and 2 with the drive scaled with the viscosity, g = G (tau - 1/2) / 0.5, for
# each inlet/outlet mode. Prints one line per run; rockperm and rockperm-make-pack on PATH
# (after `source .devbundle/env.sh` on the GPU host, or build/app here).
#   bash tools/tau_study.sh [modes...]      default: buffer periodic mirror
# Environment: G (default 1e-5), TOL (run.tolerance, default 1e-6), MAX_STEPS (default 400000),
# EXTRA (more rockperm options, e.g. --lbm.edge_contacts=open).
set -euo pipefail
work=${TMPDIR:-/tmp}/rockperm-tau-study
mkdir -p "$work"
G=${G:-1e-5}
rockperm-make-pack --dims "64 64 64" --porosity 0.12 --radius 6 --seed 2026 --out "$work/pack12.raw" >/dev/null
cat >"$work/pack12.ini" <<INI
[input]
file = pack12.raw
dims = 64 64 64
pore_labels = 0
voxel_size_um = 1.0
[lbm]
flow_axis = x
[run]
max_steps = ${MAX_STEPS:-400000}
tolerance = ${TOL:-1e-6}
[output]
fields = off
INI
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(buffer periodic mirror)
for mode in "${modes[@]}"; do
  lateral=sealed
  [ "$mode" = periodic ] && lateral=periodic
  for tau in 0.6 1.0 2.0; do
    g=$(awk -v G="$G" -v t="$tau" 'BEGIN { printf "%.6g", G * (t - 0.5) / 0.5 }')
    log="$work/$mode-$tau.log"
    rockperm run --config "$work/pack12.ini" --lbm.inlet_outlet="$mode" --lbm.lateral="$lateral" \
      --lbm.tau="$tau" --lbm.force="$g" --output.dir "$work/$mode-$tau.out" ${EXTRA:-} >"$log" 2>&1 || true
    k=$(awk '/^permeability/ { print $2 }' "$log")
    steps=$(awk '/converged in|NOT converged in/ { for (i = 1; i <= NF; ++i) if ($i == "in") { print $(i + 1); exit } }' "$log")
    drive=$(awk '/pressure gradient inside/ { for (i = 1; i <= NF; ++i) if ($i == "adds") { print $(i + 1); exit } }' "$log")
    ends=$(awk '/across the whole sample/ { for (i = 1; i <= NF; ++i) if ($i == "add") { print $(i + 1); exit } }' "$log")
    echo "mode $mode tau $tau force $g k_mD ${k:-FAILED} steps ${steps:-?} interior_drive_% ${drive:--} end_plane_drive_% ${ends:--}"
  done
done
