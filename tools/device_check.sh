#!/usr/bin/env bash
# One device-machine session: GPU tests, GPU validation, the sample, the benchmark, memcheck.
# Run from the repository root on the GPU host after `source .devbundle/env.sh`.
set -uo pipefail
out=${OUT:-/tmp/rockperm-device}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/gpu.txt"
rockperm devices
echo "== gpu_tests"; gpu_tests --gtest_output=xml:"$out/gpu_tests.xml" 2>&1 | tail -15
echo "== gpu_validation_tests"; gpu_validation_tests --gtest_output=xml:"$out/gpu_validation.xml" 2>&1 | tail -8
echo "== sample"; rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/sample.out 2>&1 | tail -12
cp /tmp/sample.out/report.json "$out/sample-report.json"
echo "== sample between buffers"
rockperm run --config samples/sphere_pack_64.ini --lbm.inlet_outlet=buffer --lbm.lateral=sealed \
  --output.dir /tmp/buffer.out 2>&1 | tail -9
echo "== memcheck"
for p in two-pass fused; do
  compute-sanitizer --tool memcheck --error-exitcode 9 rockperm run --config samples/sphere_pack_64.ini \
    --run.propagation=$p --run.max_steps=40 --run.check_interval=20 --output.dir /tmp/mc.out >"$out/memcheck-$p.txt" 2>&1
  echo "memcheck $p rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck-$p.txt")"
done
# buffers: the pressure reading at every check runs the macroscopic kernel
compute-sanitizer --tool memcheck --error-exitcode 9 rockperm run --config samples/sphere_pack_64.ini \
  --lbm.inlet_outlet=buffer --lbm.lateral=sealed --run.max_steps=40 --run.check_interval=20 \
  --output.dir /tmp/mc.out >"$out/memcheck-buffer.txt" 2>&1
echo "memcheck buffer rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck-buffer.txt")"
echo "== bench"; rockperm bench ${BENCH_ARGS:-} --config samples/sphere_pack_64.ini 2>&1 | tee "$out/bench.txt"
