// gemm_one_block_probe.cu — the four-warp float tiles (64 x 128, 128 x 64: 8 x 8 thread tiles) in
// each main-loop order and occupancy, beside the other float tiles and cuBLAS, on shapes of about
// one to a few tiles of C per SM: which order wins at which blocks per SM.
//
// cuBLAS's kernels on those shapes (docs/notes/gemm.md, session 14, Nsight Compute): 1000^3 NN a
// 64 x 128 tile of 4 warps (warps 1 x 4), 128 blocks, no split; TN 128 x 64 (warps 2 x 2); 300 x
// 20000 x 3000 128 x 64 (2 x 2). Session 19 (runs 1-2 of this probe) moved the table's four-warp
// tiles to the one-block order (prefetching: gemm_kernel.cuh, the barrier inside the last k-step,
// the next tile's first fragments loaded before that step's FMAs) at three blocks per SM, with a
// ONE_WAVE kernel in the multi-block order for grids of at most one block per SM.
//
// Variants (each compiled here from the tuned kernel's own templates, the table's swizzle and
// operand guard): the four-warp tiles in the multi-block order at the bound of two blocks
// (session 18's kernels), as the table has them, and prefetching compiled for one block per SM
// (registers unbounded: two blocks per SM fit); the 128 x 128 tile as tabled and compiled for one
// block; the other float tiles as tabled. Each at splits 1-4 with the blocks per SM the device
// gives it; beside cuBLAS (pedantic FP32) and the default rule's launch. Median of 7 calls after
// two, no L2 flush (compute-bound calls).
// Build: cmake --build build --target gemm_one_block_probe      (scripts/probes/CMakeLists.txt)
// Run:   ./build/bin/gemm_one_block_probe
#include "gemm.hpp"
#include "gemm_rule_common.cuh"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_dispatch.cuh"

#include <cstdio>
#include <vector>

namespace wb::tuned {
/// A four-warp configuration in the multi-block order at the bound of two blocks (session 18's).
constexpr GemmConfig multi_block_order(GemmConfig c) {
    return c.pipeline(3, 2).with([](GemmConfig& x) { x.prefetch_order = false; });
}
inline constexpr GemmConfig kP64x128old = multi_block_order(kFloat64x128);
inline constexpr GemmConfig kP64x128one = kFloat64x128.pipeline(3, 1);
inline constexpr GemmConfig kP128x64old = multi_block_order(kFloat128x64);
inline constexpr GemmConfig kP128x64one = kFloat128x64.pipeline(3, 1);
inline constexpr GemmConfig kP128x128one = kFloat128x128.pipeline(3, 1);
}  // namespace wb::tuned

using namespace wb;

namespace {

using Run = void (*)(const GemmArgs<float>&, int, cudaStream_t, const char*);
using Blocks = int (*)(bool, bool, bool, bool);
struct Variant {
    const char* name;
    Run run;
    Blocks blocks;
};

}  // namespace

int main() {
    using namespace wb::tuned;
    using namespace wb::tuned::gemm_impl;
#define WB_V(name, cfg) {name, run_config<float, cfg>, resident_blocks<float, cfg>}
    const std::vector<Variant> vs = {
        WB_V("64x128 old order", kP64x128old),   WB_V("64x128 (table)", kFloat64x128),
        WB_V("64x128 one", kP64x128one),         WB_V("128x64 old order", kP128x64old),
        WB_V("128x64 (table)", kFloat128x64),    WB_V("128x64 one", kP128x64one),
        WB_V("128x128 (table)", kFloat128x128),  WB_V("128x128 one", kP128x128one),
        WB_V("256x128 (table)", kFloat256x128),  WB_V("64x64 (table)", kFloat64x64),
        WB_V("128x16 (table)", kFloat128x16),    WB_V("16x128 (table)", kFloat16x128),
    };
#undef WB_V
    const std::vector<S> sh = {{1000, 1000, 1000}, {1000, 777, 3333}, {1500, 1000, 2000}, {300, 20000, 3000},
                               {20000, 300, 3000}, {2000, 1000, 700},  {64, 8192, 8192},   {1400, 1400, 1400},
                               {777, 1234, 3333},  {2500, 2500, 2500}, {3000, 3000, 1000}, {4096, 4096, 4096},
                               {8192, 33, 8192},   {5000, 5000, 5000}, {256, 256, 262144}};
    const Operands<float> ops(sh);
    for (S s : sh)
        for (Op oa : {Op::N, Op::T}) {
            const GemmArgs<float> a = ops.call(s, oa);
            const double tc = med([&] { peer::gemm<float>(a, {}, nullptr); }, 7);
            const GemmLaunch d = tuned::gemm_default(a);
            const double tr = med([&] { tuned::gemm<float>(a, d, nullptr); }, 7);
            std::printf("%5d x %5d x %5d %cN  cuBLAS %.4f ms  rule %.4f ms (%.3fx)  %s\n", s.m, s.n, s.k,
                        oa == Op::N ? 'N' : 'T', tc, tr, tc / tr, d.str().c_str());
            const bool vec = s.m % 4 == 0 && s.k % 4 == 0;  // tight leading dimensions: 16-byte columns
            for (const Variant& v : vs) {
                std::printf("    %-16s", v.name);
                for (int split : {1, 2, 3, 4}) {
                    const double t = med([&] { v.run(a, split, nullptr, "probe"); }, 7);
                    std::printf("  s%d %.4f %.3fx (%d/SM)", split, t, tc / t, v.blocks(oa == Op::T, false, vec, split > 1));
                }
                std::printf("\n");
            }
        }
    WB_CUDA(cudaDeviceSynchronize());
    return 0;
}
