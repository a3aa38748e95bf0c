#!/usr/bin/env bash
# rockperm serve's front doors besides a server path (issue "The permeability service"): the
# bundled sample uploaded as multipart/form-data (raw, and NRRD header + raw), as a zip of TIFF
# slices, and dropped into the spool directory — each gives the k of `rockperm run`, bit for bit;
# fields.zip holds the ParaView files; a zip bomb, a TIFF bomb, a file that is not an archive and
# malformed multipart bodies are refused with a clear error and leave nothing behind; a job asked
# to run on 2 workers runs as mpiexec -n 2 rockperm run and gives its k; a token added to the
# tokens file while the server runs is taken without a restart.
# usage: service_uploads.sh ROCKPERM SAMPLE_DIR WORK_DIR
set -uo pipefail
rockperm=$1 samples=$2 work=$3 name=service_uploads
here=$(cd "$(dirname "$0")" && pwd)
source "$here/service_lib.sh"
rm -rf "$work" && mkdir -p "$work/spool" && cd "$work" || exit 1
export OMP_NUM_THREADS=2
cp "$samples/sphere_pack_64.raw" "$samples/sphere_pack_64.ini" .
alice=$("$rockperm" serve --add-token alice --tokens tokens) || fail "add-token"
printf '[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = tokens\nrun_config = sphere_pack_64.ini
spool_dir = spool\nspool_settle_s = 1\nmax_upload_mb = 2\nmax_unpacked_mb = 8\nmax_voxels = 1000000
workers = 2\nmpiexec = mpiexec --oversubscribe\n' >service.ini
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start

"$rockperm" run --config sphere_pack_64.ini --run.backend=cpu --output.dir direct >direct.log 2>&1 ||
  fail "rockperm run: $(tail -3 direct.log)"
k_direct=$(python3 -c "import json; print(repr(json.load(open('direct/report.json'))['permeability']['mD']))")
cpu='{"run.backend": "cpu"}'
submitted=()
check_k() {  # what, response of a submission: the job ends converged with k_direct
  [ "$(status_of "$2")" = 201 ] || fail "$1: $2"
  local r
  r=$(wait_finished "$alice" "$(field "$2" "['id']")") || exit 1
  [ "$(field "$r" "['status']")" = converged ] || fail "$1: $r"
  [ "$(field "$r" "['k_mD'].__repr__()")" = "$k_direct" ] || fail "$1: k $(field "$r" "['k_mD']") differs from $k_direct"
  submitted+=("$(field "$r" "['id']")")
}

# --- multipart/form-data, as a browser's form or curl -F sends it -------------------------------
r=$(api "$alice" POST /api/jobs -F "options=$cpu" -F "scan=@sphere_pack_64.raw")
check_k "multipart raw" "$r"
job=${submitted[-1]}
api "$alice" GET "/api/jobs/$job/fields.zip" -o fields.zip >/dev/null
python3 - <<'PY' || fail "fields.zip"
import zipfile
names = sorted(zipfile.ZipFile("fields.zip").namelist())
assert "fields.pvti" in names and any(n.endswith(".vti") for n in names), names
PY
printf 'NRRD0004\ntype: uint8\ndimension: 3\nsizes: 64 64 64\nspacings: 5 5 5\nencoding: raw\ndata file: sphere_pack_64.raw\n\n' >pack.nhdr
r=$(api "$alice" POST /api/jobs -F 'options={"run.backend": "cpu", "output.fields": "off"}' -F "scan=@pack.nhdr" \
  -F "scan=@sphere_pack_64.raw")
check_k "multipart NRRD header and data" "$r"
[ "$(status_of "$(api "$alice" GET "/api/jobs/${submitted[-1]}/fields.zip")")" = 404 ] || fail "fields.zip of a run without fields"

# --- a job on two workers: mpiexec -n 2 rockperm run, as the service starts it --------------------
if command -v mpiexec >/dev/null; then
  OMP_NUM_THREADS=1 mpiexec -n 2 --oversubscribe "$rockperm" run --config sphere_pack_64.ini --run.backend=cpu \
    --output.fields=off --output.dir direct2 >direct2.log 2>&1 || fail "mpiexec rockperm run: $(tail -3 direct2.log)"
  k2=$(python3 -c "import json; print(repr(json.load(open('direct2/report.json'))['permeability']['mD']))")
  r=$(api "$alice" POST /api/jobs -F 'options={"run.backend": "cpu", "output.fields": "off"}' -F gpus=2 \
    -F "scan=@sphere_pack_64.raw")
  [ "$(status_of "$r")" = 201 ] || fail "a job on 2 workers: $r"
  [ "$(field "$r" "['gpus']")" = 2 ] || fail "the job does not say it runs on 2: $r"
  submitted+=("$(field "$r" "['id']")")
  r=$(wait_finished "$alice" "$(field "$r" "['id']")") || exit 1
  [ "$(field "$r" "['k_mD'].__repr__()")" = "$k2" ] || fail "a job on 2 workers: k $(field "$r" "['k_mD']") vs mpiexec $k2"
  grep -q "of 2 rank(s)" "state/jobs/$(field "$r" "['id']").log" || fail "the job's log does not show 2 ranks"
  expect_gpus=$(api "$alice" POST /api/jobs -F gpus=3 -F "scan=@sphere_pack_64.raw")
  [ "$(status_of "$expect_gpus")" = 400 ] || fail "gpus above the workers: $expect_gpus"
