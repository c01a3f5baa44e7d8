#!/usr/bin/env python3
"""Chapter 7's plots from the CSV that `ch07_split --csv FILE` writes (every row starts with the
run's metadata: gpu, sm_count, sm_clock_mhz, mem_clock_mhz, driver, cuda, commit, date; then op, T,
FS, n and the table's columns). One PNG into the given folder:

  ch07_split.png  a panel per op and precision (the convolution: per FS), time against size
                  (log-log): the three ways measured (CPU, GPU with its transfers, the hybrid; solid,
                  with markers) beside the model's three predictions (dashed, same colours), the
                  predicted crossover (the smallest size the model's choice takes off the CPU) as a
                  vertical dashed line and the measured one (the smallest size whose measured best
                  is not the CPU) as a dotted line.

A run without a GPU has no GPU or hybrid measurements: its model columns are drawn alone. A CSV
that several runs appended to is plotted for its last run. Every figure is titled with the GPU,
the commit and the date of its run.

Usage: python3 scripts/plot_ch07.py <ch07 CSV> <output folder>     (needs matplotlib)
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# A table cell as a number, and the rows of a CSV's last run: read as chapter 0's plots read them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_ch00 import num, read_last_run  # noqa: E402

WAYS = (("CPU", "tab:blue"), ("GPU+comm", "tab:orange"), ("hybrid", "tab:green"))


def crossover(rows, column):
    """The smallest n whose `column` (a way) is not the CPU; None when every size stays there."""
    for r in sorted(rows, key=lambda r: int(r["n"])):
        way = r.get(column, "-")
        if way == "-":
            return None
        if way != "CPU":
            return int(r["n"])
    return None


def groups(rows):
    """{op: {(T, FS): [rows]}} in the order of first sight."""
    out = {}
    for r in rows:
        out.setdefault(r["op"], {}).setdefault((r["T"], r.get("FS", "-")), []).append(r)
    return out


def draw(ax, rows, title):
    rows = sorted(rows, key=lambda r: int(r["n"]))
    n = [int(r["n"]) for r in rows]
    for way, color in WAYS:
        model = [num(r[way + " model"]) for r in rows]
        measured = [num(r[way + " measured"]) for r in rows]
        pts = [(x, y) for x, y in zip(n, model) if y is not None]
        if pts:
            ax.plot(*zip(*pts), "--", color=color, alpha=0.8, label=way + " model")
        pts = [(x, y) for x, y in zip(n, measured) if y is not None]
        if pts:
            ax.plot(*zip(*pts), "o-", color=color, label=way + " measured")
    predicted, measured = crossover(rows, "model's choice"), crossover(rows, "measured best")
    if predicted is not None:
        ax.axvline(predicted, color="black", linestyle="--", linewidth=1, label=f"predicted crossover ({predicted})")
    if measured is not None:
        ax.axvline(measured, color="gray", linestyle=":", linewidth=1.5, label=f"measured crossover ({measured})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("ms")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def plot(csv_path, out_dir):
    rows = read_last_run(csv_path)
    if not rows:
        sys.exit(f"plot_ch07.py: {csv_path} holds no rows")
    missing = [c for c in ("op", "T", "n", "model's choice", "measured best") if c not in rows[0]]
    if missing:
        sys.exit(f"plot_ch07.py: {csv_path} lacks the column(s) {', '.join(missing)}: not a chapter 7 CSV")
    os.makedirs(out_dir, exist_ok=True)
    meta = rows[0]
    run = f"{meta.get('gpu', '?')}, commit {meta.get('commit', '?')}, {meta.get('date', '?')}"
    # One figure: a row of panels per op (the convolution: per FS), a column per precision.
    panels = []  # (row key, precision, op, fs, rows)
    for op, by_case in groups(rows).items():
        for (t, fs), case_rows in by_case.items():
            panels.append(((op, fs), t, op, fs, case_rows))
    row_keys = list(dict.fromkeys(k for k, *_ in panels))
    precisions = sorted({t for _, t, *_ in panels}, key=lambda t: t != "float")
    fig, axes = plt.subplots(len(row_keys), len(precisions), figsize=(6 * len(precisions), 4.2 * len(row_keys)),
                             squeeze=False)
    for key, t, op, fs, case_rows in panels:
        ax = axes[row_keys.index(key)][precisions.index(t)]
        unit = " (a solve)" if op == "cg" else ""
        draw(ax, case_rows, f"{op} {t}" + (f" FS {fs}" if fs != "-" else "") + unit)
    fig.suptitle(f"Chapter 7: CPU, GPU with transfers, hybrid — {run}", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    path = os.path.join(out_dir, "ch07_split.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(path)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    plot(argv[1], argv[2])


if __name__ == "__main__":
    main(sys.argv)
