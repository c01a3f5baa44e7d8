#!/usr/bin/env python3
"""How far does one run of chapter 7 predict another? The host's own repeatability, beside the model.

Chapter 7's goals hold its model to the run's measurements: the choice within 5% of the measured
best at >= 95% of the sizes, each time within 15% of the measured, a hybrid never chosen where it
loses. A model measured at one moment is judged by timings taken at another. This script asks
the same of the measurements themselves: with several runs of one binary on one machine, it takes
each run's *measured* columns as the "model" of each other run and counts what the chapter's
summary counts. What another run's measurements reach is what a model that predicted one run's
measurements exactly would reach on the next run on this host.

    python3 scripts/ch07_repeatability.py [--full] RUN1.csv RUN2.csv [RUN3.csv ...]
    python3 scripts/ch07_repeatability.py --full tests/data/h200-ch07-*.csv
    python3 scripts/ch07_repeatability.py tests/data/h200-ch07-{5615892-a,5615892-b,e618d9e-a,e618d9e-b}.csv

--full keeps only the tables with the most rows among those given (the chapter's whole table, where
the glob also finds runs of a few ops or sizes).

For each ordered pair (A as the model of B), over the rows both runs hold:
  * A's measured best, run in B, within 5% of B's measured best (the hybrid at B's own share);
  * A's measured CPU, GPU+comm and hybrid times within 15% of B's (where both ran the hybrid);
  * the hybrids that were A's measured best and ran slower in B than B's better single side.
It prints the minimum, median and maximum over the pairs, then each run's own model's counts from
its CSV (the chapter's summary lines as scripts/ch07_table.py counts them from the 4-decimal
columns) for comparison, then for each pair of runs the CPU model within 15% of the measured CPU
with both columns averaged over the two runs (the geometric mean): what timing the calibration
and the rows twice, at two moments, and averaging each would reach, beside each run alone.

Last, two bounds on any CPU model fixed before its rows are timed, per run (the CPU model within
15% of the measured CPU, as run and then corrected with what the measurements themselves say):
  * group: each row's model times the median measured / model of the *other* rows of its group
    (op, precision, FS: timed together, in seconds), what a rate re-measured beside the rows would
    add at best, if the group's misses shared one factor;
  * other runs: each row's model times the median measured / model of the *same* row in the other
    runs (at least two runs), a model that knew every size's own systematic miss (one fitted to
    the table), so that only what moves between runs is left.
"""
import csv
import itertools
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ch07_table  # noqa: E402

KEY = ("op", "T", "FS", "n")


