/// \file gemm_ladder.cpp
/// \brief The GEMM ladder: its five steps and its peer, registered for the generic look-ups of
///        step.hpp (see docs/pages/architecture.md). This is the only place that lists them.
///        Each step's default_launch follows from the shape and the step's constraints; its
///        legal_launches are exactly the configurations its launcher accepts (for the tiled
///        steps, the explicitly instantiated ones).
#include "gemm.hpp"
#include "ladder_scope.hpp"
#include "step.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_kernel_rates.hpp"
#include "tuned/sgemm_3xtf32.hpp"

#include <vector>

namespace wb {

namespace {

GemmLaunch blocks(int bx, int by) {
    GemmLaunch l;
    l.block_x = bx;
    l.block_y = by;
    return l;
}

/// Chapter 2: square TILE x TILE tiles, one thread per element of C.
GemmLaunch square_tile(int tile) {
    GemmLaunch l = blocks(tile, tile);
    l.tile_m = l.tile_n = l.tile_k = tile;
    l.thread_m = l.thread_n = 1;
    return l;
}

/// Chapter 3: BM threads, each a strip of TN results of one row of C; op(B) tiles TK = 16 deep.
GemmLaunch strip(int bm, int tn) {
    GemmLaunch l = blocks(bm, 1);
    l.tile_m = bm;
    l.tile_n = tn;
    l.tile_k = 16;
    l.thread_m = 1;
    l.thread_n = tn;
    return l;
}

/// Chapter 4: 64 x 64 x 16 tiles, 256 threads of 4 x 4 results (its one configuration).
GemmLaunch access_tile() {
    GemmLaunch l = blocks(256, 1);
    l.tile_m = l.tile_n = 64;
    l.tile_k = 16;
    l.thread_m = l.thread_n = 4;
    return l;
}

template <class T>
std::vector<Step<GemmArgs<T>>> make_gemm_ladder() {
    using A = GemmArgs<T>;
    std::vector<Step<A>> steps;
    // 32 x 8: a warp spans 32 consecutive rows of one column of C (coalesced C and op_a = N reads).
    if constexpr (ladder_lists(1)) steps.push_back({Stage::kNaive, "one thread per element of C, every operand from global memory", &naive::gemm<T>,
                     [](const A&) { return blocks(32, 8); },
                     [](const A&) { return std::vector<GemmLaunch>{blocks(32, 8), blocks(16, 16), blocks(32, 4),
                                                                   blocks(64, 4), blocks(128, 2)}; }});
    if constexpr (ladder_lists(2)) steps.push_back({Stage::kShared, "TILE x TILE tiles of op(A) and op(B) in shared memory, one result per thread",
                     &shared::gemm<T>,
                     [](const A&) { return square_tile(32); },
                     [](const A&) { return std::vector<GemmLaunch>{square_tile(32), square_tile(16)}; }});
    if constexpr (ladder_lists(3)) steps.push_back({Stage::kPattern, "a strip of C per thread in registers; op(A) streamed, op(B) in shared memory",
                     &pattern::gemm<T>,
                     [](const A&) { return strip(64, 16); },
                     [](const A&) {
                         return std::vector<GemmLaunch>{strip(64, 16), strip(128, 16), strip(64, 8), strip(128, 8)};
                     }});
    if constexpr (ladder_lists(4)) steps.push_back({Stage::kAccess, "4 x 4 per thread, k-major padded staging, 16-byte shared reads, safe edges",
                     &access::gemm<T>,
                     [](const A&) { return access_tile(); },
                     [](const A&) { return std::vector<GemmLaunch>{access_tile()}; }});
    if constexpr (ladder_lists(5)) steps.push_back({Stage::kTuned, "warp tiles of 2-D register blocks, cp.async 16-byte multi-stage pipeline",
                     &tuned::gemm<T>,
                     [](const A& a) { return tuned::gemm_default<T>(a); },
                     [](const A& a) { return tuned::gemm_launches<T>(a); }});
    return steps;
}

template <class T>
Step<GemmArgs<T>> make_gemm_peer() {
    return {"cublas", sizeof(T) == 4 ? "cuBLAS SGEMM, CUBLAS_PEDANTIC_MATH (true FP32)"
                                        : "cuBLAS DGEMM, CUBLAS_PEDANTIC_MATH (FP64 tensor cores)",
            &peer::gemm<T>,
            [](const GemmArgs<T>&) { return GemmLaunch{}; },
            [](const GemmArgs<T>&) { return std::vector<GemmLaunch>{GemmLaunch{}}; }};
}

}  // namespace

template <> std::vector<Step<GemmArgs<float>>> make_ladder<GemmArgs<float>>() { return make_gemm_ladder<float>(); }
template <> std::vector<Step<GemmArgs<double>>> make_ladder<GemmArgs<double>>() { return make_gemm_ladder<double>(); }
template <> Step<GemmArgs<float>> make_peer<GemmArgs<float>>() { return make_gemm_peer<float>(); }
template <> Step<GemmArgs<double>> make_peer<GemmArgs<double>>() { return make_gemm_peer<double>(); }

template <class T>
bool ladder_gemm_as_gemv(const GemmArgs<T>& a, GemvArgs<T>* gemv) {
    if constexpr (ladder_lists(5)) return tuned::gemm_as_gemv<T>(a, gemv);
    return false;
}
template bool ladder_gemm_as_gemv<float>(const GemmArgs<float>&, GemvArgs<float>*);
template bool ladder_gemm_as_gemv<double>(const GemmArgs<double>&, GemvArgs<double>*);

template <class T>
void ladder_gemm_kernel_rates() {
    if constexpr (ladder_lists(5)) (void)tuned::gemm_kernel_rates<T>(true);
}
template void ladder_gemm_kernel_rates<float>();
template void ladder_gemm_kernel_rates<double>();

std::vector<Step<GemmArgs<float>>> ladder_gemm_variants_float() {
    if constexpr (ladder_lists(5))
        return {tuned::sgemm_3xtf32_step(tuned::Sgemm3xTf32Sum::kTensorCores),
                tuned::sgemm_3xtf32_step(tuned::Sgemm3xTf32Sum::kFp32)};
    return {};
}

}  // namespace wb
