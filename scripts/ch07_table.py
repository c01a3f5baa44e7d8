#!/usr/bin/env python3
"""Chapter 7's table as a run wrote it (`ch07_split --csv`): its rows read back, and the chapter's
summary lines counted from its columns, each row's own model columns as the predictions. The
counts follow chapters/ch07_split/split_summary.cpp, on the CSV's 4-decimal columns (a count may
differ from the run's printed one at rows of a few microseconds). The model itself is replayed by
the binary, not here: `ch07_split --replay RUN.txt RUN.csv [--margin M]`.

A library of scripts/ch07_repeatability.py and scripts/ch07_ab.py; run alone, it prints a table's
summary:

    python3 scripts/ch07_table.py tests/data/h200-ch07-64d6814-c.csv
"""
import csv
import math
import sys

INF = float("inf")


def num(s):
    try:
        return float(str(s).strip().rstrip("%x"))
    except ValueError:
        return float("nan")


def read_csv(path):
    with open(path, newline="") as fh:
        rows = [r for r in csv.reader(fh) if r and not r[0].startswith("#")]
    hdr = rows[0]
    out = []
    for r in rows[1:]:
        if r == hdr:  # an appended run: keep the last
            out = []
            continue
        d = dict(zip(hdr, r))
        out.append({
            "op": d["op"], "elem": 4 if d["T"] == "float" else 8, "fs": 0 if d["FS"] == "-" else int(d["FS"]),
            "n": int(d["n"]), "cpu_model": num(d["CPU model"]), "cpu": num(d["CPU measured"]),
            "gpu_model": num(d["GPU+comm model"]), "gpu": num(d["GPU+comm measured"]),
            "hyb_model": num(d["hybrid model"]), "hyb_cell": d["hybrid measured"], "share": d["GPU share"],
            "choice": d["model's choice"],
        })
    return out


def within(model, measured, tol=0.15):
    return model > 0 and measured > 0 and abs(model / measured - 1) <= tol


def own_counts(rows):
    """The chapter's first six summary counts for rows of a run's CSV (read_csv), the run's own model
    columns as the predictions: {name: (hits, of)} for "choice", "CPU", "GPU+comm", "hybrid",
    "gains held" and "hybrid loses" (the margin's and the floor's lines need the run's log)."""
    judged = hits = cpu_ok = cpu_n = gpu_ok = hyb_ok = hyb_n = gain_rows = gain_kept = chosen = lost = 0
    for r in rows:
        c, g, h = r["cpu_model"], r["gpu_model"], r["hyb_model"]
        if not math.isnan(r["cpu"]):
            cpu_n += 1
            cpu_ok += within(c, r["cpu"])
        if math.isnan(r["cpu"]) or math.isnan(r["gpu"]):
            continue
        judged += 1
        hm = num(r["hyb_cell"])
        ran = r["op"] == "cg" or (0 < num(r["share"]) < 100)  # the hybrid itself ran (CG: White's split)
        hyb = hm if ran else (r["cpu"] if num(r["share"]) <= 0 else r["gpu"])
        meas = {"CPU": r["cpu"], "GPU": r["gpu"], "hybrid": hyb}
        best = min(r["cpu"], r["gpu"], hm if ran else INF)
        hits += meas[r["choice"]] <= 1.05 * best
        gpu_ok += within(g, r["gpu"])
        if ran:
            hyb_n += 1
            hyb_ok += within(h, hm)
            b1 = min(r["cpu"], r["gpu"])
            if h <= 0.85 * min(c, g):
                gain_rows += 1
                gain_kept += hm <= 0.90 * b1
            if r["choice"] == "hybrid":
                chosen += 1
                lost += hm > b1
    return {"choice": (hits, judged), "CPU": (cpu_ok, cpu_n), "GPU+comm": (gpu_ok, judged), "hybrid": (hyb_ok, hyb_n),
            "gains held": (gain_kept, gain_rows), "hybrid loses": (lost, chosen)}


def summary_lines(c):
    """own_counts' counts as the chapter's first six summary lines."""

    def line(what, key):
        k, n = c[key]
        return "%s: %d of %d (%.0f%%)" % (what, k, n, 100.0 * k / n if n else 0)

    return [line("model's choice is the measured best or within 5% of it", "choice"),
            line("CPU model within 15% of the measured CPU", "CPU"),
            line("GPU+comm model within 15% of the measured", "GPU+comm"),
            line("hybrid model within 15% of the measured hybrid", "hybrid"),
            line("hybrid predicted >= 15% faster than both sides: measured >= 10% faster", "gains held"),
            line("hybrid chosen by the model but slower than a single side", "hybrid loses")]


def own_summary(rows):
    """own_counts as the chapter's first six summary lines."""
    return summary_lines(own_counts(rows))


def main(argv):
    if len(argv) != 2:
        print("usage: ch07_table.py RUN.csv", file=sys.stderr)
        return 2
    for line in own_summary(read_csv(argv[1])):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
