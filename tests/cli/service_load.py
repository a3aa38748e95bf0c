#!/usr/bin/env python3
"""Load on rockperm serve (issue "The permeability service"): 200 small jobs submitted by 20
concurrent clients while 5 others poll status and lists; every job is accounted for (each id
once, every job ends, none lost or duplicated), no request fails, and the server's resident
memory stays bounded (peak below LIMIT_MB, and the last quarter of the run no higher than the
first quarter plus SLACK_MB: no growth per job).

usage: service_load.py ROCKPERM MAKE_PACK WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

JOBS, CLIENTS, POLLERS = 200, 20, 5
LIMIT_MB, SLACK_MB = 200, 40


def fail(message):
    print("service_load: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def main(rockperm, make_pack, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "data"))
    os.chdir(work)
    subprocess.run([make_pack, "--dims", "20 20 20", "--porosity", "0.4", "--radius", "3", "--seed", "5",
                    "--out", "data/p20.raw"], check=True, stdout=subprocess.DEVNULL)
    with open("data/p20.ini", "w") as f:
        f.write("[input]\nfile = p20.raw\ndims = 20 20 20\npore_labels = 0\nvoxel_size_um = 5\n"
                "[run]\nbackend = cpu\nmax_steps = 400\n[output]\nfields = off\n")
    token = subprocess.run([rockperm, "serve", "--add-token", "load", "--tokens", "tokens"], check=True,
                           capture_output=True, text=True).stdout.strip()
    with open("service.ini", "w") as f:
        f.write("[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = tokens\ndata_root = data\n"
                "run_config = data/p20.ini\nworkers = 2\nmax_connections_per_client = 64\n"
                "max_jobs_per_token = 1000\n")  # one token submits all 200: a campaign the operator allows
    env = dict(os.environ, OMP_NUM_THREADS="1")
    log = open("serve.log", "w")
    server = subprocess.Popen([rockperm, "serve", "--config", "service.ini"], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        for _ in range(100):
            if os.path.exists("state/port") and open("state/port").read().strip():
                break
            time.sleep(0.1)
        else:
            fail("the server did not start")
        url = "http://127.0.0.1:%s" % open("state/port").read().strip()
        run_load(url, token, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
    if server.returncode != 0:
        fail("the server exited %d on SIGTERM" % server.returncode)
    print("service_load: all checks passed")


def call(url, token, method, path, body=None):
    request = urllib.request.Request(url + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        return r.status, json.loads(r.read())


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def run_load(url, token, pid):
    ids, errors, memory = [], [], []
    lock = threading.Lock()
    done = threading.Event()

    def submitter(c):
        for i in range(JOBS // CLIENTS):
            axis = "xyz"[(c + i) % 3]
            try:
                status, job = call(url, token, "POST", "/api/jobs", {"path": "p20.raw", "options": {"lbm.flow_axis": axis}})
                with lock:
                    (ids.append(job["id"]) if status == 201 else errors.append("submit %d: %s" % (status, job)))
            except (urllib.error.URLError, OSError, ValueError) as e:
                with lock:
                    errors.append("submit: %r" % e)

    def poller():
        while not done.is_set():
            try:
                _, listing = call(url, token, "GET", "/api/jobs")
                for j in listing["jobs"][:3]:
                    call(url, token, "GET", "/api/jobs/" + j["id"])
            except (urllib.error.URLError, OSError, ValueError) as e:
                with lock:
                    errors.append("poll: %r" % e)
            time.sleep(0.05)

    def sampler():
        while not done.is_set():
            memory.append(rss_mb(pid))
            time.sleep(0.2)

    threads = [threading.Thread(target=submitter, args=(c,)) for c in range(CLIENTS)]
    threads += [threading.Thread(target=poller) for _ in range(POLLERS)] + [threading.Thread(target=sampler)]
    start = time.time()
    for t in threads:
        t.start()
    for t in threads[:CLIENTS]:
        t.join()
    submitted = time.time() - start
    deadline = time.time() + 600
    while time.time() < deadline:
        _, listing = call(url, token, "GET", "/api/jobs")
        if all(j["state"] in ("finished", "cancelled") for j in listing["jobs"]) and len(listing["jobs"]) >= JOBS:
            break
        time.sleep(0.5)
    done.set()
    for t in threads[CLIENTS:]:
        t.join()
    elapsed = time.time() - start
    _, listing = call(url, token, "GET", "/api/jobs")
    jobs = listing["jobs"]
    if errors:
        fail("%d requests failed, first: %s" % (len(errors), errors[0]))
    if len(ids) != JOBS or len(set(ids)) != JOBS:
        fail("%d ids for %d submissions (%d distinct)" % (len(ids), JOBS, len(set(ids))))
    listed = [j["id"] for j in jobs]
    if sorted(listed) != sorted(ids):
        fail("the list holds %d jobs, %d distinct; submitted %d" % (len(listed), len(set(listed)), len(ids)))
    unfinished = [j for j in jobs if j["state"] != "finished"]
    if unfinished:
        fail("%d jobs did not finish, e.g. %s" % (len(unfinished), unfinished[0]))
    bad = [j for j in jobs if j.get("status") not in ("converged", "not_converged")]
    if bad:
        fail("%d jobs ended badly, e.g. %s" % (len(bad), bad[0]))
    plain = [j for j in jobs if not isinstance(j.get("warnings"), list) or not j.get("verdict")]
    if plain:
        fail("%d finished jobs show no verdict or warnings list, e.g. %s" % (len(plain), plain[0]))
    peak = max(memory)
    quarter = max(1, len(memory) // 4)
    first, last = max(memory[:quarter]), max(memory[-quarter:])
    print("service_load: %d jobs from %d clients submitted in %.1f s (%.0f/s), all finished in %.1f s; "
          "server RSS peak %.0f MB, first quarter %.0f MB, last quarter %.0f MB"
          % (JOBS, CLIENTS, submitted, JOBS / submitted, elapsed, peak, first, last))
    if peak > LIMIT_MB:
        fail("the server's memory reached %.0f MB (limit %d MB)" % (peak, LIMIT_MB))
    if last > first + SLACK_MB:
        fail("the server's memory grew from %.0f MB to %.0f MB over the run" % (first, last))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
