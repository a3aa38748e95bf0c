#!/usr/bin/env bash
# Issue 69 (colour-gradient two-phase flow) on a GPU host, in one call: the CUDA kernels against
# the CPU loops, the validation cases on the GPU, and the model's speed on sphere packs.
# Run from the repository root after `source .devbundle/env.sh`:
#   OUT=DIR [PARTS="tests bench"] [SIZES="256 512"] bash tools/device_colour.sh
set -uo pipefail
out=${OUT:-/tmp/colour}
mkdir -p "$out"
parts=${PARTS:-tests bench}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
if [[ $parts == *tests* ]]; then
  echo "== gpu_tests ColourGpu*, gpu_validation_tests ColourFlow*"
  gpu_tests --gtest_filter='ColourGpu*' --gtest_output=xml:"$out/gpu_tests.xml" 2>&1 | tee "$out/gpu_tests.txt" |
    grep -E '^\[       OK|^\[  FAILED|^\[  PASSED|Failure' | head -20
  gpu_validation_tests --gtest_filter='ColourFlow*' --gtest_output=xml:"$out/gpu_validation.xml" 2>&1 |
    tee "$out/gpu_validation.txt" | grep -E '^\[       OK|^\[  FAILED|^\[  PASSED|Failure' | head -20
  grep -o 'name="[a-z_0-9]*" value="[^"]*"' "$out"/gpu_tests.xml "$out"/gpu_validation.xml
fi
if [[ $parts == *bench* ]]; then
  for n in ${SIZES:-256 512}; do
    echo "== rockperm-bench-colour ${n}^3, 35 %, spheres 16 voxels across"
    rockperm-bench-colour --backend gpu --dims "$n $n $n" --porosity 0.35 --radius 8 --steps 200 2>&1 |
      tee "$out/bench_$n.txt"
  done
fi
