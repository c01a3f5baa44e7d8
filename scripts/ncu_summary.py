#!/usr/bin/env python3
"""Summarises the Nsight Compute CSVs of gpu-check.sh's `profile` stage.

Each input is ncu-gemv-<precision>-<op>-<n>.csv (ncu --csv --page raw): one row per profiled
launch of the tuned kernel or of cuBLAS. Prints, per problem and kernel, the median kernel time
(without launch overhead), DRAM bytes read and written, and the launch shape; writes the same
as CSV beside the inputs (ncu-gemv-summary.csv).

Usage: python3 scripts/ncu_summary.py RESULTS_DIR
"""
import csv
import glob
import os
import re
import statistics
import sys


def _strip_group(text, open_ch, close_ch):
    """Removes the bracketed group that ends `text` (matching brackets from the end)."""
    text = text.rstrip()
    if not text.endswith(close_ch):
        return text, ""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        if text[i] == close_ch:
            depth += 1
        elif text[i] == open_ch:
            depth -= 1
            if depth == 0:
                return text[:i], text[i:]
    return text, ""


def short_name(name):
    """A demangled kernel name without return type and parameters, e.g.
    'void wb::<unnamed>::gemv_n_kernel<double, 1, 8, 1>(int, ...)' -> 'tuned gemv_n_kernel<double, 1, 8, 1>'
    and 'std::enable_if<...>::type internal::kernel<int, ...>(T13)' -> 'cuBLAS internal::kernel'.
    Only the tuned kernels of the workbook pass the profile's kernel filter."""
    base, _ = _strip_group(name, "(", ")")
    base, targs = _strip_group(base, "<", ">")
    qualified = base.split(" ")[-1]
    if qualified.startswith("wb::"):
        return "tuned " + qualified.split("::")[-1] + targs
    return "cuBLAS " + qualified


def read(path):
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    rdr = csv.DictReader(lines)
    return [r for r in rdr if r.get("ID", "").strip().isdigit()]  # skips the units row


def num(r, key):
    try:
        return float(r[key].replace(",", ""))
    except (KeyError, ValueError):
        return float("nan")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "ncu-gemv-*-*-*.csv"))):
        m = re.search(r"ncu-gemv-(float|double)-([NT])-(\d+)\.csv$", path)
        if not m:
            continue
        prec, op, n = m.group(1), m.group(2), int(m.group(3))
        groups = {}
        for r in read(path):
            key = (short_name(r["Kernel Name"]), r.get("Grid Size", ""), r.get("Block Size", ""))
            groups.setdefault(key, []).append(r)
        for (name, grid, block), rs in groups.items():
            out.append({
                "precision": prec, "op": op, "n": n, "kernel": name, "grid": grid, "block": block,
                "launches": len(rs),
                "us": statistics.median(num(r, "gpu__time_duration.sum") for r in rs) / 1e3,
                "dram_read_MB": statistics.median(num(r, "dram__bytes_read.sum") for r in rs) / 1e6,
                "dram_write_MB": statistics.median(num(r, "dram__bytes_write.sum") for r in rs) / 1e6,
            })
    if not out:
        sys.exit("ncu_summary: no ncu-gemv-<precision>-<op>-<n>.csv in " + sys.argv[1])
    out.sort(key=lambda d: (d["precision"], d["op"], d["n"], d["kernel"]))
    print(f"{'precision':9} {'op':2} {'n':>6}  {'kernel':44} {'grid':>14} {'block':>12} {'calls':>5} "
          f"{'us':>8} {'read MB':>8} {'write MB':>8}")
    for d in out:
        print(f"{d['precision']:9} {d['op']:2} {d['n']:>6}  {d['kernel'][:44]:44} {d['grid']:>14} {d['block']:>12} "
              f"{d['launches']:>5} {d['us']:>8.2f} {d['dram_read_MB']:>8.2f} {d['dram_write_MB']:>8.2f}")
    with open(os.path.join(sys.argv[1], "ncu-gemv-summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
        w.writeheader()
        w.writerows(out)


if __name__ == "__main__":
    main()
