#!/usr/bin/env bash
# rockperm serve on loopback (issue "The permeability service"): the bundled sample submitted
# over HTTP gives the k of `rockperm run`; tokens (401, 403, no sight of another's jobs); bad
# requests (path traversal, a symbolic link out of the data root, malformed JSON, an unknown
# option, an oversized upload, a scan that fails to read) each a clear HTTP error with nothing
# queued, the service still up; an upload; a cancel; and a kill -9 while a job runs and one is
# queued: after a restart both finish with the k of an uninterrupted run.
# usage: service.sh ROCKPERM SAMPLE_DIR WORK_DIR
set -uo pipefail
rockperm=$1 samples=$2 work=$3 name=service
source "$(dirname "$0")/service_lib.sh"
rm -rf "$work" && mkdir -p "$work/data" "$work/outside" && cd "$work" || exit 1
export OMP_NUM_THREADS=2
cp "$samples/sphere_pack_64.raw" "$samples/sphere_pack_64.ini" data/
cp "$samples/sphere_pack_64.raw" outside/secret.raw
ln -s ../outside/secret.raw data/escape.raw
alice=$("$rockperm" serve --add-token alice --tokens tokens) || fail "add-token"
bob=$("$rockperm" serve --add-token bob --tokens tokens) || fail "add-token"
grep -q "$alice" tokens && fail "the token is stored in clear"
[ "$(stat -c %a tokens)" = 600 ] || fail "tokens file mode $(stat -c %a tokens), not 600"
printf '[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = tokens\ndata_root = data\nrun_config = data/sphere_pack_64.ini\nmax_upload_mb = 1\n' >service.ini

chmod 644 tokens
"$rockperm" serve --config service.ini >refused.log 2>&1 && fail "started with a tokens file others may read"
grep -q "chmod 600" refused.log || fail "no clear message for a readable tokens file: $(cat refused.log)"
chmod 600 tokens
start

# --- the bundled sample over HTTP: k equal to rockperm run ----------------------------------
"$rockperm" run --config data/sphere_pack_64.ini --run.backend=cpu --output.fields=off --output.dir direct >direct.log 2>&1 ||
  fail "rockperm run: $(tail -3 direct.log)"
k_direct=$(python3 -c "import json; print(repr(json.load(open('direct/report.json'))['permeability']['mD']))")
r=$(api "$alice" POST /api/jobs -H 'Content-Type: application/json' \
  -d '{"path": "sphere_pack_64.raw", "options": {"run.backend": "cpu", "output.fields": "off", "run.formation_factor": "on"}}')
[ "$(status_of "$r")" = 201 ] || fail "submit: $r"
job=$(field "$r" "['id']")
r=$(wait_finished "$alice" "$job") || exit 1
[ "$(field "$r" "['status']")" = converged ] || fail "job: $r"
report=$(api "$alice" GET "/api/jobs/$job/report.json")
[ "$(status_of "$report")" = 200 ] || fail "report.json: $report"
k_service=$(field "$report" "['permeability']['mD'].__repr__()")
[ "$k_service" = "$k_direct" ] || fail "k over HTTP $k_service differs from rockperm run $k_direct"
# the formation factor asked for: in the job's record as in its report
f_report=$(field "$report" "['conduction']['formation_factor'].__repr__()")
[ "$(field "$r" "['formation_factor'].__repr__()")" = "$f_report" ] || fail "the job's F is not its report's ($f_report): $r"
html=$(api "$alice" GET "/api/jobs/$job/report.html")
[ "$(status_of "$html")" = 200 ] && grep -q 'id="k-mD"' <<<"$html" || fail "report.html"

# --- tokens -------------------------------------------------------------------------------------
[ "$(status_of "$(api "" GET /api/jobs)")" = 401 ] || fail "no token: not 401"
[ "$(status_of "$(api "rp_wrong" GET /api/jobs)")" = 403 ] || fail "a wrong token: not 403"
[ "$(status_of "$(api "$bob" GET "/api/jobs/$job")")" = 404 ] || fail "bob sees alice's job"
[ "$(field "$(api "$bob" GET /api/jobs)" "['jobs'].__len__()")" = 0 ] || fail "bob's list holds alice's job"
[ "$(status_of "$(api "$bob" DELETE "/api/jobs/$job")")" = 404 ] || fail "bob may cancel alice's job"

