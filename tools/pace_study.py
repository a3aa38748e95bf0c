#!/usr/bin/env python3
"""Reads `rockperm bench --json` of a decomposed run and says how much of each row's loss
against its reference ('of alone') the ranks' moving paces explain, and, given the devices'
clock log of the same time, how much their clocks explain.

The reference of a decomposed row is every rank stepping its own slab at once with no exchange;
'of alone' sets the row's time against the slowest rank's total there. Ranks that exchange halos
every step cannot keep their own paces: at each moment they step at the slower one's. Where the
paces move apart over a run (fp16 on a power-limited GPU follows its own clock, which the flow's
state moves), the coupled run then needs, repeat by repeat, the slower rank's time:

  paced  = sum over repeats of the slowest rank's own seconds, in the reference
  bound  = slowest rank's total / paced   (the best 'of alone' a coupled run can reach)
  beyond = of alone / bound               (what the exchange itself costs)

With --smi, the log of `nvidia-smi --query-gpu=uuid,timestamp,clocks.sm,power.draw --format=csv
-lms 50` run beside the bench under TZ=UTC (its timestamps carry no zone), each repeat gets the
mean SM clock and power of each rank's GPU (by the uuid the bench's `rank_devices` names) over
its window. A step bound by instructions takes a fixed number of cycles (seconds ~ 1/clock); one
bound by memory does not follow the clock. Each rank's own repeats (the reference's, or a one-rank
row's) give its elasticity e, the least-squares slope of log seconds on log 1/clock (1: all
cycles, 0: the clock does not matter, '-' where the clock did not move), and 'rest', the spread
of its seconds that the clock leaves (seconds x clock^e). A decomposed row then gets

  of paced      = paced / the row's seconds (the slowest rank's own seconds, repeat by repeat)
  clock paced   = sum over repeats of the slowest rank's reference seconds x
                  (its clock in the reference / its clock in the row)^e
  of clock pace = clock paced / the row's seconds

the share of the row's time that each rank's own work at the clock its GPU ran in the row
accounts for: what is left is the exchange's own cost, with both the paces' moves and any clock
that the exchange itself lowers (a power-capped GPU driving a link) taken out. 'MHz alone' and
'MHz row' say whether the GPUs ran slower while exchanging.

Repeats average the paces over their steps: short repeats (--steps 20 to 40) see more of the
moves. One line per decomposed row, and with --smi one per rank of every row:
  mpiexec -n 2 rockperm bench --sizes 512 --geometries pack --propagation fused --storage both \\
      --steps 40 --repeats 100 --json > bench.json
  python3 tools/pace_study.py bench.json [--smi smi.csv]
(tools/pace_run.sh runs the bench beside nvidia-smi and this study in one command.)
"""
import csv
import datetime
import json
import math
import re
import sys


def paced(series, repeats):
    """Sum over the first `repeats` repeats of the slowest series' seconds ([series][repeat])."""
    return sum(max(r[k] for r in series) for k in range(repeats))


def study(row):
    alone = row.get("alone_rank_repeat_seconds") or []
    if len(alone) < 2 or not alone[0]:
        return None
    repeats = min(len(r) for r in alone)
    slowest_total = max(sum(r[:repeats]) for r in alone)
    bound = slowest_total / paced(alone, repeats)
    # each rank's spread of its own repeats in the reference (max over min), in per cent
    spread = [100.0 * (max(r[:repeats]) / min(r[:repeats]) - 1.0) for r in alone]
    return {
        "case": row["case"],
        "kernel": "%s %s" % (row["kernel"], row["storage"]),
        "ranks": row["ranks"],
        "halo": row["halo"],
        "repeats": repeats,
        "of_alone": row["of_alone"],
        "bound": bound,
        "beyond": row["of_alone"] / bound,
        "spread": spread,
    }


def number(text):
    m = re.match(r"\s*([-+0-9.eE]+)", text)
    return float(m.group(1)) if m else None


