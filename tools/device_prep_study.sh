#!/usr/bin/env bash
# Issue 50 on a machine of several GPUs, in one call:
#   1. the time before the first step of a large scan (a pack of EDGE^3 tiled to SCAN^3, default
#      2 x 2 x 2, cut where SCAN is not a multiple of EDGE; periodic; STEPS steps, default 100)
#      on RANKS ranks, for each build in ROCKPERMS (e.g. a build that reads on rank 0 and this
#      one, which reads on slabs): the run's own "read", "setup" and "ready" lines, and the
#      peak memory of the machine while it ran;
#   2. (HOSTS=2) the same sample of a smaller scan on one host of RANKS GPUs (auto, and ipc+nccl
#      asked for) and on two "hosts" of RANKS/2 GPUs each: every rank in a UTS namespace of its own (unshare --uts) named h0
#      or h1, seeing its host's GPUs only (CUDA_VISIBLE_DEVICES); the halo line and k of each.
#   OUT=DIR EDGE=1000 RANKS=4 ROCKPERMS="rockperm-old rockperm" HOSTS=2 EXTRA="--run.storage fp16" \
#     bash tools/device_prep_study.sh
#   (KEEP_TILE=1 keeps the EDGE^3 pack for a second call with another SCAN; each call removes the
#   scan file of another size first, so that the disk holds one)
set -uo pipefail
out=${OUT:-/tmp/device_prep_study} edge=${EDGE:-1000} ranks=${RANKS:-4}
mkdir -p "$out" && cd "$out" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mpi=(mpirun -n "$ranks" --bind-to none -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x PATH)
big=${SCAN:-$((2 * edge))} steps=${STEPS:-100}
scan=scan_$big.raw
if [ -n "${ROCKPERMS:-}" ] && [ ! -s "$scan" ]; then
  find . -maxdepth 1 -name 'scan_*.raw' ! -name "$scan" -delete
  [ -s tile.raw ] || /usr/bin/time -f "make-pack %e s" rockperm-make-pack --dims "$edge $edge $edge" --porosity 0.15 \
    --radius 8 --out tile.raw >/dev/null
  /usr/bin/time -f "tile %e s" python3 -c "
import numpy as np
e, n = $edge, $big
a = np.fromfile('tile.raw', np.uint8).reshape(e, e, e)
reps = -(-n // e)
with open('$scan', 'wb') as f:
    for z in range(n):
        np.ascontiguousarray(np.tile(a[z % e], (reps, reps))[:n, :n]).tofile(f)  # tofile writes a strided view element by element
"
  [ "${KEEP_TILE:-0}" = 1 ] || rm -f tile.raw
  cat "$scan" >/dev/null  # in the page cache, as the issue measured it
fi
for build in ${ROCKPERMS:-}; do
  echo "== $build: ${big}^3 on $ranks ranks"
  (while sleep 0.5; do free -g | awk '/Mem:/ {print $3}'; done) >"mem_$build.txt" &
  sampler=$!
  /usr/bin/time -f "wall %e s" "${mpi[@]}" "$build" run --input.file "$scan" --input.dims "$big $big $big" \
    --input.voxel_size_um 2 --lbm.inlet_outlet periodic --lbm.lateral periodic --run.max_steps "$steps" \
    --run.check_interval 50 --output.fields off --output.dir "run_$build" --overwrite ${EXTRA:-} >"run_$build.log" 2>&1
  kill $sampler
  grep -E "^(stages|memory|backend|ready|halo|split|permeability|  step)|wall|rror" "run_$build.log"
  echo "peak memory in use $(sort -n "mem_$build.txt" | tail -1) GiB (machine)"
  python3 - "run_$build/report.json" "$big" <<'PY'
import json, sys
try:
    p = json.load(open(sys.argv[1]))["performance"]
except (OSError, ValueError, KeyError):
    sys.exit(0)
v = float(sys.argv[2]) ** 3
g = lambda k: p.get(k, 0.0) or 0.0
print("host memory (peak resident sets): at ready %.1f GiB in all (%.2f B per voxel), largest rank %.1f GiB; "
      "over the run %.1f GiB (%.2f B per voxel), largest rank %.1f GiB" % (
          g("host_peak_bytes_at_ready") / 2**30, g("host_peak_bytes_at_ready") / v, g("host_peak_bytes_at_ready_largest_rank") / 2**30,
          g("host_peak_bytes") / 2**30, g("host_peak_bytes") / v, g("host_peak_bytes_largest_rank") / 2**30))
PY
done
if [ "${HOSTS:-0}" = 2 ]; then
  per=$((ranks / 2))
  rockperm-make-pack --dims "320 320 320" --porosity 0.25 --radius 7 --out small.raw >/dev/null
  opts=(--input.file small.raw --input.dims "320 320 320" --input.voxel_size_um 2 --lbm.inlet_outlet periodic
        --lbm.lateral periodic --output.fields off --output.progress_seconds 0 --overwrite)
  echo "== one host of $ranks"
  "${mpi[@]}" rockperm run "${opts[@]}" --output.dir one_host >one_host.log 2>&1
  grep -E "^(device|halo|permeability)|steps" one_host.log | head -12
  echo "== one host of $ranks, ipc+nccl asked for (every pair through its IPC half)"
  "${mpi[@]}" rockperm run "${opts[@]}" --run.halo_transport ipc+nccl --output.dir one_host_split >one_host_split.log 2>&1
  grep -E "^(halo|permeability)" one_host_split.log | head -4
  cat >as_host.sh <<'WRAP'
#!/usr/bin/env bash
# one "host" per PER ranks: a UTS namespace and host name of its own, and its own GPUs only
r=${OMPI_COMM_WORLD_RANK:?}
h=$((r / PER))
first=$((h * PER))
export CUDA_VISIBLE_DEVICES=$(seq -s, "$first" $((first + PER - 1)))
exec unshare --uts bash -c 'hostname "$0" && exec "$@"' "h$h" "$@"
WRAP
  chmod +x as_host.sh
  echo "== two hosts of $per"
  PER=$per "${mpi[@]}" -x PER ./as_host.sh rockperm run "${opts[@]}" --output.dir two_hosts >two_hosts.log 2>&1
  grep -E "^(device|halo|permeability)|steps" two_hosts.log | head -12
  a=$(grep '^permeability' one_host.log)
  for other in one_host_split two_hosts; do
    b=$(grep '^permeability' $other.log)
    [ -n "$a" ] && [ "$a" = "$b" ] && echo "$other: the same k to every printed digit: $a" ||
      echo "$other: k DIFFERS: '$b' against one host's '$a'"
  done
fi
