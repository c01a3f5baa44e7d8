#!/usr/bin/env python3
"""Chapter 6's wave-tail plot from the CSV that `ch06_derived --wave-tail --csv <file>` writes on a
GPU: GEMV (n x n, op N and T) and SYMV at n = 64 k across a wave boundary, each case with chapter
5's default launch, the derived launch and the best legal launch of the sweep (every row starts
with the run's metadata: gpu, sm_count, sm_clock_mhz, mem_clock_mhz, driver, cuda, commit, date).

One panel per op, op(A) and precision: the useful bandwidth (the row's bytes over its time) of
the three launches against n, so a dip of the default where the tiles pass a wave of the SMs
shows, and whether the derived launch (KBLAS's Y from the waves) follows the sweep's best past
it. A second axis gives the derived launch's speed over the default's.

A CSV that several runs appended to is plotted for its last run; rows without measured times (a
run without a GPU) are left out, and a CSV with none is an error.

Usage: python3 scripts/plot_wave_tail.py <ch06 wave-tail CSV> [<output PNG>]   (needs matplotlib;
the PNG defaults to the CSV's name with .png)
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_ch00 import num, read_last_run  # noqa: E402  (a cell as a float; the last run of an appended CSV)

LINES = (("default ms", "chapter 5 default", "tab:gray", "s"),
         ("derived ms", "derived", "tab:blue", "o"),
         ("best ms", "sweep's best", "tab:green", "^"))


def series_key(row):
    """(panel title, n) of a case row, or None for a summary row: 'N 4096 x 4096 float' -> GEMV N
    float, n = 4096; 'lower 4096 float' -> SYMV lower float."""
    words = row["shape"].split()
    if row["op"] == "gemv" and len(words) >= 5 and words[0] in ("N", "T"):
        return "GEMV %s %s" % (words[0], words[4]), int(words[1])
    if row["op"] == "symv" and len(words) >= 3 and words[0] in ("lower", "upper"):
        return "SYMV %s %s" % (words[0], words[2]), int(words[1])
    return None


def panels(rows):
    """{title: [(n, {column: GB/s}, derived / default speed)]}, sorted by n, measured rows only."""
    out = {}
    for r in rows:
        key = series_key(r)
        b = num(r.get("bytes"))
        if key is None or b is None:
            continue
        rates = {}
        for col, _, _, _ in LINES:
            t = num(r.get(col))
            if t is not None and t > 0:
                rates[col] = b / (t * 1e6)  # bytes / ms -> GB/s
        if not rates:
            continue
        d, f = num(r.get("derived ms")), num(r.get("default ms"))
        out.setdefault(key[0], []).append((key[1], rates, f / d if d and f else None))
    for v in out.values():
        v.sort(key=lambda p: p[0])
    return out


def plot(csv_path, png_path):
    rows = read_last_run(csv_path)
    data = panels(rows)
    if not data:
        sys.exit("plot_wave_tail.py: %s holds no measured GEMV or SYMV rows (run ch06_derived --wave-tail "
                 "--csv on a GPU)" % csv_path)
    titles = sorted(data)
    fig, axes = plt.subplots(len(titles), 1, figsize=(9, 3.2 * len(titles)), squeeze=False)
    for ax, title in zip(axes[:, 0], titles):
        pts = data[title]
        for col, label, color, marker in LINES:
            xs = [n for n, r, _ in pts if col in r]
            ys = [r[col] for n, r, _ in pts if col in r]
            ax.plot(xs, ys, marker=marker, markersize=3, color=color, label=label)
        ax.set_title(title)
        ax.set_xlabel("n (= 64 k)")
        ax.set_ylabel("GB/s (useful bytes)")
        ax.grid(alpha=0.3)
        ratio = [(n, s) for n, _, s in pts if s is not None]
        if ratio:
            ax2 = ax.twinx()
            ax2.plot([n for n, _ in ratio], [s for _, s in ratio], color="tab:red", linestyle=":", linewidth=1,
                     label="derived / default speed")
            ax2.axhline(1.0, color="tab:red", linewidth=0.5, alpha=0.4)
            ax2.set_ylabel("derived / default", color="tab:red")
            lines, labels = ax.get_legend_handles_labels()
            l2, lab2 = ax2.get_legend_handles_labels()
            ax.legend(lines + l2, labels + lab2, fontsize=8, loc="lower right")
        else:
            ax.legend(fontsize=8, loc="lower right")
    first = rows[0]
    fig.suptitle("Chapter 6 wave tail: %s, %s SMs (commit %s, %s)" % (
        first.get("gpu", "?"), first.get("sm_count", "?"), first.get("commit", "?"), first.get("date", "?")))
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    print("wrote", png_path)


def main(argv):
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 and argv[1] in ("-h", "--help") else 2
    csv_path = argv[1]
    if not os.path.exists(csv_path):
        sys.exit("plot_wave_tail.py: %s does not exist" % csv_path)
    png_path = argv[2] if len(argv) == 3 else os.path.splitext(csv_path)[0] + ".png"
    plot(csv_path, png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