def read_smi(path):
    """{uuid: [(unix seconds, MHz, W), ...] in time order} of an nvidia-smi CSV log (UTC)."""
    samples = {}
    with open(path, newline="") as f:
        columns = None
        for fields in csv.reader(f, skipinitialspace=True):
            fields = [x.strip() for x in fields]
            if not fields or not fields[0]:
                continue
            if fields[0] == "uuid" or any(x.startswith("timestamp") for x in fields):
                names = [x.split(" [")[0] for x in fields]
                find = lambda *keys: next((i for i, n in enumerate(names) if n in keys), None)
                columns = (find("uuid", "gpu_uuid"), find("timestamp"), find("clocks.current.sm", "clocks.sm"),
                           find("power.draw"))
                if None in columns[:3]:
                    raise ValueError("its header names no uuid, timestamp or clocks.sm column: %s" % ",".join(fields))
                continue
            if columns is None:
                raise ValueError("it has no header line (run nvidia-smi with --format=csv)")
            try:
                when = datetime.datetime.strptime(fields[columns[1]], "%Y/%m/%d %H:%M:%S.%f")
            except (ValueError, IndexError):
                continue  # a line cut off when the log was stopped
            mhz = number(fields[columns[2]])
            watts = number(fields[columns[3]]) if columns[3] is not None and columns[3] < len(fields) else None
            if mhz is None:
                continue
            t = when.replace(tzinfo=datetime.timezone.utc).timestamp()
            samples.setdefault(fields[columns[0]], []).append((t, mhz, watts))
    if not samples:
        raise ValueError("it holds no sample")
    for s in samples.values():
        s.sort()
    return samples


def window(samples, start, seconds):
    """Mean MHz and W of `samples` over [start, start + seconds]; the nearest sample where none falls in it."""
    inside = [s for s in samples if start <= s[0] <= start + seconds]
    if not inside:
        mid = start + seconds / 2
        inside = [min(samples, key=lambda s: abs(s[0] - mid))]
        if abs(inside[0][0] - mid) > max(1.0, seconds):
            return None  # the log does not cover this repeat
    watts = [s[2] for s in inside if s[2] is not None]
    return (sum(s[1] for s in inside) / len(inside), sum(watts) / len(watts) if watts else float("nan"))


def mean(values):
    return sum(values) / len(values)


def spread(values):
    """Standard deviation over mean, in per cent."""
    m = mean(values)
    return 100.0 * math.sqrt(mean([(v - m) ** 2 for v in values])) / m


def elasticity(seconds, clocks):
    """Least-squares slope of log seconds on log(1 / clock); None where the clock did not move."""
    x = [-math.log(c) for c in clocks]
    y = [math.log(t) for t in seconds]
    mx, my = mean(x), mean(y)
    var = sum((a - mx) ** 2 for a in x)
    if var < 1e-8 * len(x):
        return None
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / var


def clock_study(row, uuids, smi):
    """Per rank of `row`: its GPU's clock and power alone and in the row, and the row's clock pace."""
    if len(uuids) != row["ranks"] or any(u not in smi for u in uuids):
        return None
    ranks = row["rank_repeat_seconds"]
    ends = row["repeat_end_unix"]
    alone = row.get("alone_rank_repeat_seconds") or []
    alone_ends = row.get("alone_repeat_end_unix") or []
    decomposed = len(alone) == len(ranks) and len(alone_ends) > 0
    repeats = min(len(ends), min(len(r) for r in ranks), min((len(r) for r in alone), default=len(ends)),
                  len(alone_ends) if decomposed else len(ends))
    rows = []
    own = [[0.0] * repeats for _ in ranks]  # [rank][repeat]: the reference's seconds
    own_clock = [[0.0] * repeats for _ in ranks]  # [rank][repeat]: the clock meanwhile
    in_row = [[0.0] * repeats for _ in ranks]  # [rank][repeat]: the clock in the row
    exponent = [0.0] * len(ranks)
    for r, uuid in enumerate(uuids):
        # the row's repeat: its whole time (a rank that waits for the other runs at no pace of its own);
        # the reference's: the rank's own seconds from the repeat's start (which the slowest rank's end gives)
        here = [window(smi[uuid], ends[k] - row["repeat_seconds"][k], row["repeat_seconds"][k]) for k in range(repeats)]
        there = [window(smi[uuid], alone_ends[k] - max(x[k] for x in alone), alone[r][k])
                 for k in range(repeats)] if decomposed else []
        if None in here or None in there:
            return None
        # the rank's own seconds against its clock: the reference's where there is one, else the row's
        own[r] = alone[r][:repeats] if decomposed else ranks[r][:repeats]
        own_clock[r] = [w[0] for w in (there if decomposed else here)]
        in_row[r] = [w[0] for w in here]
        e = elasticity(own[r], own_clock[r])
        exponent[r] = e or 0.0
        rows.append({
            "rank": r, "gpu": uuid[:12],
            "mhz_alone": mean([w[0] for w in there]) if decomposed else None,
            "mhz_row": mean(in_row[r]),
            "w_alone": mean([w[1] for w in there]) if decomposed else None,
            "w_row": mean([w[1] for w in here]),
            "seconds_spread": spread(own[r]), "e": e,
            "rest_spread": spread([t * c ** exponent[r] for t, c in zip(own[r], own_clock[r])]),
        })
    summary = None
    if decomposed:
        at_row_clock = [[own[r][k] * (own_clock[r][k] / in_row[r][k]) ** exponent[r] for k in range(repeats)]
                        for r in range(len(ranks))]
        total = sum(row["repeat_seconds"][:repeats])
        summary = {"of_paced": paced(own, repeats) / total, "of_clock": paced(at_row_clock, repeats) / total}
    return rows, summary


