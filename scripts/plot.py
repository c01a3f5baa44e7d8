#!/usr/bin/env python3
"""Plots from the CSVs a GPU round wrote (scripts/gpu-check.sh): one PNG per chapter or ladder CSV
(the generic columns of the chapter binaries: op, precision, variant, shape, step, rate, % ceiling,
unit). One row of panels per op, one panel per precision x variant: the rate of every step and the
peer against the shape, with the op's ceiling (rate / % ceiling) as a dotted line. GEMV shapes are
square sizes n (log axis); other ops' shapes are labels (m x n x k), in the run's order. A shape
benchmark's CSV (<op>-shapes.csv, `ch05_unrolled --shapes`) plots the step's ratio to the peer
against the aspect ratio m / n instead; a CSV with CG rows also gets CG's time to solution against n
(every step and the direct solve).
Usage: python3 scripts/plot.py <results dir>   (needs matplotlib)."""
import csv
import glob
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def num(s):
    try:
        return float(s.rstrip("%x"))
    except (ValueError, AttributeError):
        return None


def label_axes(ax, title, xlabel, ylabel):
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(alpha=0.3)


def plot_panel(ax, sel, op, prec, variant):
    shapes = list(dict.fromkeys(r["shape"] for r in sel))
    numeric = all(s.isdigit() for s in shapes)
    xs = {s: (int(s) if numeric else i) for i, s in enumerate(shapes)}
    for step in dict.fromkeys(r["step"] for r in sel):
        pts = sorted((xs[r["shape"]], num(r["rate"])) for r in sel if r["step"] == step and num(r["rate"]))
        style = "k--" if step == "cuBLAS" else (":" if "only" in step else "-o")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=step, markersize=3)
    ceil = {}
    for r in sel:
        rate, pct = num(r["rate"]), num(r["% ceiling"])
        if rate and pct:
            ceil.setdefault(xs[r["shape"]], rate / (pct / 100))
    if ceil:
        pts = sorted(ceil.items())
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color="grey", lw=0.8, ls=":", label="ceiling")
    if numeric:
        ax.set_xscale("log", base=2)
    else:
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=60, ha="right", fontsize=6)
    unit = sel[0].get("unit", "")
    label_axes(ax, f"{op} {variant} {prec}", "n" if numeric else "m x n x k", unit)


def save_figure(fig, path, meta, suffix=""):
    """Titles the figure with the run's device, commit and date, and writes <csv><suffix>.png."""
    fig.suptitle(f"{os.path.basename(path)}: {meta.get('gpu', '?')}, commit {meta.get('commit', '?')}, "
                 f"{meta.get('date', '?')[:10]}", fontsize=9)
    fig.tight_layout()
    out = os.path.splitext(path)[0] + suffix + ".png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_ladder(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or not {"op", "step", "rate", "% ceiling"} <= set(rows[0]):
        return None
    ops = list(dict.fromkeys(r["op"] for r in rows))
    panels = {op: sorted({(r["precision"], r["variant"]) for r in rows if r["op"] == op}) for op in ops}
    ncol = max(len(p) for p in panels.values())
    fig, axes = plt.subplots(len(ops), ncol, figsize=(4.2 * ncol, 3.9 * len(ops)), squeeze=False)
    for i, op in enumerate(ops):
        for j in range(ncol):
            if j >= len(panels[op]):
                axes[i][j].axis("off")
                continue
            prec, variant = panels[op][j]
            sel = [r for r in rows if r["op"] == op and r["precision"] == prec and r["variant"] == variant]
            plot_panel(axes[i][j], sel, op, prec, variant)
        axes[i][len(panels[op]) - 1].legend(fontsize=6, loc="best")
    return save_figure(fig, path, rows[0])


SHAPE = re.compile(r"^(\d+)x(\d+)")


