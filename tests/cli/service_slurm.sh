#!/usr/bin/env bash
# rockperm serve with service.executor = slurm (issue 53) against a stand-in Slurm: sbatch,
# squeue, sacct, scancel and scontrol written here, running each batch script on this machine
# (one job at a time, held while the file `hold` exists). Checks: a job over HTTP gives the k of
# `rockperm run`, with its Slurm id and state in the API and the service's sbatch settings on
# the command line (and no job option); a restart of the server while its jobs pend in Slurm
# follows them to their end, each run once; a cancel reaches scancel; `scontrol requeue` of a
# running job stops it with a checkpoint and the requeued job resumes to the k of an
# uninterrupted run; a job Slurm ends without a report (TIMEOUT), a job sbatch refuses, a
# squeue that fails and one that leaves out a job sacct still has pending each get an honest
# answer; settings that would reach sbatch as more than a name are refused at the start.
# usage: service_slurm.sh ROCKPERM SAMPLE_DIR WORK_DIR
set -uo pipefail
rockperm=$1 samples=$2 work=$3 name=service_slurm here=$(cd "$(dirname "$0")" && pwd)
source "$(dirname "$0")/service_lib.sh"
rm -rf "$work" && mkdir -p "$work/data" "$work/fakebin" "$work/slurm" && cd "$work" || exit 1
export OMP_NUM_THREADS=2
F=$work/slurm
# no stand-in node outlives the test, whatever ends it
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; pkill -f "$F/node.sh" 2>/dev/null; true' EXIT
cp "$samples/sphere_pack_64.raw" "$samples/sphere_pack_64.ini" data/

# --- the stand-in Slurm (tests/cli/fake_slurm.sh): its commands in fakebin, its state in slurm/
bash "$here/fake_slurm.sh" "$F" "$work/fakebin" || fail "the stand-in Slurm"
export PATH="$work/fakebin:$PATH"

alice=$("$rockperm" serve --add-token alice --tokens tokens) || fail "add-token"
settings='[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = tokens\ndata_root = data\nrun_config = data/sphere_pack_64.ini\nexecutor = slurm\nslurm_partition = gpu-long\nslurm_time_limit = 2:00:00\nslurm_gpus = off\nslurm_launcher = env\nslurm_poll_s = 0.2\n'
# --- settings that would reach sbatch as more than one name: refused at the start ------------
for bad in 'slurm_partition = gpu --wrap=id' 'slurm_account = -x' 'slurm_time_limit = 1h' 'executor = pbs'; do
  printf "$settings$bad\n" >bad.ini
  "$rockperm" serve --config bad.ini >bad.log 2>&1 && fail "started with '$bad'"
  key=${bad%% =*}
  grep -q "$key" bad.log || fail "'$bad': no message naming $key: $(cat bad.log)"
done
printf "$settings" >service.ini
start
grep -q "jobs through Slurm" serve.log || fail "the server does not say it submits to Slurm: $(cat serve.log)"

submit() {  # options JSON: prints the job id
  local r
  r=$(api "$alice" POST /api/jobs -H 'Content-Type: application/json' -d "{\"path\": \"sphere_pack_64.raw\", \"options\": $1}")
  [ "$(status_of "$r")" = 201 ] || fail "submit $1: $r"
  field "$r" "['id']"
}
k_of() { python3 -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['permeability']['mD']))" "$1"; }
job_state() { field "$(api "$alice" GET "/api/jobs/$1")" "$2"; }
wait_for() {  # seconds, what, command...
  local t=$1 what=$2
  shift 2
  for _ in $(seq 1 $((t * 10))); do "$@" && return 0; sleep 0.1; done
  fail "$what"
}

# --- one job over HTTP through sbatch: the k of rockperm run ----------------------------------
"$rockperm" run --config data/sphere_pack_64.ini --run.backend=cpu --output.fields=off --output.dir direct >direct.log 2>&1 ||
  fail "rockperm run: $(tail -3 direct.log)"
