#!/usr/bin/env bash
# Issue 69 (colour-gradient two-phase flow) on a GPU host, in one call: the CUDA kernels against
# the CPU loops, the validation cases on the GPU, the model's speed on sphere packs, and k_r by
# two-phase flow at one saturation of a periodic pack through `rockperm run` (time from the file to
# the report).
# Run from the repository root after `source .devbundle/env.sh`:
#   OUT=DIR [PARTS="tests bench relperm"] [SIZES="256 512"] [STORAGES="fp32 fp16"] [RELPERM_N=256]
#   [FLOW_STEPS=40000] [RELPERM_STORAGE=fp32] [COMPARE_N=192] [COMPARE_STEPS=150000]
#   [COMPARE_SW=0.3,0.5,0.7] [COMPARE_STARTS="morphology random"] bash tools/device_colour.sh
# PARTS may also hold "ranks" ([RANKS=2] [RANKS_N=256]): the k_r point by flow on one rank and on
# RANKS ranks (a GPU each, Z-slabs), the same k_r to the bit and the flow's seconds; and "compare": k_r by flow beside the quasi-static k_r on a periodic pack at several
# saturations (issue 69's "against part 1 on a pack"; the two columns of report.json); and
# "displace" ([DISPLACE_N=128] [DISPLACE_RADIUS=12] [DISPLACE_SEED=2026] [DISPLACE_PRESSURES=8]
# [DISPLACE_STEPS=60000] [DISPLACE_CURVES=both] [DISPLACE_VOXEL_UM=2] [DISPLACE_SCALES=1]): the
# capillary curves again by the displacement between reservoirs, beside the quasi-static ones, for
# each scale the same spheres voxelized that many times finer (a resolution study of one geometry).
set -uo pipefail
out=${OUT:-/tmp/colour}
mkdir -p "$out"
parts=${PARTS:-tests bench relperm}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
if [[ $parts == *tests* ]]; then
  echo "== gpu_tests ColourGpu* ColourSlabs*, gpu_validation_tests ColourFlow* and the tube bundle's flow"
  gpu_tests --gtest_filter='ColourGpu*:ColourSlabs*' --gtest_output=xml:"$out/gpu_tests.xml" 2>&1 | tee "$out/gpu_tests.txt" |
    grep -E '^\[       OK|^\[  FAILED|^\[  PASSED|Failure' | head -20
  gpu_validation_tests --gtest_filter='ColourFlow*:TwoPhase.TubeBundleFlow*:TwoPhase.Displacement*' --gtest_output=xml:"$out/gpu_validation.xml" 2>&1 |
    tee "$out/gpu_validation.txt" | grep -E '^\[       OK|^\[  FAILED|^\[  PASSED|Failure' | head -20
  grep -o 'name="[a-z_0-9]*" value="[^"]*"' "$out"/gpu_tests.xml "$out"/gpu_validation.xml
fi
if [[ $parts == *bench* ]]; then
  for storage in ${STORAGES:-fp32 fp16}; do
    for n in ${SIZES:-256 512}; do
      echo "== rockperm-bench-colour ${n}^3, 35 %, spheres 16 voxels across, $storage"
      rockperm-bench-colour --backend gpu --dims "$n $n $n" --porosity 0.35 --radius 8 --steps 200 --storage "$storage" 2>&1 |
        tee "$out/bench_${n}_$storage.txt"
    done
  done
fi
if [[ $parts == *relperm* ]]; then
  n=${RELPERM_N:-256}
  echo "== rockperm run: k, drainage, k_r at S_w 0.5 quasi-static and by flow; ${n}^3 periodic pack, spheres 32 voxels across"
  rockperm-make-pack --dims "$n $n $n" --porosity 0.35 --radius 16 --seed 2026 --out "$out/pack.raw" | tail -1
  start=$SECONDS
  rockperm run --input.file="$out/pack.raw" --input.dims="$n $n $n" --input.voxel_size_um=2 --lbm.inlet_outlet=periodic \
    --run.resolution_study=off --run.storage="${RELPERM_STORAGE:-fp32}" --capillary.curves=drainage --capillary.relperm=0.5 --capillary.flow=steady \
    --run.max_steps="${FLOW_STEPS:-40000}" --output.fields=off --output.progress_seconds=10 --output.dir="$out/relperm" \
    2>&1 | tee "$out/relperm.txt" | grep -E "^(permeability|converged|relperm|  by flow|  flowing|two phases|capillary)" | tail -30
  echo "wall $((SECONDS - start)) s from the file to the report"