# --- bad requests: a clear error, nothing queued, the service still up ------------------------
before=$(field "$(api "$alice" GET /api/jobs)" "['jobs'].__len__()")
expect() {  # status, what, curl args of a POST /api/jobs
  local want=$1 what=$2
  shift 2
  local r
  r=$(api "$alice" POST /api/jobs "$@")
  [ "$(status_of "$r")" = "$want" ] || fail "$what: wanted $want, got $r"
  grep -q '"error"' <<<"$r" || fail "$what: no error message: $r"
}
json=(-H 'Content-Type: application/json')
expect 403 "path traversal" "${json[@]}" -d '{"path": "../outside/secret.raw"}'
expect 403 "absolute path outside" "${json[@]}" -d "{\"path\": \"$work/outside/secret.raw\"}"
expect 403 "symbolic link out of the root" "${json[@]}" -d '{"path": "escape.raw"}'
expect 403 "missing file" "${json[@]}" -d '{"path": "nothing.raw"}'
# a file outside the roots and a missing one get the same answer: no existence oracle
outside_answer=$(api "$alice" POST /api/jobs "${json[@]}" -d "{\"path\": \"$work/outside/secret.raw\"}" | sed "s|$work/outside/secret.raw|X|")
missing_answer=$(api "$alice" POST /api/jobs "${json[@]}" -d "{\"path\": \"$work/outside/nothing.raw\"}" | sed "s|$work/outside/nothing.raw|X|")
[ "$outside_answer" = "$missing_answer" ] || fail "an existing file outside the roots and a missing one are told apart: $outside_answer / $missing_answer"
linked_answer=$(api "$alice" POST /api/jobs "${json[@]}" -d '{"path": "escape.raw"}' | sed "s|escape.raw|X|")
absent_answer=$(api "$alice" POST /api/jobs "${json[@]}" -d '{"path": "absent.raw"}' | sed "s|absent.raw|X|")
[ "$linked_answer" = "$absent_answer" ] || fail "a link out of the root and a missing file are told apart: $linked_answer / $absent_answer"
expect 400 "malformed JSON" "${json[@]}" -d '{"path": '
expect 400 "unknown option" "${json[@]}" -d '{"path": "sphere_pack_64.raw", "options": {"lbm.nonsense": "1"}}'
expect 400 "bad option value" "${json[@]}" -d '{"path": "sphere_pack_64.raw", "options": {"lbm.tau": "-3"}}'
expect 400 "output.dir set by the user" "${json[@]}" -d '{"path": "sphere_pack_64.raw", "options": {"output.dir": "/tmp"}}'
expect 415 "unknown content type" -H 'Content-Type: text/plain' -d 'hello'
head -c 2000000 /dev/zero >big.raw
expect 413 "upload over max_upload_mb" -H 'Content-Type: application/octet-stream' -H 'X-Rockperm-Filename: big.raw' \
  --data-binary @big.raw
expect 400 "upload with a path in its name" -H 'Content-Type: application/octet-stream' \
  -H 'X-Rockperm-Filename: ../x.raw' --data-binary @data/sphere_pack_64.raw
after=$(field "$(api "$alice" GET /api/jobs)" "['jobs'].__len__()")
[ "$after" = "$before" ] || fail "a refused request queued a job ($before -> $after)"
[ "$(status_of "$(curl -s -m 5 -w '\n%{http_code}' "$url/api/health")")" = 200 ] || fail "the service is down"

# --- a scan that cannot be read: refused at submission (its header is read); a scan that fails
# later (no pore voxel): recorded as the job's input_error, the service goes on ---------------
head -c 1000 /dev/urandom >short.raw
r=$(api "$alice" POST /api/jobs -H 'Content-Type: application/octet-stream' -H 'X-Rockperm-Filename: short.raw' \
  -H 'X-Rockperm-Options: {"input.dims": "64 64 64"}' --data-binary @short.raw)
