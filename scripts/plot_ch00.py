#!/usr/bin/env python3
"""Chapter 0's plots from the CSVs that `ch00_memory --csv <dir>/ch00_memory.csv` writes (one file
per table, <stem>_<table>.csv; every row starts with the run's metadata: gpu, sm_count,
sm_clock_mhz, mem_clock_mhz, driver, cuda, commit, date). Draws, next to the CSVs:

  <stem>_coalescing.png  useful bandwidth against the stride and against a misaligned start,
                         measured beside the sector model's prediction, with the sectors the
                         warps request and the distinct sectors DRAM must deliver, against the
                         read ceiling (<stem>_ceilings.csv, when there);
  <stem>_partitions.png  bandwidth against the partitions the blocks camp on (one line per v,
                         the read ceiling drawn), and relative to 8 partitions beside White's
                         T10 (Table 3.1);
  <stem>_banks.png       shared-memory bandwidth and slowdown against the banks one request
                         touches (one line per v), the +1-padded tile marked, beside White's T10
                         (Table 3.2) and the predicted conflict ways;
  <stem>_transfers.png   transfer time against size (log-log) for the four kinds with White's
                         model fitted to them (and his T10 fits), and the rate against size.

A CSV that several runs appended to is plotted for its last run. Without measurements (a
--device-preset run) the predictions and White's numbers are drawn. Every figure is titled with
the GPU, the commit and the date of its run.

Usage: python3 scripts/plot_ch00.py <dir with ch00 CSVs>     (needs matplotlib)
"""
import csv
import glob
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

META = ("gpu", "sm_count", "sm_clock_mhz", "mem_clock_mhz", "driver", "cuda", "commit", "date")
TABLES = ("coalescing", "partitions", "banks", "banks_table_a", "transfers", "transfer_segments")
KINDS = ("pageable H2D", "pinned H2D", "pageable D2H", "pinned D2H")
KIND_COLORS = {"pageable H2D": "tab:blue", "pinned H2D": "tab:orange", "pageable D2H": "tab:green",
               "pinned D2H": "tab:red"}


def num(s):
    """A table cell as a float: '92.4%' -> 92.4, '1.25x' -> 1.25, 'inf' -> inf; '-' or '' -> None."""
    if s is None:
        return None
    s = s.strip().rstrip("%x")
    if s in ("", "-"):
        return None
    try:
        v = float(s)
    except ValueError:
        return None
    return None if math.isnan(v) else v


def read_last_run(path):
    """Rows of the last run in a CSV (runs append; a run is one (gpu, commit, date))."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return []
    missing = [c for c in META if c not in rows[0]]
    if missing:
        sys.exit(f"plot_ch00: {path} lacks the metadata columns {', '.join(missing)}")
    key = lambda r: (r["gpu"], r["commit"], r["date"])  # noqa: E731
    last = key(rows[-1])
    return [r for r in rows if key(r) == last]


def need(rows, path, columns):
    """Exit with a message naming the file and the columns it lacks."""
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        sys.exit(f"plot_ch00: {path} lacks the columns {', '.join(missing)}")


def suptitle(fig, what, meta):
    fig.suptitle(f"{what}\n{meta['gpu']}, commit {meta['commit']}, {meta['date']}", fontsize=9)


def measured(rows, column):
    return any(num(r[column]) is not None for r in rows)


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def log2_axis(ax, values, invert=False):
    ax.set_xscale("log", base=2)
    ticks = sorted(set(values))
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(int(t)) for t in ticks])
    ax.minorticks_off()
    if invert:
        ax.invert_xaxis()


def read_ceiling(stem, which="read"):
    """The measured ceiling `which` (GB/s) from <stem>_ceilings.csv of the same last run, or None."""
    rows = read_last_run(stem + "_ceilings.csv")
    for r in rows:
        if r.get("ceiling") == which:
            return num(r.get("value"))
    return None


def label_axes(ax, xlabel, ylabel, title, log_grid=False, legend="best"):
    """The labels, light grid (minor lines too on log axes) and small legend every panel has."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both" if log_grid else "major")
    ax.legend(fontsize=7, loc=legend)


