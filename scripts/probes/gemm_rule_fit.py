#!/usr/bin/env python3
"""gemm_rule_fit.py — replay the tuned GEMM's default rule (estimate() in kernels/tuned/gemm_default_rule.cpp)
on a gemm_rule_sweep.cu run, and fit the float configurations' four constants to it.

For every call of the sweep the replay picks, among the launches the sweep timed, the one the
model rates fastest, and reports the geometric mean of (picked time / fastest time): the rule's
regret (where the sweep timed both ways of reading op(A) = A^T, only the rule's packing
decision's launches are replayed). The model is estimate()'s: RATE (RATE_ELEM where the operands take the element copies)
x the last wave's filled share x the tiles' share inside C x kt / (kt + FILL + EPI x the C
tile's bytes at the chip's share of 2.5 TB/s against its FMAs), a split's second pass, the
bytes' floor, and for a launch that copies unaligned operands to aligned columns first the copy
(copy_seconds: 2 x their bytes at 2.5 TB/s, a launch each). Blocks per SM are the card's (the occupancy API's on an H100), as the rule asks.
--regret searches the constants (coordinate steps from the first estimates) for the least
regret over the calls, with RATE_ELEM <= RATE and a penalty where the chapter's shapes would lose
against the first estimates: first on one random half of the shapes (two halves, seeds 7 and 11;
the other half shows what generalizes), then on all (the values kernels/tuned/gemm_config.hpp holds).
--tied searches from gemm_config.hpp's values instead, RATE_ELEM held at its measured ratio to RATE.
Run: python3 scripts/probes/gemm_rule_fit.py docs/results/h100/gemm-rule-sweep-21208ec.txt [--regret | --tied]
(the replay takes a second; --regret or --tied under a minute)
"""
import collections, math, os, random, re, sys

# tile -> (BM, BN, BK, blocks per SM, RATE, RATE_ELEM, FILL, EPI). FIRST: the first estimates
# (the fit's starting point, the tuning notes); NOW (below): the values gemm_config.hpp holds, read from it.
FIRST = {'256x128x16': (256, 128, 16, 1, 48000, 27600, 1, 1), '128x128x16': (128, 128, 16, 2, 40000, 33200, 2, 0),
         '64x64x16': (64, 64, 16, 4, 28000, 26600, 2, 0), '128x64x16': (128, 64, 16, 3, 36000, 30000, 2, 0),
         '64x128x16': (64, 128, 16, 3, 36000, 30000, 2, 0), '128x16x32': (128, 16, 32, 4, 20000, 15000, 2, 0),
         '16x128x32': (16, 128, 32, 4, 20000, 15000, 2, 0)}


def landed_constants(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'kernels', 'tuned',
                                       'gemm_config.hpp')):
    """The float configurations' constants as kernels/tuned/gemm_config.hpp holds them (read from
    the table, so that the replay cannot drift from the rule): NOW (the FIRST layout) and TN_REL."""
    src = open(path).read()
    now, tn_rel = {}, {}
    for m in re.finditer(r'inline constexpr GemmConfig kFloat\w+ =(.*?);', src, re.S):
        body = m.group(1)
        call = lambda name: [float(x) for x in re.search(r'\.' + name + r'\(([^()]*)\)', body).group(1).split(',')]
        bm, bn, bk = (int(x) for x in call('shape')[:3])
        rate, rate_elem = call('rates')
        fill, epi = call('overhead')
        tile = f'{bm}x{bn}x{bk}'
        now[tile] = (bm, bn, bk, int(call('sm90_occupancy')[0]), rate, rate_elem, fill, epi)
        tn_rel[tile] = call('transposed_a_rate')[0] if '.transposed_a_rate(' in body else 1.0
    return now, tn_rel


# NOW: gemm_config.hpp's values (RATE_ELEM measured since the coalesced element paths);
# TN_REL: its TN factor per configuration (op(A) = A^T read transposed), not fitted here.
NOW, TN_REL = landed_constants()
SMS, BW, LAUNCH, MAXWS, S = 132, 2.5e12, 4e-6, 512 * 1024 * 1024, 4  # the sweep: float, beta 0.5
CHAPTER = {(1024,) * 3, (2048,) * 3, (4096,) * 3, (4097,) * 3, (6000,) * 3, (8192,) * 3,
           (4096, 4096, 256), (1024, 1024, 16384), (16384, 256, 4096)}


