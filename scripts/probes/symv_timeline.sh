#!/usr/bin/env bash
# symv_timeline.sh — builds scripts/probes/symv_timeline.cu against an instrumented copy of the
# tuned SYMV (kernels/tuned/symv.cu, patched in a temporary folder; the repository's file is not
# touched): the kernel reads %globaltimer at its top and, after a barrier at its end, block
# (0, 0)'s thread writes {start, end, SM} where wb_probe_timeline_set pointed it (nowhere by
# default). The copy links before the library, so the probe's wb::tuned::symv is the instrumented
# one. The patch fails loudly if the kernel's anchor lines have changed.
#
# Usage (from the repository root, after the CMake build in build-main):
#   bash scripts/probes/symv_timeline.sh build    # -> build-main/symv_timeline
#   ./build-main/symv_timeline --sizes 1024,4096,8192,16384 --reps 3
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
[ "${1:-}" = build ] || { echo "usage: $0 build"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - kernels/tuned/symv.cu "$work/symv_timeline_variant.cu" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()
def patch(anchor, text, before=False):
    global s
    if s.count(anchor) != 1:
        sys.exit(f"symv_timeline.sh: anchor not found exactly once in {src}: {anchor!r}")
    s = s.replace(anchor, text + anchor if before else anchor + text)
patch('#include "model/symv.hpp"\n', '''
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
''')
patch('    __shared__ T xs[NB];             // x_J\n',
      '    const unsigned long long wb_probe_t0 = wb_probe_now();\n')
patch('''        else detail::store_l2(W + c + static_cast<long long>(nt + yb) * n, s, keep);  // W(rows of J, nt + yb)
    }
''', '''    __syncthreads();  // probe: every thread of the block is done
    if (tx == 0 && ty == 0 && wb_probe_records) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        unsigned long long* r = wb_probe_records + 3ull * blockIdx.x;
        r[0] = wb_probe_t0;
        r[1] = wb_probe_now();
        r[2] = sm;
    }
''')
open(dst, "w").write(s)
PY
flags=(-O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Ikernels -Icommon -I. -Ikernels/tuned)
nvcc "${flags[@]}" -c "$work/symv_timeline_variant.cu" -o "$work/symv_timeline_variant.o"
nvcc "${flags[@]}" scripts/probes/symv_timeline.cu "$work/symv_timeline_variant.o" \
    build-main/kernels/libwb_kernels.a build-main/common/libwb_common.a -lcublas -lcuda -o build-main/symv_timeline
echo "symv_timeline.sh: built build-main/symv_timeline"