def ceiling_line(ax, value, label="read ceiling"):
    if value:
        ax.axhline(value, color="tab:red", linestyle="--", linewidth=1, label=f"{label} ({value:.0f} GB/s)")


# ------------------------------------------------------------------------------------------------
def plot_coalescing(stem):
    path = stem + "_coalescing.csv"
    rows = read_last_run(path)
    if not rows:
        return None
    need(rows, path, ("stride", "offset (B)", "predicted GB/s", "useful GB/s"))
    have = measured(rows, "useful GB/s")
    # "requested GB/s" (sectors the warps ask the L2 for) was called "moved GB/s" before.
    requested = "requested GB/s" if "requested GB/s" in rows[0] else "moved GB/s"
    footprint = "footprint GB/s" if "footprint GB/s" in rows[0] else None
    ceiling = read_ceiling(stem) if have else None
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))

    def extra_lines(ax, xs, subset):
        """The requested-sector and footprint rates of the measured rows `subset`."""
        if requested in rows[0]:
            ax.plot(xs, [num(r[requested]) for _, r in subset], ":s", color="tab:grey", markersize=4,
                    label="sectors requested from L2 (model's count)")
        if footprint:
            ax.plot(xs, [num(r[footprint]) for _, r in subset], "-.D", color="tab:green", markersize=4,
                    label="distinct sectors (least DRAM traffic)")

    strided = sorted((int(r["stride"]), r) for r in rows if int(r["offset (B)"]) == 0)
    xs = [s for s, _ in strided]
    a.plot(xs, [num(r["predicted GB/s"]) for _, r in strided], "k--", marker="x", label="sector model")
    if have:
        a.plot(xs, [num(r["useful GB/s"]) for _, r in strided], "-o", color="tab:blue", label="measured, useful")
        extra_lines(a, xs, strided)
        ceiling_line(a, ceiling)
    log2_axis(a, xs)
    a.set_yscale("log")
    label_axes(a, "stride between neighbouring threads (floats)", "GB/s", "(a) strided warp reads", log_grid=True)

    aligned = sorted((int(r["offset (B)"]), r) for r in rows if int(r["stride"]) == 1)
    pos = list(range(len(aligned)))
    b.plot(pos, [num(r["predicted GB/s"]) for _, r in aligned], "k--", marker="x", label="sector model")
    if have:
        b.plot(pos, [num(r["useful GB/s"]) for _, r in aligned], "-o", color="tab:blue", label="measured, useful")
        extra_lines(b, pos, aligned)
        ceiling_line(b, ceiling)
    b.set_xticks(pos)
    b.set_xticklabels([str(o) for o, _ in aligned])
    b.set_ylim(bottom=0)
    label_axes(b, "start of the warp past a 256-byte boundary (bytes), stride 1", "GB/s", "(b) misaligned starts",
               legend="lower left")
    suptitle(fig, "Coalescing" + ("" if have else " (predictions only: nothing measured)"), rows[0])
    return save(fig, stem + "_coalescing.png")


