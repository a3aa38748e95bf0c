#!/usr/bin/env bash
# rockperm serve with executor = slurm against a real Slurm (issue 53), by hand: start one with
# tools/slurm_single_node.sh (MpiDefault=none, no accounting, no GPUs), then
#   tools/slurm_service_check.sh ROCKPERM SAMPLE_DIR WORK_DIR [JOBS]
# submits JOBS (default 20) jobs of the bundled sample over the web API (flow along x, y and z in
# turn, on the CPU backend), stops the server while some pend and some run and starts it again,
# requeues one running job (scontrol requeue) and cancels another (scancel through the API), and
# checks that every job ran once (twice for the requeued one, resumed), that each k equals the k
# of `rockperm run` of the same options to every digit, and that the cancelled job is cancelled.
# Prints a summary line per check; exits 1 at the first failure.
set -uo pipefail
rockperm=$(realpath "$1") samples=$(realpath "$2") work=$3 jobs=${4:-20} name=slurm_service_check
source "$(dirname "$0")/../tests/cli/service_lib.sh"
command -v sbatch >/dev/null && sinfo -h >/dev/null 2>&1 || fail "no Slurm here: start one with tools/slurm_single_node.sh start"
rm -rf "$work" && mkdir -p "$work/data" && cd "$work" || exit 1
cp "$samples/sphere_pack_64.raw" "$samples/sphere_pack_64.ini" data/
alice=$("$rockperm" serve --add-token alice --tokens tokens) || fail "add-token"
printf '[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = tokens\ndata_root = data\nrun_config = data/sphere_pack_64.ini\nexecutor = slurm\nslurm_gpus = off\nslurm_launcher = srun --mpi=pmix\nslurm_poll_s = 1\n' >service.ini
axes=(x y z)
declare -A k_direct
for a in "${axes[@]}"; do
  "$rockperm" run --config data/sphere_pack_64.ini --run.backend=cpu --output.fields=off --lbm.flow_axis=$a \
    --output.dir "direct_$a" >"direct_$a.log" 2>&1 || fail "rockperm run along $a"
  k_direct[$a]=$(python3 -c "import json; print(repr(json.load(open('direct_$a/report.json'))['permeability']['mD']))")
done
long_opts='"run.tolerance": "1e-9", "run.max_steps": "8000", "run.check_interval": "100"'
"$rockperm" run --config data/sphere_pack_64.ini --run.backend=cpu --output.fields=off --run.tolerance=1e-9 \
  --run.max_steps=8000 --run.check_interval=100 --output.dir direct_long >direct_long.log 2>&1
k_long=$(python3 -c "import json; print(repr(json.load(open('direct_long/report.json'))['permeability']['mD']))")
start
submit() {
  local r
  r=$(api "$alice" POST /api/jobs -H 'Content-Type: application/json' -d "{\"path\": \"sphere_pack_64.raw\", \"options\": {\"run.backend\": \"cpu\", \"output.fields\": \"off\", $1}}")
  [ "$(status_of "$r")" = 201 ] || fail "submit: $r"
  field "$r" "['id']"
}
declare -A axis_of
ids=()
for i in $(seq 1 "$jobs"); do
  a=${axes[$((i % 3))]}
  id=$(submit "\"lbm.flow_axis\": \"$a\"") || exit 1
  ids+=("$id")
  axis_of[$id]=$a
done
long=$(submit "$long_opts") || exit 1
cancel=$(submit "$long_opts") || exit 1
echo "$name: submitted $((jobs + 2)) jobs; squeue:"
squeue --noheader --format="%i %j %T %r" | head -5
for _ in $(seq 1 100); do [ -n "$(squeue --noheader --states=RUNNING)" ] && break; sleep 0.2; done
kill -TERM "$pid" && wait "$pid" 2>/dev/null
echo "$name: server stopped with $(squeue --noheader --states=PENDING | wc -l) pending and $(squeue --noheader --states=RUNNING | wc -l) running"
sleep 3
start
grep -q "of them submitted" serve.log || fail "the restart does not follow the submitted jobs"
# the long jobs: one requeued while it runs, one cancelled while it runs
sid_of() { field "$(api "$alice" GET "/api/jobs/$1")" "['scheduler']['job_id']"; }
for _ in $(seq 1 600); do
  grep -qE 'step +1[0-9]{3} ' "state/jobs/$long.log" 2>/dev/null && break
  sleep 0.5
done
scontrol requeue "$(sid_of "$long")" || fail "scontrol requeue"
for _ in $(seq 1 600); do
  grep -qE 'step +1[0-9]{3} ' "state/jobs/$cancel.log" 2>/dev/null && break
  sleep 0.5
done
[ "$(status_of "$(api "$alice" DELETE "/api/jobs/$cancel")")" = 200 ] || fail "cancel"
bad=0
for id in "${ids[@]}"; do
  r=$(wait_finished "$alice" "$id") || exit 1
  k=$(field "$r" "['k_mD'].__repr__()")
  [ "$k" = "${k_direct[${axis_of[$id]}]}" ] || { echo "$name: job $id (${axis_of[$id]}): k $k, rockperm run ${k_direct[${axis_of[$id]}]}"; bad=1; }
done
[ "$bad" = 0 ] || fail "a job's k differs from rockperm run's"
echo "$name: $jobs jobs converged, each k equal to rockperm run's to every digit"
r=$(wait_finished "$alice" "$long") || exit 1
[ "$(field "$r" "['k_mD'].__repr__()")" = "$k_long" ] || fail "the requeued job: $(field "$r" "['k_mD']") vs $k_long"
# Slurm's requeue stops the whole job (the batch script too): rockperm's checkpoint on TERM, then the job again, resumed
grep -q "^INTERRUPTED" "state/jobs/$long.log" && [ "$(grep -c "^sample " "state/jobs/$long.log")" = 2 ] ||
  fail "the requeued job did not stop with a checkpoint and run again: $(grep -E '^(sample|INTERRUPTED|converged)' "state/jobs/$long.log")"
echo "$name: the requeued job resumed to the uninterrupted k ($k_long mD)"
r=$(wait_finished "$alice" "$cancel") || exit 1
[ "$(field "$r" "['state']")" = cancelled ] || fail "the cancelled job: $r"
echo "$name: the cancelled job is cancelled (its Slurm job: $(squeue --noheader --states=all -j "$(field "$r" "['scheduler']['job_id']")" --format=%T 2>/dev/null || echo gone))"
once=1
for id in "${ids[@]}"; do
  n=$(grep -c "^sample " "state/jobs/$id.log")
  [ "$n" = 1 ] || { echo "$name: job $id ran $n times"; once=0; }
done
[ "$once" = 1 ] || fail "a job ran more than once"
echo "$name: every job ran once"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
echo "$name: ok"
