#!/usr/bin/env bash
# symv_timeline.sh — builds scripts/probes/symv_timeline.cu against an instrumented copy of the
# tuned SYMV (its two walks: the 16-byte one of kernels/tuned/symv_vec.cuh, the default, and the
# element one of kernels/tuned/symv.cu, patched in a temporary folder; the repository's files are not
# touched): the kernel reads %globaltimer at its top and, after a barrier at its end, block
# (0, 0)'s thread writes {start, end, SM} where wb_probe_timeline_set pointed it (nowhere by
# default). The copy links before the library, so the probe's wb::tuned::symv is the instrumented
# one. The patch fails loudly if the kernel's anchor lines have changed.
#
# Usage (from the repository root, with a configured build folder: build, or WB_BUILD_DIR):
#   bash scripts/probes/symv_timeline.sh build    # -> build/bin/symv_timeline
#   ./build/bin/symv_timeline --sizes 1024,4096,8192,16384 --reps 3
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
[ "${1:-}" = build ] || { echo "usage: $0 build"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - kernels/tuned "$work" <<'PY'
import sys
src_dir, dst_dir = sys.argv[1], sys.argv[2]
def patched(name, patches):
    s = open(f"{src_dir}/{name}").read()
    for anchor, text in patches:
        if s.count(anchor) != 1:
            sys.exit(f"symv_timeline.sh: anchor not found exactly once in {src_dir}/{name}: {anchor!r}")
        s = s.replace(anchor, anchor + text)
    return s
start = '    const unsigned long long wb_probe_t0 = wb_probe_now();\n'
end_anchor = '''        store_partial(atomics, alpha, y, W, nt + yb, n, c, s, keep);  // W(rows of J, nt + yb)
    }
'''
end = '''    __syncthreads();  // probe: every thread of the block is done
    if (threadIdx.x == 0 && threadIdx.y == 0 && wb_probe_records) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        unsigned long long* r = wb_probe_records + 3ull * blockIdx.x;
        r[0] = wb_probe_t0;
        r[1] = wb_probe_now();
        r[2] = sm;
    }
'''
records = '''
// --- symv_timeline probe: per-block records -------------------------------------------------
__device__ unsigned long long* wb_probe_records = nullptr;
extern "C" void wb_probe_timeline_set(unsigned long long* records) {
    cudaMemcpyToSymbol(wb_probe_records, &records, sizeof(records));
}
__device__ __forceinline__ unsigned long long wb_probe_now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
'''
# The 16-byte walk (the default layout) in symv_vec.cuh, which symv.cu includes: the copy in the
# temporary folder is found first (a quoted include looks beside the including file first).
open(f"{dst_dir}/symv_vec.cuh", "w").write(patched("symv_vec.cuh", [
    ('#include <cstdint>\n', records),
    ('    __shared__ T xs[kNb];                // x_J\n', start),
    (end_anchor, end)]))
# The element walk (other layouts, unaligned columns) in symv.cu.
open(f"{dst_dir}/symv_timeline_variant.cu", "w").write(patched("symv.cu", [
    ('    __shared__ T xs[NB];             // x_J\n', start),
    (end_anchor, end)]))
PY
# Build through the probes' CMake targets (scripts/probes/CMakeLists.txt): the copy as the
# variant, linked before the libraries; the variant setting is cleared again afterwards.
build=${WB_BUILD_DIR:-build}
cmake -S . -B "$build" -DWB_PROBE_VARIANT="$work/symv_timeline_variant.cu" >/dev/null
status=0
cmake --build "$build" --target symv_timeline || status=$?
cmake -S . -B "$build" -DWB_PROBE_VARIANT= >/dev/null
[ "$status" = 0 ] || exit "$status"
echo "symv_timeline.sh: built $build/bin/symv_timeline"
