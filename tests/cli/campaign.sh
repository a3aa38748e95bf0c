#!/usr/bin/env bash
# rockperm campaign through the command line (issue "Permeability campaigns"): a broken sample
# among good ones, re-runs that run nothing new or only what is missing, a campaign killed in a
# sample and continued, Slurm array tasks, MPI workers, and bad manifests.
#   campaign.sh ROCKPERM MAKE_PACK WORKDIR [MPIEXEC]
set -uo pipefail
rockperm=$1 make_pack=$2 work=$3 mpiexec=${4:-}
slurm=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../packaging/slurm" && pwd)
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work/scans" || exit 1
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
results() { tail -n +2 "$1/campaign.csv" | cut -d, -f1-3 | sort; }  # id, status, k to 10 digits
mtime() { stat -c %Y.%N "$1" 2>/dev/null || stat -c %Y "$1"; }

for i in 1 2 3; do
  "$make_pack" --dims "28 28 28" --porosity 0.3$i --radius 3 --seed "$i" --out "scans/s$i.raw" >/dev/null || exit 1
done
head -c 1000 scans/s1.raw >scans/broken.raw  # too short for its dimensions
printf 'id,input,input.dims,lbm.flow_axis\ns1,scans/s1.raw,28 28 28,x\ns2,scans/s2.raw,28 28 28,y\n' >m.csv
printf 'broken,scans/broken.raw,28 28 28,\n"s3","scans/s3.raw","28 28 28",z\n' >>m.csv
printf '[input]\nvoxel_size_um = 5\n[run]\nbackend = cpu\ntolerance = 1e-6\n[output]\nfields = off\n' >base.ini
campaign() { "$rockperm" campaign --manifest m.csv --config base.ini "$@"; }

# --- four samples, one broken: three results, one failure, exit code 9 (partial) ---------------
campaign --dir full >full.log 2>&1
rc=$?
[ "$rc" -eq 9 ] || fail "partial campaign: exit $rc, expected 9 ($(tail -2 full.log))"
[ "$(grep -c ',converged,' full/campaign.csv)" -eq 3 ] || fail "expected 3 converged: $(cat full/campaign.csv)"
grep -q '^"broken",input_error,.*holds 1000 bytes' full/campaign.csv || fail "the failure is not recorded"
grep -q '"failed": 1' full/campaign.json || fail "campaign.json counts"
grep -q 'id="counts">4 samples: 3 converged, 1 failed' full/report.html || fail "report.html counts"
grep -q '<li class="failed">broken: input_error' full/report.html || fail "report.html does not list the failure"
k_csv=$(grep '^"s1",' full/campaign.csv | cut -d, -f3)
k_html=$(grep -o 'id="k-s1">[0-9.e+-]*' full/report.html | cut -d'>' -f2)
awk -v a="$k_csv" -v b="$k_html" 'BEGIN { exit !(a > 0 && (a - b) ^ 2 < (1e-6 * a) ^ 2) }' ||
  fail "report.html k of s1 ($k_html) is not campaign.csv's ($k_csv)"
[ -s full/s1/report.html ] || fail "no report.html for s1"
[ "$(head -1 full/campaign.csv | tr -d '\r')" = "id,status,k_mD,k_error_estimate,porosity,connected_porosity,flow_axis,tau,steps,solve_seconds,input,input_sha256,run_directory,message,kx_mD,ky_mD,kz_mD,formation_factor,cementation_exponent,entry_pressure_Pa,breakthrough_pressure_Pa,residual_wetting_saturation,residual_nonwetting_saturation,forchheimer_k_mD,forchheimer_beta_per_m,forchheimer_c_F,reynolds_1pct,reynolds_10pct" ] ||
  fail "header: $(head -1 full/campaign.csv)"
for s in s1 s2 s3 broken; do [ -s "full/$s/report.json" ] || fail "no report for $s"; done
grep -q '"flow_axis": "y"' full/s2/report.json || fail "the row's override of lbm.flow_axis was not used"

