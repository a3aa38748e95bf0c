#!/usr/bin/env python3
"""rockperm serve under work (issue "The permeability service"), figures for docs/PERFORMANCE.md:

  1. submission throughput: SUBMIT jobs by server path from 20 concurrent clients (HTTP, token
     check, options and scan header checked, SQLite commit with synchronous=FULL each);
  2. a queue of COUNT synthetic packs of N^3 (as tools/campaign_bench.sh makes them) on 1 GPU and
     on GPUS GPUs: wall time from the first submission to the last job's end, samples per minute,
     GPU busy fraction (the jobs' solver seconds / (wall x GPUs)), and the service's time per job
     (wall x GPUs / COUNT) against one bare `rockperm run` of the same scan (process start
     included);
  3. with GPUS > 1, one scan as a job on all GPUS GPUs (the service starts mpiexec -n GPUS).

rockperm and rockperm-make-pack on PATH.  usage: COUNT=32 N=128 GPUS=2 python3 tools/service_bench.py
"""
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request

COUNT, N, GPUS = int(os.environ.get("COUNT", 32)), int(os.environ.get("N", 128)), int(os.environ.get("GPUS", 1))
SUBMIT = int(os.environ.get("SUBMIT", 400))
WORK = os.environ.get("WORK", "/tmp/service_bench")


def start(name, workers, env):
    os.makedirs(name, exist_ok=True)
    with open(name + "/service.ini", "w") as f:
        f.write("[service]\nlisten = 127.0.0.1:0\nstate_dir = state\ntokens = ../tokens\ndata_root = ../scans\n"
                "run_config = ../base.ini\nworkers = %d\nmax_connections = 64\n" % workers)
    p = subprocess.Popen(["rockperm", "serve", "--config", name + "/service.ini"], stdout=open(name + "/serve.log", "w"),
                         stderr=subprocess.STDOUT, env=env)
    for _ in range(300):
        if os.path.exists(name + "/state/port"):
            port = open(name + "/state/port").read().strip()
            if port:
                return p, "http://127.0.0.1:" + port
        time.sleep(0.1)
    raise SystemExit("the service did not start; see " + name + "/serve.log")


def call(url, token, method, path, body=None):
    r = urllib.request.Request(url + path, method=method, data=None if body is None else json.dumps(body).encode(),
                               headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=120) as response:
        return json.loads(response.read())


def submit_all(url, token, paths, clients):
    ids, lock = [], threading.Lock()

    def client(share):
        for p in share:
            job = call(url, token, "POST", "/api/jobs", {"path": p})
            with lock:
                ids.append(job["id"])

    threads = [threading.Thread(target=client, args=(paths[c::clients],)) for c in range(clients)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ids, t0, time.time() - t0


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK + "/scans")
    os.chdir(WORK)
    for i in range(1, COUNT + 1):
        phi = 0.15 + 0.20 * ((i * 7) % 11) / 10
        subprocess.run(["rockperm-make-pack", "--dims", "%d %d %d" % (N, N, N), "--porosity", "%.2f" % phi, "--radius",
                        str(max(1, N // 16)), "--seed", str(i), "--out", "scans/p%d.raw" % i], check=True,
                       stdout=subprocess.DEVNULL)
    with open("base.ini", "w") as f:
        f.write("[input]\ndims = %d %d %d\nvoxel_size_um = 5\n[lbm]\ninlet_outlet = periodic\nlateral = periodic\n"
                "[output]\nfields = off\n" % (N, N, N))
    token = subprocess.run(["rockperm", "serve", "--add-token", "bench", "--tokens", "tokens"], check=True,
                           capture_output=True, text=True).stdout.strip()
    env = dict(os.environ)

    # 1. submission throughput (the jobs are not run: the service is stopped once they are in)
    p, url = start("submit", 1, dict(env, CUDA_VISIBLE_DEVICES="0"))
    ids, _, seconds = submit_all(url, token, ["p1.raw"] * SUBMIT, 20)
    p.terminate()
    p.wait()
    print("submission: %d jobs from 20 clients in %.2f s: %.0f jobs/s (%.1f ms each, wall)"
          % (len(set(ids)), seconds, len(ids) / seconds, 1000 * seconds / len(ids)))

    # bare rockperm run of one scan, process start to exit
    t0 = time.time()
    subprocess.run(["rockperm", "run", "--config", "base.ini", "--input.file", "scans/p1.raw", "--output.dir", "bare"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(env, CUDA_VISIBLE_DEVICES="0"))
    bare = time.time() - t0
    bare_solve = json.load(open("bare/report.json"))["performance"]["solve_seconds"]
    print("bare rockperm run of p1: %.2f s (solver %.2f s)" % (bare, bare_solve))

    # 2. the queue of COUNT scans on 1 and on GPUS GPUs
    for g in sorted({1, GPUS}):
        name = "queue%d" % g
        e = dict(env, CUDA_VISIBLE_DEVICES=",".join(str(i) for i in range(g)))
        p, url = start(name, g, e)
        ids, t0, sub = submit_all(url, token, ["p%d.raw" % i for i in range(1, COUNT + 1)], 8)
        while True:
            h = call(url, token, "GET", "/api/health")
            if h["queued"] == 0 and h["running"] == 0 and h.get("preparing", 0) == 0:
                break
            time.sleep(0.05)
        wall = time.time() - t0
        p.terminate()
        p.wait()
        solve, converged = 0.0, 0
        for i in ids:
            r = json.load(open("%s/state/jobs/%s/report.json" % (name, i)))
            solve += r["performance"]["solve_seconds"]
            converged += r.get("status") == "converged"
        print("queue of %d %d^3 scans on %d GPU%s: %.1f s (submitted in %.2f s), %.1f samples/min, %d converged, "
              "solver %.1f s, busy %.0f %%, service time per job %.2f s (bare run %.2f s)"
              % (COUNT, N, g, "s" if g > 1 else "", wall, sub, 60 * COUNT / wall, converged, solve,
                 100 * solve / (wall * g), wall * g / COUNT, bare))

    # 3. one job on all GPUS GPUs (mpiexec -n GPUS rockperm run, started by the service)
    if GPUS > 1:
        p, url = start("gang", GPUS, env)
        t0 = time.time()
        job = call(url, token, "POST", "/api/jobs", {"path": "p1.raw", "gpus": GPUS})
        while call(url, token, "GET", "/api/jobs/" + job["id"])["state"] not in ("finished", "cancelled"):
            time.sleep(0.05)
        wall = time.time() - t0
        j = call(url, token, "GET", "/api/jobs/" + job["id"])
        p.terminate()
        p.wait()
        log = open("gang/state/jobs/%s.log" % job["id"]).read()
        print("one job on %d GPUs (mpiexec): %s, k %s mD (bare run on 1 GPU: %r), %.2f s from submission; "
              "the run's device lines: %s" % (GPUS, j.get("status"), j.get("k_mD"),
                                              json.load(open("bare/report.json"))["permeability"]["mD"], wall,
                                              [l.strip() for l in log.splitlines() if "GPU" in l or "device" in l][:4]))


if __name__ == "__main__":
    main()