# ------------------------------------------------------------------------------------------------
def plot_partitions(stem):
    path = stem + "_partitions.csv"
    rows = read_last_run(path)
    if not rows:
        return None
    need(rows, path, ("v", "partitions", "predicted slowdown", "GB/s", "T10 GB/s"))
    have = measured(rows, "GB/s")
    vs = sorted({int(r["v"]) for r in rows})
    ps = sorted({int(r["partitions"]) for r in rows})
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    cmap = plt.get_cmap("viridis")
    colors = {v: cmap(i / max(1, len(vs) - 1)) for i, v in enumerate(vs)}

    def series(v, column):
        pts = sorted((int(r["partitions"]), num(r[column])) for r in rows if int(r["v"]) == v)
        return [p for p, y in pts if y is not None], [y for _, y in pts if y is not None]

    for v in vs:
        x, y = series(v, "GB/s" if have else "T10 GB/s")
        if x:
            a.plot(x, y, "-o" if have else "--^", color=colors[v], label=f"v = {v}")
    if have:
        ceiling_line(a, read_ceiling(stem))
    log2_axis(a, ps, invert=True)
    a.set_ylim(bottom=0)
    label_axes(a, "partitions (256-byte columns of a 2 KB row) the blocks read", "GB/s",
               "(a) this GPU" if have else "(a) White's T10 (Table 3.1)")

    t10_done = False
    top = 1.15
    for v in vs:
        if have:
            x, y = series(v, "GB/s")
            base = dict(zip(x, y)).get(8)
            if base:
                b.plot(x, [g / base for g in y], "-o", color=colors[v], label=f"this GPU, v = {v}")
                top = max(top, 1.05 * max(g / base for g in y))
        x, y = series(v, "T10 GB/s")
        base = dict(zip(x, y)).get(8)
        if base:
            b.plot(x, [g / base for g in y], "--^", color="tab:grey", alpha=0.7,
                   label=None if t10_done else "White's T10 (all v)")
            t10_done = True
    pred = sorted({(int(r["partitions"]), num(r["predicted slowdown"])) for r in rows})
    pred = [(p, 1 / s) for p, s in pred if s]
    b.plot([p for p, _ in pred], [s for _, s in pred], "k:", label="model for this card")
    log2_axis(b, ps, invert=True)
    b.set_ylim(0, top)
    label_axes(b, "partitions the blocks read", "bandwidth / bandwidth on 8 partitions", "(b) relative to 8 partitions",
               legend="lower left")
    suptitle(fig, "Partition camping (White Listing 3.1)" + ("" if have else ": nothing measured"), rows[0])
    return save(fig, stem + "_partitions.png")


# ------------------------------------------------------------------------------------------------
def t10_bank_slowdowns(stem):
    """{v: [(banks per half-warp, T10 time / T10 time at 16 banks)]} from the wide table (a)."""
    path = stem + "_banks_table_a.csv"
    rows = read_last_run(path)
    out = {}
    for r in rows:
        cells = [(int(c.split()[1]), num(r[c])) for c in r if c and c.startswith("T10 ")]
        base = dict(cells).get(16)
        if base:
            out[int(r["v"])] = sorted((b, t / base) for b, t in cells if t is not None)
    return out