def read(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows or any(k not in rows[0] for k in KEY + ("CPU measured", "GPU+comm measured", "hybrid measured",
                                                        "GPU share", "measured best", "model's choice")):
        raise SystemExit("ch07_repeatability: %s is not a ch07_split --csv table" % path)
    return {tuple(r[k] for k in KEY): r for r in rows}


def hybrid_ran(r):
    """The hybrid's measured time where it ran with work on both sides, else None."""
    if r["hybrid measured"] in ("-", "") or r["GPU share"] in ("0.0%", "100.0%"):
        return None
    return float(r["hybrid measured"])


def measured(r):
    """{way: measured ms} of one row (the hybrid where it split the work)."""
    m = {"CPU": float(r["CPU measured"]), "GPU": float(r["GPU+comm measured"])}
    h = hybrid_ran(r)
    if h is not None:
        m["hybrid"] = h
    return m


def time_of(way, m):
    """A way's measured time in a row; a hybrid that did not split there is its single side."""
    if way in m:
        return m[way]
    return min(m["CPU"], m["GPU"])


def pair(a, b):
    """Counts of run a as the model of run b: {name: (hits, of)}."""
    keys = [k for k in b if k in a]
    out = {"best": [0, 0], "CPU": [0, 0], "GPU+comm": [0, 0], "hybrid": [0, 0], "hybrid loses": [0, 0]}
    for k in keys:
        ra, rb = a[k], b[k]
        mb = measured(rb)
        best = min(mb.values())
        out["best"][1] += 1
        out["best"][0] += time_of(ra["measured best"], mb) <= 1.05 * best
        for col, name in (("CPU measured", "CPU"), ("GPU+comm measured", "GPU+comm")):
            out[name][1] += 1
            out[name][0] += ch07_table.within(float(ra[col]), float(rb[col]))
        ha, hb = hybrid_ran(ra), hybrid_ran(rb)
        if ha is not None and hb is not None:
            out["hybrid"][1] += 1
            out["hybrid"][0] += ch07_table.within(ha, hb)
        if ra["measured best"] == "hybrid" and hb is not None:
            out["hybrid loses"][1] += 1
            out["hybrid loses"][0] += hb > min(mb["CPU"], mb["GPU"])
    return out


def averaged(a, b):
    """The CPU model within 15% of the measured CPU with each column the geometric mean of runs a
    and b, over the rows both hold: (hits, of)."""
    keys = [k for k in b if k in a]

    def mean(k, col):
        return math.sqrt(float(a[k][col]) * float(b[k][col]))

    return sum(ch07_table.within(mean(k, "CPU model"), mean(k, "CPU measured")) for k in keys), len(keys)


def own_cpu(run):
    """The CPU model within 15% of the measured CPU in one run: (hits, of)."""
    return sum(ch07_table.within(float(r["CPU model"]), float(r["CPU measured"])) for r in run.values()), len(run)


def ratio(r):
    """measured / model of a row's CPU column."""
    return float(r["CPU measured"]) / float(r["CPU model"])


def group_scaled(run):
    """The CPU model within 15% with each row's model scaled by the median measured / model of the
    other rows of its group (op, T, FS); a row alone in its group keeps its model: (hits, of)."""
    groups = {}
    for k, r in run.items():
        groups.setdefault(k[:3], []).append(k)
    hits = 0
    for k, r in run.items():
        others = [ratio(run[o]) for o in groups[k[:3]] if o != k]
        s = statistics.median(others) if others else 1.0
        hits += ch07_table.within(float(r["CPU model"]) * s, float(r["CPU measured"]))
    return hits, len(run)


def other_runs_scaled(runs, i):
    """The CPU model of runs[i] within 15% with each row's model scaled by the median measured /
    model of the same row in the other runs (rows the others lack keep their model): (hits, of)."""
    hits = 0
    for k, r in runs[i].items():
        others = [ratio(run[k]) for j, run in enumerate(runs) if j != i and k in run]
        s = statistics.median(others) if others else 1.0
        hits += ch07_table.within(float(r["CPU model"]) * s, float(r["CPU measured"]))
    return hits, len(runs[i])


def best_over_runs(runs, i, margin):
    """runs[i] judged by the choice the other runs make in hindsight (the docstring's last bound):
    {"best": [hits, of], "hybrid loses": [lost, chosen]}, counted as `pair` counts them."""
    out = {"best": [0, 0], "hybrid loses": [0, 0]}

    def gmean(v):
        return math.exp(sum(math.log(x) for x in v) / len(v))

    for k, rb in runs[i].items():
        others = [run[k] for j, run in enumerate(runs) if j != i and k in run]
        if not others:
            continue
        cpu = gmean([float(r["CPU measured"]) for r in others])
        gpu = gmean([float(r["GPU+comm measured"]) for r in others])
        way = "CPU" if cpu <= gpu else "GPU"
        hyb = [h for h in map(hybrid_ran, others) if h is not None]
        if 2 * len(hyb) >= len(others) and gmean(hyb) < (1 - margin) * min(cpu, gpu):
            way = "hybrid"
        mb = measured(rb)
        out["best"][1] += 1
        out["best"][0] += time_of(way, mb) <= 1.05 * min(mb.values())
        if way == "hybrid" and "hybrid" in mb:
            out["hybrid loses"][1] += 1
            out["hybrid loses"][0] += mb["hybrid"] > min(mb["CPU"], mb["GPU"])
    return out


def goals_met(hits, of, lost):
    """The chapter's two goals of the choice in one run: within 5% at >= 95% of the rows, and no
    chosen hybrid slower than a single side: (choice goal, hybrid goal)."""
    return of > 0 and hits >= 0.95 * of, lost == 0


def own_model(path):
    """The run's own model judged by its measured columns: the chapter's summary lines, as
    ch07_table.py counts them from a CSV (the run's model columns as the predictions)."""
    return ch07_table.own_summary(ch07_table.read_csv(path))


LABELS = {
    "best": "choice (there: the measured best) within 5% of the measured best",
    "CPU": "CPU time within 15% of the measured CPU",
    "GPU+comm": "GPU+comm time within 15% of the measured",
    "hybrid": "hybrid time within 15% of the measured hybrid",
    "hybrid loses": "hybrids chosen (there: measured best) and slower than a single side",
}


def main(argv):
    names = [a for a in argv[1:] if a != "--full"]
    runs = [read(p) for p in names]
    if "--full" in argv[1:] and runs:
        most = max(len(r) for r in runs)
        names = [n for n, r in zip(names, runs) if len(r) == most]
        runs = [r for r in runs if len(r) == most]
    if len(runs) < 2:
        print(__doc__)
        return 2
    pairs = [pair(runs[i], runs[j]) for i, j in itertools.permutations(range(len(runs)), 2)]
    print("Another run's measured columns as the model (%d runs, %d ordered pairs): min / median / max" %
          (len(runs), len(pairs)))
    for key, label in LABELS.items():
        pct = [100.0 * h / n for h, n in (p[key] for p in pairs) if n > 0]
        cnt = [h for h, n in (p[key] for p in pairs)]
        if key == "hybrid loses":
            print("  %-70s %d / %.1f / %d (of %d - %d)" % (label, min(cnt), statistics.median(cnt), max(cnt),
                                                         min(p[key][1] for p in pairs), max(p[key][1] for p in pairs)))
        else:
            print("  %-70s %.0f%% / %.1f%% / %.0f%%" % (label, min(pct), statistics.median(pct), max(pct)))
    own = {name: ch07_table.own_counts(ch07_table.read_csv(name)) for name in names}  # read once, used twice
    print("Each run's own model (from its CSV)")
    for name in names:
        print("  %s:" % name)
        for line in ch07_table.summary_lines(own[name]):
            print("    " + line)
    print("The CPU model within 15% of the measured CPU, each run alone and both columns averaged over two runs")
    for i, j in itertools.combinations(range(len(runs)), 2):
        (hi, ni), (hj, nj), (h, n) = own_cpu(runs[i]), own_cpu(runs[j]), averaged(runs[i], runs[j])
        print("  %s %d of %d, %s %d of %d, averaged %d of %d" % (names[i], hi, ni, names[j], hj, nj, h, n))
    print("The CPU model within 15% of the measured CPU: as run / each group scaled by its other rows' median miss /"
          " each row scaled by its median miss in the other runs")
    for i, name in enumerate(names):
        (h0, n0), (hg, ng), (ho, no) = own_cpu(runs[i]), group_scaled(runs[i]), other_runs_scaled(runs, i)
        print("  %s: %d of %d / %d of %d / %d of %d" % (name, h0, n0, hg, ng, ho, no))
    print("The choice made in hindsight from the other runs (each row's fastest way by the geometric mean of its "
          "measured times; the hybrid by at least the margin), runs of %d: choice within 5%% at >= 95%% of the rows / "
          "no chosen hybrid slower than a single side / both" % len(runs))
    for margin in (0.0, 0.05, 0.10, 0.15, 0.20):
        met = [goals_met(c["best"][0], c["best"][1], c["hybrid loses"][0])
               for c in (best_over_runs(runs, i, margin) for i in range(len(runs)))]
        print("  margin %2.0f%%: %d / %d / %d" % (100 * margin, sum(a for a, _ in met), sum(b for _, b in met),
                                                sum(a and b for a, b in met)))
    met = [goals_met(c["choice"][0], c["choice"][1], c["hybrid loses"][0]) for c in own.values()]
    print("  the runs' own models: %d / %d / %d" % (sum(a for a, _ in met), sum(b for _, b in met),
                                                  sum(a and b for a, b in met)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
