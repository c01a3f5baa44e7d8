/// \file naive/symv.cu
/// \brief Chapter 1 — SYMV straight from global memory: one thread per row of y.
///
/// What this step is: thread i computes y(i) = alpha * sum_j A(i, j) x(j) + beta*y(i), reading
/// only the stored triangle: A(i, j) when (i, j) lies in it, else the mirror A(j, i)
/// (symv_detail::sym_load). Nothing is reused on chip; the storage decides the access pattern:
/// - in the stored part (lower: j <= i) a warp's 32 consecutive rows i read 32 consecutive
///   elements of column j: coalesced, one 128-byte line per warp for float;
/// - in the mirrored part the warp reads A(j, i) for 32 columns i, lda apart: 32 sectors for 32
///   elements. Every element of the triangle is read twice (once per side), half of the reads
///   through the strided path.
/// Model (common/model/symv): 2 x the triangle's sectors in the best case (n^2 elements), up to
/// 8x more for the strided half unless L1/L2 keep the sectors (they do in part: neighbouring
/// warps walk the same columns).
/// Follows: the mirrored index of Nath et al. SC'11 §4 (the storage-oblivious view), without the
/// shared-memory tile.
/// Run: ./workbook run ch01 -- --op symv       (SymvLaunch: block_x threads, default 128)
#include "symv_common.cuh"

namespace wb::naive {
namespace {

//! [naive-symv]
template <class T>
__global__ void symv_kernel(bool lower, int n, T alpha, const T* __restrict__ A, int lda, const T* __restrict__ x,
                            T beta, T* __restrict__ y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // row of y (fastest across the warp)
    if (i >= n) return;
    T sum = 0;
    for (int j = 0; j < n; ++j) sum += symv_detail::sym_load(A, lda, lower, i, j) * x[j];
    y[i] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[i];
}
//! [naive-symv]

}  // namespace

template <class T>
void symv(const SymvArgs<T>& a, const SymvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "naive::symv";
    const int bx = l.block_x > 0 ? l.block_x : 128;
    symv_detail::require_launch(bx >= 32 && bx <= 1024 && bx % 32 == 0, fn, "block_x", bx,
                                "a multiple of 32 in [32, 1024]");
    if (!symv_detail::symv_begin(a, fn, s)) return;
    const unsigned grid = symv_detail::grid_dim(symv_detail::ceil_div(a.n, bx), kMaxGridX, fn);
    symv_kernel<T><<<grid, bx, 0, s>>>(a.uplo == Uplo::Lower, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y);
    WB_CHECK_LAUNCH();
}

template void symv<float>(const SymvArgs<float>&, const SymvLaunch&, cudaStream_t);
template void symv<double>(const SymvArgs<double>&, const SymvLaunch&, cudaStream_t);

}  // namespace wb::naive
