/// \file naive/gemv.cu
/// \brief Chapter 1 — GEMV straight from global memory: one thread per result.
///
/// What this step is: thread r computes y[r] = alpha * sum_k op(A)[r,k] x[k] + beta*y[r] with
/// every operand read from global memory (White, Listing 4.2).
/// - N (y has m rows): thread i walks row i; at each step the 32 threads of a warp read 32
///   consecutive elements of one column (column-major): coalesced, 1 sector per 8 floats.
/// - T (y has n entries): thread j walks column j; at each step the warp reads one element from
///   each of 32 columns lda elements apart: 32 sectors for 32 useful elements. This is White's
///   row-major Mv, uncoalesced (White Eq. 3.2 counts it on the T10).
/// Model: N moves ~size(T)(mn + m + n) bytes; T requests 8x (float) the useful bytes from L2
/// unless the sectors survive in L1 between a thread's consecutive rows.
/// Run: ./workbook run ch01 -- --op gemv          (GemvLaunch: block_x threads per block, default 256)
#include "gemv_common.cuh"

namespace wb::naive {
namespace {

//! [naive-gemv-n]
template <class T>
__global__ void gemv_n_kernel(int m, int n, T alpha, const T* A, int lda, const T* x, T beta, T* y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    T sum = 0;
    for (int j = 0; j < n; ++j) sum += A[i + static_cast<long long>(j) * lda] * x[j];
    y[i] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[i];
}
//! [naive-gemv-n]

//! [naive-gemv-t]
template <class T>
__global__ void gemv_t_kernel(int m, int n, T alpha, const T* A, int lda, const T* x, T beta, T* y) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const T* col = A + static_cast<long long>(j) * lda;
    T sum = 0;
    for (int i = 0; i < m; ++i) sum += col[i] * x[i];
    y[j] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[j];
}
//! [naive-gemv-t]

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& a, const GemvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "naive::gemv";
    const int bx = l.block_x > 0 ? l.block_x : 256;
    detail::require_launch(bx % 32 == 0 && bx <= 1024, fn, "block_x", bx, "a multiple of 32, at most 1024");
    if (!detail::gemv_begin(a, fn, s)) return;
    const unsigned grid = detail::grid_dim(detail::ceil_div(a.len_y(), bx), kMaxGridX, fn);
    if (a.op == Op::N)
        gemv_n_kernel<T><<<grid, bx, 0, s>>>(a.m, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y);
    else
        gemv_t_kernel<T><<<grid, bx, 0, s>>>(a.m, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y);
    WB_CHECK_LAUNCH();
}

template void gemv<float>(const GemvArgs<float>&, const GemvLaunch&, cudaStream_t);
template void gemv<double>(const GemvArgs<double>&, const GemvLaunch&, cudaStream_t);

}  // namespace wb::naive
