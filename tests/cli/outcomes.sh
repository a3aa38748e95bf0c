#!/usr/bin/env bash
# Every way a run can end, through the command line: the exit code, the report's status, what
# is left in the run directory. Issue "Runs that never lose work".
#   outcomes.sh ROCKPERM SAMPLE_INI WORKDIR [MPIEXEC]
set -uo pipefail
rockperm=$1 ini=$2 work=$3 mpiexec=${4:-}
export OMP_NUM_THREADS=2 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
status_of() { grep -o '"status": "[a-z_]*"' "$1/report.json" 2>/dev/null | head -1 | cut -d'"' -f4; }
k_of() { grep -o '"mD": [0-9.e+-]*' "$1/report.json" | head -1; }
f_of() { grep -o '"formation_factor": [0-9.e+-]*' "$1/report.json" | head -1; }
expect() {  # expect NAME CODE STATUS DIR -- COMMAND...
  local name=$1 code=$2 status=$3 dir=$4
  shift 5
  "$@" >"$work/$name.log" 2>&1
  local rc=$?
  [ "$rc" -eq "$code" ] || fail "$name: exit $rc, expected $code ($(tail -1 "$work/$name.log"))"
  [ "$(status_of "$dir")" = "$status" ] || fail "$name: status '$(status_of "$dir")', expected '$status'"
}
run() { "$rockperm" run --config "$ini" --run.backend=cpu --output.fields=off "$@"; }

# --- interrupted by SIGTERM, resumed on one and on two ranks: k and F to the last bit ---------
run --run.tolerance=1e-7 --run.formation_factor=on --output.dir "$work/whole" >"$work/whole.log" 2>&1 || fail "uninterrupted run"
[ -n "$(f_of "$work/whole")" ] || fail "no formation factor in the uninterrupted run's report"
"$rockperm" run --config "$ini" --run.backend=cpu --output.fields=off --run.tolerance=1e-7 --run.formation_factor=on \
  --output.dir "$work/cut" >"$work/cut.log" 2>&1 &
pid=$!  # rockperm itself, not a subshell: the signal must reach it
for _ in $(seq 100); do grep -q "  step" "$work/cut.log" 2>/dev/null && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 6 ] || fail "SIGTERM: exit $rc, expected 6"
[ "$(status_of "$work/cut")" = interrupted ] || fail "SIGTERM: status $(status_of "$work/cut")"
[ -s "$work/cut/checkpoint.rpk" ] || fail "SIGTERM: no checkpoint"
cp -r "$work/cut" "$work/cut2"
expect resume 0 converged "$work/cut" -- "$rockperm" run --resume "$work/cut"
[ "$(k_of "$work/cut")" = "$(k_of "$work/whole")" ] || fail "resume: $(k_of "$work/cut") vs $(k_of "$work/whole")"
[ "$(f_of "$work/cut")" = "$(f_of "$work/whole")" ] || fail "resume: $(f_of "$work/cut") vs $(f_of "$work/whole")"
if [ -n "$mpiexec" ]; then
  expect resume2 0 converged "$work/cut2" -- env OMP_NUM_THREADS=1 $mpiexec -n 2 --oversubscribe "$rockperm" run --resume "$work/cut2"
  [ "$(k_of "$work/cut2")" = "$(k_of "$work/whole")" ] || fail "resume on 2 ranks: $(k_of "$work/cut2")"
  # F on two ranks: the multigrid cycles over each rank's slab, so F agrees within its tolerance, not to the bit
  python3 - "$work/cut2/report.json" "$work/whole/report.json" <<'PY' || fail "resume on 2 ranks: F differs beyond its tolerance"
import json, sys
a, b = (json.load(open(p))["conduction"]["formation_factor"] for p in sys.argv[1:3])
sys.exit(0 if abs(a - b) <= 1e-6 * b else 1)  # ten times the run.tolerance of both
PY
fi

# --- the report's provenance: the input's SHA-256 is sha256sum's ------------------------------
raw=$(grep -o '"path": "[^"]*"' "$work/whole/report.json" | head -1 | cut -d'"' -f4)
sum=$(sha256sum "$raw" | cut -d' ' -f1)
grep -q "\"sha256\": \"$sum\"" "$work/whole/report.json" || fail "report sha256 is not sha256sum's $sum"
for key in '"commit"' '"date_utc"' '"host"' '"command_line"' '"devices"' '"pore_labels"'; do
  grep -q "$key" "$work/whole/report.json" || fail "report lacks $key"
done