def plot_shapes(path):
    """A shape benchmark (`ch05_unrolled --shapes`): x peer of the step against the aspect ratio
    m / n (log axis), one panel per precision x variant, one marker per shape class (the note's
    first field), with 1.0 and 0.85 drawn across."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    rows = [r for r in rows if SHAPE.match(r.get("shape", "")) and num(r.get("x peer", "")) is not None]
    if not rows:
        return None
    panels = sorted({(r["precision"], r["variant"]) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.9), squeeze=False)
    markers = "osD^v<>ph*"
    classes = list(dict.fromkeys(r["note"].split(";")[0] for r in rows))
    for ax, (prec, variant) in zip(axes[0], panels):
        sel = [r for r in rows if r["precision"] == prec and r["variant"] == variant]
        for k, cls in enumerate(classes):
            pts = []
            for r in sel:
                if r["note"].split(";")[0] != cls:
                    continue
                m, n = (int(g) for g in SHAPE.match(r["shape"]).groups())
                pts.append((m / n, num(r["x peer"])))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], markers[k % len(markers)], label=cls, markersize=4)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.axhline(0.85, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        label_axes(ax, f"{rows[0]['op']} {variant} {prec}: {sel[0]['step'] if sel else ''}", "aspect m / n",
                   "x cuBLAS (time ratio)")
    axes[0][-1].legend(fontsize=6, loc="best")
    return save_figure(fig, path, rows[0])


SOLUTION = re.compile(r"([0-9.]+) ms to solution")


def plot_cg_solution(path):
    """CG's time to solution against n (issue 13): every step (the note's "ms to solution") and
    the direct solve (the cuSOLVER row, whose ms is its whole solve), log-log, one panel per
    precision x condition number. Written beside the ladder plot as <csv>-solution.png."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("op") == "cg" and r.get("shape", "").isdigit()]
    if not rows:
        return None
    panels = sorted({(r["precision"], r["variant"]) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.9), squeeze=False)
    for ax, (prec, variant) in zip(axes[0], panels):
        sel = [r for r in rows if r["precision"] == prec and r["variant"] == variant]
        for st in dict.fromkeys(r["step"] for r in sel):
            pts = []
            for r in sel:
                if r["step"] != st:
                    continue
                m = SOLUTION.search(r.get("note", ""))
                ms = float(m.group(1)) if m else (num(r["ms"]) if st.startswith("cuSOLVER") else None)
                if ms is not None:
                    pts.append((int(r["shape"]), ms))
            if pts:
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-" if not st.startswith("cuSOLVER") else "s--",
                        label=st, markersize=4)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        label_axes(ax, f"cg {prec} {variant}: time to solution", "n", "ms to solution")
    axes[0][-1].legend(fontsize=6, loc="best")
    return save_figure(fig, path, rows[0], "-solution")


FILTER = re.compile(r"^FS=(\d+)$")


def plot_conv2d_filters(path):
    """The convolution ladder against the filter size: GFLOP/s of every step and peer against FS
    (log-log), one panel per precision and image size (the variants are the filter sizes, so the
    generic ladder plot would give one point per panel). Written as <csv>-fs.png."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("op") == "conv2d" and FILTER.match(r.get("variant", ""))]
    rows = [r for r in rows if num(r.get("rate", "")) is not None]
    if not rows:
        return None
    panels = sorted({(r["precision"], r["shape"]) for r in rows}, key=lambda p: (p[0], -len(p[1]), p[1]))
    panels = [p for p in panels if len({r["variant"] for r in rows if (r["precision"], r["shape"]) == p}) > 1]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    for ax, (prec, shape) in zip(axes[0], panels):
        sel = [r for r in rows if r["precision"] == prec and r["shape"] == shape]
        for st in dict.fromkeys(r["step"] for r in sel):
            pts = sorted((int(FILTER.match(r["variant"]).group(1)), num(r["rate"])) for r in sel if r["step"] == st)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-" if st.startswith("ch0") else "s--", label=st,
                    markersize=4)
        bound = sorted((int(FILTER.match(r["variant"]).group(1)), num(r["rate"]) / num(r["% ceiling"]) * 100)
                       for r in sel if r["step"].startswith("ch05") and num(r["% ceiling"]))
        if bound:
            ax.plot([p[0] for p in bound], [p[1] for p in bound], "k:", lw=1, label="roofline bound")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        label_axes(ax, f"conv2d {prec} {shape}", "filter size FS", "GFLOP/s")
    axes[0][-1].legend(fontsize=6, loc="best")
    return save_figure(fig, path, rows[0], "-fs")


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: plot.py <results dir>")
    csvs = sorted(glob.glob(os.path.join(sys.argv[1], "*.csv")))
    made = [p for p in (plot_shapes(c) if c.endswith("-shapes.csv") else plot_ladder(c) for c in csvs) if p]
    made += [p for p in (plot_cg_solution(c) for c in csvs if not c.endswith("-shapes.csv")) if p]
    made += [p for p in (plot_conv2d_filters(c) for c in csvs if not c.endswith("-shapes.csv")) if p]
    for p in made:
        print("wrote", p)


if __name__ == "__main__":
    main()
