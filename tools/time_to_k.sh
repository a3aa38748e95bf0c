#!/usr/bin/env bash
# The time a user waits for k (issue 34): synthetic packs made by rockperm-make-pack, each run
# from its file to k, with where the seconds went (read, percolation, pore analysis, SHA-256
# beside them, lattice, backend, solve, output, and the resolution study where the run makes one:
# run.resolution_study, automatic where narrow pores carry more than 10 % of the flow) and the steps.
#   tools/time_to_k.sh [CASES] [-- RUN OPTIONS...]
# CASES: a comma-separated list of pack768 (768^3, 34 %, spheres 50 voxels across, periodic),
# tight512 (512^3, 10 %, between buffers), pack1000 (1000^3, 15 %, periodic); default these three;
# also tight1000 (1000^3, 10 %, between buffers: the tight scan of a size labs take).
# RUN OPTIONS go to every run (e.g. --run.max_steps=100 to time the preparation only).
# ROCKPERM (default: rockperm on PATH; words: "mpirun -n 2 rockperm" for two GPUs) and MAKE_PACK
# (rockperm-make-pack) name the binaries;
# WORK (default /tmp/time_to_k) holds the packs, made once and kept.
set -uo pipefail
cases=${1:-pack768,tight512,pack1000}
shift || true
[ "${1:-}" = -- ] && shift
read -ra rockperm <<<"${ROCKPERM:-rockperm}"
make_pack=${MAKE_PACK:-rockperm-make-pack}
work=${WORK:-/tmp/time_to_k}
mkdir -p "$work"
printf '%-9s %6s %5s %5s %5s %5s %5s %5s %6s %6s %7s %7s %6s %7s\n' case fluidM read perc pores sha lat back ready solve steps output study wall
for c in ${cases//,/ }; do
  case $c in
    pack768) dims="768 768 768" phi=0.34 radius=25 mode=(--lbm.inlet_outlet=periodic --lbm.lateral=periodic) ;;
    tight512) dims="512 512 512" phi=0.10 radius=8 mode=(--lbm.inlet_outlet=buffer --lbm.lateral=sealed) ;;
    pack1000) dims="1000 1000 1000" phi=0.15 radius=12 mode=(--lbm.inlet_outlet=periodic --lbm.lateral=periodic) ;;
    tight1000) dims="1000 1000 1000" phi=0.10 radius=8 mode=(--lbm.inlet_outlet=buffer --lbm.lateral=sealed) ;;
    *) echo "time_to_k: unknown case $c" >&2; exit 2 ;;
  esac
  raw="$work/$c.raw"
  [ -s "$raw" ] || "$make_pack" --dims "$dims" --porosity "$phi" --radius "$radius" --seed 7 --out "$raw" >/dev/null || exit 1
  out="$work/$c.out"
  start=$EPOCHREALTIME
  "${rockperm[@]}" run --input.file="$raw" --input.dims="$dims" --input.voxel_size_um=2 "${mode[@]}" --output.fields=off \
    --output.dir "$out" --overwrite "$@" >"$work/$c.log" 2>&1
  rc=$?
  end=$EPOCHREALTIME
  python3 - "$out/report.json" "$c" "$start" "$end" "$rc" <<'PY'
import json, sys
path, name, rc = sys.argv[1], sys.argv[2], sys.argv[5]
wall = float(sys.argv[4]) - float(sys.argv[3])
try:
    r = json.load(open(path))
except (OSError, ValueError):
    print("%-9s run failed (exit %s)" % (name, rc)); sys.exit(0)
p = r["performance"]
g = lambda k: p.get(k, 0.0) or 0.0
ready = g("setup_seconds")
study = (r.get("resolution") or {}).get("seconds", 0.0) or 0.0
c = r.get("conduction") or {}
what = "k %.6g mD" % r["permeability"]["mD"] if r["permeability"] else "k not solved"
st = r.get("start") or {}
if st.get("done"):  # run.start = darcy: the Darcy-scale start's solve (in "solve")
    what += ", Darcy start %d iterations, %.2f s (set-up %.2f) on %s" % (st.get("iterations", 0), st.get("seconds", 0.0), st.get("setup_seconds", 0.0), st.get("device", "host"))
    if st.get("corrections"):
        what += ", %d corrections %.2f s (scale %.3g)" % (st["corrections"], st.get("correction_seconds", 0.0), st.get("correction_scale", 0.0))
        if st.get("correction_converged"):
            what += ", converged (floor %.1e)" % st["correction_error_floor"]
if c.get("formation_factor") is not None:  # run.formation_factor: F, its iterations and seconds (in "output")
    what += ", F %.6g (%d iterations, %.1f s on %s)" % (c["formation_factor"], c.get("iterations", 0), c.get("seconds", 0.0), c.get("device", "host"))
print("%-9s %6.1f %5.2f %5.2f %5.2f %5.2f %5.2f %5.2f %6.2f %6.1f %7d %7.2f %6.2f %7.1f  %s (%s, exit %s)" % (
    name, r["geometry"]["fluid_cells"] / 1e6, g("read_seconds"), g("percolation_seconds"), g("pore_analysis_seconds"),
    g("hash_seconds"), g("lattice_seconds"), g("backend_seconds"), ready, g("solve_seconds"), r["steps"],
    g("finish_seconds"), study, wall, what, r["status"], rc))
PY
done
