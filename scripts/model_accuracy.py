#!/usr/bin/env python3
"""How well the model predicts the measured rows of a ladder run (issue 40, item 3).

Reads chapter CSVs as the chapter binaries write them (`--csv`, columns `op`, `step`,
`model err`: the model's rate against the measured one, in percent) and prints, per op and per
step, how many of the rows the model predicts within a bound (25% by default), with the median
and the extremes of the error. Only the ladder's own steps count (`ch0N ...` rows), not the
peers. Nothing is fitted: the numbers are the ones the run printed.

Usage:
    python3 scripts/model_accuracy.py docs/results/h200/{gemv,gemm,conv2d,symv,cg}-ladder.csv
    python3 scripts/model_accuracy.py --bound 20 docs/results/h200/gemv-ladder.csv
"""
import argparse
import collections
import csv
import sys


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="chapter CSV files (--csv output)")
    ap.add_argument("--bound", type=float, default=25.0, help="percent (default 25)")
    a = ap.parse_args(argv)
    if not a.bound > 0:
        ap.error(f"--bound ({a.bound}) must be > 0")
    by_op = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in a.csv:
        with open(path, newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                if not r.get("step", "").startswith("ch0"):
                    continue
                e = (r.get("model err") or "").strip().rstrip("%")
                if e in ("", "-"):
                    continue
                by_op[r["op"]][r["step"]].append(float(e))
    if not by_op:
        print("model_accuracy: no ladder rows with a model error in the given files", file=sys.stderr)
        return 1
    for op, steps in by_op.items():
        errs = [e for v in steps.values() for e in v]
        within = sum(abs(e) <= a.bound for e in errs)
        print(f"{op}: {within} of {len(errs)} rows within {a.bound:g}% ({100.0 * within / len(errs):.0f}%)")
        for step, v in steps.items():
            v = sorted(v)
            print(f"  {step:<22} {sum(abs(e) <= a.bound for e in v):3d} of {len(v):3d}   "
                  f"median {v[len(v) // 2]:+.0f}%   from {v[0]:+.0f}% to {v[-1]:+.0f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
