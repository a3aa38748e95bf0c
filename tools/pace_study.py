#!/usr/bin/env python3
"""Reads `rockperm bench --json` of a decomposed run and says how much of each row's loss
against its reference ('of alone') the ranks' moving paces explain.

The reference of a decomposed row is every rank stepping its own slab at once with no exchange;
'of alone' sets the row's time against the slowest rank's total there. Ranks that exchange halos
every step cannot keep their own paces: at each moment they step at the slower one's. Where the
paces move apart over a run (fp16 on a power-limited GPU follows its own clock, which the flow's
state moves), the coupled run then needs, repeat by repeat, the slower rank's time:

  paced  = sum over repeats of the slowest rank's own seconds, in the reference
  bound  = slowest rank's total / paced   (the best 'of alone' a coupled run can reach)
  beyond = of alone / bound               (what the exchange itself costs)

Repeats average the paces over their steps: short repeats (--steps 20 to 40) see more of the
moves. One line per decomposed row:
  mpiexec -n 2 rockperm bench --sizes 512 --geometries pack --propagation fused --storage both \\
      --steps 40 --repeats 100 --json > bench.json
  python3 tools/pace_study.py bench.json
"""
import json
import sys


def study(row):
    alone = row.get("alone_rank_repeat_seconds") or []
    if len(alone) < 2 or not alone[0]:
        return None
    repeats = min(len(r) for r in alone)
    slowest_total = max(sum(r[:repeats]) for r in alone)
    paced = sum(max(r[k] for r in alone) for k in range(repeats))
    bound = slowest_total / paced
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


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python3 tools/pace_study.py BENCH_JSON (or - for standard input)", file=sys.stderr)
        return 2
    try:
        data = json.load(sys.stdin if argv[1] == "-" else open(argv[1]))
    except (OSError, ValueError) as e:
        print("pace_study: cannot read %s as bench JSON: %s" % (argv[1], e), file=sys.stderr)
        return 2
    rows = [s for s in (study(r) for r in data.get("rows", [])) if s]
    if not rows:
        print("pace_study: no decomposed row with its ranks' repeats (run the bench under mpiexec "
              "with --json)", file=sys.stderr)
        return 1
    print("%-16s %-12s %5s %-8s %7s %9s %9s %9s  %s" % ("case", "kernel", "ranks", "halo", "repeats", "of alone",
                                                     "bound", "beyond", "spread of each rank alone"))
    for s in rows:
        print("%-16s %-12s %5d %-8s %7d %8.1f%% %8.1f%% %8.1f%%  %s" % (
            s["case"], s["kernel"], s["ranks"], s["halo"], s["repeats"], 100 * s["of_alone"], 100 * s["bound"],
            100 * s["beyond"], " ".join("%.1f%%" % x for x in s["spread"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
