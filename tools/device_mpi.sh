#!/usr/bin/env bash
# The two-GPU session of issue 4: correctness, the sample on 2 GPUs, strong and weak scaling
# with device halos (CUDA-aware MPI) and staged halos.
# Run from the repository root on a host with 2 GPUs after `source .devbundle/env.sh`.
set -uo pipefail
out=${OUT:-/tmp/rockperm-device}
mkdir -p "$out"
export OMP_NUM_THREADS=8
ompi_info --parsable --all 2>/dev/null | grep -m1 "mpi_built_with_cuda_support:value" || true
echo "== gpu_tests"; gpu_tests 2>&1 | tail -1
echo "== mpi_tests (2 ranks)"; mpirun -n 2 mpi_tests 2>&1 | tail -1
echo "== sample, 1 and 2 GPUs"
rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/s1 2>&1 | grep -E "permeability"
mpirun -n 2 rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/s2 2>&1 | grep -E "permeability|halo|exchange"
mpirun -n 2 rockperm run --config samples/sphere_pack_64.ini --run.propagation=two-pass --output.dir /tmp/s3 2>&1 | grep -E "permeability"
echo "== over-subscription (3 ranks, 2 GPUs)"
mpirun -n 3 rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/s4 2>&1 | grep -E "error" | head -2
echo "== scaling, 512^3 pack"
rockperm bench --sizes 512 --geometries pack 2>&1 | tail -2 | tee "$out/strong1.txt"
mpirun -n 2 rockperm bench --sizes 512 --geometries pack 2>&1 | grep -E "halo  |pack" | tee -a "$out/strong2.txt"
mpirun -n 2 rockperm bench --sizes 512 --geometries pack --weak 2>&1 | grep -E "pack" | tee -a "$out/weak2.txt"
echo "== repeat"
rockperm bench --sizes 512 --geometries pack 2>&1 | tail -2
mpirun -n 2 rockperm bench --sizes 512 --geometries pack 2>&1 | grep -E "pack"
