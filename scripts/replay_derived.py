#!/usr/bin/env python3
"""Replays chapter 6's derivation against committed sweeps, offline (no GPU).

Runs ch06_derived with a device preset (predict-only) for the cases of a launches CSV written by
`ch06_derived --sweep --launches-csv`, finds each case's derived launch among the CSV's swept
launches, and prints its measured time over the case's best: what a rule change would have scored
on that run, before the run. A derived launch the sweep did not time is reported as such. GEMM on a
live device takes the tensor cores' split from their kernel's own rule (dgemm_tc_rule), which a preset
replay does not run: its double tensor-core cases replay the derivation's split instead.

Run: python3 scripts/replay_derived.py --csv r/launches-shapes-gemv.csv --op gemv --shapes
     python3 scripts/replay_derived.py --csv r/launches-fresh-gemv.csv --op gemv --sizes 1777,6007
"""
import argparse
import collections
import csv
import re
import statistics
import subprocess
import sys


def derived_launches(binary, preset, args):
    out = subprocess.run([binary, "--device-preset", preset] + args, capture_output=True, text=True, check=True).stdout
    launches, case = {}, None
    for line in out.splitlines():
        m = re.match(r"^(gemv|gemm|conv2d|symv|cg) (.+?)\s*$", line)
        if m:
            case = (m.group(1), m.group(2))
            continue
        m = re.match(r"^\s+derived launch:\s+(.+?)\s{2,}predicted", line)
        if m and case:
            launches[case] = m.group(1).strip()
    return launches


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--csv", required=True, help="a launches CSV of ch06_derived --sweep --launches-csv")
    p.add_argument("--bin", default="build-wb/bin/ch06_derived")
    p.add_argument("--preset", default="h200", help="the device preset the derivation runs for")
    p.add_argument("--show", type=int, default=6, help="the worst cases to list")
    a, rest = p.parse_known_args()
    rows = collections.defaultdict(list)
    with open(a.csv, newline="") as f:
        for r in csv.DictReader(f):
            rows[(r["op"], r["shape"])].append(r)
    derived = derived_launches(a.bin, a.preset, rest)
    per_op = collections.defaultdict(list)
    for case, rs in sorted(rows.items()):
        best = min(float(r["measured ms"]) for r in rs)
        was = [r for r in rs if r["is derived"] == "1"]
        now = derived.get(case)
        if now is None:  # a case these arguments do not derive (another op, precision or shape set)
            continue
        hit = [r for r in rs if r["launch"] == now] if now else []
        ratio = best / float(hit[0]["measured ms"]) if hit else float("nan")
        before = best / float(was[0]["measured ms"]) if was else float("nan")
        per_op[case[0]].append((ratio, before, case[1], now, bool(hit)))
    for op, v in per_op.items():
        timed = [x for x in v if x[4]]
        if not timed:
            print(f"{op}: none of the {len(v)} derived launches was among the swept ones")
            continue
        print(f"{op}: replayed {len(timed)} of {len(v)} cases: mean {statistics.mean(x[0] for x in timed):.3f}, "
              f"worst {min(x[0] for x in timed):.3f} (the run's derived: mean "
              f"{statistics.mean(x[1] for x in v):.3f}, worst {min(x[1] for x in v):.3f})")
        for x in sorted(v, key=lambda x: (x[4], x[0]))[: a.show]:
            print(f"   {x[0]:.3f} (was {x[1]:.3f})  {x[2]:<34} {x[3]}" + ("" if x[4] else "  [not swept]"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