# --- the same command again runs nothing; after deleting one result only that one runs --------
before=$(mtime full/s1/report.json)
campaign --dir full >again.log 2>&1
[ $? -eq 9 ] || fail "re-run: exit code"
grep -q "this command ran 0, found 3 done and 1 failed before" again.log || fail "re-run ran something: $(cat again.log)"
[ "$(mtime full/s1/report.json)" = "$before" ] || fail "re-run rewrote s1"
rm -rf full/s2
campaign --dir full >missing.log 2>&1
grep -q "this command ran 1," missing.log || fail "after deleting s2: $(cat missing.log)"
grep -q "\] s2 " missing.log || fail "s2 was not the one run"
[ "$(mtime full/s1/report.json)" = "$before" ] || fail "deleting s2 re-ran s1"
cp full/campaign.csv full.csv

# a changed configuration runs again; --retry-failed runs the failure again
campaign --dir full --retry-failed >retry.log 2>&1
grep -q "this command ran 1," retry.log && grep -q "\] broken " retry.log || fail "--retry-failed: $(cat retry.log)"

# --- killed in the middle of a sample, then continued: the same results ------------------------
"$rockperm" campaign --manifest m.csv --config base.ini --dir cut >cut.log 2>&1 &
pid=$!
for _ in $(seq 300); do [ -e cut/s2/config.ini ] && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 6 ] || fail "SIGTERM: exit $rc, expected 6 ($(tail -3 cut.log))"
grep -q '"status": "interrupted"' cut/s2/report.json 2>/dev/null || fail "s2 not interrupted: $(head -3 cut/s2/report.json 2>/dev/null)"
# no time to go after a stop: the rest waits for the same command (issue 53: it said "about 0:00:22")
grep "\] s2 " cut.log | grep -q "the rest when the same command runs again" && ! grep -q "to go" <(grep "\] s2 " cut.log) ||
  fail "the interrupted sample's line: $(grep '\] s2 ' cut.log)"
campaign --dir cut >cut2.log 2>&1
[ $? -eq 9 ] || fail "continued campaign: exit code"
grep -q "s2 resumed" cut2.log || fail "s2 was not resumed: $(cat cut2.log)"
[ "$(results cut)" = "$(results full)" ] || fail "interrupted campaign differs: $(results cut) vs $(results full)"

# --- array tasks: the union of their results is the whole campaign ----------------------------
campaign --dir array --array-index 0 --array-size 2 >a0.log 2>&1
campaign --dir array --array-index 1 --array-size 2 >a1.log 2>&1
grep -q "array task 0 of 2: 2" a0.log || fail "array task 0: $(head -2 a0.log)"
[ "$(results array)" = "$(results full)" ] || fail "array union differs: $(results array) vs $(results full)"

# --- the Slurm array script, with srun and scontrol stood in for: the same union --------------
mkdir -p fakebin
# srun as under MpiDefault=none with the pmix plugin installed: the script must ask for it
cat >fakebin/srun <<FAKE
#!/usr/bin/env bash
echo "\$*" >>"$work/srun.log"
if [ "\$1" = --mpi=list ]; then printf 'MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\nspecific pmix plugin versions available: pmix_v4\n'; exit 0; fi
while [[ \$1 == --* ]]; do shift; done
exec "\$@"
FAKE
printf '#!/usr/bin/env bash\necho "$@" >>"%s/scontrol.log"\n' "$work" >fakebin/scontrol
ln -sf "$rockperm" fakebin/rockperm
chmod +x fakebin/srun fakebin/scontrol
for task in 0 1; do
  PATH="$work/fakebin:$PATH" SLURM_ARRAY_JOB_ID=77 SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=2 \
    bash "$slurm/campaign-array.sbatch" m.csv base.ini slurm >"slurm$task.log" 2>&1
