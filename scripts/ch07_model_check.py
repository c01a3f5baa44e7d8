#!/usr/bin/env python3
"""Chapter 7's model, re-evaluated offline against a run's measured columns.

`ch07_split` prints at its start everything its model predicts with (the host's bandwidth curve,
each CPU peer class's t0 and efficiency per regime and working set, the GPU kernels' rates, the
link's fitted segments, each class's all-GPU path, the host memory both sides share). This script
reads those lines from the run's text output, recomputes the model's columns with the same
formulas as the binary (common/model/cpu.cpp, common/split.cpp, chapters/ch07_split/split_cases.cpp),
compares them with the model columns the run wrote in its CSV (a check that both compute the
same), and prints the summary lines for the recomputed choices against the measured columns.
So a change of a formula or of the decision rule can be tried on a measured run without a GPU.

    python3 scripts/ch07_model_check.py RUN.txt RUN.csv            # recompute, compare, summarize
    python3 scripts/ch07_model_check.py RUN.txt RUN.csv --rows     # and every row
    python3 scripts/ch07_model_check.py RUN.txt RUN.csv --fixed-margin  # the hybrid's margin 15% in every class
    python3 scripts/ch07_model_check.py RUN.txt RUN.csv --fixed-margin=0.25  # ... or this margin
    python3 scripts/ch07_model_check.py RUN.txt RUN.csv --margin-from-drift  # the median of the
        # calibration's drift lines, |ratio - 1| of each class timed again (runs that print them)
    python3 scripts/ch07_model_check.py RUN.txt RUN.csv --floor  # a run from before the floor, with it
    python3 scripts/ch07_model_check.py RUN.txt RUN.csv --symv-columns  # SYMV's GPU side priced as
                                        # whole stored columns (runs of 405d758 - b4b48f1 lack the line)
    python3 scripts/ch07_model_check.py RUN.txt RUN.csv --residual-alone  # each class's residual
        # from its hybrid timed alone (the path line's 'measured' minus 'model'), for runs whose
        # residual came from a timing in turn

The hybrid is chosen where its predicted gain is at least the run's margin: the median over the
classes of each path line's miss ('miss 12.3%'), or for a run from before that figure, of
|measured / model - 1| of the hybrid each path measured at its mid size; 15% where none is known or
with --fixed-margin.

A run from before these lines existed (no 'read GB/s by working set', no link segments, no path
lines) is read as far as it goes: the bandwidth curve is then recovered from the CPU model column
of GEMV and SYMV (memory-bound: B(ws) = bytes / ((model - t0) e(ws))), the link is taken as
55.5 / 55.4 GB/s with the set-up that makes the smallest GEMV's GPU column, and the classes
without a path use the kernel-and-copies model, as the binary does without a GPU. The measured
hybrid of such a run ran at that run's share; the recomputed model may choose another.
"""
import csv
import math
import re
import sys

MIB = 1024.0 * 1024.0
INF = float("inf")


# --------------------------------------------------------------------------------------------
# Reading the run


def num(s):
    try:
        return float(str(s).strip().rstrip("%x"))
    except ValueError:
        return float("nan")


def read_csv(path):
    rows = [r for r in csv.reader(open(path)) if r and not r[0].startswith("#")]
    hdr = rows[0]
    out = []
    for r in rows[1:]:
        if r == hdr:  # an appended run: keep the last
            out = []
            continue
        d = dict(zip(hdr, r))
        out.append({
            "op": d["op"], "elem": 4 if d["T"] == "float" else 8, "fs": 0 if d["FS"] == "-" else int(d["FS"]),
            "n": int(d["n"]), "cpu_model": num(d["CPU model"]), "cpu": num(d["CPU measured"]),
            "gpu_model": num(d["GPU+comm model"]), "gpu": num(d["GPU+comm measured"]),
            "hyb_model": num(d["hybrid model"]), "hyb_cell": d["hybrid measured"], "share": d["GPU share"],
            "choice": d["model's choice"],
        })
    return out


class Transfer:
    def __init__(self, tx, segs):
        self.tx, self.segs = tx, segs  # segs: [(lo, hi, c0, c1)]

    def predict(self, b):
        seg = self.segs[-1]
        for s in self.segs:
            if b < s[1]:
                seg = s
                break
        return b / (self.tx * 1e6) + seg[2] * b + seg[3]

    def linear(self, b):
        """(set-up c1, the rest) of a copy of b bytes, with the segment of the whole size."""
        if b <= 0:
            return 0.0, 0.0
        seg = self.segs[-1]
        for s in self.segs:
            if b < s[1]:
                seg = s
                break
        return seg[3], b / (self.tx * 1e6) + seg[2] * b


