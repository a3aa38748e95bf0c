#!/usr/bin/env bash
# rockperm bench on two MPI ranks: a list of halo transports is timed on one lattice (a row
# each), --weak --planes gives each rank a slab of that many planes, and every row says its time
# against the slowest rank stepping its slab alone ("of alone").
#   bench_slabs.sh MPIEXEC ROCKPERM
set -euo pipefail
mpiexec=$1 rockperm=$2
out=$(OMP_NUM_THREADS=1 "$mpiexec" -n 2 --oversubscribe "$rockperm" bench --backend cpu --sizes 16 --geometries pack \
  --propagation fused --weak --planes 6 --halo-transport staged,auto --repeats 1 --steps 2)
printf '%s\n' "$out"
# 16 x 16 x 12 voxels (6 planes a rank); auto is staged on the CPU backend
rows=$(grep -cE '^pack-16wx6 +fused fp32 +2 +3072 .* staged ' <<<"$out" || true)
[ "$rows" -eq 2 ] || { echo "bench_slabs: expected 2 rows of the 16x16x12 slab case, got $rows" >&2; exit 1; }
[ "$(grep -c '^halo  ' <<<"$out")" -eq 2 ] || { echo "bench_slabs: expected a halo line per transport" >&2; exit 1; }
# the last column: a percentage, more than 0 (the ranks alone are timed on the same slabs)
bad=$(grep -E '^pack-16wx6 ' <<<"$out" | awk '{ v = $NF; sub(/%$/, "", v); if ($NF !~ /^[0-9]+\.[0-9]%$/ || v + 0 <= 0) print }')
[ -z "$bad" ] || { echo "bench_slabs: rows without a positive 'of alone' percentage: $bad" >&2; exit 1; }