r=$(api "$alice" POST /api/jobs -H 'Content-Type: application/json' \
  -d '{"path": "sphere_pack_64.raw", "options": {"output.fields": "off --partition=evil"}}')
[ "$(status_of "$r")" = 400 ] || fail "an option value with sbatch words in it was not refused: $r"
a=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
r=$(wait_finished "$alice" "$a") || exit 1
[ "$(field "$r" "['status']")" = converged ] || fail "job through Slurm: $r"
[ "$(field "$r" "['k_mD'].__repr__()")" = "$(k_of direct/report.json)" ] || fail "k through Slurm $(field "$r" "['k_mD']") is not rockperm run's $(k_of direct/report.json)"
[ "$(field "$r" "['scheduler']['system']")" = slurm ] && [ "$(field "$r" "['scheduler']['job_id']")" = 101 ] ||
  fail "the job does not name its Slurm job: $r"
line=$(head -1 "$F/sbatch.log")
for want in --parsable "--job-name=rockperm-$a" --ntasks=1 --partition=gpu-long --time=2:00:00 --requeue --signal=USR1@180 \
  "--output=$work/state/jobs/$a.log"; do
  grep -q -- "$want" <<<"$line" || fail "sbatch got no $want: $line"
done
grep -q -- "--gpus" <<<"$line" && fail "slurm_gpus = off, yet sbatch was asked for GPUs: $line"
grep -q "evil" "$F/sbatch.log" && fail "a job option reached sbatch's command line: $line"
grep -q "backend = cpu" "state/jobs/$a.ini" || fail "the job's options are not in its INI: $(cat "state/jobs/$a.ini")"
[ "$(wc -l <"$F/101.runs")" = 1 ] || fail "job 101 ran $(wc -l <"$F/101.runs") times"

# --- the server stopped while its jobs pend in Slurm, started again: each followed to its end, run once
touch "$F/hold"
b=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
c=$(submit '{"run.backend": "cpu", "output.fields": "off", "lbm.flow_axis": "y"}') || exit 1
pending_for_resources() { [ "$(job_state "$1" ".get('scheduler', {}).get('reason', '')")" = Resources ]; }
wait_for 20 "job $c never showed as pending for resources: $(api "$alice" GET "/api/jobs/$c")" pending_for_resources "$c"
[ "$(job_state "$b" "['scheduler']['state']")" = PENDING ] || fail "job $b: $(api "$alice" GET "/api/jobs/$b")"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
grep -q "the jobs in Slurm go on" serve.log || fail "the stop does not say the jobs go on in Slurm"
rm -f "$F/hold"
wait_for 60 "the held jobs did not run while the server was down" grep -q COMPLETED "$F/103.state"
start
grep -q "2 of them submitted" serve.log || fail "the restart does not follow the two submitted jobs: $(tail -2 serve.log)"
rb=$(wait_finished "$alice" "$b") || exit 1
rc=$(wait_finished "$alice" "$c") || exit 1
[ "$(field "$rb" "['k_mD'].__repr__()")" = "$(k_of direct/report.json)" ] || fail "job $b after the restart: $rb"
[ "$(field "$rc" "['status']")" = converged ] || fail "job $c after the restart: $rc"
[ "$(wc -l <"$F/sbatch.log")" = 3 ] || fail "the restart submitted a job again: $(cat "$F/sbatch.log")"
[ "$(cat "$F/102.runs" "$F/103.runs" | wc -l)" = 2 ] || fail "a job ran twice"

# --- a cancel through the API reaches scancel -------------------------------------------------
touch "$F/hold"
d=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
[ "$(status_of "$(api "$alice" DELETE "/api/jobs/$d")")" = 200 ] || fail "cancel"
r=$(wait_finished "$alice" "$d") || exit 1
[ "$(field "$r" "['state']")" = cancelled ] || fail "cancelled job: $r"
grep -q "^104$" "$F/scancel.log" || fail "scancel was not called for 104: $(cat "$F/scancel.log" 2>/dev/null)"
rm -f "$F/hold"