fi
if [[ $parts == *compare* ]]; then
  n=${COMPARE_N:-192}
  rockperm-make-pack --dims "$n $n $n" --porosity 0.35 --radius 16 --seed 2026 --out "$out/cmp.raw" | tail -1
  for st in ${COMPARE_STARTS:-morphology}; do
    echo "== k_r by flow ($st start) beside quasi-static, ${n}^3 periodic pack, spheres 32 voxels across, S_w ${COMPARE_SW:-0.3,0.5,0.7}"
    start=$SECONDS
    rockperm run --input.file="$out/cmp.raw" --input.dims="$n $n $n" --input.voxel_size_um=2 --lbm.inlet_outlet=periodic \
      --run.resolution_study=off --capillary.curves=drainage --capillary.relperm="${COMPARE_SW:-0.3,0.5,0.7}" \
      --capillary.flow=steady --capillary.flow_start="$st" --run.max_steps="${COMPARE_STEPS:-150000}" --output.fields=off \
      --output.progress_seconds=30 --output.dir="$out/compare_$st" 2>&1 | tee "$out/compare_$st.txt" |
      grep -E "^(permeability|relperm|  by flow|two phases)" | tail -30
    echo "wall $((SECONDS - start)) s from the file to the report"
  done
fi
if [[ $parts == *displace* ]]; then
  # DISPLACE_SCALES: the same spheres voxelized that many times finer (rockperm-make-pack --scale),
  # the voxel size divided alike and the step limit multiplied: one geometry at several resolutions
  n=${DISPLACE_N:-128}
  for sc in ${DISPLACE_SCALES:-1}; do
    m=$(awk -v n="$n" -v s="$sc" 'BEGIN { printf "%d", n * s + 0.5 }')
    um=$(awk -v v="${DISPLACE_VOXEL_UM:-2}" -v s="$sc" 'BEGIN { printf "%.6g", v / s }')
    steps=$(awk -v t="${DISPLACE_STEPS:-60000}" -v s="$sc" 'BEGIN { printf "%d", t * s + 0.5 }')
    rockperm-make-pack --dims "$n $n $n" --porosity 0.35 --radius "${DISPLACE_RADIUS:-12}" --seed "${DISPLACE_SEED:-2026}" \
      --scale "$sc" --out "$out/dsp_$sc.raw" | tail -1
    echo "== the displacement (capillary.displacement=on) beside the quasi-static curves, ${m}^3 pack (scale $sc, $um um) between reservoirs"
    start=$SECONDS
    rockperm run --input.file="$out/dsp_$sc.raw" --input.dims="$m $m $m" --input.voxel_size_um="$um" --run.resolution_study=off \
      --capillary.curves="${DISPLACE_CURVES:-both}" --capillary.pressure_count="${DISPLACE_PRESSURES:-8}" --capillary.relperm=0 \
      --capillary.displacement=on --capillary.displacement_steps="$steps" --output.fields=off \
      --output.progress_seconds=30 --output.dir="$out/displace_$sc" 2>&1 | tee "$out/displace_$sc.txt" |
      grep -E "^(permeability|displaced|displacement|two phases|              (drainage|imbibition) +Pc)" | tail -40
    echo "wall $((SECONDS - start)) s from the file to the report"
  done
fi
if [[ $parts == *ranks* ]]; then
  n=${RANKS_N:-256}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  rockperm-make-pack --dims "$n $n $n" --porosity 0.35 --radius 16 --seed 2026 --out "$out/rk.raw" | tail -1
  for r in 1 ${RANKS:-2}; do
    echo "== the k_r point by flow on $r rank(s), ${n}^3 periodic pack, S_w 0.5, ${FLOW_STEPS:-40000} steps at most"
    start=$SECONDS
    mpirun -n "$r" rockperm run --input.file="$out/rk.raw" --input.dims="$n $n $n" --input.voxel_size_um=2 \
      --lbm.inlet_outlet=periodic --run.resolution_study=off --run.storage="${RELPERM_STORAGE:-fp32}" --capillary.curves=drainage \
      --capillary.relperm=0.5 --capillary.flow=steady --run.max_steps="${FLOW_STEPS:-40000}" --output.fields=off \
      --output.dir="$out/ranks$r" > "$out/ranks$r.txt" 2>&1
    echo "wall $((SECONDS - start)) s from the file to the report"
    python3 - "$out/ranks$r/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["two_phase"]["relative_permeability"][0]["flow"]
print("k %.6f mD; flow on %s: %d steps, %.2f s, k_rw %r, k_rn %r, S_w %r" % (
    r["permeability"]["mD"], f["backend"], f["steps"], f["seconds"],
    f["kr_w"], f["kr_n"], f["saturation_wetting"]))
PY
  done
fi