def parse(path):
    calls = collections.defaultdict(list)
    for line in open(path):
        if not line.startswith('ROW,'):
            continue
        _, op, m, n, k, t, t_rule, t_cublas, launch, rule = line.strip().split(',', 9)
        if ('pack A' in launch) != ('pack A' in rule):
            continue  # the replay weighs tiles and splits under the rule's packing decision
        sp = re.search(r'split=(\d+)', launch)
        calls[(op, int(m), int(n), int(k))].append(dict(
            t=float(t), launch=launch, tile=re.search(r'tile=(\S+)', launch).group(1),
            split=int(sp.group(1)) if sp else 1))
    return calls


def slice_k(k, split, bk):
    per = (k + split - 1) // split
    kc = (per + bk - 1) // bk * bk
    return kc, (k + kc - 1) // kc


COPY = {'bw': BW, 'launch': LAUNCH}  # the copy to aligned columns: bytes at bw (read + write), one launch


def copy_seconds(call, x):
    """The rule's cost of copying the unaligned operands first (launch x names "aligned copies"):
    2 x each copied operand's bytes at COPY['bw'] and one launch each; a packed A is aligned."""
    op, m, n, k = call
    t = 0.0
    if 'pack A' not in x['launch'] and ((m if op == 'N' else k) % 4):
        t += 2.0 * m * k * S / COPY['bw'] + COPY['launch']
    if k % 4:  # B is k x n with ldb = k in every sweep call
        t += 2.0 * k * n * S / COPY['bw'] + COPY['launch']
    return t