def read_run(path):
    """Everything the model predicts with, from the run's text output."""
    run = {"curve": [], "peers": {}, "gpu_rates": {}, "gpu_large": {}, "paths": {}, "shared": 0.0, "share_footprint": False,
           "symv_one_call": False,
           "floor": False,
           "symv_columns": False,
           "derived_depth": False,
           "later_model": None,
           "chunks": 4, "cg_iterations": 100, "llc": 0.0, "f32": 0.0, "f64": 0.0, "links": {}, "overhead": 0.0, "conv_fewer": 1.0, "drift": [], "gpu_bw": 4814.3,
           "gpu_f32": 66908.2, "gpu_f64": 33454.1}
    section = None
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if s.startswith("Measuring the CPU peers"):
            section = "cpu"
        elif s.startswith("Measuring the tuned kernels"):
            section = "gpu"
        elif s.startswith("Measuring each class's all-GPU path"):
            section = "path"
        elif s.startswith("Measuring the host <-> device") or s.startswith("Measuring the host memory"):
            section = None
        m = re.match(r"host: (\d+) threads, LLC ([\d.]+) (MiB|GiB).*?([\d.]+) GFLOP/s float, ([\d.]+) double", s)
        if m:
            run["llc"] = float(m.group(2)) * MIB * (1024 if m.group(3) == "GiB" else 1)
            run["f32"], run["f64"] = float(m.group(4)), float(m.group(5))
            continue
        if s.startswith("read GB/s by working set:"):
            for ws, v in re.findall(r"([\d.e+]+) MiB ([\d.]+)", s):
                run["curve"].append((float(ws) * MIB, float(v)))
            continue
        if s.startswith("pipeline depth: derived per call"):  # the chapter's derivation, not this script's
            run["derived_depth"] = True
            continue
        # Later models this script does not follow: SYMV's GPU side priced with its chunks'
        # triangles, and each class's residual at two sizes (the chapter's replay reads both). The
        # residual's path line is still read as a path below.
        if s.startswith("hybrid SYMV: the GPU's share priced as what it copies"):
            run["later_model"] = "prices SYMV's GPU side with its chunks' diagonal blocks"
            continue
        if re.search(r"; at n = \d+: residual ", s):
            run["later_model"] = "measures each class's hybrid residual at two sizes"
        if "timed again at the end of their calibration" in s:  # the host's drift (runs from session 28 on)
            run["drift"] += [abs(float(r) - 1) for r in re.findall(r" x([\d.]+) at n = ", s)]
            continue
        m = re.match(r"GPU: .*?, ([\d.]+) GB/s, ([\d.]+) / ([\d.]+) GFLOP/s", s)
        if m:
            run["gpu_bw"], run["gpu_f32"], run["gpu_f64"] = (float(m.group(i)) for i in (1, 2, 3))
            continue
        m = re.match(r"link (H2D|D2H): Tx ([\d.e+]+) GB/s(.*)", s)
        if m:
            segs = [(float(a), INF if b == "inf" else float(b), float(c0), float(c1))
                    for a, b, c0, c1 in re.findall(r"\[([\d.e+]+), ([\d.e+]+|inf)\) c0 ([-\d.e+]+) ms/B c1 ([-\d.e+]+) ms", m.group(3))]
            run["links"][m.group(1)] = Transfer(float(m.group(2)), segs)
            continue
        m = re.match(r"an empty hybrid call .*: ([\d.]+) us", s)
        if m:
            run["overhead"] = float(m.group(1)) / 1e3
            t = re.search(r"convolution's CPU side runs on (\d+) of (\d+) threads", s)
            if t:  # beside the GPU on fewer threads (runs from before it: every thread)
                run["conv_fewer"] = float(t.group(2)) / float(t.group(1))
            continue
        if s.startswith("hybrid CPU share: each call priced at the share's footprint"):
            run["share_footprint"] = True
        if s.startswith("hybrid SYMV: the CPU's share is one SYMV of its diagonal block"):
            run["symv_one_call"] = True
        if s.startswith("hybrid floor: chosen only where it also saves its GPU side's fixed cost"):
            run["floor"] = True
        if s.startswith("hybrid SYMV: the GPU's share is whole stored columns"):
            run["symv_columns"] = True
            continue
        m = re.match(r"host memory both sides share: ([\d.e+]+) GB/s", s)
        if m:
            run["shared"] = float(m.group(1))
            continue
        if s.startswith("cg split: each product is the SYMV path's fixed cost less its copy of A"):
            run["cg_product_without_a"] = True
            continue
        m = re.match(r"(cg product (?:float|double)): the SYMV path timed again before CG's rows: t0 ([\d.e+-]+) us;", s)
        if m:  # each product of CG's split: the SYMV path's call timed again before CG's rows
            run["gpu_rates"][m.group(1)] = (float(m.group(2)) / 1e3, 1.0)
            continue
        m = re.match(r"(cg solve (?:float|double)): anchor timed again before its rows: t0 ([\d.e+-]+) us;", s)
        if m:  # CG's solve cost timed again before its rows (split_paths.cpp reanchor_path)
            run["gpu_rates"][m.group(1)] = (float(m.group(2)) / 1e3, 1.0)
            continue
        m = re.match(r"Where each call runs \(ms; CG: a solve of (\d+) iterations\)", s)
        if m:
            run["cg_iterations"] = int(m.group(1))
        if section == "cpu":
            m = re.match(r"([A-Za-z0-9 ]+?(?: 1t)?): t0 ([\d.e+-]+) us", s)
            if m:
                pts = [(float(ws) * MIB, float(e)) for e, ws in re.findall(r"e ([\d.e+-]+) at ([\d.e+]+) MiB", s)]
                run["peers"][m.group(1)] = (float(m.group(2)) / 1e3, pts)
        elif section == "gpu":
            m = re.match(r"([A-Za-z0-9 ]+): t0 ([\d.e+-]+) us, e ([\d.e+-]+) at n", s)
            if m:
                run["gpu_rates"][m.group(1)] = (float(m.group(2)) / 1e3, float(m.group(3)))
                two = re.match(r"symv (float|double): .* at n = (\d+), e ([\d.e+-]+) at n = (\d+)", s)
                if two:  # SYMV's second point (split_calibrate.cpp): (mid bytes, large bytes, large e)
                    el = 4 if two.group(1) == "float" else 8
                    run["gpu_large"][m.group(1)] = (work("symv", 0, int(two.group(2)), 0, el)["bytes"],
                                                    work("symv", 0, int(two.group(4)), 0, el)["bytes"], float(two.group(3)))
        elif section == "path":
            m = re.match(r"([A-Za-z0-9 ]+): t0 ([\d.e+-]+) us \(one chunk\), ([\d.e+-]+) us \((\d+) chunks\) at n = (\d+); "
                         r"pipeline ([\d.e+-]+) at n = (\d+).*hybrid residual ([\d.e+-]+) ms", s)
            if m:
                residual = float(m.group(8))
                alone = re.search(r"\(measured ([\d.e+-]+) ms, model ([\d.e+-]+) ms", s)
                if RESIDUAL_ALONE and alone:  # the residual from the timing alone (runs that timed it in turn too)
                    residual = max(0.0, float(alone.group(1)) - float(alone.group(2)))
                run["paths"][m.group(1)] = {"t0": float(m.group(2)) / 1e3, "t0_chunked": float(m.group(3)) / 1e3,
                                            "tiny_n": int(m.group(5)), "pipeline": float(m.group(6)),
                                            "mid_n": int(m.group(7)), "residual": residual,
                                            "margin": path_margin(s)}
                mid = re.search(r"share ([\d.]+)% \(measured ([\d.e+-]+) ms, model [\d.e+-]+ ms, timing error ([\d.]+)%", s)
                if mid:  # the mid-size hybrid: its share, its time, its timing's error
                    run["paths"][m.group(1)]["mid"] = (float(mid.group(1)) / 100, float(mid.group(2)),
                                                       float(mid.group(3)) / 100)
                run["chunks"] = int(m.group(4))
    return run


