#!/usr/bin/env python3
"""How well the model ranks each case's legal launches (issue 40: Spearman's rho >= 0.8), from the
CSV that `ch06_derived --sweep --launches-csv FILE` (or `--wave-tail --launches-csv FILE`) writes on
a GPU: one row per swept launch, with the run's metadata (gpu, ..., commit, date), then op, shape,
precision, launch, is derived, is default, predicted ms (the model's), measured ms and params
(every field of the launch, "name=value" words).

The rows keep every launch's measured time, so a model can be reworked offline: change the
`predicted ms` column (or write a CSV of the same columns from the new model) and run this again,
without timing a launch. Pure Python; no GPU, no third-party package.

Per case (op, shape, precision) it prints:
  launches  the rows of the case; ranked: those with a predicted and a measured time (> 0)
  rho       Spearman's rho of predicted against measured over the ranked launches (ties share the
            mean rank, the Pearson correlation of the ranks: the chapter's own rho); "-" where fewer
            than two launches are ranked or either list has one value only
  pick/best the sweep's best measured time over the measured time of the launch the model predicts
            fastest: 1 where the model alone would have picked the best launch
  derived/best  the same for the derived launch (is derived = 1), "-" where none is marked
and per op the mean and the worst rho over the cases that have one, and how many reach --target.

A case read twice (several files, or a file several runs appended to) keeps the rows read last.

Usage:
    ./workbook run ch06 -- --op gemv --sweep --quick --launches-csv launches.csv   (on a GPU)
    python3 scripts/launch_ranks.py launches.csv
    python3 scripts/launch_ranks.py --target 0.9 gemv-launches.csv symv-launches.csv
"""
import argparse
import collections
import csv
import math
import sys

COLUMNS = ("gpu", "commit", "date", "op", "shape", "precision", "launch", "is derived", "predicted ms",
           "measured ms")


def num(cell):
    """A cell as a float > 0, or None ('-', empty, not a number, zero, negative, infinite)."""
    try:
        v = float((cell or "").strip())
    except ValueError:
        return None
    return v if math.isfinite(v) and v > 0 else None


def ranks(values):
    """Ranks from 1 (the smallest), ties sharing the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for t in range(i, j + 1):
            r[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    """Spearman's rho of paired lists, or None (fewer than 2 pairs, or a list of one value)."""
    if len(a) < 2:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    sab = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    saa = sum((x - ma) ** 2 for x in ra)
    sbb = sum((y - mb) ** 2 for y in rb)
    if saa == 0 or sbb == 0:
        return None
    return sab / math.sqrt(saa * sbb)


def read_cases(paths):
    """{(op, shape, precision): [row, ...]} in the order first read, and the runs seen."""
    cases = collections.OrderedDict()
    runs = []
    for path in paths:
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
                header = rows[0].keys() if rows else []
        except OSError as e:
            sys.exit("launch_ranks: cannot read %s: %s" % (path, e.strerror))
        if not rows:
            continue
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            sys.exit("launch_ranks: %s lacks the columns %s: is it a ch06_derived --launches-csv file?"
                     % (path, ", ".join(missing)))
        by_run = collections.OrderedDict()
        for r in rows:
            run = (r["gpu"], r["commit"], r["date"])
            by_run.setdefault(run, collections.OrderedDict()).setdefault(
                (r["op"], r["shape"], r["precision"]), []).append(r)
        for run, run_cases in by_run.items():
            if run not in runs:
                runs.append(run)
            for key, case_rows in run_cases.items():
                cases.pop(key, None)  # read again: the later rows replace the earlier
                cases[key] = case_rows
    return cases, runs


def case_result(rows):
    """(launches, ranked, rho, pick/best, derived/best) of one case's rows."""
    pairs = [(num(r["predicted ms"]), num(r["measured ms"]), r) for r in rows]
    ranked = [(p, m, r) for p, m, r in pairs if p is not None and m is not None]
    rho = spearman([p for p, _, _ in ranked], [m for _, m, _ in ranked])
    measured = [m for _, m, _ in pairs if m is not None]
    best = min(measured) if measured else None
    pick = min(ranked, key=lambda t: t[0])[1] if ranked else None
    derived = [m for _, m, r in pairs if m is not None and r["is derived"].strip() == "1"]
    return (len(rows), len(ranked), rho, best / pick if best and pick else None,
            best / derived[0] if best and derived else None)


def cell(v, digits):
    return "-" if v is None else "%.*f" % (digits, v)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="CSV files ch06_derived --launches-csv wrote")
    ap.add_argument("--target", type=float, default=0.8,
                    help="the rho a case should reach (issue 40: 0.8); per op, how many cases do")
    args = ap.parse_args(argv)
    if not -1 <= args.target <= 1:
        ap.error("--target (%g) must be in [-1, 1]" % args.target)
    cases, runs = read_cases(args.csv)
    if not cases:
        sys.exit("launch_ranks: no swept launches in %s (a run without a GPU writes the header only)"
                 % ", ".join(args.csv))
    for gpu, commit, date in runs:
        print("run: %s, commit %s, %s" % (gpu, commit, date))
    width = max(len(shape) for _, shape, _ in cases)
    print("%-7s %-*s %8s %7s %6s %10s %13s" % ("op", width, "shape", "launches", "ranked", "rho", "pick/best",
                                              "derived/best"))
    per_op = collections.OrderedDict()
    for (op, shape, _), rows in cases.items():
        n, ranked, rho, pick, derived = case_result(rows)
        print("%-7s %-*s %8d %7d %6s %10s %13s" % (op, width, shape, n, ranked, cell(rho, 2), cell(pick, 3),
                                                  cell(derived, 3)))
        per_op.setdefault(op, []).append((rho, shape))
    for op, results in per_op.items():
        rated = [(rho, shape) for rho, shape in results if rho is not None]
        if not rated:
            print("%s: %d cases, none with a rho" % (op, len(results)))
            continue
        worst = min(rated)
        reach = sum(1 for rho, _ in rated if rho >= args.target)
        print("%s: rho over %d of %d cases: mean %.2f, worst %.2f (%s); %d of %d at or above %.2f"
              % (op, len(rated), len(results), sum(r for r, _ in rated) / len(rated), worst[0], worst[1], reach,
                 len(rated), args.target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