# --- a directory with a result is refused; --overwrite replaces it -----------------------------
expect refused 2 converged "$work/whole" -- run --output.dir "$work/whole"
expect overwritten 0 converged "$work/whole" -- run --output.dir "$work/whole" --overwrite

# --- a write that fails: no partial file under a final name, status output_error -------------
# (a folder where the field piece must go makes its commit fail; `ulimit -f` cannot be used
# here: Open MPI's start-up needs files of several MB)
mkdir -p "$work/blocked/fields_0.vti/x"
"$rockperm" run --config "$ini" --run.backend=cpu --output.dir "$work/blocked" >"$work/blocked.log" 2>&1
rc=$?
[ "$rc" -eq 7 ] || fail "failed write: exit $rc, expected 7 ($(tail -1 "$work/blocked.log"))"
[ "$(status_of "$work/blocked")" = output_error ] || fail "failed write: status $(status_of "$work/blocked")"
grep -q "fields_0.vti" "$work/blocked/report.json" || fail "failed write: the report does not name the file"
[ -d "$work/blocked/fields_0.vti/x" ] || fail "failed write: the folder was replaced"
ls "$work/blocked" | grep -q '\.tmp' && fail "failed write: a temporary file is left"

# --- numbers that would be wrong get a status and a non-zero exit -----------------------------
make_volume() {  # make_volume FILE N LABEL: an N^3 uint8 volume of one label
  head -c $(($2 * $2 * $2)) /dev/zero | tr '\0' "\\$(printf '%03o' "$3")" >"$1"
}
make_volume "$work/open.raw" 16 0      # all pore
make_volume "$work/cavity.raw" 16 1    # all solid but a cavity in the middle
for z in 6 7 8 9; do for y in 6 7 8 9; do
  printf '\0\0\0\0' | dd of="$work/cavity.raw" bs=1 seek=$((z * 256 + y * 16 + 6)) conv=notrunc status=none
done; done
volume() { echo "--input.file=$1 --input.dims=16x16x16 --input.voxel_size_um=1"; }
expect no_resistance 8 invalid_physics "$work/open" -- \
  run $(volume "$work/open.raw") --lbm.inlet_outlet=periodic --lbm.lateral=periodic --output.dir "$work/open"
expect sealed_cavity 8 invalid_physics "$work/cavity" -- \
  run $(volume "$work/cavity.raw") --input.percolation_filter=off --output.dir "$work/cavity"
expect bgk_tau_2 8 invalid_physics "$work/bgk" -- run --lbm.collision=bgk --lbm.tau=2 --output.dir "$work/bgk"
expect fast_duct 8 invalid_physics "$work/fast" -- \
  run $(volume "$work/open.raw") --lbm.inlet_outlet=periodic --lbm.lateral=sealed --lbm.force=2e-4 \
  --lbm.tau=0.52 --output.dir "$work/fast"
expect tiny_tolerance 2 input_error "$work/tol" -- run --run.tolerance=1e-12 --output.dir "$work/tol"

# --- any check interval converges to the same k ------------------------------------------------
expect odd_interval 0 converged "$work/odd" -- run --run.check_interval=1 --run.tolerance=1e-6 --output.dir "$work/odd"
even=$(k_of "$work/whole" | cut -d' ' -f2) odd=$(k_of "$work/odd" | cut -d' ' -f2)
awk -v a="$odd" -v b="$even" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-5) }' ||
  fail "check_interval 1: k $odd vs $even"

# --- a scan named relative to the working directory: config.ini keeps its path absolute, so a
# resume from elsewhere (a requeued job's own directory) reads the same scan ----------------------
mkdir -p "$work/here" && cp "$(dirname "$ini")/sphere_pack_64.raw" "$work/here/" || fail "copy the sample's scan"
(cd "$work/here" && "$rockperm" run --input.file=sphere_pack_64.raw --input.dims="64 64 64" --input.voxel_size_um=5 \
  --lbm.inlet_outlet=periodic --run.backend=cpu --output.fields=off --run.walltime_minutes=0.002 --output.dir cut \
  >"$work/relative.log" 2>&1)
[ $? -eq 6 ] || fail "the relative scan's run should stop on its wall-time limit (6): $(tail -1 "$work/relative.log")"
grep -q "^file = $work/here/sphere_pack_64.raw\$" "$work/here/cut/config.ini" ||
  fail "config.ini names the scan relatively: $(grep '^file' "$work/here/cut/config.ini")"
expect relative_resume 0 converged "$work/here/cut" -- "$rockperm" run --resume "$work/here/cut" --run.walltime_minutes=0

[ "$failures" -eq 0 ] && echo "outcomes: all cases behave" || exit 1
