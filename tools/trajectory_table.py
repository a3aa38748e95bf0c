#!/usr/bin/env python3
"""Reads logs of tools/trajectory_study.sh and simulates stopping rules on them.

For every log: the final k is the reference; for each flux tolerance given, the first check at
which both the error estimate is below TOL and the flux spread below the flux tolerance on two
consecutive checks (rockperm's rule), with its step and true distance to the reference.
  python3 tools/trajectory_table.py --tol 1e-4 --flux 1e-4,2e-5,1e-5 LOGS...
"""
import argparse
import re

STEP = re.compile(r"^\s+step\s+(\d+)\s+k =\s+(\S+) mD\s+error\s+(\S+) \(tol \S+\)\s+flux spread\s+(\S+)")


def read(path):
    rows = []
    for line in open(path):
        m = STEP.match(line)
        if m:
            err = float("inf") if m.group(3) == "?" else float(m.group(3))
            rows.append((int(m.group(1)), float(m.group(2)), err, float(m.group(4))))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--flux", default="1e-4", help="flux tolerances, comma-separated")
    ap.add_argument("--ratio", action="store_true", help="print distance / flux spread along the run")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()
    for path in a.logs:
        rows = read(path)
        if not rows:
            print(f"{path}: no progress lines")
            continue
        kref = rows[-1][1]
        out = [f"{path.split('/')[-1]}: {rows[-1][0]} steps, k {kref}"]
        for f in [float(x) for x in a.flux.split(",")]:
            ok_prev, stop = False, None
            for step, k, err, flux in rows:
                ok = err < a.tol and flux < f
                if ok and ok_prev:
                    stop = (step, abs(k - kref) / kref, err)
                    break
                ok_prev = ok
            out.append(f"flux {f:g}: " + ("never" if stop is None else f"{stop[0]} steps dist {stop[1]:.1e} est {stop[2]:.1e}"))
        print(" | ".join(out))
        if a.ratio:
            for step, k, err, flux in rows[:: max(1, len(rows) // 20)]:
                print(f"   {step:8d} dist {abs(k - kref) / kref:.2e} est {err:.2e} flux {flux:.2e}")


if __name__ == "__main__":
    main()
