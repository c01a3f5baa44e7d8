#!/usr/bin/env python3
"""Two builds of chapter 7 compared over full runs taken alternately (an A/B): the chapter's
summary counts, summed per build over its runs' CSVs, overall and for one op's rows.

A rule set before the runs names which counts must move and which way (docs/notes/split.md keeps
each lead's rule); this script only sums them, the same way for both builds, so the rule is
applied to numbers and not read off a table. The counts are the summary lines as
scripts/ch07_table.py counts them from a CSV (each run's own model columns as the
predictions): the same lines the chapter prints, from the 4-decimal columns.

Then the measured columns row by row: for each row (op, precision, FS, n) both builds timed, the
mean over each build's runs, B's over A's; the median of those ratios per column. The hybrid's
ratio is over the rows where both builds ran a hybrid (a share inside 0 - 100%, not CG); the CPU
column, which no build changes, shows how far the host itself moved between the runs.

Usage:
    python3 scripts/ch07_ab.py --op symv A1.csv A2.csv -- B1.csv B2.csv
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ch07_table  # noqa: E402


def summed(paths, op=None):
    """[(line's text, k summed, n summed)] over the runs, their rows of `op` alone where given."""
    total = []
    for path in paths:
        rows = [r for r in ch07_table.read_csv(path) if op is None or r["op"] == op]
        for i, line in enumerate(ch07_table.own_summary(rows)):
            text, k, n = re.match(r"(.*): (\d+) of (\d+)", line).groups()
            if i == len(total):
                total.append([text, 0, 0])
            total[i][1] += int(k)
            total[i][2] += int(n)
    return total


def paired(groups, op=None):
    """{column: (median of B's mean over A's mean, rows)} over the rows both builds measured."""
    def means(paths, col, hybrid):
        acc = {}
        for path in paths:
            for r in ch07_table.read_csv(path):
                if op is not None and r["op"] != op:
                    continue
                key = (r["op"], r["elem"], r["fs"], r["n"])
                if hybrid:
                    cell = r["hyb_cell"]
                    if r["op"] == "cg" or r["share"] in ("0.0%", "100.0%") or cell in ("-", ""):
                        continue
                    v = float(cell)
                else:
                    v = r[col]
                if v == v and v > 0:
                    acc.setdefault(key, []).append(v)
        return {k: sum(v) / len(v) for k, v in acc.items()}
    out = {}
    for name, col, hybrid in (("hybrid measured", None, True), ("CPU measured", "cpu", False),
                              ("GPU+comm measured", "gpu", False)):
        a, b = means(groups["A"], col, hybrid), means(groups["B"], col, hybrid)
        ratios = sorted(b[k] / a[k] for k in a if k in b)
        if ratios:
            m = len(ratios)
            out[name] = (ratios[m // 2] if m % 2 else 0.5 * (ratios[m // 2 - 1] + ratios[m // 2]), m)
    return out


def main(argv):
    op = None
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--op":
        op, args = args[1], args[2:]
    if "--" not in args or args.index("--") == 0 or args.index("--") == len(args) - 1:
        print(__doc__)
        return 2
    k = args.index("--")
    groups = {"A": args[:k], "B": args[k + 1:]}
    for scope in ([None, op] if op else [None]):
        print("%s (runs: A %d, B %d)" % ("every row" if scope is None else "the %s rows" % scope, len(groups["A"]),
                                         len(groups["B"])))
        a, b = summed(groups["A"], scope), summed(groups["B"], scope)
        for (text, ka, na), (_, kb, nb) in zip(a, b):
            print("  %-72s A %4d of %-4d  B %4d of %-4d" % (text, ka, na, kb, nb))
        for name, (ratio, m) in paired(groups, scope).items():
            print("  %-72s B / A %.3f (median of %d rows)" % (name, ratio, m))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
