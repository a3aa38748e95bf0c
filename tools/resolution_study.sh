#!/usr/bin/env bash
# The resolution study of docs/ACCURACY.md: the spheres of one pack (rockperm-make-pack, 64^3
# base grid) voxelized 1, 2 and 3 times finer with the voxel size shrunk to match, so that k in
# mD is comparable; periodic, tau = 1, run to a tight tolerance; edge contacts sealed and open.
#   bash tools/resolution_study.sh [porosity]     default 0.12
# Environment: SCALES (default "1 2 3"), TOL (default 1e-8), G (default 1e-5), EDGES (default
# "sealed open"), BASE (the base grid's edge, default 64), RADIUS (default: make-pack's),
# STUDY=on (also run.resolution_study: k of the mask coarsened 2x and k extrapolated, in mD).
set -euo pipefail
work=${TMPDIR:-/tmp}/rockperm-resolution-study
mkdir -p "$work"
porosity=${1:-0.12}
for s in ${SCALES:-1 2 3}; do
  base=${BASE:-64}
  n=$((base * s))
  rockperm-make-pack --dims "$base $base $base" --porosity "$porosity" --scale "$s" ${RADIUS:+--radius "$RADIUS"} \
    --out "$work/pack-$s.raw" >/dev/null
  voxel=$(awk -v s="$s" 'BEGIN { printf "%.9g", 1.0 / s }')
  for edges in ${EDGES:-sealed open}; do
    log="$work/$s-$edges.log"
    rockperm run --input.file="$work/pack-$s.raw" --input.dims="$n $n $n" --input.pore_labels=0 \
      --input.voxel_size_um="$voxel" --lbm.inlet_outlet=periodic --lbm.lateral=periodic --lbm.force="${G:-1e-5}" \
      --lbm.edge_contacts="$edges" --run.tolerance="${TOL:-1e-8}" --run.max_steps=3000000 --output.fields=off \
      --run.resolution_study="${STUDY:-off}" --output.dir "$work/$s-$edges.out" >"$log" 2>&1 || true
    k=$(awk '/^permeability/ { print $2 }' "$log")
    conn=$(awk '/^pore space/ { print $6 }' "$log")
    steps=$(awk '/converged in/ { for (i = 1; i <= NF; ++i) if ($i == "in") { print $(i + 1); exit } }' "$log")
    study=$(awk '/^resolution/ { for (i = 1; i <= NF; ++i) if ($i == "size") { print "k_coarse_mD " $3 " k_extrapolated_mD " $(i + 1); exit } }' "$log")
    echo "porosity $porosity scale $s grid ${n}^3 voxel_um $voxel edges $edges connected $conn k_mD ${k:-FAILED} steps ${steps:-?} $study"
  done
done
