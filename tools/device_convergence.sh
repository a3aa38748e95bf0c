#!/usr/bin/env bash
# The device session of issue "A converged, trustworthy k": GPU tests, then steps and seconds
# to a converged k (tools/convergence_study.sh) on tight packs, the bundled sample, and the cost
# of the checks. Run from the repository root on the GPU host after `source .devbundle/env.sh`.
set -uo pipefail
out=${OUT:-/tmp/rockperm-device}
mkdir -p "$out"
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$out/gpu.txt"
echo "== gpu_tests"; gpu_tests 2>&1 | tail -3
echo "== gpu_validation_tests"; gpu_validation_tests 2>&1 | grep -E "^\[  (PASSED|FAILED)|OK \] Validation.Tight" | tail -8
echo "== sample"; rockperm run --config samples/sphere_pack_64.ini --output.dir /tmp/sample.out --overwrite 2>&1 \
  | grep -E "^(flow|permeability|converged|steady|verdict)"
echo "== 128^3 10 %"; N=128 POROSITY=0.10 TAUS="auto 1.0" MODES="buffer periodic" bash tools/convergence_study.sh
echo "== 256^3 10 %"; N=256 POROSITY=0.10 TAUS="auto" MODES="buffer" bash tools/convergence_study.sh
echo "== 512^3 10 %"; N=512 POROSITY=0.10 TAUS="auto" MODES="buffer" REF_TOL=1e-5 bash tools/convergence_study.sh
echo "== cost of the checks: 512^3 30 % pack, periodic, 2000 steps, a check every 100 or 2000"
rockperm-make-pack --dims "512 512 512" --porosity 0.30 --radius 8 --seed 2026 --out /tmp/pack30.raw >/dev/null
printf '[input]\nfile = /tmp/pack30.raw\ndims = 512 512 512\nvoxel_size_um = 5\n[lbm]\nlateral = periodic\ninlet_outlet = periodic\n[output]\nfields = off\n' >/tmp/pack30.ini
for interval in 100 2000; do
  rockperm run --config /tmp/pack30.ini --run.max_steps=2000 --run.check_interval=$interval --overwrite \
    --output.dir /tmp/pack30.out 2>&1 | grep -E "converged in" | sed "s/^/interval $interval: /"
done