def path_margin(line):
    """A class's miss from its path line: the printed one ('miss 12.3%'), or for a run from before
    it was printed, |measured / model - 1| of the hybrid at the mid size (its timing error was not
    printed: the miss alone); None where neither is there."""
    m = re.search(r"; miss ([\d.]+)%", line)
    if m:
        return float(m.group(1)) / 100
    m = re.search(r"\(measured ([\d.e+-]+) ms, model ([\d.e+-]+) ms", line)
    if m and float(m.group(2)) > 0 and float(m.group(1)) > 0:
        return abs(float(m.group(1)) / float(m.group(2)) - 1)
    return None


def margin_of(run, key=None):
    """The hybrid's min_gain (split_cases.cpp hybrid_margin_of): the median of the classes' misses
    (at most 0.999), else MIN_GAIN; with --fixed-margin, MIN_GAIN always (the rule before the run
    measured its margin). The same for every class (key is not used)."""
    if DRIFT_MARGIN:
        if not run["drift"]:
            raise SystemExit("ch07_model_check: --margin-from-drift needs a run that printed its drift lines")
        d = sorted(run["drift"])
        return min(d[len(d) // 2], 0.999)
    misses = sorted(p["margin"] for p in run["paths"].values() if p.get("margin") is not None)
    if FIXED_MARGIN or not misses:
        return MIN_GAIN
    k = len(misses)
    med = misses[k // 2] if k % 2 else 0.5 * (misses[k // 2 - 1] + misses[k // 2])
    return min(med, 0.999)


def recover_old_run(run, rows):
    """A run from before the calibration lines: the curve from the GEMV/SYMV CPU model column, the
    link from the smallest GEMV's GPU column (the module comment)."""
    if not run["curve"]:
        pts = {}
        for r in rows:
            if r["op"] not in ("gemv", "symv") or not (r["cpu_model"] >= 0.003):
                continue
            key = peer_key(r["op"], r["elem"])
            if key not in run["peers"]:
                continue
            w = work(r["op"], r["n"], r["n"], r["n"], r["elem"], r["fs"])
            t0, eff = run["peers"][key]
            e = interpolate(eff, w["bytes"]) if eff else 1.0
            pts[w["bytes"]] = w["bytes"] / ((r["cpu_model"] - t0) * e) / 1e6
        run["curve"] = sorted(pts.items())
    if "H2D" not in run["links"]:
        g = [r for r in rows if r["op"] == "gemv" and r["elem"] == 4]
        g.sort(key=lambda r: r["n"])
        r = g[0]
        t0, e = run["gpu_rates"].get("gemv float", (0.0025, 1.0))
        n = r["n"]
        kern = t0 + gemv_bytes(n, n, 4) / (run["gpu_bw"] * 1e6) / e
        c1 = max(0.0, (r["gpu_model"] - kern - (4 * n * n + 8 * n) / 55.5e6) / 3)
        run["links"]["H2D"] = Transfer(55.5, [(0, INF, 0.0, c1)])
        run["links"]["D2H"] = Transfer(55.4, [(0, INF, 0.0, c1)])


# --------------------------------------------------------------------------------------------
# The model (the binary's formulas)


def peer_key(cls, elem, fs=0):
    return cls + (" FS%d" % fs if fs > 0 else "") + (" float" if elem == 4 else " double")


def interpolate(pts, ws):
    if ws <= pts[0][0]:
        return pts[0][1]
    if ws >= pts[-1][0]:
        return pts[-1][1]
    for (a, va), (b, vb) in zip(pts, pts[1:]):
        if ws <= b:
            t = math.log(ws / a) / math.log(b / a)
            return va + t * (vb - va)
    return pts[-1][1]


def gemv_bytes(m, n, e):
    return e * (m * n + n + m)


def work(op, m, n, k, e, fs=0):
    """bytes, flops and OpenBLAS's regime of one peer call (model/cpu.cpp)."""
    if op == "gemv":
        return {"bytes": gemv_bytes(m, n, e), "flops": 2.0 * m * n, "single": m * n < 2304 * 4}
    if op == "gemm":
        return {"bytes": e * (m * k + k * n + m * n), "flops": 2.0 * m * n * k, "single": m * n * k <= 65536 * 4}
    if op == "symv":
        return {"bytes": e * (n * (n + 1) / 2.0 + 3.0 * n), "flops": 2.0 * n * n, "single": n < 200}
    if op == "conv2d":
        return {"bytes": e * (2.0 * m * n + fs * fs), "flops": 2.0 * m * n * fs * fs, "single": False}
    if op == "cg vectors":
        return {"bytes": 15.0 * n * e, "flops": 11.0 * n, "single": False}
    if op == "cg iteration":  # one SYMV and the vector calls; SYMV's regime
        mv = work("symv", 0, n, 0, e)
        return {"bytes": mv["bytes"] + 15.0 * n * e, "flops": mv["flops"] + 11.0 * n, "single": mv["single"]}
    raise ValueError(op)


def roofline_cpu(run, w, e, ws=None):
    """max(bytes / B(ws), flops / F); ws: the working set the call finds the caches in (its own
    bytes where None)."""
    ws = w["bytes"] if ws is None else ws
    bw = interpolate(run["curve"], ws) if run["curve"] else 1e9
    return max(w["bytes"] / (bw * 1e6), w["flops"] / ((run["f32"] if e == 4 else run["f64"]) * 1e6))


def peer_ms(run, cls, w, e, fs=0, ws=None):
    key = peer_key(cls, e, fs)
    if cls == "gemm share" and key not in run["peers"]:  # a run without the class: the square one
        key = peer_key("gemm", e)
    ws = w["bytes"] if ws is None else ws
    roof = roofline_cpu(run, w, e, ws)
    rate = run["peers"].get(key + " 1t") if w["single"] else None
    rate = rate or run["peers"].get(key)
    if rate is None:
        return roof
    t0, pts = rate
    return t0 + roof / (interpolate(pts, ws) if pts else 1.0)


def dram_share(llc, ws):
    if not llc > 0:
        return 1.0
    if ws <= llc / 2:
        return 0.0
    if ws >= 2 * llc:
        return 1.0
    return math.log(ws / (llc / 2)) / math.log(4.0)


def gpu_roof(run, nbytes, flops, e):
    return max(nbytes / (run["gpu_bw"] * 1e6), flops / ((run["gpu_f32"] if e == 4 else run["gpu_f64"]) * 1e6))


def gpu_rate(run, key, launches=1):
    return run["gpu_rates"].get(key, (launches * 0.0025, 1.0))


def eff_at(run, key, eff, nbytes):
    """The class's e for a call of nbytes (split_calibrate.cpp GpuRate::eff_at): log-linear between
    its two points where the run measured a second one, flat outside them."""
    if key not in run["gpu_large"]:
        return eff
    mid, large, large_eff = run["gpu_large"][key]
    if not (large > mid > 0) or nbytes <= mid:
        return eff
    if nbytes >= large:
        return large_eff
    return eff + math.log(nbytes / mid) / math.log(large / mid) * (large_eff - eff)


def offloads(run, op, n, e, fs):
    """The hybrid's GPU side and the all-GPU call (split_cases.cpp offloads_of)."""
    N = float(n)

    def kernel(cls, nbytes, flops, f=0, launches=1):
        t0, eff = gpu_rate(run, peer_key(cls, e, f))
        return gpu_roof(run, nbytes, flops, e) / eff_at(run, peer_key(cls, e, f), eff, nbytes), launches * t0

    if op == "gemv":
        o = {"in_split": [N * N * e], "in_whole": [N * e], "out_split": [N * e]}
        o["k"], o["launch"] = kernel("gemv", gemv_bytes(n, n, e), 2.0 * n * n)
    elif op == "gemm":
        o = {"in_split": [N * N * e], "in_whole": [N * N * e], "out_split": [N * N * e]}
        w = work("gemm", n, n, n, e)
        o["k"], o["launch"] = kernel("gemm", w["bytes"], w["flops"])
    elif op == "symv":
        o = {"in_split": [N * N * e], "in_whole": [N * e], "out_split": [N * e]}
        o["k"], o["launch"] = kernel("gemv", gemv_bytes(n, n, e), 2.0 * n * n, 0, 3)
    elif op == "conv2d":
        o = {"in_split": [(N + run["chunks"] * (fs - 1)) * N * e], "in_whole": [fs * fs * e], "out_split": [N * N * e]}
        o["k"], o["launch"] = kernel("conv2d", e * (2 * N * N + fs * fs), 2 * N * N * fs * fs, fs)
    else:
        raise ValueError(op)
    a = dict(o)
    if op == "symv":
        w = work("symv", n, n, n, e)
        a["k"], a["launch"] = kernel("symv", w["bytes"], w["flops"])
    if op == "conv2d":
        a["in_split"] = [N * N * e]
    return o, a


def all_gpu_ms(run, o):
    h, d = run["links"]["H2D"], run["links"]["D2H"]
    t = sum(h.predict(b) for b in o["in_split"] + o["in_whole"] if b > 0)
    t += sum(d.predict(b) for b in o["out_split"] if b > 0)
    return t + o["k"] + o["launch"]


def gpu_side(run, o, chunks):
    h2d, d2h = run["links"]["H2D"], run["links"]["D2H"]
    fixed = o["launch"] + sum(h2d.predict(b) for b in o["in_whole"] if b > 0)
    h = d = 0.0
    for b in o["in_split"]:
        c1, per = h2d.linear(b)
        fixed, h = fixed + c1, h + per
    for b in o["out_split"]:
        c1, per = d2h.linear(b)
        fixed, d = fixed + c1, d + per
    k = o["k"]
    mx = max(h, k, d)
    return fixed, mx + (h + k + d - mx) / chunks


def side_parts(run, op, n, e, fs):
    o, a = offloads(run, op, n, e, fs)
    whole = sum(run["links"]["H2D"].predict(b) for b in o["in_whole"] if b > 0)
    return {"serial": gpu_side(run, o, 1)[1], "whole": whole, "all": all_gpu_ms(run, a)}


def cpu_share_calls(op, n, e, fs, f, symv_one_call=False):
    r = int(math.floor((1 - f) * n + 0.5))
    g = n - r
    if r == 0:
        return []
    if op == "gemv":
        return [("gemv", work("gemv", r, n, 0, e))]
    if op == "gemm":  # beside the GPU (f > 0) a skinny product, threaded or not
        w = work("gemm", n, r, n, e)
        return [("gemm share" if f > 0 and not w["single"] else "gemm", w)]
    if op == "symv":
        v = [("symv", work("symv", 0, r, 0, e))]
        if g > 0 and not symv_one_call:  # runs from before the GPU added the block beside the CPU's rows
            v.append(("gemv", work("gemv", r, g, 0, e)))
        return v
    return [("conv2d", work("conv2d", r, n, 0, e, fs))]


def golden_min(t, lo, hi):
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    tc, td = t(c), t(d)
    while b - a > 1e-10:
        if tc <= td:
            b, d, td = d, c, tc
            c = b - g * (b - a)
            tc = t(c)
        else:
            a, c, tc = c, d, td
            d = a + g * (b - a)
            td = t(d)
    return 0.5 * (a + b)


MIN_GAIN = 0.15
FIXED_MARGIN = False
DRIFT_MARGIN = False
RESIDUAL_ALONE = False
FLOOR = False  # --floor: replay a run from before the floor with it
SYMV_COLUMNS = False  # --symv-columns: a run of the SYMV hybrid by columns from before its line


def predict(run, op, n, e, fs, share=None):
    """(cpu, gpu, hybrid, share, choice) as split_cases.cpp predict_case computes them; with
    `share`, the model of the hybrid's two sides at that share alone (no residual:
    split_cases.cpp hybrid_model_ms)."""
    if op == "cg":
        return predict_cg(run, n, e)
    o, a = offloads(run, op, n, e, fs)

    def cpu(f):
        calls = cpu_share_calls(op, n, e, fs, f, run["symv_one_call"])
        # several calls on different data (SYMV's share): each priced at the share's footprint
        ws = sum(w["bytes"] for _, w in calls) if run["share_footprint"] and len(calls) > 1 else None
        t = sum(peer_ms(run, cls, w, e, fs if op == "conv2d" else 0, ws) for cls, w in calls)
        return t * run["conv_fewer"] if op == "conv2d" and f > 0 else t

    all_gpu = all_gpu_ms(run, a)
    path = run["paths"].get(peer_key(op, e, fs))
    residual = 0.0
    if path:
        pn, pt = side_parts(run, op, n, e, fs), side_parts(run, op, path["tiny_n"], e, fs)
        all_gpu = path["t0"] + max(0.0, pn["all"] - pt["all"])
        g0 = path["t0_chunked"] + max(0.0, pn["whole"] - pt["whole"])
        g1 = path["pipeline"] * pn["serial"]
        residual = path["residual"]
    else:
        g0, g1 = gpu_side(run, o, run["chunks"])
        g0 += run["overhead"]
    # SYMV's GPU share in whole stored columns (runs that say so): it copies g n - g^2 / 2
    # elements, f (1 - f / 2) of the n^2 the proportional part is priced at; the pipeline ratio was
    # measured at f = 1, where that is 1 / 2 (a run that prints the line prices it so in
    # split_cases.cpp sides_of).
    columns = op == "symv" and (run["symv_columns"] or SYMV_COLUMNS)
    copied = (lambda f: f * (1 - f / 2)) if columns else (lambda f: f)
    shape = (lambda f: copied(f) / copied(1)) if (columns and path) else copied

    def gpu(f):
        return g0 + shape(f) * g1

    shared = None
    if run["shared"] > 0:
        split_b = sum(o["in_split"]) + sum(o["out_split"])
        whole_b = sum(o["in_whole"])

        def shared(f):
            dram = sum(dram_share(run["llc"], w["bytes"]) * w["bytes"] for _, w in cpu_share_calls(op, n, e, fs, f, run["symv_one_call"]))
            return (dram + copied(f) * split_b + whole_b) / (run["shared"] * 1e6)

    def at(f):
        t = max(cpu(f), gpu(f))
        if shared:
            t = max(t, shared(f))
        return t + residual

    if share is not None:
        return at(share) - residual

    # the balanced share (bisection, as split.cpp)
    if gpu(0) >= cpu(0):
        f = 0.0
    elif gpu(1) <= cpu(1):
        f = 1.0
    else:
        lo, hi = 0.0, 1.0
        while hi - lo > 1e-12:
            mid = 0.5 * (lo + hi)
            if gpu(mid) - cpu(mid) < 0:
                lo = mid
            else:
                hi = mid
        f = 0.5 * (lo + hi)
    if shared and 0 < f < 1 and shared(f) > max(cpu(f), gpu(f)):
        f = golden_min(at, 0.0, 1.0)
    c0 = cpu(0)
    hyb = c0 if f <= 0 else gpu(1) if f >= 1 else at(f)
    choice = "CPU" if c0 <= all_gpu else "GPU"
    margin = margin_of(run, peer_key(op, e, fs))
    # the floor (runs that print it): the hybrid must also save its GPU side's fixed cost in chunks
    floor = path["t0_chunked"] if (path and (run["floor"] or FLOOR)) else 0.0
    if 0 < f < 1 and hyb <= (1 - margin) * min(c0, all_gpu) and min(c0, all_gpu) - hyb >= floor:
        choice = "hybrid"
    return c0, all_gpu, hyb, f, choice, margin


def predict_cg(run, n, e):
    I = min(run["cg_iterations"], max(1, n))  # a row's solve: min(n, I) iterations (ch07 cg_solve_iterations)
    N = float(n)
    h2d, d2h = run["links"]["H2D"], run["links"]["D2H"]
    cpu_mv = peer_ms(run, "symv", work("symv", 0, n, 0, e), e)
    cpu_vec = peer_ms(run, "cg vectors", work("cg vectors", 0, n, 0, e), e)
    if peer_key("cg iteration", e) in run["peers"]:  # the iteration's calls timed in sequence
        cpu = cpu_mv + I * peer_ms(run, "cg iteration", work("cg iteration", 0, n, 0, e), e)
    else:
        cpu = (I + 1) * cpu_mv + I * cpu_vec
    it = work("symv", 0, n, 0, e)
    vec = work("cg vectors", 0, n, 0, e)
    t0, eff = gpu_rate(run, peer_key("cg", e), 4)
    gpu_it = t0 + gpu_roof(run, it["bytes"] + vec["bytes"], it["flops"] + vec["flops"], e) / eff

    def product(nn):
        mv = work("symv", 0, int(nn), 0, e)
        st0, seff = gpu_rate(run, peer_key("symv", e))
        seff = eff_at(run, peer_key("symv", e), seff, mv["bytes"])
        return h2d.predict(nn * e) + st0 + gpu_roof(run, mv["bytes"], mv["flops"], e) / seff + d2h.predict(nn * e)

    path = run["paths"].get(peer_key("symv", e))
    # the path's call timed again before CG's rows, where it was (split_paths.cpp reanchor_path)
    path_t0 = run["gpu_rates"][peer_key("cg product", e)][0] if path and peer_key("cg product", e) in run["gpu_rates"] else (
        path["t0"] if path else 0.0)
    prod = path_t0 + max(0.0, product(N) - product(path["tiny_n"])) if path else product(N)
    if path and run.get("cg_product_without_a"):  # the path's copy of A: the split makes it once
        prod -= h2d.predict(path["tiny_n"] * path["tiny_n"] * e)
    a_in, v_in, v_out = h2d.predict(N * N * e), h2d.predict(N * e), d2h.predict(N * e)
    solve_fixed = run["gpu_rates"].get(peer_key("cg solve", e), (0.0, 1.0))[0]  # runs that measured it
    all_gpu = a_in + 2 * v_in + v_out + solve_fixed + I * gpu_it
    split52 = a_in + (I + 1) * prod + I * cpu_vec
    choice = "CPU" if cpu <= all_gpu else "GPU"
    margin = margin_of(run, peer_key("symv", e))
    if split52 <= (1 - margin) * min(cpu, all_gpu):
        choice = "hybrid"
    return cpu, all_gpu, split52, float("nan"), choice, margin


# --------------------------------------------------------------------------------------------
# The summary (split_summary.cpp's rules)


def within(model, measured, tol=0.15):
    return model > 0 and measured > 0 and abs(model / measured - 1) <= tol


def summarize(rows, preds, with_floor=False):
    judged = hits = cpu_ok = cpu_n = gpu_ok = hyb_ok = hyb_n = gain_rows = gain_kept = chosen = lost = 0
    faster = in_margin = floored = 0
    for r, (c, g, h, f, choice, margin) in zip(rows, preds):
        gain = 1 - h / min(c, g) if (math.isnan(f) or 0 < f < 1) and min(c, g) > 0 else 0.0
        if gain > 0:
            faster += 1
            in_margin += gain < margin
            floored += gain >= margin and choice != "hybrid"  # kept out by the floor
        if not math.isnan(r["cpu"]):
            cpu_n += 1
            cpu_ok += within(c, r["cpu"])
        if math.isnan(r["cpu"]) or math.isnan(r["gpu"]):
            continue
        judged += 1
        hm = num(r["hyb_cell"])
        ran = r["op"] == "cg" or (0 < num(r["share"]) < 100)
        hyb = hm if ran else (r["cpu"] if num(r["share"]) <= 0 else r["gpu"])
        meas = {"CPU": r["cpu"], "GPU": r["gpu"], "hybrid": hyb}
        best = min(r["cpu"], r["gpu"], hm if ran else INF)
        hits += meas[choice] <= 1.05 * best
        gpu_ok += within(g, r["gpu"])
        if ran:
            hyb_n += 1
            hyb_ok += within(h, hm)
            b1 = min(r["cpu"], r["gpu"])
            if h <= 0.85 * min(c, g):
                gain_rows += 1
                gain_kept += hm <= 0.90 * b1
            if choice == "hybrid":
                chosen += 1
                lost += hm > b1

    def line(what, k, n):
        return "%s: %d of %d (%.0f%%)" % (what, k, n, 100.0 * k / n if n else 0)

    return [line("model's choice is the measured best or within 5% of it", hits, judged),
            line("CPU model within 15% of the measured CPU", cpu_ok, cpu_n),
            line("GPU+comm model within 15% of the measured", gpu_ok, judged),
            line("hybrid model within 15% of the measured hybrid", hyb_ok, hyb_n),
            line("hybrid predicted >= 15% faster than both sides: measured >= 10% faster", gain_kept, gain_rows),
            line("hybrid chosen by the model but slower than a single side", lost, chosen),
            line("hybrid predicted faster, but by less than the run's margin (the single side chosen)", in_margin,
                 faster)] + ([line("hybrid predicted faster by the margin, but saving less than its fixed cost "
                                   "(the single side chosen)", floored, faster)] if with_floor else [])


def own_summary(rows):
    """The chapter's summary lines for rows of a run's CSV (read_csv) with the run's own model
    columns as the predictions; the margin's line is left out (it needs the run's margin)."""
    preds = [(r["cpu_model"], r["gpu_model"], r["hyb_model"], num(r["share"]) / 100, r["choice"], 0.0) for r in rows]
    return summarize(rows, preds)[:6]


def main(argv):
    global FIXED_MARGIN
    if len(argv) < 3:
        print(__doc__)
        return 2
    global MIN_GAIN, DRIFT_MARGIN, RESIDUAL_ALONE
    FIXED_MARGIN = False
    DRIFT_MARGIN = "--margin-from-drift" in argv[3:]
    RESIDUAL_ALONE = "--residual-alone" in argv[3:]
    global FLOOR, SYMV_COLUMNS
    FLOOR = "--floor" in argv[3:]
    SYMV_COLUMNS = "--symv-columns" in argv[3:]
    for a in argv[3:]:
        if a == "--fixed-margin" or a.startswith("--fixed-margin="):
            FIXED_MARGIN = True
            if "=" in a:
                MIN_GAIN = float(a.split("=", 1)[1])
                if not 0 <= MIN_GAIN < 1:
                    print("ch07_model_check: --fixed-margin=%s must be in [0, 1)" % a.split("=", 1)[1])
                    return 2
    run, rows = read_run(argv[1]), read_csv(argv[2])
    if run["derived_depth"]:
        raise SystemExit("ch07_model_check: %s derives each hybrid's pipeline depth per call, which this script's "
                         "model does not; the chapter's own replay reads it (tests/cpu/test_ch07_replay.cpp), and "
                         "ch07_ab.py counts its summary from the CSV" % argv[1])
    if run["later_model"]:
        raise SystemExit("ch07_model_check: %s %s, which this script's model does not; the chapter's own replay "
                         "reads it (tests/cpu/test_ch07_replay.cpp), and ch07_ab.py counts its summary from the "
                         "CSV" % (argv[1], run["later_model"]))
    recover_old_run(run, rows)
    if SYMV_COLUMNS and not run["symv_columns"]:
        # The run priced SYMV's GPU side in its old shape: its SYMV classes' residual and miss are
        # recomputed against the new shape from the mid-size hybrid it timed (the same timing).
        # Only for runs of the columns code that timed it: a SYMV path whose chunked all-GPU call
        # copied the whole array (a run of the band-of-rows code) has a pipeline ratio near 1.
        for key, p in run["paths"].items():
            if key.startswith("symv ") and ("mid" not in p or p["pipeline"] > 0.8):
                raise SystemExit("ch07_model_check: --symv-columns needs a run of the SYMV hybrid by whole columns "
                                 "(405d758 on) that printed its mid-size hybrid: %s has %s" %
                                 (key, "no mid-size timing" if "mid" not in p else
                                  "a pipeline ratio of %.3g (> 0.8: its chunks copied the whole array)" % p["pipeline"]))
        for key, p in run["paths"].items():
            if key.startswith("symv ") and "mid" in p:
                f, measured, err = p["mid"]
                e = 4 if key.endswith("float") else 8
                model = predict(run, "symv", p["mid_n"], e, 0, share=f)
                p["residual"] = max(0.0, measured - model)
                p["margin"] = max(abs(measured / model - 1), 2 * err)
    preds = [predict(run, r["op"], r["n"], r["elem"], r["fs"]) for r in rows]
    worst = {}
    for r, p in zip(rows, preds):
        for i, col in enumerate(("cpu_model", "gpu_model", "hyb_model")):
            if r[col] > 0.0005 and not math.isnan(p[i]):  # 4 decimals in the table
                worst[col] = max(worst.get(col, 0.0), abs(p[i] / r[col] - 1))
    print("recomputed vs the run's model columns, largest relative difference (rows over 0.5 us): " +
          ", ".join("%s %.1f%%" % (k, 100 * v) for k, v in worst.items()))
    if "--rows" in argv:
        for r, (c, g, h, f, ch, mg) in zip(rows, preds):
            print("%-7s %-6s %2s %6d  cpu %9.4f/%9.4f  gpu %9.4f/%9.4f  hyb %9.4f/%-9s f %5.3f  margin %5.1f%%  %-6s "
                  "(run: %s)" % (r["op"], "float" if r["elem"] == 4 else "double", r["fs"] or "-", r["n"], c, r["cpu"],
                                 g, r["gpu"], h, r["hyb_cell"], f, 100 * mg, ch, r["choice"]))
    print("Summary (recomputed choices against the measured columns)")
    for line in summarize(rows, preds, run["floor"] or FLOOR):
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