fi

# --- a zip of TIFF slices ------------------------------------------------------------------------
python3 "$here/make_scans.py" tiff-slices sphere_pack_64.raw 64 64 64 slices || fail "make TIFF slices"
python3 "$here/make_scans.py" zip slices.zip slices/*.tif || fail "make zip"
r=$(api "$alice" POST /api/jobs -H 'Content-Type: application/zip' -H 'X-Rockperm-Filename: slices.zip' \
  -H 'X-Rockperm-Options: {"run.backend": "cpu", "output.fields": "off"}' --data-binary @slices.zip)
check_k "zip of TIFF slices" "$r"

# --- the spool directory ---------------------------------------------------------------------------
mkdir spool/core7
cp sphere_pack_64.raw spool/core7/
printf '[input]\nfile = sphere_pack_64.raw\n[run]\nbackend = cpu\n[output]\nfields = off\n' >spool/core7/job.ini
touch spool/core7/READY
for _ in $(seq 1 600); do
  [ -f spool/core7/results/report.json ] && grep -q finished spool/core7/rockperm.job 2>/dev/null && break
  sleep 0.2
done
[ -f spool/core7/results/report.json ] || fail "the spool folder got no results: $(cat spool/core7/rockperm.job 2>&1)"
k_spool=$(python3 -c "import json; print(repr(json.load(open('spool/core7/results/report.json'))['permeability']['mD']))")
[ "$k_spool" = "$k_direct" ] || fail "spool: k $k_spool differs from $k_direct"
[ -f spool/core7/results/report.html ] || fail "spool: no report.html"
mkdir spool/broken && echo "[input]" >spool/broken/job.ini && touch spool/broken/READY
for _ in $(seq 1 50); do [ -f spool/broken/rockperm.job ] && break; sleep 0.2; done
grep -q refused spool/broken/rockperm.job || fail "a spool folder without a scan: $(cat spool/broken/rockperm.job 2>&1)"

# --- refused: bombs, not archives, malformed multipart; nothing queued, nothing left -------------
before=$(field "$(api "$alice" GET /api/jobs)" "['jobs'].__len__()")
expect() {  # status, what, text the error must hold, curl args of a POST /api/jobs
  local want=$1 what=$2 text=$3
  shift 3
  local r
  r=$(api "$alice" POST /api/jobs "$@")
  [ "$(status_of "$r")" = "$want" ] || fail "$what: wanted $want, got $r"
  grep -qi "$text" <<<"$r" || fail "$what: the message does not say '$text': $r"
}
python3 "$here/make_scans.py" zip-bomb bomb.zip 64 || fail "make zip bomb"
[ "$(stat -c %s bomb.zip)" -lt 1000000 ] || fail "the zip bomb is not small"
expect 422 "zip bomb" "more than 8 MB" -H 'Content-Type: application/zip' -H 'X-Rockperm-Filename: bomb.zip' --data-binary @bomb.zip
expect 422 "zip bomb in a form" "more than 8 MB" -F "scan=@bomb.zip"
python3 "$here/make_scans.py" tiff-bomb bomb.tif 60000 60000 || fail "make TIFF bomb"
expect 422 "TIFF bomb" "max_voxels\|beyond the end of the file" -F 'options={"input.voxel_size_um": "1"}' -F "scan=@bomb.tif"
echo "not a zip" >fake.zip
expect 422 "not an archive" "fake.zip" -F "scan=@fake.zip"
expect 400 "multipart without boundary" "boundary" -H 'Content-Type: multipart/form-data' --data-binary 'abc'
printf -- '--xx\r\nContent-Disposition: form-data; name="scan"; filename="a.raw"\r\n\r\nabc' >truncated.txt
expect 400 "multipart without its end" "multipart" -H 'Content-Type: multipart/form-data; boundary=xx' --data-binary @truncated.txt
expect 400 "a form without a file" "no file" -F 'options={}'
expect 400 "options not JSON" "options" -F 'options={' -F "scan=@sphere_pack_64.raw"
after=$(field "$(api "$alice" GET /api/jobs)" "['jobs'].__len__()")
[ "$after" = "$before" ] || fail "a refused upload queued a job ($before -> $after)"
[ -z "$(ls state/uploads | grep -v -E "^($(IFS='|'; echo "${submitted[*]}"))$")" ] || fail "refused uploads left files: $(ls state/uploads)"

# --- a token added while the server runs --------------------------------------------------------
carol=$("$rockperm" serve --add-token carol --tokens tokens) || fail "add-token carol"
sleep 1.1  # the file's time must differ from the last read (one-second clocks on some file systems)
[ "$(status_of "$(api "$carol" GET /api/jobs)")" = 200 ] || fail "a token added while running is not taken"

kill -TERM "$pid"
wait "$pid" || fail "the server exited $? on SIGTERM"
echo "$name: all checks passed"
