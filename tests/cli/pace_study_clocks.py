#!/usr/bin/env python3
"""tools/pace_study.py --smi on a bench and a clock log made up so that the answers are known.

Two ranks on two GPUs whose SM clocks move, block by block, each on its own. Each rank's repeat
takes a fixed number of cycles (its seconds are its cycles over its GPU's clock), so its cycles
hold still while its seconds move; the decomposed row takes, repeat by repeat, the slower rank's
cycles at the clocks the GPUs ran in the row, plus 2 %: 'of clock' must say 98.0 %. A one-rank
run's row gets its clocks and spreads with no 'of clock'. A log without a header, or of other
GPUs, is refused.
    pace_study_clocks.py PACE_STUDY
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

T0 = 1.8e9  # seconds since 1970 (2027)
UUIDS = ["GPU-0a1b2c3d-0000-1111-2222-333344445555", "GPU-9f8e7d6c-0000-1111-2222-333344445555"]
CYCLES = [400.0, 430.0]  # MHz s per repeat of each rank
REPEATS = 20


def clock(gpu, t):
    """The SM clock of GPU `gpu` at time t: constant over each second, moving from one to the next."""
    k = int(t - T0)
    return 1500 + 40 * (k % 9) if gpu == 0 else 1900 - 30 * (k % 6)


def smi_log(path, uuids, seconds):
    with open(path, "w") as f:
        f.write("uuid, timestamp, clocks.current.sm [MHz], power.draw [W]\n")
        for j in range(int(seconds / 0.05)):
            t = T0 + 0.025 + 0.05 * j
            stamp = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
            for g, u in enumerate(uuids):
                f.write("%s, %s, %d MHz, %.2f W\n" % (u, stamp, clock(g, t), 650 + g))
        f.write(UUIDS[0] + ", 2027/01/1")  # a line cut off when the log was stopped


def bench(ranks):
    """A bench JSON: on two ranks, reference repeats at seconds 0..19 and the row's at 100..119."""
    alone = [[0.0] * REPEATS for _ in range(ranks)]
    alone_ends, row, row_ends, row_ranks = [], [], [], [[0.0] * REPEATS for _ in range(ranks)]
    for k in range(REPEATS):
        start = T0 + k
        for r in range(ranks):
            alone[r][k] = CYCLES[r] / clock(r, start)
        alone_ends.append(start + max(a[k] for a in alone))
        start = T0 + 100 + k
        for r in range(ranks):
            row_ranks[r][k] = CYCLES[r] / clock(r, start)
        row.append(max(x[k] for x in row_ranks) / (0.98 if ranks > 1 else 1.0))
        row_ends.append(start + row[-1])
    r = {"case": "pack-512", "kernel": "fused", "storage": "fp16", "ranks": ranks, "halo": "ipc" if ranks > 1 else "-",
         "repeat_seconds": row, "repeat_end_unix": row_ends, "rank_repeat_seconds": row_ranks}
    if ranks > 1:
        r.update({"of_alone": 0.9, "alone_rank_repeat_seconds": alone, "alone_repeat_end_unix": alone_ends})
    else:
        r.update({"of_alone": 0, "alone_rank_repeat_seconds": [], "alone_repeat_end_unix": []})
    return {"rank_devices": ["NVIDIA H200 (%s)" % u for u in UUIDS[:ranks]], "rows": [r]}


def run(study, *args):
    p = subprocess.run([sys.executable, study] + list(args), capture_output=True, text=True)
    print(p.stdout + p.stderr)
    return p


def main():
    study = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        log, two, one = (os.path.join(d, n) for n in ("smi.csv", "two.json", "one.json"))
        smi_log(log, UUIDS, 130)
        json.dump(bench(2), open(two, "w"))
        json.dump(bench(1), open(one, "w"))

        p = run(study, two, "--smi", log)
        assert p.returncode == 0, p.returncode
        bench_row = json.load(open(two))["rows"][0]
        alone = bench_row["alone_rank_repeat_seconds"]
        paced = sum(max(a[k] for a in alone) for k in range(REPEATS))
        lines = [l.split() for l in p.stdout.splitlines() if l.startswith("pack-512") and "GPU-" in l]
        assert len(lines) == 2, lines
        for r, l in enumerate(lines):
            # case kernel(2) halo rank gpu MHz-alone MHz-row W-alone W-row seconds e rest of-paced of-clock
            assert l[4] == str(r) and UUIDS[r].startswith(l[5]), l
            alone_mhz = sum(clock(r, T0 + k) for k in range(REPEATS)) / REPEATS
            row_mhz = sum(clock(r, T0 + 100 + k) for k in range(REPEATS)) / REPEATS
            assert abs(float(l[6]) - alone_mhz) <= 0.5 and abs(float(l[7]) - row_mhz) <= 0.5, (l, alone_mhz, row_mhz)
            assert l[8] == str(650 + r) and l[9] == str(650 + r), l
            # seconds move, all with the clock
            assert float(l[10].rstrip("%")) > 1.0 and l[11] == "1.00" and float(l[12].rstrip("%")) < 0.01, l
            # the clocks in the row differ from the reference's: its paced share is not 98 %, its clock share is
            assert l[13] == "%.1f%%" % (100 * paced / sum(bench_row["repeat_seconds"])) and l[13] != "98.0%", l
            assert l[14] == "98.0%", l

        p = run(study, one, "--smi", log)
        assert p.returncode == 0, p.returncode
        l = next(l.split() for l in p.stdout.splitlines() if l.startswith("pack-512"))
        assert l[6] == "-" and l[11] == "1.00" and float(l[12].rstrip("%")) < 0.01 and l[13] == l[14] == "-", l

        bad = os.path.join(d, "bad.csv")
        open(bad, "w").write("GPU-1, 2027/01/15 08:00:00.000, 1500 MHz, 600 W\n")
        assert run(study, two, "--smi", bad).returncode == 2
        smi_log(bad, ["GPU-ffffffff-0000-1111-2222-333344445555"] * 2, 130)
        p = run(study, two, "--smi", bad)
        assert p.returncode == 1 and "covers no row" in p.stderr, p.returncode
        assert run(study, two, "--smi").returncode == 2
    print("pace_study_clocks: passed")


if __name__ == "__main__":
    main()
