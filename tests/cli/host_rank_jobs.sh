#!/usr/bin/env bash
# Samples too large for their GPU in the service and in campaigns (issue 38), on one GPU that
# holds too little (run.gpu_memory_gib):
# - the service queues the job again on the GPU and a rank on the host's cores (run.host_share =
#   auto), where it runs; with run.host_share = off it ends as the input error whose report's
#   reason is "capacity";
# - a campaign started with one rank more than the GPUs runs every sample that fits on the GPU,
#   one rank each, and the one too large on the GPU and the host's cores together, to the k of
#   the service's mixed run.
# Needs a CUDA device and MPI (skipped, exit 77, without them).
#   host_rank_jobs.sh ROCKPERM MAKE_PACK WORK_DIR
set -uo pipefail
rockperm=$1 make_pack=$2 work=$3 name=host_rank_jobs
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no CUDA device: skipped"; exit 77; }
command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$work" && mkdir -p "$work/data" && cd "$work" || exit 1
fail() { echo "$name: FAIL: $*" >&2; tail -20 serve.log >&2; exit 1; }
"$make_pack" --dims "192 192 192" --porosity 0.3 --radius 6 --out data/p.raw >/dev/null || fail "make-pack"
# fp32, at most 0.05 GiB of the GPU: the 2 M cells (about 0.2 GB) do not fit it
printf '[input]\nfile = p.raw\ndims = 192 192 192\nvoxel_size_um = 2\n[lbm]\ninlet_outlet = periodic\nlateral = periodic\n[run]\nstorage = fp32\ngpu_memory_gib = 0.05\nmax_steps = 300\ncheck_interval = 100\n[output]\nfields = off\n' >data/base.ini
token=$("$rockperm" serve --add-token alice --tokens tokens) || fail "add-token"
chmod 600 tokens
printf '[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = tokens\ndata_root = data\nrun_config = data/base.ini\nmpiexec = mpirun --bind-to none --oversubscribe\n' >service.ini
"$rockperm" serve --config service.ini >serve.log 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -s state/port ] && break; sleep 0.1; done
[ -s state/port ] || fail "the server did not start"
python3 - "http://127.0.0.1:$(cat state/port)" "$token" <<'PY' || fail "jobs"
import json, sys, time, urllib.request
url, token = sys.argv[1], sys.argv[2]
def call(method, path, body=None):
    req = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body else None,
                                 headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())
def run(options):
    job = call("POST", "/api/jobs", {"path": "p.raw", "options": options})["id"]
    for _ in range(1200):
        j = call("GET", "/api/jobs/" + job)
        if j["state"] in ("finished", "cancelled"):
            return j, call("GET", "/api/jobs/" + job + "/report.json")
        time.sleep(0.25)
    raise SystemExit("job %s did not finish: %s" % (job, j))
j, report = run({})
print("auto:", j.get("status"), j.get("gpus"), j.get("host_cores"), report.get("message"))
assert j["status"] in ("converged", "not_converged"), j  # 300 steps: k stands, steady or not
assert j.get("host_cores") is True, j
assert report["provenance"]["ranks"] == 2 and report["permeability"]["mD"] > 0, report
print("k", repr(report["permeability"]["mD"]), report["performance"]["backend"], report["performance"]["mflups"], "MFLUPS")
j, report = run({"run.host_share": "off"})
print("off:", j.get("status"), report.get("reason"), report.get("message"))
assert j["status"] == "input_error" and report.get("reason") == "capacity", (j, report)
assert "run.host_share" in report["message"], report["message"]
PY
kill $pid 2>/dev/null
wait $pid 2>/dev/null
k_service=$(python3 -c "import json,glob; print([repr(json.load(open(f))['permeability']['mD']) for f in glob.glob('state/jobs/*/report.json') if json.load(open(f))['provenance']['ranks'] == 2][0])")

# a campaign of two ranks on the one GPU: three samples that fit, one that does not
grep -v gpu_memory data/base.ini >data/campaign.ini
printf 'id,input,run.gpu_memory_gib\na,data/p.raw,\nb,data/p.raw,\nbig,data/p.raw,0.05\nc,data/p.raw,\n' >m.csv
mpirun -n 2 --bind-to none "$rockperm" campaign --manifest m.csv --config data/campaign.ini --dir camp >camp.log 2>&1
grep -q "^workers     1 rank(s), one sample each at a time; 1 beyond their host's GPUs join only" camp.log ||
  fail "campaign workers: $(grep -m1 workers camp.log)"
python3 - "$k_service" <<'PY' || fail "campaign: $(tail -5 camp.log)"
import json, sys
for id, ranks in (("a", 1), ("b", 1), ("c", 1), ("big", 2)):
    r = json.load(open("camp/%s/report.json" % id))
    assert r["provenance"]["ranks"] == ranks, (id, r["provenance"]["ranks"], r.get("message"))
    assert r["performance"]["backend"].startswith("cuda"), (id, r["performance"]["backend"])
k = json.load(open("camp/big/report.json"))["permeability"]["mD"]
assert abs(k / float(sys.argv[1]) - 1) < 1e-12, (k, sys.argv[1])  # the same split: the service's k
PY
echo "host_rank_jobs: all checks passed"
