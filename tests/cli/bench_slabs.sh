#!/usr/bin/env bash
# rockperm bench on two MPI ranks: a list of halo transports is timed on one lattice (a row
# each), --weak --planes gives each rank a slab of that many planes, and every row says its time
# against the slowest rank stepping its slab alone ("of alone"); --loopback does that on one process.
# tools/pace_study.py reads the JSON of such a run.
#   bench_slabs.sh MPIEXEC ROCKPERM PACE_STUDY
set -euo pipefail
mpiexec=$1 rockperm=$2 pace_study=$3
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
# --json: every repeat's time, and each rank's own, of the row and of its reference
# (two transports that are both staged on the CPU: rows of the same steps from the same state,
# whose flow sums the bench compares, exit 4 where they differ)
json=$(OMP_NUM_THREADS=1 "$mpiexec" -n 2 --oversubscribe "$rockperm" bench --backend cpu --sizes 16 --geometries pack \
  --propagation fused --weak --planes 6 --halo-transport staged,auto --repeats 3 --steps 2 --json) ||
  { echo "bench_slabs: the bench failed its own check: $json" >&2; exit 1; }
python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["flow_sums_agree"] is True and len(d["rows"]) == 2, d.get("flow_sums_agree")
r = d["rows"][0]
assert d["rank_devices"] == ["cpu", "cpu"], d["rank_devices"]  # each rank names its device
assert r["steps_per_repeat"] == 2 and len(r["repeat_seconds"]) == 3 and len(r["repeat_end_unix"]) == 3, r
assert sorted(r["repeat_end_unix"]) == r["repeat_end_unix"] and r["repeat_end_unix"][0] > 1.7e9, r
# the reference ran before the row, each repeat ending when its slowest rank did
ends = r["alone_repeat_end_unix"]
assert len(ends) == 3 and sorted(ends) == ends and ends[-1] <= r["repeat_end_unix"][0], r
for key in ("rank_repeat_seconds", "alone_rank_repeat_seconds"):
    assert len(r[key]) == 2 and all(len(x) == 3 and min(x) > 0 for x in r[key]), (key, r[key])
# a repeat of the row lasts as long as its slowest rank (which waited for no one)
for k in range(3):
    assert max(x[k] for x in r["rank_repeat_seconds"]) <= r["repeat_seconds"][k] * 1.0001, r
' <<<"$json" || { echo "bench_slabs: --json lacks the repeats of a row or of its ranks" >&2; exit 1; }
# pace_study: a line for the row, its bound at most 100 % (the slowest total over the paced sum)
study=$(python3 "$pace_study" - <<<"$json")
printf '%s\n' "$study"
awk '/^pack-16wx6 +fused fp32 +2 staged +3 / { v = $8; sub(/%$/, "", v); ok = (v + 0 > 0 && v + 0 <= 100.0001) }
     END { exit ok ? 0 : 1 }' <<<"$study" || { echo "bench_slabs: pace_study gave no row with a bound in (0, 100 %]" >&2; exit 1; }
set +e
python3 "$pace_study" - <<<'{"rows": []}' >/dev/null 2>&1; rc_empty=$?
python3 "$pace_study" /nonexistent.json >/dev/null 2>&1; rc_missing=$?
set -e
[ "$rc_empty" -eq 1 ] && [ "$rc_missing" -eq 2 ] || { echo "bench_slabs: pace_study exits $rc_empty / $rc_missing, not 1 / 2" >&2; exit 1; }

# --loopback: one process steps each lattice as one slab that sends its halos to itself, and
# times that against its plain step; under mpiexec it is refused before any row
out=$(OMP_NUM_THREADS=1 "$rockperm" bench --backend cpu --loopback --sizes 16 --geometries pack --propagation fused \
  --halo-transport staged --repeats 1 --steps 2)
printf '%s\n' "$out"
grep -q '^loopback ' <<<"$out" || { echo "bench_slabs: --loopback does not say so" >&2; exit 1; }
bad=$(grep -E '^pack-16 +fused fp32 +1 +4096 .* staged ' <<<"$out" | awk '{ v = $NF; sub(/%$/, "", v); if ($NF !~ /^[0-9]+\.[0-9]%$/ || v + 0 <= 0) print "x" }')
rows=$(grep -cE '^pack-16 +fused fp32 +1 +4096 .* staged ' <<<"$out" || true)
[ "$rows" -eq 1 ] && [ -z "$bad" ] || { echo "bench_slabs: expected one loopback row with an 'of alone' percentage" >&2; exit 1; }
# and its JSON says so, with the row's time against the plain step
OMP_NUM_THREADS=1 "$rockperm" bench --backend cpu --loopback --sizes 16 --geometries pack --propagation fused \
  --halo-transport staged --repeats 1 --steps 2 --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["loopback"] is True and len(d["rows"]) == 1, d
assert d["rows"][0]["of_alone"] > 0 and d["rows"][0]["alone_ms_per_step"] > 0, d["rows"][0]
' || { echo "bench_slabs: --loopback --json lacks loopback or of_alone" >&2; exit 1; }
set +e
err=$(OMP_NUM_THREADS=1 "$mpiexec" -n 2 --oversubscribe "$rockperm" bench --backend cpu --loopback --sizes 16 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "bench_slabs: --loopback on two ranks exited $rc, not 2" >&2; exit 1; }
grep -q -- '--loopback stands for a second rank' <<<"$err" || { echo "bench_slabs: no message for --loopback on two ranks" >&2; exit 1; }
! grep -qE '^pack-' <<<"$err" || { echo "bench_slabs: --loopback on two ranks printed rows" >&2; exit 1; }
