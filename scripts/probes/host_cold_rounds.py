#!/usr/bin/env python3
"""host_cold_rounds.py — how much of host_cold_probe's round-to-round movement is common to every
call of a round (the host's memory rate of that moment) and how much is each call's own.

host_cold_probe prints, per call and way (warm, flush, evict), the median of each round. Here each
round median becomes its deviation from the call's own median, log(round / median); per way:
  rms        the root mean square of those deviations over every call and round;
  after      the same after each deviation is taken relative to the round's mean deviation of the
             *other* calls (leave-one-out): what would remain if a rate measured beside the call,
             in the same round, scaled its prediction;
  per round  the round's mean deviation over all calls (+0.10: the round 10% slower than usual).
If `after` is far below `rms`, a rate measured at the row's moment would carry the model; if not,
each call moves on its own.

Usage: python3 scripts/probes/host_cold_rounds.py host_cold_probe_output.txt
"""
import math
import statistics as st
import sys

WAYS = ("warm", "flush", "evict")


def read_rounds(path):
    """{(call, way): [round medians]} from the probe's table (name, n, way, 5 figures, medians)."""
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) > 8 and p[2] in WAYS:
                rows[(p[0] + " " + p[1], p[2])] = [float(v) for v in p[8:]]
    return rows


def summary(rows, way):
    keys = [k for k in rows if k[1] == way]
    if len(keys) < 2:
        return None
    rounds = min(len(rows[k]) for k in keys)
    dev = {k: [math.log(v / st.median(rows[k][:rounds])) for v in rows[k][:rounds]] for k in keys}
    n = len(keys) * rounds
    rms = math.sqrt(sum(d * d for k in keys for d in dev[k]) / n)
    after = math.sqrt(sum((dev[k][r] - st.mean(dev[j][r] for j in keys if j != k)) ** 2
                          for k in keys for r in range(rounds)) / n)
    per_round = [st.mean(dev[k][r] for k in keys) for r in range(rounds)]
    return rms, after, per_round


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    rows = read_rounds(argv[1])
    if not rows:
        print(f"{argv[1]}: no host_cold_probe table found", file=sys.stderr)
        return 1
    for way in WAYS:
        s = summary(rows, way)
        if s is None:
            continue
        rms, after, per_round = s
        print(f"{way:5s}  rms {rms:.3f}  after the round's common part {after:.3f}  per round "
              + " ".join(f"{c:+.2f}" for c in per_round))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
