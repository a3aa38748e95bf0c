#!/usr/bin/env bash
# Checkpoint cost and resume on a GPU (issue "Runs that never lose work"). Run from the
# repository root on the GPU host after `source .devbundle/env.sh`.
set -uo pipefail
out=${OUT:-/tmp/rockperm-device}
mkdir -p "$out"
echo "== gpu tests"; gpu_tests 2>&1 | tail -1; gpu_validation_tests 2>&1 | tail -1
echo "== resume on the GPU: the sample stopped at step 1000, resumed, against one run"
S=samples/sphere_pack_64.ini
rockperm run --config $S --run.tolerance=1e-7 --output.fields=off --output.dir /tmp/whole >/dev/null 2>&1
rockperm run --config $S --run.tolerance=1e-7 --output.fields=off --run.max_steps=1000 --run.checkpoint_at_end=on \
  --output.dir /tmp/cut >/dev/null 2>&1; echo "first part rc=$?"
rockperm run --resume /tmp/cut --run.max_steps=200000 2>&1 | tail -2
grep '"mD"' /tmp/whole/report.json /tmp/cut/report.json
echo "== checkpoint cost on the 512^3 pack"
time rockperm-make-pack --dims "512 512 512" --porosity 0.30 --radius 16 --seed 7 --out /tmp/pack512.raw
printf '[input]\nfile = /tmp/pack512.raw\ndims = 512 512 512\nvoxel_size_um = 5\n[lbm]\ninlet_outlet = periodic\nlateral = periodic\n' >/tmp/pack512.ini
rockperm run --config /tmp/pack512.ini --run.tolerance=1e-7 --output.fields=off --run.max_steps=2000 \
  --run.checkpoint_interval=1000 --run.checkpoint_at_end=on --output.dir /tmp/p512 2>&1 | grep -vE "^  step" | tail -8
grep -E '"(steps|solve_seconds|checkpoints|checkpoint_seconds|mflups|setup_seconds)"' /tmp/p512/report.json
ls -la /tmp/p512/checkpoint.rpk
cp /tmp/p512/report.json "$out/p512-report.json"
