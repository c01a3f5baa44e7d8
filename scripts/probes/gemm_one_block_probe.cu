// gemm_one_block_probe.cu — would the medium float tiles (64 x 128, 128 x 64: four warps, 8 x 8
// thread tiles) close the gap to cuBLAS on shapes with about one tile of C per SM if compiled for
// one block per SM, in the main loop's one-block order (gemm_kernel.cuh: barrier inside the last
// k-step, the next tile's first fragments loaded before that step's FMAs)?
//
// cuBLAS's kernels on those shapes (docs/notes/gemm.md, session 14, Nsight Compute): 1000^3 NN a
// 64 x 128 tile of 4 warps (warps 1 x 4), 128 blocks, no split; TN 128 x 64 (warps 2 x 2); 300 x
// 20000 x 3000 128 x 64 (2 x 2). Ours at 1000^3 runs 128 x 64 split 2 (3 blocks per SM) and a
// second pass; the same tile unsplit with 1 block per SM ran 1.29 - 1.34x slower than with 3
// (run 77), in the order compiled for two or more blocks per SM.
//
// Variants (each a configuration compiled here from the tuned kernel's own templates, the table's
// swizzle and operand guard): the table's kFloat64x128 / kFloat128x64 as they are, the same in the
// one-block order, the one-block order with 4 stages, and 64 x 128 with cuBLAS's warp layout
// (warps 1 x 4: warp tile 64 x 32). Each unsplit and split 2; beside cuBLAS (pedantic FP32) and
// the default rule's launch. Median of 7 calls after two, no L2 flush (compute-bound calls).
// Build: cmake --build build --target gemm_one_block_probe      (scripts/probes/CMakeLists.txt)
// Run:   ./build/bin/gemm_one_block_probe
#include "gemm.hpp"
#include "gemm_rule_common.cuh"
#include "tuned/gemm_config.hpp"
#include "tuned/gemm_dispatch.cuh"

#include <cstdio>
#include <vector>

namespace wb::tuned {
inline constexpr GemmConfig kP64x128 = kFloat64x128;
inline constexpr GemmConfig kP64x128one = kFloat64x128.pipeline(3, 1);
inline constexpr GemmConfig kP64x128pf3 = kFloat64x128.pipeline(3, 3).prefetching();
inline constexpr GemmConfig kP128x64 = kFloat128x64;
inline constexpr GemmConfig kP128x64one = kFloat128x64.pipeline(3, 1);
inline constexpr GemmConfig kP128x64pf3 = kFloat128x64.pipeline(3, 3).prefetching();
inline constexpr GemmConfig kP128x128 = kFloat128x128;
inline constexpr GemmConfig kP128x128pf = kFloat128x128.prefetching();
inline constexpr GemmConfig kP128x128one = kFloat128x128.pipeline(3, 1);
inline constexpr GemmConfig kP64x64pf2 = kFloat64x64.pipeline(3, 2).prefetching();
inline constexpr GemmConfig kP128x16pf = kFloat128x16.prefetching();
inline constexpr GemmConfig kP16x128pf = kFloat16x128.prefetching();
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
        WB_V("64x128 (table)", kP64x128),   WB_V("64x128 one", kP64x128one),     WB_V("64x128 pf3", kP64x128pf3),
        WB_V("128x64 (table)", kP128x64),   WB_V("128x64 one", kP128x64one),     WB_V("128x64 pf3", kP128x64pf3),
        WB_V("128x128 (table)", kP128x128), WB_V("128x128 pf", kP128x128pf),     WB_V("128x128 one", kP128x128one),
        WB_V("64x64 (table)", kFloat64x64), WB_V("64x64 pf2", kP64x64pf2),       WB_V("128x16 (table)", kFloat128x16),
        WB_V("128x16 pf", kP128x16pf),      WB_V("16x128 (table)", kFloat16x128), WB_V("16x128 pf", kP16x128pf),
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