def main(argv):
    args = argv[1:]
    smi_path = None
    if "--smi" in args:
        i = args.index("--smi")
        if i + 1 >= len(args):
            args = []
        else:
            smi_path = args[i + 1]
            del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python3 tools/pace_study.py BENCH_JSON (or - for standard input) [--smi NVIDIA_SMI_CSV]",
              file=sys.stderr)
        return 2
    try:
        data = json.load(sys.stdin if args[0] == "-" else open(args[0]))
    except (OSError, ValueError) as e:
        print("pace_study: cannot read %s as bench JSON: %s" % (args[0], e), file=sys.stderr)
        return 2
    smi = None
    if smi_path:
        try:
            smi = read_smi(smi_path)
        except (OSError, ValueError) as e:
            print("pace_study: cannot read %s as an nvidia-smi CSV log: %s" % (smi_path, e), file=sys.stderr)
            return 2
    rows = [s for s in (study(r) for r in data.get("rows", [])) if s]
    clocked = []
    if smi:
        uuids = [m.group(1) if m else None
                 for m in (re.search(r"\((GPU-[0-9a-fA-F-]+)\)", d) for d in data.get("rank_devices", []))]
        for r in data.get("rows", []):
            c = clock_study(r, uuids, smi) if None not in uuids else None
            if c:
                clocked.append((r, c))
        if not clocked:
            print("pace_study: the log %s covers no row's repeats on the ranks' GPUs (the bench JSON names %s; "
                  "run nvidia-smi under TZ=UTC beside the bench)" % (smi_path, data.get("rank_devices")),
                  file=sys.stderr)
            return 1
    if not rows and not clocked:
        print("pace_study: no decomposed row with its ranks' repeats (run the bench under mpiexec "
              "with --json)", file=sys.stderr)
        return 1
    if rows:
        print("%-16s %-12s %5s %-8s %7s %9s %9s %9s  %s" % ("case", "kernel", "ranks", "halo", "repeats", "of alone",
                                                         "bound", "beyond", "spread of each rank alone"))
    for s in rows:
        print("%-16s %-12s %5d %-8s %7d %8.1f%% %8.1f%% %8.1f%%  %s" % (
            s["case"], s["kernel"], s["ranks"], s["halo"], s["repeats"], 100 * s["of_alone"], 100 * s["bound"],
            100 * s["beyond"], " ".join("%.1f%%" % x for x in s["spread"])))
    if clocked:
        if rows:
            print()
        print("clocks from %s (mean over each repeat's window; spreads: standard deviation over mean)" % smi_path)
        print("%-16s %-12s %-8s %4s %-12s %9s %7s %7s %5s %8s %5s %7s %9s %9s" % (
            "case", "kernel", "halo", "rank", "gpu", "MHz alone", "MHz row", "W alone", "W row", "seconds", "e", "rest",
            "of paced", "of clock"))
        for r, (ranks, summary) in clocked:
            for x in ranks:
                alone = lambda v, f: f % v if v is not None else "-"
                print("%-16s %-12s %-8s %4d %-12s %9s %7.0f %7s %5.0f %7.2f%% %5s %6.2f%% %9s %9s" % (
                    r["case"], "%s %s" % (r["kernel"], r["storage"]), r["halo"], x["rank"], x["gpu"],
                    alone(x["mhz_alone"], "%.0f"), x["mhz_row"], alone(x["w_alone"], "%.0f"), x["w_row"],
                    x["seconds_spread"], alone(x["e"], "%.2f"), x["rest_spread"],
                    "%.1f%%" % (100 * summary["of_paced"]) if summary else "-",
                    "%.1f%%" % (100 * summary["of_clock"]) if summary else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
