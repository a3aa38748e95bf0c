#!/usr/bin/env bash
# End-of-session check on a 2-GPU host: GPU tests and validation, the sample on 1 and 2 GPUs
# with fields and with buffers, memcheck. Run after `source .devbundle/env.sh`.
set -uo pipefail
out=${OUT:-/tmp/rockperm-device}
mkdir -p "$out"
export OMP_NUM_THREADS=8
echo "== gpu_tests"; gpu_tests --gtest_output=xml:"$out/gpu_tests.xml" 2>&1 | tail -1
echo "== gpu_validation_tests"; gpu_validation_tests --gtest_output=xml:"$out/gpu_validation.xml" 2>&1 | tail -1
echo "== mpi_tests"; mpirun -n 2 mpi_tests 2>&1 | tail -1
echo "== sample 1 GPU"; rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/a 2>&1 | grep -E "backend|permeability|converged|fields"
echo "== sample 2 GPUs"; mpirun -n 2 rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/b 2>&1 | grep -E "permeability|fields"
grep -c Piece /tmp/b/fields.pvti
echo "== buffers 1 GPU / 2 GPUs"
rockperm run --config samples/sphere_pack_64.ini --lbm.inlet_outlet=buffer --lbm.lateral=sealed --output.dir /tmp/c 2>&1 | grep -E "permeability|inlet"
mpirun -n 2 rockperm run --config samples/sphere_pack_64.ini --lbm.inlet_outlet=buffer --lbm.lateral=sealed --output.dir /tmp/d 2>&1 | grep -E "permeability|inlet"
echo "== memcheck"
compute-sanitizer --tool memcheck --error-exitcode 9 rockperm run --config samples/sphere_pack_64.ini \
  --run.max_steps=40 --run.check_interval=20 --output.dir /tmp/e > "$out/memcheck.txt" 2>&1
echo "rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck.txt")"
