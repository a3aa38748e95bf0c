#!/usr/bin/env bash
# Issue 33 on the GPU host: the GPU suites, the new CPU tests of the audit's fixes, a checkpoint on
# the CUDA backend resumed bit for bit and refused once damaged, and fields in buffer mode.
# Run from the repository root after `source .devbundle/env.sh`; writes to $OUT.
set -uo pipefail
out=${OUT:-/tmp/rockperm-device}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
echo "== gpu_tests"; gpu_tests 2>&1 | tail -3
echo "== gpu_validation_tests"; gpu_validation_tests 2>&1 | tail -3
echo "== unit_tests (the audit's)"
unit_tests --gtest_filter='Checkpoint*:*FieldsDrive*:Options.*:BadInput.*:Multipart.*' 2>&1 | tail -3
echo "== checkpoint on the GPU: stopped, resumed bit for bit, refused when damaged"
rockperm-make-pack --dims "160 160 160" --porosity 0.3 --radius 6 --seed 3 --out /tmp/pack.raw >/dev/null
common=(--input.file=/tmp/pack.raw "--input.dims=160 160 160" --input.voxel_size_um=2 --run.backend=cuda
        --output.fields=off --run.tolerance=1e-7)
rockperm run "${common[@]}" --output.dir /tmp/whole --overwrite >/tmp/whole.log 2>&1
k_whole=$(python3 -c "import json; print(repr(json.load(open('/tmp/whole/report.json'))['permeability']['mD']))")
steps=$(python3 -c "import json; print(json.load(open('/tmp/whole/report.json'))['steps'])" 2>/dev/null)
rockperm run "${common[@]}" --output.dir /tmp/cut --overwrite >/tmp/cut.log 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q "step" /tmp/cut.log 2>/dev/null && break; sleep 0.05; done
sleep 0.5; kill -TERM $pid; wait $pid; echo "stopped: rc $? (6 expected)"
cp /tmp/cut/checkpoint.rpk /tmp/intact.rpk
python3 - <<'PY'
f = open("/tmp/cut/checkpoint.rpk", "r+b"); f.seek(0, 2); n = f.tell(); f.seek(4096 + (n - 4096) // 2)
b = bytearray(f.read(3)); f.seek(4096 + (n - 4096) // 2); f.write(bytes(x ^ 0x24 for x in b)); f.close()
PY
rockperm run --resume /tmp/cut >/tmp/damaged.log 2>&1; echo "damaged: rc $? (2 expected): $(grep -o 'damaged[^;]*' /tmp/damaged.log | head -1)"
cp /tmp/intact.rpk /tmp/cut/checkpoint.rpk
rockperm run --resume /tmp/cut >/tmp/resumed.log 2>&1; echo "resumed: rc $?"
k_resumed=$(python3 -c "import json; print(repr(json.load(open('/tmp/cut/report.json'))['permeability']['mD']))")
echo "k whole $k_whole (steps $steps), k resumed $k_resumed: $([ "$k_whole" = "$k_resumed" ] && echo bitwise-equal || echo DIFFER)"
echo "== buffer mode on the GPU: the fields' drive"
rockperm run --config samples/sphere_pack_64.ini --lbm.inlet_outlet=buffer --lbm.lateral=sealed --run.backend=cuda \
  --output.dir /tmp/buffer.out --overwrite 2>&1 | grep -E "^k |permeability|drive|fields" | head -6
python3 -c "import json; r=json.load(open('/tmp/buffer.out/report.json')); print('drive_ratio', r['geometry']['drive_ratio'])"
cp /tmp/whole.log "$out/whole.log"; cp /tmp/resumed.log "$out/resumed.log"
echo "== time to k, before (issue 34): a 512^3 pack, 30 %, periodic, defaults"
/usr/bin/time -f "make-pack %e s" rockperm-make-pack --dims "512 512 512" --porosity 0.3 --radius 10 --seed 1 --out /tmp/p512.raw >/dev/null
/usr/bin/time -f "run wall %e s, peak RSS %M kB" rockperm run --input.file=/tmp/p512.raw "--input.dims=512 512 512" \
  --input.voxel_size_um=2 --lbm.inlet_outlet=periodic --lbm.lateral=periodic --output.fields=off --output.dir /tmp/p512 \
  --overwrite 2>&1 | tail -25 | tee "$out/p512.txt"
