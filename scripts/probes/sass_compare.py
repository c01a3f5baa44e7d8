#!/usr/bin/env python3
"""sass_compare.py — are two builds' GEMM kernels the same machine code, instruction for instruction?

Used to carry a GPU measurement over to a restructured source without a GPU: if every kernel of
the new build that corresponds to a measured one disassembles to the same instructions (labels
and comment spacing aside), the measurement holds for it. Kernels are matched by their template
arguments (`gemm_kernel<Config, TransA, TransB, VEC[, SPLIT]>`); with --suffix, only the new
build's kernels whose last template argument is that bool are compared, with it removed. The
configurations' names are part of the key: since they are entries of kernels/tuned/gemm_config.hpp
(KernelConfig<float, kFloat256x128>, ...), builds from before that table match none of them.

Build and run (from the repository root; nvdisasm: CUDA's, or NVIDIA's `nvidia-cuda-nvdisasm` wheel):
  git archive <old-commit> kernels common | tar x -C /tmp/old
  (cd /tmp/old && for f in kernels/tuned/gemm_instances_*.cu; do nvcc -O3 -std=c++17 -arch=sm_90 \
     --expt-relaxed-constexpr -Ikernels -Icommon -I. -cubin $f -o /tmp/old-$(basename $f).cubin; done)
  for f in kernels/tuned/gemm_instances_*.cu; do nvcc -O3 -std=c++17 -arch=sm_90 \
     --expt-relaxed-constexpr -Ikernels -Icommon -I. -cubin $f -o /tmp/new-$(basename $f).cubin; done
  for c in /tmp/old-*.cubin; do nvdisasm -c $c; done > /tmp/old.sass
  for c in /tmp/new-*.cubin; do nvdisasm -c $c; done > /tmp/new.sass
  python3 scripts/probes/sass_compare.py /tmp/old.sass /tmp/new.sass [--suffix Lb0|Lb1]
Prints one line per differing kernel and `same S diff D of N`; exits 1 when any differs.
"""
import difflib
import re
import sys


def functions(path):
    """Kernel name -> list of instructions (labels renamed, whitespace collapsed)."""
    cur, out = None, {}
    for line in open(path):
        m = re.match(r"\s*\.section\s+\.text\.(\S+),", line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        if cur is None:
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if m:
            ins = re.sub(r"\.L_x_\d+", "L", m.group(1))
            out[cur].append(re.sub(r"\s+", " ", ins).strip())
    return {k: v for k, v in out.items() if v}


def template_args(name):
    m = re.search(r"gemm_kernelINS\d_(\w+?)EEEv", name)
    return m.group(1) if m else None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    suffix = None
    if "--suffix" in sys.argv:
        suffix = sys.argv[sys.argv.index("--suffix") + 1]
        args = [a for a in args if a != suffix]
    old = {template_args(k): v for k, v in functions(args[0]).items() if template_args(k)}
    new = {template_args(k): v for k, v in functions(args[1]).items() if template_args(k)}
    same = diff = 0
    for key, ins in sorted(new.items()):
        if suffix:
            if not key.endswith("E" + suffix):
                continue
            key = key[: -len("E" + suffix)]
        ref = old.get(key)
        if ref is None:
            print("no kernel in the old build for", key)
            diff += 1
            continue
        if ref == ins:
            same += 1
        else:
            diff += 1
            changed = [d for d in difflib.unified_diff(ref, ins, lineterm="", n=0)
                       if d[:1] in "+-" and not d.startswith(("+++", "---"))]
            print("differs:", key, len(ref), "->", len(ins), "instructions,", len(changed), "lines changed")
    print("same", same, "diff", diff, "of", len(old))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
