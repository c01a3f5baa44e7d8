#!/usr/bin/env python3
"""gemm_rule_fit.py — replay the tuned GEMM's default rule (estimate() in kernels/tuned/gemm.cu)
on a gemm_rule_sweep.cu run, and fit each float configuration's RATE to it.

For every call of the sweep the replay picks, among the launches the sweep timed, the one the
model rates fastest, and reports the geometric mean of (picked time / fastest time): the rule's
regret. Models: `base` (the rule as it is: kt / (kt + 2) per block) and `epi` (one tile of
pipeline fill plus the block's C-tile bytes at the chip's share of 2.5 TB/s against its FMAs at
RATE, divided by the blocks per SM that hide it). The fit: per configuration, the median over
the sweep of measured / predicted time, RATE divided by it (half the shapes fitted, the other
half tested, then all). Blocks per SM are __launch_bounds__'s (the card's occupancy API may give
more: the 16-wide tiles get 4, not 3). Splits are replayed as the sweep timed them; the rule
tries powers of two only (--pow2 keeps those).
Run: python3 scripts/probes/gemm_rule_fit.py docs/results/h100/gemm-rule-sweep-a542e8c.txt [--pow2]
"""
import collections, math, random, re, statistics, sys

# tile -> (BM, BN, BK, blocks per SM, RATE, RATE_ELEM): kernels/tuned/gemm.cu's float configurations
CFG0 = {'256x128x16': (256, 128, 16, 1, 48000, 27600), '128x128x16': (128, 128, 16, 2, 40000, 33200),
        '64x64x16': (64, 64, 16, 4, 28000, 26600), '128x64x16': (128, 64, 16, 2, 36000, 30000),
        '64x128x16': (64, 128, 16, 2, 36000, 30000), '128x16x32': (128, 16, 32, 3, 20000, 15000),
        '16x128x32': (16, 128, 32, 3, 20000, 15000)}
SMS, BW, LAUNCH, MAXWS, S, BETA = 132, 2.5e12, 4e-6, 512 * 1024 * 1024, 4, 0.5
CHAPTER = {(1024,) * 3, (2048,) * 3, (4096,) * 3, (4097,) * 3, (6000,) * 3, (8192,) * 3,
           (4096, 4096, 256), (1024, 1024, 16384), (16384, 256, 4096)}


def parse(path):
    calls = collections.defaultdict(list)
    for line in open(path):
        if not line.startswith('ROW,'):
            continue
        _, op, m, n, k, t, t_rule, t_cublas, launch, rule = line.strip().split(',', 9)
        sp = re.search(r'split=(\d+)', launch)
        calls[(op, int(m), int(n), int(k))].append(dict(
            t=float(t), t_rule=float(t_rule), t_cublas=float(t_cublas), launch=launch,
            tile=re.search(r'tile=(\S+)', launch).group(1), split=int(sp.group(1)) if sp else 1))
    return calls


def slice_k(k, split, bk):
    per = (k + split - 1) // split
    kc = (per + bk - 1) // bk * bk
    return kc, (k + kc - 1) // kc


def estimate(cfg, call, x, vec, model):
    """Seconds the rule predicts for launch x of call (op, m, n, k); None where it is not legal."""
    _, m, n, k = call
    bm_, bn_, bk, bps, rate, rate_elem = cfg[x['tile']]
    kc, slices = slice_k(k, x['split'], bk)
    if x['split'] > 1 and (slices < x['split'] or slices * m * n * S > MAXWS):
        return None
    bm, bn = -(-m // bm_), -(-n // bn_)
    blocks, slots = bm * bn * slices, SMS * bps
    waves = -(-blocks // slots)
    fill, area = blocks / (waves * slots), m * n / (bm * bm_ * bn * bn_)
    kt = (kc if slices > 1 else k) / bk
    r0 = rate if vec else rate_elem
    if model == 'base':
        overhead = 2.0
    else:  # 'epi'
        c_bytes = S * (1 if slices > 1 or BETA == 0 else 2)
        overhead = 1 + c_bytes * r0 * 1e9 / (2 * bk * BW) / bps
    main_loop = lambda t: t / (t + overhead)
    seconds = 2.0 * m * n * k / (r0 * 1e9 * fill * area * main_loop(kt) / main_loop(256))
    if slices > 1:
        seconds += (2.0 * slices + 2.0) * m * n * S / BW + LAUNCH
    floor = S * (m * k + k * n + 2.0 * m * n) / BW
    return max(seconds, floor) + 1e-3 * seconds


def candidates(cfg, calls, call, model, pow2):
    op, m, _, k = call
    aligned = (m if op == 'N' else k) % 4 == 0 and k % 4 == 0
    out = []
    for x in calls[call]:
        if pow2 and x['split'] & (x['split'] - 1):
            continue
        e = estimate(cfg, call, x, aligned or 'aligned copies' in x['launch'], model)
        if e is not None:
            out.append((e, x, aligned or 'aligned copies' in x['launch']))
    return out


def regret(cfg, calls, keys, model, pow2):
    r = []
    for call in keys:
        best = min(x['t'] for x in calls[call])
        pick = min(candidates(cfg, calls, call, model, pow2), key=lambda c: c[0])[1]
        r.append(pick['t'] / best)
    return math.exp(sum(map(math.log, r)) / len(r)), max(r)


def fit(cfg, calls, keys, model, pow2):
    ratios = collections.defaultdict(list)
    for call in keys:
        for e, x, _ in candidates(cfg, calls, call, model, pow2):
            ratios[x['tile']].append(x['t'] * 1e-3 / e)
    out = dict(cfg)
    for tile, v in ratios.items():
        s = statistics.median(v)
        bm, bn, bk, bps, rate, rate_elem = cfg[tile]
        out[tile] = (bm, bn, bk, bps, round(rate / s / 100) * 100, round(rate_elem / s / 100) * 100)
    return out


def main():
    calls = parse(sys.argv[1])
    pow2 = '--pow2' in sys.argv
    keys = sorted(calls)
    shapes = sorted({c[1:] for c in keys})
    random.seed(7)
    random.shuffle(shapes)
    half = set(shapes[:len(shapes) // 2])
    train = [c for c in keys if c[1:] in half]
    test = [c for c in keys if c[1:] not in half]
    chapter = [c for c in keys if c[1:] in CHAPTER]
    for model in ('base', 'epi'):
        g0 = regret(CFG0, calls, test, model, pow2)[0]
        g1 = regret(fit(CFG0, calls, train, model, pow2), calls, test, model, pow2)[0]
        cfg = fit(CFG0, calls, keys, model, pow2)
        ga, ma = regret(cfg, calls, keys, model, pow2)
        gc, mc = regret(cfg, calls, chapter, model, pow2)
        print(f'{model}: held-out regret {g0:.3f} -> {g1:.3f} fitted on the other half; fitted on all: '
              f'{ga:.3f} (max {ma:.2f}), chapter shapes {gc:.3f} (max {mc:.2f}); as is: '
              f'{regret(CFG0, calls, keys, model, pow2)[0]:.3f}')
        print('   RATE, RATE_ELEM:', {t: v[4:] for t, v in cfg.items()})


if __name__ == '__main__':
    main()
