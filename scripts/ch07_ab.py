#!/usr/bin/env python3
"""Two builds of chapter 7 compared over full runs taken alternately (an A/B): the counts the
chapter's summary prints, summed per build from each run's CSV, overall and for one op.

A rule set before the runs names which counts must move and which way (docs/notes/split.md keeps
each lead's rule); this script only sums them, the same way for both builds, so the rule is
applied to numbers and not read off a table.

Usage:
    python3 scripts/ch07_ab.py --op symv A1.csv A2.csv -- B1.csv B2.csv

Per build: the rows whose model's choice is the measured best or within 5% of it; the hybrids
chosen and slower than the better single side; where the hybrid ran (a share strictly inside 0%
and 100%), how many landed within 15% of their model. The same three for the rows of --op alone.
"""
import csv
import sys


def counts(paths, op=None):
    """(choice hits, rows, hybrids chosen and slower, hybrids chosen, hybrids within 15%, hybrids run)."""
    hits = rows = lost = chosen = within = ran = 0
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if op and r["op"] != op:
                    continue
                rows += 1
                hits += float(r["choice / best"].rstrip("x")) <= 1.05
                cpu, gpu = float(r["CPU measured"]), float(r["GPU+comm measured"])
                share = r["GPU share"]
                runs = r["op"] == "cg" or (share.endswith("%") and 0 < float(share.rstrip("%")) < 100)
                if not runs:
                    continue
                ran += 1
                hm, hp = float(r["hybrid measured"]), float(r["hybrid model"])
                within += hm > 0 and abs(hp / hm - 1) <= 0.15
                if r["model's choice"] == "hybrid":
                    chosen += 1
                    lost += hm > min(cpu, gpu)
    return hits, rows, lost, chosen, within, ran


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
    print("%-5s %-6s %-22s %-26s %s" % ("build", "runs", "choice within 5%", "hybrids chosen and slower",
                                           "hybrids within 15% of their model"))
    for scope in ([None, op] if op else [None]):
        for name, paths in groups.items():
            h, n, lost, ch, w, ran = counts(paths, scope)
            print("%-5s %-6d %-22s %-26s %s%s" % (name, len(paths), "%d of %d" % (h, n), "%d of %d" % (lost, ch),
                                                  "%d of %d" % (w, ran), "   (%s rows)" % scope if scope else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
