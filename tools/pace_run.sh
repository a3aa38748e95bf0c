#!/usr/bin/env bash
# Runs a `rockperm bench --json` command with nvidia-smi logging every GPU's SM clock and power
# every 50 ms beside it, then tools/pace_study.py on the two: what the ranks' paces and their
# GPUs' clocks explain of each row's time (see pace_study.py).
#   tools/pace_run.sh OUTDIR COMMAND...    e.g.
#   tools/pace_run.sh out mpiexec -n 2 rockperm bench --sizes 512 --geometries pack --propagation fused \
#       --storage both --halo-transport ipc,staged --steps 20 --repeats 300 --json
# OUTDIR gets bench.json, smi.csv and study.txt.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: tools/pace_run.sh OUTDIR COMMAND... (a rockperm bench command with --json)" >&2
  exit 2
fi
out=$1
shift
case " $* " in
  *" --json "*) ;;
  *) echo "pace_run: the command has no --json; pace_study reads the bench's JSON" >&2; exit 2 ;;
esac
command -v nvidia-smi >/dev/null || { echo "pace_run: no nvidia-smi on PATH; run this on the GPU host" >&2; exit 2; }
mkdir -p "$out" || exit 2
# nvidia-smi prints local time without a zone: UTC, as pace_study reads it
TZ=UTC nvidia-smi --query-gpu=uuid,timestamp,clocks.sm,power.draw --format=csv -lms 50 >"$out/smi.csv" &
smi=$!
sleep 1
"$@" >"$out/bench.json"
rc=$?
sleep 0.5
kill "$smi" 2>/dev/null
wait "$smi" 2>/dev/null
if [ "$rc" -ne 0 ]; then
  echo "pace_run: the bench exited $rc; its output is in $out/bench.json" >&2
  exit "$rc"
fi
python3 "$(dirname "${BASH_SOURCE[0]}")/pace_study.py" "$out/bench.json" --smi "$out/smi.csv" | tee "$out/study.txt"
