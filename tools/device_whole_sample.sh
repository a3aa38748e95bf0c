#!/usr/bin/env bash
# Issue 65 (k and F of the whole sample) on a GPU host, in one call: the GPU suites' cases that the
# whole-sample reading touches (plane sums, the conduction engine's sample reading, the buffer and
# grey validation), tight512's time to k in fp32 and fp16 (tools/time_to_k.sh), and the stop
# against tolerance-1e-6 references on the buffer and mirror packs of tools/stop_cases.txt named in
# CASES (tools/device_stop_study.sh, references run again: the reading changed what k is).
# Run from the repository root after `source .devbundle/env.sh`:
#   OUT=DIR [PARTS="tests time stops"] [CASES="..."] bash tools/device_whole_sample.sh
set -uo pipefail
here=$(dirname "$0")
out=${OUT:-/tmp/whole_sample}
mkdir -p "$out"
parts=${PARTS:-tests time stops}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
if [[ $parts == *tests* ]]; then
  echo "== gpu_tests"
  gpu_tests 2>&1 | tee "$out/gpu_tests.txt" | grep -E '^\[  (PASSED|FAILED) |^\[  FAILED' | head -20
  echo "== gpu_validation_tests (buffers, mirror, grey, the whole sample)"
  gpu_validation_tests --gtest_filter='*Buffer*:*Whole*:*Slits*:*Interiors*:*Grey*' 2>&1 | tee "$out/gpu_validation.txt" |
    grep -E '^\[  (PASSED|FAILED) |^\[  FAILED' | head -20
fi
if [[ $parts == *time* ]]; then
  echo "== tight512, file to k (fp32, then fp16; the resolution study off)"
  WORK=/tmp/ttk bash "$here/time_to_k.sh" tight512 -- --run.resolution_study=off 2>&1 | tee "$out/ttk_fp32.txt"
  WORK=/tmp/ttk bash "$here/time_to_k.sh" tight512 -- --run.resolution_study=off --run.storage=fp16 2>&1 |
    tee "$out/ttk_fp16.txt"
fi
if [[ $parts == *stops* ]]; then
  echo "== stops against tolerance-1e-6 references (the whole sample's k)"
  OUT="$out/stops" REFRESH=1 ROCKPERMS=rockperm CASES="${CASES:-128:0.10:buffer:3:3 128:0.12:buffer:13:5 128:0.20:mirror:3:8}" \
    bash "$here/device_stop_study.sh" 2>&1 | tail -40
  cp "$out/stops/stops.txt" "$out/stops.txt" 2>/dev/null
fi
