#!/usr/bin/env bash
# The two-GPU session of issue 4: correctness, the sample on 2 GPUs, strong and weak scaling.
# Run from the repository root on a host with 2 GPUs after `source .devbundle/env.sh`.
set -uo pipefail
out=${OUT:-/tmp/rockperm-device}
mkdir -p "$out"
export OMP_NUM_THREADS=8
nvidia-smi -L
echo "== gpu_tests"; gpu_tests 2>&1 | tail -2
echo "== mpi_tests (2 ranks)"; mpirun -n 2 mpi_tests 2>&1 | tail -2
echo "== sample, 1 and 2 GPUs"
rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/s1 2>&1 | grep -E "permeability|converged"
mpirun -n 2 rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/s2 2>&1 | grep -E "gpus|rank . on|permeability|converged|halo|exchange"
echo "== over-subscription (3 ranks, 2 GPUs)"
mpirun -n 3 rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/s3 2>&1 | grep -E "error" | head -2
echo "== strong scaling, 512^3 pack"
rockperm bench --sizes 512 --geometries pack 2>&1 | tail -3 | tee "$out/strong1.txt"
mpirun -n 2 rockperm bench --sizes 512 --geometries pack 2>&1 | tail -3 | tee "$out/strong2.txt"
echo "== weak scaling, 512^3 pack per GPU"
mpirun -n 2 rockperm bench --sizes 512 --geometries pack --weak 2>&1 | tail -3 | tee "$out/weak2.txt"
