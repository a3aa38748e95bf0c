#!/usr/bin/env bash
# A stand-in Slurm for the service's tests (tests/cli/service_slurm.sh, service_security.py):
# sbatch, squeue, sacct, scancel and scontrol written into BIN, their state in STATE. sbatch keeps
# a copy of the script and a background "node" runs the jobs one at a time, while STATE/hold
# does not exist; `scontrol requeue` of a running job gives its ranks TERM and runs it again;
# STATE/refuse makes sbatch refuse, STATE/timeout_next ends the next job TIMEOUT unrun,
# STATE/squeue_down makes squeue fail, STATE/squeue_omits makes it list no job. Every state is
# written by STATE/put.sh, whole. Every call is logged in STATE/<command>.log.
# usage: fake_slurm.sh STATE BIN
set -euo pipefail
F=$(mkdir -p "$1" && cd "$1" && pwd) bin=$2
mkdir -p "$bin"
cat >"$F/put.sh" <<'FAKE'
#!/usr/bin/env bash
# put.sh ID STATE: job ID's state, written whole (a new file moved over the old): a real squeue
# never shows half a state, and a torn one would drop the job from its answer
F=$(dirname "$0")
echo "$2" >"$F/$1.state.$$" && mv -f "$F/$1.state.$$" "$F/$1.state"
FAKE
cat >"$bin/sbatch" <<FAKE
#!/usr/bin/env bash
# sbatch --parsable ... SCRIPT: a copy of the script, run by a background "node" in turn
F=$F
echo "\$*" >>"\$F/sbatch.log"
if [ -e "\$F/refuse" ]; then echo "sbatch: error: invalid partition specified: nope" >&2; exit 1; fi
name="" log=/dev/null ntasks=1
for a in "\$@"; do
  case \$a in --job-name=*) name=\${a#--job-name=} ;; --output=*) log=\${a#--output=} ;; --ntasks=*) ntasks=\${a#--ntasks=} ;; esac
done
script=\${!#}
id=\$(( \$(cat "\$F/next" 2>/dev/null || echo 100) + 1 ))
echo "\$id" >"\$F/next"
cp "\$script" "\$F/\$id.script"
echo "\$name" >"\$F/\$id.name"
put() { bash "\$F/put.sh" "\$@"; }
put "\$id" "PENDING|Priority"
if [ -e "\$F/timeout_next" ]; then rm -f "\$F/timeout_next"; put "\$id" "TIMEOUT|None"; echo "\$id"; exit 0; fi
setsid nohup bash "\$F/node.sh" "\$id" "\$log" "\$ntasks" >/dev/null 2>&1 &
echo "\$id"
FAKE
cat >"$F/node.sh" <<'FAKE'
#!/usr/bin/env bash
# runs job $1 when no job runs and `hold` is gone; again where it was requeued
F=$(dirname "$0") id=$1 log=$2
put() { bash "$F/put.sh" "$@"; }
while :; do
  while [ -e "$F/hold" ] || ! mkdir "$F/busy" 2>/dev/null; do
    grep -q '^PENDING' "$F/$id.state" && { [ -e "$F/hold" ] && ! grep -q '|Resources$' "$F/$id.state" && put "$id" "PENDING|Resources"; }
    grep -q '^CANCELLED' "$F/$id.state" && exit 0
    sleep 0.1
  done
  grep -q '^CANCELLED' "$F/$id.state" && { rmdir "$F/busy"; exit 0; }
  put "$id" "RUNNING|None"
  echo run >>"$F/$id.runs"
  SLURM_JOB_ID=$id SLURM_NTASKS=$3 bash "$F/$id.script" >>"$log" 2>&1 &
  echo $! >"$F/$id.pid"
  wait $!
  rc=$?
  rmdir "$F/busy"
  if grep -q '^REQUEUED' "$F/$id.state"; then put "$id" "PENDING|BeginTime"; continue; fi
  grep -q '^CANCELLED' "$F/$id.state" && exit 0
  [ "$rc" -eq 0 ] && put "$id" "COMPLETED|None" || put "$id" "FAILED|NonZeroExitCode"
  exit 0
done
FAKE
cat >"$bin/squeue" <<FAKE
#!/usr/bin/env bash
F=$F
echo "\$*" >>"\$F/squeue.log"
[ -e "\$F/squeue_down" ] && { echo "squeue: error: Unable to contact slurm controller (connect failure)" >&2; exit 1; }
[ -e "\$F/squeue_omits" ] && exit 0  # a squeue that leaves the jobs out (sacct still knows them)
for s in "\$F"/*.state; do  # ID|NAME|STATE|REASON
  [ -e "\$s" ] || continue
  id=\$(basename "\$s" .state)
  echo "\$id|\$(cat "\$F/\$id.name")|\$(cat "\$s")"
done
FAKE
cat >"$bin/sacct" <<FAKE
#!/usr/bin/env bash
F=$F
for a in "\$@"; do case \$a in --jobs=*) id=\${a#--jobs=} ;; esac; done
[ -e "\$F/\$id.state" ] && cat "\$F/\$id.state"
FAKE
cat >"$bin/scancel" <<FAKE
#!/usr/bin/env bash
F=$F
echo "\$*" >>"\$F/scancel.log"
bash "\$F/put.sh" "\$1" "CANCELLED|None"
[ -s "\$F/\$1.pid" ] && pkill -TERM -P "\$(cat "\$F/\$1.pid")"
exit 0
FAKE
cat >"$bin/scontrol" <<FAKE
#!/usr/bin/env bash
# scontrol requeue ID: from outside a running job, its ranks get TERM (as Slurm's requeue gives)
F=$F
[ "\$1" = requeue ] || exit 1
echo "\$*" >>"\$F/scontrol.log"
running=0
[ "\${SLURM_JOB_ID:-}" != "\$2" ] && grep -q '^RUNNING' "\$F/\$2.state" && running=1
bash "\$F/put.sh" "\$2" "REQUEUED|None"
[ "\$running" = 1 ] && pkill -TERM -P "\$(cat "\$F/\$2.pid")"
exit 0
FAKE
chmod +x "$bin"/*
