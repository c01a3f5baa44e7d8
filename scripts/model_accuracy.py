#!/usr/bin/env python3
"""How well the model predicts the measured rows of a ladder run (issue 40, item 3).

Reads chapter CSVs as the chapter binaries write them (`--csv`: columns `op`, `step`, `ms`,
`rate`, `model rate`) and prints, per op and per step, how many rows the model predicts within
a bound (25% by default) of the measured time, with the median and the extremes of the error
(predicted ms / measured ms - 1: + the model is slower than the card, - faster). Only the
ladder's own steps count (`ch0N ...` rows, the tuned step's atomics mode included), not the
peers. Nothing is fitted.

Two sources for the prediction:
  - the run's own model column (default): what the model said when the table was measured;
  - `--predict BIN_DIR`: the model as built now. For each op the script runs
    `BIN_DIR/ch05_unrolled --ladder --op OP --full --device-preset h200 --read-gbs R --csv ...`
    (no GPU needed), where R is the read ceiling the measured run printed in its header (the
    `.txt` beside the CSV; `--read-gbs` overrides it), and joins the predictions to the measured
    rows by (precision, variant, shape, step). So the loop is: change the model, rebuild the
    chapter, run this. `--check-column` also counts the rows whose re-prediction differs from
    the run's model column by more than 1% (0 for the model the run had).

Chapter 6's rows (`--ch06 TXT`: a `ch06_derived` run's text, e.g. docs/results/h200/ch06-sweep.txt)
count too, as the step "ch06 derived": each case's derived launch, its predicted time ("derived
launch: ... predicted X ms") against its measured one ("measured: derived Y ms"): the run's own
prediction, also with `--predict` (re-run the chapter 6 sweep after a model change).

Usage:
    python3 scripts/model_accuracy.py docs/results/h200/{gemv,gemm,conv2d,symv,cg}-ladder.csv
    python3 scripts/model_accuracy.py --predict build-wb/bin --rows docs/results/h200/gemm-ladder.csv
    python3 scripts/model_accuracy.py --bound 20 docs/results/h200/gemv-ladder.csv
    python3 scripts/model_accuracy.py --ch06 docs/results/h200/ch06-sweep.txt docs/results/h200/conv2d-ladder.csv
"""
import argparse
import collections
import csv
import os
import re
import subprocess
import sys
import tempfile

# The read ceiling chapter 0 measured on the H200 (docs/results/h200/ch00_memory_ceilings.csv):
# used for a measured CSV that has no header beside it.
DEFAULT_READ_GBS = 4487.0
KEY = ("precision", "variant", "shape", "step")


def num(v):
    v = (v or "").strip().rstrip("%")
    try:
        return float(v)
    except ValueError:
        return None


