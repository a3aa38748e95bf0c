#!/usr/bin/env bash
# The formation factor's cost (issue 51): packs of EDGES (rockperm-make-pack, porosity POROSITY,
# radius RADIUS), each run for 100 steps of flow and then the conduction solve; prints per pack
# the fluid cells, CG iterations, seconds, nanoseconds per cell and iteration, and F.
#   ROCKPERM=build/app/rockperm MAKE_PACK=build/app/rockperm-make-pack EDGES="64 128 256" \
#     POROSITY=0.15 RADIUS=4 WORK=/tmp/conduction EXTRA="--run.backend cpu" bash tools/conduction_study.sh
set -euo pipefail
rockperm=${ROCKPERM:-rockperm} make_pack=${MAKE_PACK:-rockperm-make-pack}
work=${WORK:-/tmp/conduction_study} porosity=${POROSITY:-0.15} radius=${RADIUS:-4}
mkdir -p "$work"
printf '%6s %12s %10s %10s %14s %12s\n' edge fluid_cells iterations seconds ns_per_cell_it F
for edge in ${EDGES:-64 128 256}; do
  scan="$work/pack_${edge}_${porosity}_${radius}.raw"
  [ -s "$scan" ] || "$make_pack" --dims "$edge $edge $edge" --porosity "$porosity" --radius "$radius" --seed 3 \
    --out "$scan" >/dev/null
  "$rockperm" run --input.file "$scan" --input.dims "$edge $edge $edge" --input.voxel_size_um 2 \
    --run.max_steps 100 --run.formation_factor on --output.fields off --output.progress_seconds 0 \
    --run.resolution_study off --output.dir "$work/run_$edge" --overwrite ${EXTRA:-} >"$work/run_$edge.log" 2>&1 || true
  python3 - "$work/run_$edge/report.json" "$edge" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r.get("conduction", {})
if not c.get("done"):
    print("%6s  no F: %s" % (sys.argv[2], c.get("note") or r.get("message")))
    sys.exit(0)
cells = r["fluid_cells"] if "fluid_cells" in r else r["geometry"].get("fluid_cells", 0)
ns = c["seconds"] / max(1, cells * c["iterations"]) * 1e9
print("%6s %12d %10d %10.2f %14.2f %12.6g" % (sys.argv[2], cells, c["iterations"], c["seconds"], ns, c["formation_factor"]))
PY
done