def plot_banks(stem):
    path = stem + "_banks.csv"
    rows = read_last_run(path)
    if not rows:
        return None
    need(rows, path, ("v", "banks", "padded", "predicted ways", "smem GB/s", "slowdown"))
    have = measured(rows, "smem GB/s")
    vs = sorted({int(r["v"]) for r in rows})
    banks = sorted({int(r["banks"]) for r in rows})
    cmap = plt.get_cmap("viridis")
    colors = {v: cmap(i / max(1, len(vs) - 1)) for i, v in enumerate(vs)}
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))

    def series(v, column, padded=False):
        pts = sorted((int(r["banks"]), num(r[column])) for r in rows
                     if int(r["v"]) == v and (r["padded"] == "yes") == padded)
        return [p for p, y in pts if y is not None], [y for _, y in pts if y is not None]

    if have:
        for v in vs:
            x, y = series(v, "smem GB/s")
            a.plot(x, y, "-o", color=colors[v], label=f"v = {v}")
            px, py = series(v, "smem GB/s", padded=True)
            a.plot(px, py, "*", color=colors[v], markersize=13, markeredgecolor="k",
                   label="padded tile (+1 column)" if v == vs[-1] else None)
        a.set_yscale("log")
        a.set_ylabel("shared-memory GB/s (bytes read / time)")
        a.set_title("(a) this GPU")
    else:
        a.text(0.5, 0.5, "nothing measured", ha="center", va="center", transform=a.transAxes)
        a.set_title("(a) this GPU")
    log2_axis(a, banks, invert=True)
    a.set_xlabel("distinct banks one request touches")
    a.grid(alpha=0.3, which="both")
    if have:
        a.legend(fontsize=7, loc="lower left")

    # (b) slowdown against conflict-free: this GPU per v, the predicted ways, White's T10.
    if have:
        for v in vs:
            x, y = series(v, "slowdown")
            b.plot(x, y, "-o", color=colors[v], label=f"this GPU, v = {v}")
            px, py = series(v, "slowdown", padded=True)
            b.plot(px, py, "*", color=colors[v], markersize=13, markeredgecolor="k",
                   label="padded tile (+1 column)" if v == vs[-1] else None)
    x, y = series(vs[-1], "predicted ways")
    b.plot(x, y, "k:", marker="x", label="model: conflict ways")
    first = True
    for v, pts in sorted(t10_bank_slowdowns(stem).items()):
        b.plot([p for p, _ in pts], [s for _, s in pts], "--^", color="tab:grey", alpha=0.6,
               label="White's T10, banks per half-warp (all v)" if first else None)
        first = False
    log2_axis(b, banks, invert=True)
    b.set_yscale("log", base=2)
    label_axes(b, "distinct banks one request touches", "time / conflict-free time", "(b) slowdown", log_grid=True,
               legend="upper left")
    suptitle(fig, "Shared-memory bank conflicts (White Listing 3.2)" + ("" if have else ": nothing measured"),
             rows[0])
    return save(fig, stem + "_banks.png")


# ------------------------------------------------------------------------------------------------
def read_models(stem):
    """{kind: (Tx GB/s, [(lo, hi, c0 ms/GB, c1 us)])} from <stem>_transfer_segments.csv."""
    path = stem + "_transfer_segments.csv"
    rows = read_last_run(path)
    if not rows:
        return {}
    need(rows, path, ("kind", "Tx GB/s", "lo bytes", "hi bytes", "c0 ms/GB", "c1 us"))
    models = {}
    for r in rows:
        tx, segs = models.setdefault(r["kind"], (num(r["Tx GB/s"]), []))
        segs.append((num(r["lo bytes"]), num(r["hi bytes"]), num(r["c0 ms/GB"]), num(r["c1 us"])))
    return models


def model_ms(model, b):
    """White's T(b) = b / Tx + c0 b + c1 in ms."""
    tx, segs = model
    seg = segs[-1]
    for s in segs:
        if b < s[1]:
            seg = s
            break
    return b / (tx * 1e6) + seg[2] * 1e-9 * b + seg[3] * 1e-3