# --- scontrol requeue of a running job: a checkpoint, the job again, resumed to the same k --------
long='{"run.backend": "cpu", "output.fields": "off", "run.tolerance": "1e-9", "run.max_steps": "6000", "run.check_interval": "100"}'
"$rockperm" run --config data/sphere_pack_64.ini --run.backend=cpu --output.fields=off --run.tolerance=1e-9 \
  --run.max_steps=6000 --run.check_interval=100 --output.dir direct_long >direct_long.log 2>&1
e=$(submit "$long") || exit 1
wait_for 60 "job $e never reached step 1000" grep -qE 'step +1[0-9]{3} ' "state/jobs/$e.log"
scontrol requeue 105
r=$(wait_finished "$alice" "$e") || exit 1
[ "$(wc -l <"$F/105.runs")" = 2 ] || fail "the requeued job ran $(wc -l <"$F/105.runs") times"
grep -q "requeueing job 105" "state/jobs/$e.log" || fail "no clean stop before the requeue: $(tail -5 "state/jobs/$e.log")"
[ "$(field "$r" "['k_mD'].__repr__()")" = "$(k_of direct_long/report.json)" ] ||
  fail "the requeued job's k $(field "$r" "['k_mD']") is not the uninterrupted run's $(k_of direct_long/report.json)"

# --- Slurm ends a job before rockperm wrote a report; sbatch refuses one; squeue fails ---------
touch "$F/timeout_next"
g=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
r=$(wait_finished "$alice" "$g") || exit 1
[ "$(field "$r" "['status']")" = runtime_error ] && grep -q "TIMEOUT" <<<"$(field "$r" "['message']")" ||
  fail "a job Slurm timed out: $r"
touch "$F/refuse"
h=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
r=$(wait_finished "$alice" "$h") || exit 1
grep -q "invalid partition" <<<"$(field "$r" "['message']")" || fail "sbatch's refusal is not the job's message: $r"
rm -f "$F/refuse"
touch "$F/hold"
i=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
submitted() { [ -n "$(job_state "$1" ".get('scheduler', {}).get('job_id', '')")" ]; }
wait_for 20 "job $i was not submitted" submitted "$i"
touch "$F/squeue_down"
sent=$(wc -l <"$F/sbatch.log")
j=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
sleep 2
[ "$(job_state "$i" "['state']")" = running ] || fail "a job was taken for ended while squeue failed: $(api "$alice" GET "/api/jobs/$i")"
# nor is one submitted that squeue could not show is there already: it waits, queued
[ "$(job_state "$j" "['state']")" = queued ] && [ "$(wc -l <"$F/sbatch.log")" = "$sent" ] ||
  fail "a job was submitted while squeue failed: $(api "$alice" GET "/api/jobs/$j")"
rm -f "$F/squeue_down" "$F/hold"
r=$(wait_finished "$alice" "$i") || exit 1
[ "$(field "$r" "['status']")" = converged ] || fail "the job after squeue came back: $r"
r=$(wait_finished "$alice" "$j") || exit 1
[ "$(field "$r" "['status']")" = converged ] || fail "the job held while squeue failed: $r"
# --- a squeue that leaves out a job sacct still has pending: followed on, not taken for ended ---
touch "$F/hold"
l=$(submit '{"run.backend": "cpu", "output.fields": "off"}') || exit 1
wait_for 20 "job $l was not submitted" submitted "$l"
touch "$F/squeue_omits"
sleep 2
[ "$(job_state "$l" "['state']")" = running ] ||
  fail "a job squeue left out while sacct had it pending was taken for ended: $(api "$alice" GET "/api/jobs/$l")"
rm -f "$F/squeue_omits" "$F/hold"
r=$(wait_finished "$alice" "$l") || exit 1
[ "$(field "$r" "['status']")" = converged ] || fail "the job squeue left out for a while: $r"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
echo "$name: ok"