done
[ "$(results slurm)" = "$(results full)" ] || fail "Slurm array script: $(results slurm) vs $(results full)"
[ ! -e scontrol.log ] || fail "a finished task requeued itself: $(cat scontrol.log)"
grep -q -- "--mpi=pmix rockperm campaign" srun.log || fail "the array script did not ask srun for PMIx: $(cat srun.log)"
for script in campaign-array campaign-multi-gpu; do
  grep -q "^#SBATCH --open-mode=append" "$slurm/$script.sbatch" || fail "$script: a requeued job would overwrite its log"
done
# an array whose ids start at 1 (--array=1-2) is the campaign's tasks 0 and 1: the same union;
# a list of ids (--array=1,5,7) is refused by each task, as is a rockperm the job cannot find
for task in 1 2; do
  PATH="$work/fakebin:$PATH" SLURM_ARRAY_JOB_ID=79 SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=2 \
    SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=2 bash "$slurm/campaign-array.sbatch" m.csv base.ini from_one \
    >"from_one$task.log" 2>&1
done
[ "$(results from_one)" = "$(results full)" ] || fail "--array=1-2: $(results from_one) vs $(results full)"
PATH="$work/fakebin:$PATH" SLURM_ARRAY_JOB_ID=80 SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=1 \
  SLURM_ARRAY_TASK_MAX=7 bash "$slurm/campaign-array.sbatch" m.csv base.ini listed >listed.log 2>&1
[ $? -eq 2 ] && grep -q "is not a range" listed.log && [ ! -e listed ] || fail "--array=1,5,7: $(cat listed.log)"
mkdir -p nobin
printf '#!/usr/bin/env bash\nexec "$@"\n' >nobin/srun
chmod +x nobin/srun
PATH="$work/nobin:/usr/bin:/bin" SLURM_ARRAY_JOB_ID=81 SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=1 \
  bash "$slurm/campaign-array.sbatch" m.csv base.ini nobin_run >nobin.log 2>&1