[ "$(status_of "$r")" = 422 ] || fail "upload of a short scan: $r"
grep -q "1000 bytes" <<<"$r" || fail "the short scan's message: $r"
grep -q "$work" <<<"$r" && fail "the message shows the server's paths: $r"
[ -z "$(ls state/uploads)" ] || fail "a refused upload left files: $(ls state/uploads)"
head -c 262144 /dev/zero | tr '\0' '\1' >solid.raw
r=$(api "$alice" POST /api/jobs -H 'Content-Type: application/octet-stream' -H 'X-Rockperm-Filename: solid.raw' \
  --data-binary @solid.raw)
[ "$(status_of "$r")" = 201 ] || fail "upload of an all-solid scan: $r"
r=$(wait_finished "$alice" "$(field "$r" "['id']")") || exit 1
[ "$(field "$r" "['status']")" = input_error ] || fail "an all-solid scan: $r"
grep -qi "pore" <<<"$(field "$r" "['message']")" || fail "the all-solid scan's message: $r"

# --- kill -9 while a job runs and one is queued; restart; both finish with the same k --------
slow='"run.backend": "cpu", "output.fields": "off", "run.tolerance": "1e-7", "run.checkpoint_interval": "200"'
r1=$(api "$alice" POST /api/jobs "${json[@]}" -d "{\"path\": \"sphere_pack_64.raw\", \"options\": {$slow}}")
r2=$(api "$alice" POST /api/jobs "${json[@]}" -d "{\"path\": \"sphere_pack_64.raw\", \"options\": {$slow, \"lbm.flow_axis\": \"y\"}}")
j1=$(field "$r1" "['id']") j2=$(field "$r2" "['id']")
for _ in $(seq 1 300); do
  [ -s "state/jobs/$j1/checkpoint.rpk" ] && break  # killed after a checkpoint: the restart resumes from it
  [ "$(field "$(api "$alice" GET "/api/jobs/$j1")" "['state']")" = finished ] && break
  sleep 0.1
done
[ "$(field "$(api "$alice" GET "/api/jobs/$j1")" "['state']")" = running ] || fail "job 1 was not running at the kill"
case $(field "$(api "$alice" GET "/api/jobs/$j2")" "['state']") in queued | preparing) ;; *) fail "job 2 was not queued at the kill" ;; esac
kill -9 "$pid"
wait "$pid" 2>/dev/null
start
grep -q "resumed after a stop" serve.log || fail "the restart did not take up the running job"
r1=$(wait_finished "$alice" "$j1") || exit 1
r2=$(wait_finished "$alice" "$j2") || exit 1
for a in x y; do
  "$rockperm" run --config data/sphere_pack_64.ini --run.backend=cpu --output.fields=off --run.tolerance=1e-7 \
    --lbm.flow_axis=$a --output.dir "plain_$a" >/dev/null 2>&1 || fail "rockperm run along $a"
done
kx=$(python3 -c "import json; print(repr(json.load(open('plain_x/report.json'))['permeability']['mD']))")
ky=$(python3 -c "import json; print(repr(json.load(open('plain_y/report.json'))['permeability']['mD']))")
[ "$(field "$r1" "['k_mD'].__repr__()")" = "$kx" ] || fail "job 1 after the kill: $(field "$r1" "['k_mD']") vs $kx"
[ "$(field "$r2" "['k_mD'].__repr__()")" = "$ky" ] || fail "job 2 after the kill: $(field "$r2" "['k_mD']") vs $ky"

# --- cancel a queued job --------------------------------------------------------------------
r=$(api "$alice" POST /api/jobs "${json[@]}" -d "{\"path\": \"sphere_pack_64.raw\", \"options\": {$slow}}")
r=$(api "$alice" POST /api/jobs "${json[@]}" -d "{\"path\": \"sphere_pack_64.raw\", \"options\": {$slow}}")
j4=$(field "$r" "['id']")
r=$(api "$alice" DELETE "/api/jobs/$j4")
[ "$(status_of "$r")" = 200 ] || fail "cancel: $r"
r=$(wait_finished "$alice" "$j4") || exit 1
[ "$(field "$r" "['state']")" = cancelled ] || fail "cancelled job: $r"

# --- SIGTERM: a clean stop ---------------------------------------------------------------------
kill -TERM "$pid"
wait "$pid"
code=$?
[ $code -eq 0 ] || fail "the server exited $code on SIGTERM"
echo "service: all checks passed"
