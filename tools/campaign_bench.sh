#!/usr/bin/env bash
# Campaign throughput (issue "Permeability campaigns"): COUNT synthetic packs of N^3 (porosity
# 15 to 35 %, seeds 1..COUNT) run (a) one `rockperm run` after another, (b) as one campaign on
# one GPU, (c) as one campaign over GPUS ranks (one per GPU). Prints samples per minute and the
# GPU busy fraction (time in the solver loop / (wall time x GPUs)). rockperm, rockperm-make-pack
# (and mpiexec for GPUS > 1) on PATH. mpiexec --bind-to none: Open MPI binds 2 ranks to one core
# each by default, which leaves the host work of a worker (read, percolation) one core.
# ARGS: more options of rockperm campaign (e.g. --read-ahead 4). SEQUENTIAL=0 skips (a).
#   COUNT=32 N=128 GPUS=2 bash tools/campaign_bench.sh
set -uo pipefail
count=${COUNT:-32} n=${N:-128} gpus=${GPUS:-1} work=${WORK:-/tmp/campaign_bench} args=${ARGS:-}
rm -rf "$work" && mkdir -p "$work/scans" && cd "$work" || exit 1
echo "id,input" >m.csv
for i in $(seq 1 "$count"); do
  phi=$(awk -v i="$i" 'BEGIN { printf "%.2f", 0.15 + 0.20 * ((i * 7) % 11) / 10 }')
  rockperm-make-pack --dims "$n $n $n" --porosity "$phi" --radius $((n / 16)) --seed "$i" --out "scans/p$i.raw" >/dev/null
  echo "p$i,scans/p$i.raw" >>m.csv
done
printf '[input]\ndims = %d %d %d\nvoxel_size_um = 5\n[lbm]\ninlet_outlet = periodic\nlateral = periodic\n[output]\nfields = off\n' \
  "$n" "$n" "$n" >base.ini
busy() {  # campaign dir, wall seconds, gpus
  awk -F, -v wall="$2" -v g="$3" 'NR > 1 && $2 == "converged" { s += $10; c++ }
    END { printf "%d converged, solver %.1f s, busy %.0f %%", c, s, 100 * s / (wall * g) }' "$1/campaign.csv"
}
now() { date +%s.%N; }
if [ "${SEQUENTIAL:-1}" = 1 ]; then
t0=$(now)
for i in $(seq 1 "$count"); do
  CUDA_VISIBLE_DEVICES=0 rockperm run --config base.ini --input.file "scans/p$i.raw" --output.dir "runs/p$i" >/dev/null 2>&1
done
t1=$(now)
seq_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
solver=$(cat runs/*/report.json | grep -o '"solve_seconds": [0-9.e+-]*' | awk '{ s += $2 } END { print s }')
awk -v c="$count" -v w="$seq_s" -v s="$solver" 'BEGIN { printf "one run after another, 1 GPU: %.1f s, %.1f samples/min, busy %.0f %%\n", w, 60 * c / w, 100 * s / w }'
fi
t0=$(now)
CUDA_VISIBLE_DEVICES=0 rockperm campaign --manifest m.csv --config base.ini --dir c1 $args >c1.log 2>&1
t1=$(now)
w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
echo "campaign, 1 GPU: $(awk -v c="$count" -v w="$w" 'BEGIN { printf "%.1f s, %.1f samples/min", w, 60 * c / w }'), $(busy c1 "$w" 1)"
if [ "$gpus" -gt 1 ]; then
  t0=$(now)
  mpiexec --bind-to none -n "$gpus" rockperm campaign --manifest m.csv --config base.ini --dir cg $args >cg.log 2>&1
  t1=$(now)
  w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
  echo "campaign, $gpus GPUs: $(awk -v c="$count" -v w="$w" 'BEGIN { printf "%.1f s, %.1f samples/min", w, 60 * c / w }'), $(busy cg "$w" "$gpus")"
  diff <(cut -d, -f1-3 c1/campaign.csv) <(cut -d, -f1-3 cg/campaign.csv) >/dev/null && echo "same k on 1 and $gpus GPUs" || echo "k differs between 1 and $gpus GPUs"
fi
tail -3 c1.log
