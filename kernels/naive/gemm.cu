/// \file naive/gemm.cu
/// \brief Chapter 1 — GEMM straight from global memory: one thread per element of C.
///
/// What this step is: thread (i, j) computes C(i, j) = alpha * sum_p op(A)(i, p) op(B)(p, j)
/// + beta*C(i, j), every operand read from global memory (White, Listing 4.7).
/// - threadIdx.x runs along m, so a warp's 32 threads hold 32 consecutive rows i of one column j:
///   the C write and, for op_a = N, the read of A(i, p) are coalesced (one 128-byte line per
///   warp for float); op(B)(p, j) is the same address for the whole warp (one broadcast).
/// - op_a = T reads A(p, i): 32 columns lda apart, 32 sectors per warp; the L1 keeps them for
///   the next p's, so the reuse survives there rather than in DRAM.
/// Model: 2 global loads per FMA (L1/L2 serve almost all of them: the DRAM traffic is far
/// smaller). The L1/L2 load rate, not the FMA rate, limits it.
/// Run: ./workbook run ch01 -- --op gemm       (GemmLaunch: block_x x block_y, default 32x8)
#include "gemm_common.cuh"

namespace wb::naive {
namespace {

//! [naive-gemm]
template <class T, bool TransA, bool TransB>
__global__ void gemm_kernel(int m, int n, int k, T alpha, const T* __restrict__ A, int lda,
                            const T* __restrict__ B, int ldb, T beta, T* __restrict__ C, int ldc) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // row of C (fastest across the warp)
    const int j = blockIdx.y * blockDim.y + threadIdx.y;  // column of C
    if (i >= m || j >= n) return;
    T sum = 0;
    for (int p = 0; p < k; ++p)
        sum += gemm_detail::load_op_a<TransA>(A, lda, i, p) * gemm_detail::load_op_b<TransB>(B, ldb, p, j);
    gemm_detail::store_c(C, ldc, i, j, alpha, sum, beta);
}
//! [naive-gemm]

template <class T, bool TA, bool TB>
void launch(const GemmArgs<T>& a, dim3 block, cudaStream_t s, const char* fn) {
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, block.x), kMaxGridX, fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.n, block.y), kMaxGridYZ, fn));
    gemm_kernel<T, TA, TB><<<grid, block, 0, s>>>(a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "naive::gemm";
    const int bx = l.block_x > 0 ? l.block_x : 32, by = l.block_y > 0 ? l.block_y : 8;
    gemm_detail::require_launch(bx >= 1 && bx <= 1024, fn, "block_x", bx, "in [1, 1024]");
    gemm_detail::require_launch(by >= 1 && bx * by <= 1024, fn, "block_y", by, "in [1, 1024 / block_x]");
    if (!gemm_detail::gemm_begin(a, fn, s)) return;
    const dim3 block(bx, by);
    const bool ta = a.op_a == Op::T, tb = a.op_b == Op::T;
    if (!ta && !tb) launch<T, false, false>(a, block, s, fn);
    else if (!ta && tb) launch<T, false, true>(a, block, s, fn);
    else if (ta && !tb) launch<T, true, false>(a, block, s, fn);
    else launch<T, true, true>(a, block, s, fn);
    WB_CHECK_LAUNCH();
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);

}  // namespace wb::naive
