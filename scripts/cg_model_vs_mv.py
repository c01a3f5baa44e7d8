#!/usr/bin/env python3
"""Compares the CG ladder run with the CG model and each CG row's Mv with the Mv's own model.

Why: since commit aa79f3a the CG model (common/model/cg) takes the time of one Mv from the Mv's
own model (model/gemv for chapters 1-3, model/symv for chapters 4 and 5), so a CG row should be
off where its Mv is off. This script puts the two errors side by side, from committed files only:

  * CG measured ms per iteration: the CG ladder run (docs/results/h200/cg-ladder-<commit>.csv),
    kappa = 1e2; its `model err` column is the model of that run (before aa79f3a), kept here as
    `old model err`.
  * CG model ms: docs/results/model/cg-h200.csv (h200 preset, regenerated at aa79f3a).
  * Mv measured ms: the Mv ladder runs, L2 flushed before every call
    (gemv-ladder-<commit>.csv op N for chapters 1-3, symv-ladder-<commit>.csv uplo L for 4-5).
  * Mv model ms: the Mv model on the same h200 preset as the CG model
    (docs/results/model/gemv-h200.csv, docs/results/model/symv-h200.csv).

Errors are (measured ms / model ms) - 1, as the ladders' `model err` columns: + means measured
slower than the model predicts. Writes a CSV and a short text summary (rows off by more than 25%).

Usage:  python3 scripts/cg_model_vs_mv.py [results dir] [model dir]
        (defaults: docs/results/h200 docs/results/model; writes cg-model-vs-mv-16edb31.csv/.txt
        into the results dir)
"""
import csv
import os
import sys

CG_RUN = "cg-ladder-16edb31.csv"
GEMV_RUN = "gemv-ladder-24870ce.csv"
SYMV_RUN = "symv-ladder-4f735d4.csv"
OUT = "cg-model-vs-mv-16edb31"
STEPS = ["ch01 naive", "ch02 shared", "ch03 pattern", "ch04 access", "ch05 tuned"]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def pick(table, **want):
    hits = [r for r in table if all(r.get(k) == v for k, v in want.items())]
    if len(hits) != 1:
        sys.exit(f"cg_model_vs_mv.py: {len(hits)} rows match {want}")
    return hits[0]


def err(measured_ms, model_ms):
    return f"{measured_ms / model_ms - 1:+.0%}"


def main():
    res = sys.argv[1] if len(sys.argv) > 1 else "docs/results/h200"
    mod = sys.argv[2] if len(sys.argv) > 2 else "docs/results/model"
    cg = rows(os.path.join(res, CG_RUN))
    cg_model = rows(os.path.join(mod, "cg-h200.csv"))
    mv_run = {"gemv": rows(os.path.join(res, GEMV_RUN)), "symv": rows(os.path.join(res, SYMV_RUN))}
    mv_model = {"gemv": rows(os.path.join(mod, "gemv-h200.csv")), "symv": rows(os.path.join(mod, "symv-h200.csv"))}

    out, exact = [], []  # exact: (CG model err, Mv model err) unrounded, for the summary
    for prec in ("float", "double"):
        for shape in ("2048", "16384"):
            for step in STEPS:
                c = pick(cg, precision=prec, variant="k=1e2", shape=shape, step=step)
                cm = pick(cg_model, precision=prec, variant="k=1e2", shape=shape, step=step)
                op, var = ("gemv", "N") if step < "ch04" else ("symv", "L")
                m = pick(mv_run[op], precision=prec, variant=var, shape=shape, step=step)
                mm = pick(mv_model[op], precision=prec, variant=var, shape=shape, step=step)
                c_ms, cm_ms = float(c["ms"]), float(cm["model ms"])
                m_ms, mm_ms = float(m["ms"]), float(mm["model ms"])
                out.append({
                    "precision": prec, "shape": shape, "step": step,
                    "CG ms": c["ms"], "CG model ms": cm["model ms"], "CG model err": err(c_ms, cm_ms),
                    "old model err": c["model err"],
                    "Mv": f"{op.upper()} {var}", "Mv ms": m["ms"], "Mv model ms": mm["model ms"],
                    "Mv model err": err(m_ms, mm_ms),
                    "note": "CG: A in L2; Mv: L2 flushed" if "L2-resident" in c["note"] else "",
                })
                exact.append((c_ms / cm_ms - 1, m_ms / mm_ms - 1))

    cols = list(out[0].keys())
    with open(os.path.join(res, OUT + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(out)

    def off(e):  # the run's own column holds only the rounded text
        return abs(float(e.rstrip("%"))) > 25

    lines = [f"CG ladder run {CG_RUN}, kappa = 1e2: {len(out)} rows (2 precisions x 2 sizes x 5 steps)",
             f"rows off by more than 25%, new model (cg-h200.csv):  "
             f"{sum(abs(cg_err) > 0.25 for cg_err, _ in exact)} of {len(out)}",
             f"rows off by more than 25%, the run's own (old) model: "
             f"{sum(off(r['old model err']) for r in out)} of {len(out)}"]
    for shape in ("2048", "16384"):
        gap = 100 * max(abs(c - m) for r, (c, m) in zip(out, exact) if r["shape"] == shape)
        lines.append(f"n = {shape}: largest gap between a CG row's model err and its Mv's: {gap:.0f} points")
    with open(os.path.join(res, OUT + ".txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
