#!/usr/bin/env python3
"""Plots from the CSVs a GPU round wrote (scripts/gpu-check.sh): one PNG per ladder CSV, GB/s
against n for every step and the peer, one panel per precision x op, with the measured read
ceiling as a line. Usage: python3 scripts/plot.py <results dir>   (needs matplotlib)."""
import csv
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def num(s):
    try:
        return float(s.rstrip("%x"))
    except (ValueError, AttributeError):
        return None


def plot_ladder(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "step" not in rows[0] or "GB/s" not in rows[0]:
        return None
    panels = sorted({(r["precision"], r["op"]) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    for ax, (prec, op) in zip(axes[0], panels):
        sel = [r for r in rows if r["precision"] == prec and r["op"] == op]
        for step in dict.fromkeys(r["step"] for r in sel):
            pts = sorted((int(r["n"]), num(r["GB/s"])) for r in sel if r["step"] == step)
            style = "k--" if step == "cuBLAS" else "-o"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=step, markersize=3)
        # % read = GB/s / read ceiling: recover the ceiling from any row
        ceil = [num(r["GB/s"]) / (num(r["% read"]) / 100) for r in sel if num(r["% read"])]
        if ceil:
            ax.axhline(sum(ceil) / len(ceil), color="grey", lw=0.8, ls=":", label="read ceiling")
        ax.set_xscale("log", base=2)
        ax.set_title(f"GEMV-{op} {prec}")
        ax.set_xlabel("n (m = n = lda)")
        ax.set_ylabel("useful GB/s (L2 flushed)")
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7, loc="lower right")
    meta = rows[0]
    fig.suptitle(f"{os.path.basename(path)}: {meta.get('gpu', '?')}, commit {meta.get('commit', '?')}, "
                 f"{meta.get('date', '?')[:10]}", fontsize=9)
    fig.tight_layout()
    out = os.path.splitext(path)[0] + ".png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: plot.py <results dir>")
    made = [p for p in (plot_ladder(c) for c in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv")))) if p]
    for p in made:
        print("wrote", p)


if __name__ == "__main__":
    main()