def plot_transfers(stem):
    path = stem + "_transfers.csv"
    rows = read_last_run(path)
    if not rows:
        return None
    need(rows, path, ("kind", "bytes", "ms", "GB/s", "fitted ms", "fit error", "T10 model ms"))
    have = measured(rows, "ms")
    models = read_models(stem)
    sizes = sorted({num(r["bytes"]) for r in rows})
    lo, hi = sizes[0], sizes[-1]
    grid = [lo * (hi / lo) ** (i / 400) for i in range(401)]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.5))

    for kind in KINDS:
        sel = sorted((num(r["bytes"]), r) for r in rows if r["kind"] == kind)
        pts = [(x, num(r["ms"])) for x, r in sel if num(r["ms"]) is not None]
        if not pts:
            continue
        color = KIND_COLORS[kind]
        errs = [num(r["fit error"]) for _, r in sel if num(r["fit error"]) is not None]
        label = kind + (f" (fit: avg {sum(errs) / len(errs):.1f}%, max {max(errs):.1f}%)" if errs else "")
        a.plot([x for x, _ in pts], [y for _, y in pts], "o", color=color, markersize=4, label=label)
        b.plot([x for x, _ in pts], [x / (y * 1e6) for x, y in pts], "o", color=color, markersize=4, label=kind)
        if kind in models:  # the fitted model between the measured sizes, and its break points
            t = [model_ms(models[kind], g) for g in grid]
            a.plot(grid, t, "-", color=color, lw=1)
            b.plot(grid, [g / (y * 1e6) for g, y in zip(grid, t)], "-", color=color, lw=1)
            for seg in models[kind][1][1:]:
                if lo <= seg[0] <= hi:
                    b.axvline(seg[0], color=color, lw=0.7, ls=":", alpha=0.7)
        else:  # no segments table: join the fitted times at the measured sizes
            fit = [(x, num(r["fitted ms"])) for x, r in sel if num(r["fitted ms"]) is not None]
            a.plot([x for x, _ in fit], [y for _, y in fit], "-", color=color, lw=1)
            b.plot([x for x, _ in fit], [x / (y * 1e6) for x, y in fit], "-", color=color, lw=1)

    for name, style in (("T10 H2D", "--"), ("T10 D2H", "-.")):
        if name in models:
            t = [model_ms(models[name], g) for g in grid]
        else:  # the T10 column of the transfers table (H2D on H2D rows, D2H on D2H rows)
            direction = name.split()[1]
            sel = sorted({(num(r["bytes"]), num(r["T10 model ms"])) for r in rows if r["kind"].endswith(direction)})
            grid_t = [x for x, _ in sel]
            t = [y for _, y in sel]
        g = grid if name in models else grid_t
        a.plot(g, t, style, color="tab:grey", lw=1, label=f"White's {name} fit")
        b.plot(g, [x / (y * 1e6) for x, y in zip(g, t)], style, color="tab:grey", lw=1, label=f"White's {name} fit")

    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ticks = [s for s in sizes if math.log2(s) % 2 == 0] or sizes
        ax.set_xticks(ticks)
        ax.set_xticklabels([fmt_bytes(s) for s in ticks], rotation=45, fontsize=7)
        ax.minorticks_off()
        ax.set_xlabel("bytes copied")
        ax.grid(alpha=0.3, which="both")
    a.set_yscale("log")
    a.set_ylabel("time (ms)")
    a.set_title("(a) time: points measured, lines White's model T = b/Tx + c0 b + c1")
    a.title.set_fontsize(8)
    a.legend(fontsize=6.5, loc="upper left")
    b.set_yscale("log")
    b.set_ylabel("GB/s")
    b.set_title("(b) rate; dotted: the fit's break points")
    b.title.set_fontsize(8)
    b.legend(fontsize=6.5, loc="lower right")
    suptitle(fig, "Host transfers and White's communication model (§3.4)" +
             ("" if have else ": nothing measured, White's T10 fits only"), rows[0])
    return save(fig, stem + "_transfers.png")


def fmt_bytes(b):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if b < 1024 or unit == "TB":
            return f"{b:g} {unit}"
        b /= 1024


# ------------------------------------------------------------------------------------------------
def stems(directory):
    """Every <stem> with at least one of chapter 0's tables in the directory."""
    found = set()
    for path in glob.glob(os.path.join(directory, "*.csv")):
        for table in TABLES:
            if path.endswith("_" + table + ".csv"):
                found.add(path[: -len("_" + table + ".csv")])
    return sorted(found)


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: python3 scripts/plot_ch00.py <dir with ch00 CSVs>")
    made = []
    for stem in stems(sys.argv[1]):
        for plot in (plot_coalescing, plot_partitions, plot_banks, plot_transfers):
            out = plot(stem)
            if out:
                made.append(out)
    if not made:
        sys.exit(f"plot_ch00: no chapter 0 CSVs (*_coalescing.csv, *_partitions.csv, *_banks.csv, "
                 f"*_transfers.csv) in {sys.argv[1]}")
    for p in made:
        print(p)


if __name__ == "__main__":
    main()