def measured_rows(path):
    """The ladder rows of one measured CSV: {op: {key: row}}."""
    out = collections.defaultdict(dict)
    with open(path, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            if not r.get("step", "").startswith("ch0"):
                continue
            if num(r.get("ms")) is None:
                continue
            out[r["op"]][tuple(r[k] for k in KEY)] = r
    return out


def read_ceiling(csv_path):
    """The read ceiling the run printed ("ceilings: read 4566.5 GB/s") in the .txt beside the CSV."""
    txt = os.path.splitext(csv_path)[0] + ".txt"
    if os.path.exists(txt):
        with open(txt, encoding="utf-8", errors="replace") as fh:
            m = re.search(r"ceilings: read ([0-9.]+) GB/s", fh.read())
            if m:
                return float(m.group(1))
    return None


def predicted_rows(bin_dir, op, read_gbs, preset):
    """The model's predictions of every ladder step of `op` (chapter 5 binary, --full set)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "pred.csv")
        cmd = [os.path.join(bin_dir, "ch05_unrolled"), "--ladder", "--op", op, "--full", "--device-preset",
               preset, "--read-gbs", repr(read_gbs), "--csv", out]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode not in (0, 3) or not os.path.exists(out):  # 3: cases too big for the preset
            sys.exit(f"model_accuracy: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
        rows = {}
        with open(out, newline="", encoding="utf-8") as fh:
            for p in csv.DictReader(fh):
                rows[tuple(p[k] for k in KEY)] = p
        return rows


CH06_OPS = ("gemv", "gemm", "conv2d", "symv", "cg")


def ch06_rows(path):
    """A chapter 6 run's derived rows: {op: {shape: (launch, predicted ms, measured ms)}}."""
    out = collections.defaultdict(dict)
    op = shape = launch = pred = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            words = line.split()
            if words and not line[0].isspace() and words[0] in CH06_OPS and ":" not in words[0]:
                op, shape, launch, pred = words[0], " ".join(words[1:]), None, None
                continue
            m = re.match(r"\s+derived launch:\s+(.*?)\s+predicted ([0-9.]+) ms", line)
            if m and op:
                launch, pred = m.group(1), float(m.group(2))
                continue
            m = re.match(r"\s+measured:\s+derived ([0-9.]+) ms", line)
            if m and op and pred:
                out[op][shape] = (launch, pred, float(m.group(1)))
    return out


def error(pred_ms, meas_ms):
    return (pred_ms / meas_ms - 1.0) * 100.0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="measured chapter CSV files (--csv output)")
    ap.add_argument("--bound", type=float, default=25.0, help="percent of the measured time (default 25)")
    ap.add_argument("--predict", metavar="BIN_DIR", help="re-predict with the chapter binaries in BIN_DIR")
    ap.add_argument("--preset", default="h200", help="device preset for --predict (default h200)")
    ap.add_argument("--read-gbs", type=float, help="read ceiling for --predict (default: the run's header)")
    ap.add_argument("--rows", action="store_true", help="also list every row outside the bound")
    ap.add_argument("--ch06", metavar="TXT", help="also count chapter 6's derived rows of this ch06_derived run")
    ap.add_argument("--check-column", action="store_true",
                    help="with --predict: count rows whose prediction differs from the run's model column")
    a = ap.parse_args(argv)
    if not a.bound > 0:
        ap.error(f"--bound ({a.bound}) must be > 0")
    if a.read_gbs is not None and not a.read_gbs > 0:
        ap.error(f"--read-gbs ({a.read_gbs}) must be > 0")
    if a.check_column and not a.predict:
        ap.error("--check-column needs --predict")

    # errors[op][step] = [(error %, key)]
    errors = collections.defaultdict(lambda: collections.defaultdict(list))
    changed = collections.Counter()
    missing = collections.Counter()
    for path in a.csv:
        for op, rows in measured_rows(path).items():
            preds = None
            if a.predict:
                gbs = a.read_gbs or read_ceiling(path) or DEFAULT_READ_GBS
                preds = predicted_rows(a.predict, op, gbs, a.preset)
            for key, r in rows.items():
                meas_ms = num(r["ms"])
                if preds is None:  # the run's own model column: time ratio = measured rate / model rate
                    rate, model = num(r.get("rate")), num(r.get("model rate"))
                    if not rate or not model:
                        continue
                    pred_ms = meas_ms * rate / model
                else:
                    p = preds.get(key)
                    pred_ms = num(p.get("model ms")) if p else None
                    if not pred_ms:
                        missing[op] += 1
                        continue
                    if a.check_column:
                        model = num(r.get("model rate"))
                        prate = num(next(v for k, v in p.items() if k.startswith("model ") and k != "model ms"))
                        if model and prate and abs(prate / model - 1) > 0.01:
                            changed[op] += 1
                errors[op][key[3]].append((error(pred_ms, meas_ms), key))
    if a.ch06:
        for op, cases in ch06_rows(a.ch06).items():
            for shape, (_, pred_ms, meas_ms) in cases.items():
                errors[op]["ch06 derived"].append((error(pred_ms, meas_ms), ("", "", shape, "ch06 derived")))
    if not errors:
        print("model_accuracy: no ladder rows with a prediction in the given files", file=sys.stderr)
        return 1
    for op, steps in errors.items():
        errs = [e for v in steps.values() for e, _ in v]
        within = sum(abs(e) <= a.bound for e in errs)
        extra = []
        if a.check_column:
            extra.append(f"{changed[op]} rows differ from the run's model column")
        if missing[op]:
            extra.append(f"{missing[op]} rows not predicted")
        print(f"{op}: {within} of {len(errs)} rows within {a.bound:g}% of the measured time "
              f"({100.0 * within / len(errs):.0f}%)" + (f"  [{'; '.join(extra)}]" if extra else ""))
        for step, v in steps.items():
            e = sorted(x for x, _ in v)
            print(f"  {step:<22} {sum(abs(x) <= a.bound for x in e):3d} of {len(e):3d}   "
                  f"median {e[len(e) // 2]:+.0f}%   from {e[0]:+.0f}% to {e[-1]:+.0f}%")
        if a.rows:
            for step, v in steps.items():
                for x, key in sorted(v, key=lambda t: t[1]):
                    if abs(x) > a.bound:
                        print(f"    off {x:+5.0f}%  {' '.join(key)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
