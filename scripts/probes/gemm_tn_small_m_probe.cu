// gemm_tn_small_m_probe.cu — why op(A) = A^T costs the tuned SGEMM more where C is one tile tall.
//
// At 64 x 8192 x 8192 the 64 x 128 kernel (split 6) runs TN about 6% slower than NN, while the
// kernel-rate table measures the two at the same rate on its reference call (\ref notes_gemm).
// For a few one- or two-tile-tall shapes, op(A) = N and T, beta 0.5: the rule's launch; for
// op(A) = A^T also that launch with A transposed first (pack_a = 2), read in place (pack_a = 1),
// and read through the element path (A's base moved by one element: align = 1), the transpose
// of A alone, and cuBLAS (pedantic FP32). Each the median of 15 calls, unflushed and with the L2
// flushed before every call (a 512 MB memset outside the timed range).
// Build: bash scripts/carry-build.sh gemm_tn_small_m_probe   (or cmake --build build --target ...)
// Run:   ./build/bin/gemm_tn_small_m_probe
#include "gemm.hpp"
#include "gemm_rule_common.cuh"
#include "tuned/gemm_pack.hpp"

#include <cstdio>
#include <string>
#include <vector>

using namespace wb;

namespace {

void* g_flush = nullptr;
constexpr size_t kFlushBytes = size_t(512) << 20;

/// Median of `reps` calls of f, each after a memset of kFlushBytes when `flush` (outside the range).
template <class F>
double med_flush(F f, int reps, bool flush) {
    return med_each(f, reps, [&](int r) {
        if (flush) cudaMemsetAsync(g_flush, r & 0xff, kFlushBytes);
    });
}

}  // namespace

int main() {
    const std::vector<S> sh = {{64, 8192, 8192}, {64, 8192, 8200}, {64, 8192, 4096}, {64, 4096, 8192},
                               {48, 8192, 8192}, {96, 8192, 8192}, {128, 8192, 8192}, {64, 16384, 4096}};
    const Operands<float> ops(sh);
    WB_CUDA(cudaMalloc(&g_flush, kFlushBytes));
    for (bool flush : {false, true}) {
        std::printf("== L2 %s\n", flush ? "flushed" : "warm");
        for (S s : sh) {
            const GemmArgs<float> nn = ops.call(s, Op::N), tn = ops.call(s, Op::T);
            auto time = [&](const GemmArgs<float>& a, const GemmLaunch& l) {
                return med_flush([&] { tuned::gemm<float>(a, l, nullptr); }, 15, flush);
            };
            const GemmLaunch ln = tuned::gemm_default(nn), lt = tuned::gemm_default(tn);
            const double t_nn = time(nn, ln);
            const double c_nn = med_flush([&] { peer::gemm<float>(nn, {}, nullptr); }, 15, flush);
            const double t_tn = time(tn, lt);
            const double c_tn = med_flush([&] { peer::gemm<float>(tn, {}, nullptr); }, 15, flush);
            GemmLaunch read = lt, packed = lt;
            read.pack_a = 1;
            packed.pack_a = 2;
            const double t_read = time(tn, read), t_pack = time(tn, packed);
            GemmArgs<float> elem = tn;  // A one element on: every column of A unaligned (element path)
            elem.A = tn.A + 1;
            GemmLaunch el = read;
            el.align = 1;
            double t_elem = -1;
            try { t_elem = time(elem, el); } catch (const std::exception& e) { std::printf("elem: %s\n", e.what()); }
            const double t_tr = med_flush([&] { (void)tuned::pack::packed(tn, nullptr, "probe"); }, 15, flush);
            std::printf("%5dx%5dx%5d  NN rule %.4f (cuBLAS %.4f, %.3fx) %s\n", s.m, s.n, s.k, t_nn, c_nn, c_nn / t_nn, ln.str().c_str());
            std::printf("%17s  TN rule %.4f (cuBLAS %.4f, %.3fx) %s\n", "", t_tn, c_tn, c_tn / t_tn, lt.str().c_str());
            std::printf("%17s  TN read %.4f (%.3fx)  packed %.4f (%.3fx)  element path %.4f (%.3fx)  transpose alone %.4f\n", "",
                        t_read, c_tn / t_read, t_pack, c_tn / t_pack, t_elem, c_tn / t_elem, t_tr);
            std::fflush(stdout);
        }
    }
    cudaFree(g_flush);
    return 0;
}