[ $? -eq 2 ] && grep -q "set ROCKPERM to its full path" nobin.log || fail "rockperm not on PATH: $(cat nobin.log)"
# ROCKPERM names it; srun without PMIx: mpirun starts the tasks, unbound (--bind-to none)
cat >nobin/mpirun <<FAKE
#!/usr/bin/env bash
echo "\$*" >>"$work/mpirun.log"
while [ \$# -gt 0 ]; do case \$1 in -n | --bind-to) shift 2 ;; -*) shift ;; *) break ;; esac; done
exec "\$@"
FAKE
chmod +x nobin/mpirun
PATH="$work/nobin:/usr/bin:/bin" ROCKPERM="$rockperm" SLURM_ARRAY_JOB_ID=82 SLURM_ARRAY_TASK_ID=0 \
  SLURM_ARRAY_TASK_COUNT=1 bash "$slurm/campaign-array.sbatch" m.csv base.ini by_mpirun >by_mpirun.log 2>&1
[ "$(results by_mpirun)" = "$(results full)" ] || fail "ROCKPERM and mpirun: $(tail -3 by_mpirun.log)"
grep -q -- "-n 1 --bind-to none" mpirun.log || fail "the mpirun fallback binds its ranks: $(cat mpirun.log)"

# --- a directory of scans with --scans (the broken one included) -------------------------------
"$rockperm" campaign --scans scans --config base.ini "--input.dims=28 28 28" --dir scans_run >scans.log 2>&1
[ $? -eq 9 ] || fail "--scans: exit code ($(tail -2 scans.log))"
[ "$(grep -c ',converged,' scans_run/campaign.csv)" -eq 3 ] || fail "--scans results: $(cat scans_run/campaign.csv)"

# --- MPI: two workers, the same results --------------------------------------------------------
if [ -n "$mpiexec" ]; then
  $mpiexec -n 2 --oversubscribe "$rockperm" campaign --manifest m.csv --config base.ini --dir mpi >mpi.log 2>&1
  [ "$(results mpi)" = "$(results full)" ] || fail "2 workers differ: $(results mpi) vs $(results full)"
  grep -q "workers     2 rank" mpi.log || fail "mpi: $(head -3 mpi.log)"
fi

# --- the multi-GPU script over two nodes (issue 50): srun stood in for by mpirun, whose four
#     tasks see two host names, two tasks each; the same results --------------------------------
if [ -n "$mpiexec" ]; then
  mkdir -p nodes
  cat >nodes/srun <<FAKE
#!/usr/bin/env bash
echo "\$*" >>"$work/nodes/srun.log"
if [ "\$1" = --mpi=list ]; then printf 'MPI plugin types are...\n\tnone\n\tpmix\n'; exit 0; fi
while [[ \$1 == --* ]]; do shift; done
exec $mpiexec -n 4 --oversubscribe "$work/nodes/on_node" "\$@"
FAKE
  cat >nodes/on_node <<'WRAP'
#!/usr/bin/env bash
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
ROCKPERM_HOST_NAME=node$((rank / 2)) exec "$@"
WRAP
  ln -sf "$rockperm" nodes/rockperm
  chmod +x nodes/srun nodes/on_node
  PATH="$work/nodes:$PATH" SLURM_JOB_ID=78 SLURM_NTASKS=4 bash "$slurm/campaign-multi-gpu.sbatch" m.csv base.ini \
    two_nodes >two_nodes.log 2>&1
  [ $? -eq 9 ] || fail "two nodes: exit code (the broken sample: 9): $(tail -3 two_nodes.log)"
  [ "$(results two_nodes)" = "$(results full)" ] || fail "two nodes differ: $(results two_nodes) vs $(results full)"
  grep -q "workers     4 rank(s) on 2 hosts" two_nodes.log || fail "two nodes: $(grep workers two_nodes.log)"
  grep -q -- "--mpi=pmix --gpu-bind=none rockperm campaign" nodes/srun.log || fail "srun: $(cat nodes/srun.log)"
fi

# --- a row asking for the tensor: kx, ky, kz in the summary ----------------------------------
printf 'id,input,input.dims,lbm.flow_axis,lbm.inlet_outlet,lbm.lateral\nt1,scans/s3.raw,28 28 28,all,periodic,periodic\n' >t.csv
"$rockperm" campaign --manifest t.csv --config base.ini --dir tensor >tensor.log 2>&1
[ $? -eq 0 ] || fail "tensor campaign: $(tail -3 tensor.log)"
grep -qE '^"t1",converged,.*,[0-9.]+,[0-9.]+,[0-9.]+,,,,,,,,,,,.?$' tensor/campaign.csv || fail "tensor row: $(cat tensor/campaign.csv)"

# --- a row asking for the formation factor: F and Archie's m in the summary -----------------------
printf 'id,input,input.dims,run.formation_factor\nf1,scans/s2.raw,28 28 28,on\nf0,scans/s2.raw,28 28 28,off\n' >f.csv
"$rockperm" campaign --manifest f.csv --config base.ini --dir formation >formation.log 2>&1
[ $? -eq 0 ] || fail "formation campaign: $(tail -3 formation.log)"
grep -qE '^"f1",converged,.*,[0-9.]+,[0-9.]+,,,,,,,,,.?$' formation/campaign.csv || fail "F row: $(cat formation/campaign.csv)"

# --- a row asking for the rate sweep beyond Darcy: its onset in the summary, its points in the report
printf 'id,input,input.dims,lbm.inlet_outlet,lbm.lateral,forchheimer.sweep,forchheimer.min_reynolds,forchheimer.max_reynolds,forchheimer.points\nb1,scans/s2.raw,28 28 28,periodic,periodic,on,1,20,3\n' >b.csv
"$rockperm" campaign --manifest b.csv --config base.ini --dir beyond >beyond.log 2>&1
[ $? -eq 0 ] || fail "sweep campaign: $(tail -3 beyond.log)"
grep -qE '^"b1",converged,.*,[0-9.e+-]+,[0-9.e+-]*.?$' beyond/campaign.csv || fail "sweep row: $(cat beyond/campaign.csv)"
python3 - beyond/b1/report.json <<'PY' || fail "sweep report"
import json, sys
f = json.load(open(sys.argv[1]))["forchheimer"]
assert f["done"] and len(f["points"]["reynolds"]) >= 3, f
assert f["reynolds_1pct"] is not None and 1 < f["reynolds_1pct"] < 20, f
PY
grep -qE '^"f0",converged,.*,,.?$' formation/campaign.csv || fail "a row without F has F: $(cat formation/campaign.csv)"
# --- a row asking for the capillary curves: their summary in the table ---------------------------
printf 'id,input,input.dims,capillary.curves,capillary.relperm\nc1,scans/s2.raw,28 28 28,both,0\n' >c.csv
"$rockperm" campaign --manifest c.csv --config base.ini --dir capillary >capillary.log 2>&1
[ $? -eq 0 ] || fail "capillary campaign: $(tail -3 capillary.log)"
python3 - capillary/campaign.csv capillary/c1/report.json <<'PY' || fail "capillary row: $(cat capillary/campaign.csv)"
import csv, json, sys
row = next(csv.DictReader(open(sys.argv[1], newline="")))
t = json.load(open(sys.argv[2]))["two_phase"]
for key in ("entry_pressure_Pa", "residual_wetting_saturation", "residual_nonwetting_saturation"):
    assert abs(float(row[key]) - t[key]) <= 1e-9 * max(t[key], 1e-30), (key, row[key], t[key])
PY
for a in x y z; do [ -s "tensor/t1/$a/report.json" ] || fail "tensor: no $a/report.json"; done
# the tensor's page: the 3 x 3 matrix (periodic: every term measured), the symmetry error, links to the axes
for ij in xx xy xz yx yy yz zx zy zz; do
  grep -qE "id=\"k-$ij\">-?[0-9]" tensor/t1/report.html || fail "tensor page: no k_$ij"
done
grep -q 'id="symmetry-error"' tensor/t1/report.html || fail "tensor page: no symmetry error"
grep -q 'href="z/report.html"' tensor/t1/report.html || fail "tensor page: no link to the z run"
grep -q 'id="x-t1"' tensor/report.html || fail "campaign page: no kx column for the tensor row"
"$rockperm" campaign --manifest t.csv --config base.ini --dir tensor >tensor2.log 2>&1
grep -q "this command ran 0, found 1 done" tensor2.log || fail "tensor re-run ran something: $(cat tensor2.log)"

# --- sub-volumes: every cube of edge 14 of s1 (8 of them), and a growing centred sequence -------
head -2 m.csv >one.csv
"$rockperm" campaign --manifest one.csv --config base.ini --dir rev --subvolumes 14 >rev.log 2>&1
[ $? -eq 0 ] || fail "sub-volumes: $(tail -3 rev.log)"
[ "$(grep -c '^"s1_e14_' rev/campaign.csv)" -eq 8 ] || fail "sub-volumes: $(cut -d, -f1-3 rev/campaign.csv)"
grep -qE '^"s1",14,8,8,[0-9.]+,[0-9.]+,' rev/subvolumes.csv || fail "subvolumes.csv: $(cat rev/subvolumes.csv)"
"$rockperm" campaign --manifest one.csv --config base.ini --dir revc --subvolumes centred:12,20,28 >revc.log 2>&1
grep -q '^"s1_e20_4_4_4",' revc/campaign.csv || fail "centred cubes: $(cut -d, -f1-3 revc/campaign.csv)"
[ "$(tail -n +2 revc/subvolumes.csv | wc -l)" -eq 3 ] || fail "centred subvolumes.csv: $(cat revc/subvolumes.csv)"

# --- bad manifests and options: one message, exit 2, nothing run -------------------------------
bad() {  # bad NAME PATTERN -- ARGS...
  local name=$1 pattern=$2
  shift 3
  "$rockperm" campaign "$@" >"$name.log" 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2"
  grep -qE -e "$pattern" "$name.log" || fail "$name: message $(cat "$name.log")"
}
printf 'id,input,lbm.colour\na,scans/s1.raw,red\n' >badcol.csv
bad column "column 'lbm.colour' is neither id, input nor an option" -- --manifest badcol.csv
printf 'id,input\na,scans/s1.raw\na,scans/s2.raw\n' >dup.csv
bad duplicate "id 'a' is given twice" -- --manifest dup.csv
printf 'id,input\n../x,scans/s1.raw\n' >badid.csv
bad id "the id '../x' cannot name a run directory" -- --manifest badid.csv
printf 'id,input\na,"scans/s1.raw\n' >quote.csv
bad quote "line [0-9]+: .*quoted" -- --manifest quote.csv
printf 'id,input\na,scans/s1.raw,extra\n' >fields.csv
bad fields "row 2: 3 fields, but the header has 2" -- --manifest fields.csv
bad both "either --manifest FILE.csv or --scans DIR" -- --manifest m.csv --scans scans
bad nofile "no such file" -- --manifest none.csv
bad override "not an option of rockperm campaign" -- --manifest m.csv --lbm.nothing=1
bad array "--array-index must be in" -- --manifest m.csv --array-index 2 --array-size 2
bad tau "lbm.tau" -- --manifest m.csv --config base.ini --lbm.tau=0.4
bad subvolumes "is not an edge in voxels" -- --manifest one.csv --config base.ini --subvolumes 2,x
bad bigcube "does not fit in s1" -- --manifest one.csv --config base.ini --subvolumes 40
# audit 8: every row's options are checked before the first sample; a duplicate column and a
# UTF-16 manifest are one clear message each
printf 'id,input,input.dims,lbm.flow_axis\ns1,scans/s1.raw,28 28 28,x\ns2,scans/s2.raw,28 28 28,w\n' >badcell.csv
bad cell "sample 's2': .*lbm.flow_axis.*no sample was run" -- --manifest badcell.csv --config base.ini --dir badcell
[ -e badcell/s1/report.json ] && fail "a bad cell in row 3: s1 ran before the campaign stopped"
printf 'id,input,input\ns1,scans/s1.raw,scans/s2.raw\n' >dupcol.csv
bad dupcol "the column 'input' appears twice" -- --manifest dupcol.csv --config base.ini
printf 'id,input\ns1,scans/s1.raw\n' | iconv -f UTF-8 -t UTF-16 >utf16.csv
bad utf16 "UTF-16" -- --manifest utf16.csv --config base.ini
grep -q $'\xff\xfe' utf16.log && fail "the UTF-16 message prints raw bytes"

# --- audit 7: a worker counts only what it knows: a sample another process holds is not a failure
python3 - "$rockperm" <<'PY' || fail "a campaign beside another process's sample did not exit 0"
import fcntl, os, subprocess, sys
os.makedirs("held/.locks", exist_ok=True)
lock = open("held/.locks/s3.lock", "w")
fcntl.flock(lock, fcntl.LOCK_EX)  # "another process" is running s3
one = open("two.csv", "w")
one.write("id,input,input.dims\ns1,scans/s1.raw,28 28 28\ns3,scans/s3.raw,28 28 28\n")
one.close()
r = subprocess.run([sys.argv[1], "campaign", "--manifest", "two.csv", "--config", "base.ini", "--dir", "held"],
                   capture_output=True, text=True)
print(r.stdout, r.stderr)
sys.exit(0 if r.returncode == 0 and "1 pending" in r.stdout else 1)
PY

[ "$failures" -eq 0 ] || { echo "$failures failure(s); logs in $work" >&2; exit 1; }
echo "campaign: all checks passed"