def estimate(cfg, call, x, vec):
    """Seconds the rule predicts for launch x of call (op, m, n, k); None where it is not legal."""
    _, m, n, k = call
    bm_, bn_, bk, bps, rate, rate_elem, fill_tiles, epi = cfg[x['tile']]
    kc, slices = slice_k(k, x['split'], bk)
    if x['split'] > 1 and (slices < x['split'] or slices * m * n * S > MAXWS):
        return None
    bm, bn = -(-m // bm_), -(-n // bn_)
    blocks, slots = bm * bn * slices, SMS * bps
    waves = -(-blocks // slots)
    fill, area = blocks / (waves * slots), m * n / (bm * bm_ * bn * bn_)
    kt = (kc if slices > 1 else k) / bk
    r0 = (rate if vec else rate_elem) * (TN_REL[x['tile']] if call[0] == 'T' and 'pack A' not in x['launch'] else 1.0)
    overhead = fill_tiles + epi * S * (1 if slices > 1 else 2) * r0 * 1e9 / (2 * bk * BW)
    seconds = 2.0 * m * n * k / (r0 * 1e9 * fill * area * kt / (kt + overhead))
    if slices > 1:
        seconds += (2.0 * slices + 2.0) * m * n * S / BW + LAUNCH
    floor = S * (m * k + k * n + 2.0 * m * n) / BW
    extra = copy_seconds(call, x) if 'aligned copies' in x['launch'] else 0.0
    return max(seconds, floor) + 1e-3 * seconds + extra


def regret(cfg, calls, keys):
    r = []
    for call in keys:
        op, m, _, k = call
        aligned = (m if op == 'N' else k) % 4 == 0 and k % 4 == 0
        cands = [(e, x) for x in calls[call]
                 for e in [estimate(cfg, call, x, aligned or 'aligned copies' in x['launch'])] if e is not None]
        r.append(min(cands, key=lambda c: c[0])[1]['t'] / min(x['t'] for x in calls[call]))
    return math.exp(sum(map(math.log, r)) / len(r)), max(r)


def search(calls, keys, chapter, rounds=3, start=None, tied=False):
    """Coordinate search from FIRST (or `start`): least log regret over keys, RATE_ELEM <= RATE,
    and 5x any log loss of the chapter's shapes against FIRST added. tied: RATE_ELEM keeps its
    ratio to RATE (measured, gemm_elem_probe --configs) and moves with it."""
    chap0 = regret(FIRST, calls, chapter)[0]

    def obj(c):
        if any(v[5] > v[4] for v in c.values()):
            return 1e9
        return math.log(regret(c, calls, keys)[0]) + 5 * max(0.0, math.log(regret(c, calls, chapter)[0] / chap0))

    cfg = {t: list(v) for t, v in (start or FIRST).items()}
    ratio = {t: v[5] / v[4] for t, v in cfg.items()}
    best = obj(cfg)
    for _ in range(rounds):
        for t in cfg:
            for j in range(4, 8):
                if tied and j == 5:
                    continue
                if j < 6:
                    vals = [cfg[t][j] * s for s in (0.85, 0.92, 0.96, 1.04, 1.08, 1.15)]
                else:
                    vals = [0, 0.5, 1, 1.5, 2, 3, 4, 6] if j == 6 else [0, 0.5, 1, 1.5, 2, 3]
                keep = cfg[t][j]
                for v in vals:
                    cfg[t][j] = v
                    if tied and j == 4:
                        cfg[t][5] = v * ratio[t]
                    o = obj(cfg)
                    if o < best - 1e-6:
                        best, keep = o, v
                cfg[t][j] = keep
                if tied and j == 4:
                    cfg[t][5] = keep * ratio[t]
    return cfg


def main():
    calls = parse(sys.argv[1])
    keys = sorted(calls)
    chapter = [c for c in keys if c[1:] in CHAPTER]
    for name, cfg in (('first estimates', FIRST), ("gemm_config.hpp's values", NOW)):
        g, mx = regret(cfg, calls, keys)
        print(f'{name}: regret {g:.3f} (worst {mx:.2f}), chapter shapes {regret(cfg, calls, chapter)[0]:.3f}')
    if '--tied' in sys.argv:  # from gemm_config.hpp's values, RATE_ELEM tied to RATE (measured ratios)
        for seed in (7, 11):
            shapes = sorted({c[1:] for c in keys})
            random.seed(seed)
            random.shuffle(shapes)
            half = set(shapes[:len(shapes) // 2])
            train = [c for c in keys if c[1:] in half]
            test = [c for c in keys if c[1:] not in half]
            cfg = search(calls, train, chapter, start=NOW, tied=True)
            print(f'seed {seed} (tied): fitted on half, held-out regret {regret(NOW, calls, test)[0]:.3f} -> '
                  f'{regret(cfg, calls, test)[0]:.3f}')
        cfg = search(calls, keys, chapter, start=NOW, tied=True)
        g, mx = regret(cfg, calls, keys)
        print(f'fitted on all (tied): regret {g:.3f} (worst {mx:.2f}), chapter shapes {regret(cfg, calls, chapter)[0]:.3f}')
        for bw in (1.0e12, 1.5e12, 2.0e12, 2.5e12, 3.0e12):  # the copy's bandwidth, with the fitted constants
            COPY['bw'] = bw
            print(f'   copy at {bw / 1e12:.1f} TB/s: regret {regret(cfg, calls, keys)[0]:.4f}, landed constants {regret(NOW, calls, keys)[0]:.4f}')
        COPY['bw'] = BW
        for t, v in cfg.items():
            print(f'   {t}: RATE {v[4]:.0f}, RATE_ELEM {v[5]:.0f}, FILL {v[6]}, EPI {v[7]}')
        return
    if '--regret' not in sys.argv:
        return
    shapes = sorted({c[1:] for c in keys})
    for seed in (7, 11):
        random.seed(seed)
        random.shuffle(shapes)
        half = set(shapes[:len(shapes) // 2])
        train = [c for c in keys if c[1:] in half]
        test = [c for c in keys if c[1:] not in half]
        cfg = search(calls, train, chapter)
        print(f'seed {seed}: fitted on half, held-out regret {regret(FIRST, calls, test)[0]:.3f} -> '
              f'{regret(cfg, calls, test)[0]:.3f}')
    cfg = search(calls, keys, chapter)
    g, mx = regret(cfg, calls, keys)
    print(f'fitted on all: regret {g:.3f} (worst {mx:.2f}), chapter shapes {regret(cfg, calls, chapter)[0]:.3f}')
    for t, v in cfg.items():
        print(f'   {t}: RATE {v[4]:.0f}, RATE_ELEM {v[5]:.0f}, FILL {v[6]}, EPI {v[7]}')


if __name__ == '__main__':
    main()
