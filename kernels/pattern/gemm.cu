/// \file pattern/gemm.cu
/// \brief Chapter 3 — GEMM computation pattern: each thread computes a strip of C in registers
///        (Volkov's register blocking; White, Listing 4.10).
///
/// What changes against chapter 2: a block of BM threads computes a BM x TN tile of C, thread i
/// the TN results C(i, j0 .. j0+TN-1) of one row, kept in registers. Only op(B) goes through
/// shared memory (a TK x TN tile per step); op(A) is streamed from global memory straight into
/// registers: thread i loads op(A)(i, p0 .. p0+TK-1) (TK independent loads in flight) and each
/// value feeds TN FMAs. All threads of a warp read the same op(B) element (a broadcast), so a
/// row of the shared tile is read with 16-byte loads.
/// Model: global loads per FMA: 1/TN (op(A)) + 1/BM (op(B)); shared-memory loads per FMA: 1
/// element (1/4 of an instruction with 16-byte loads) against 2 in chapter 2; the FMA chain per
/// thread is TN-wide, so there is more independent work per load than in chapter 2.
/// For op_a = T a thread reads TK consecutive elements of one column of A: 32 columns per warp
/// instruction, the L1 serves the next TK-1 (chapter 4 stages op(A) through shared memory too).
/// Run: ./workbook run ch03 -- --op gemm       (GemmLaunch: block_x = BM threads 64 or 128,
///                                               thread_n = TN 8 or 16, tile_k = TK = 16)
#include "gemm_common.cuh"

namespace wb::pattern {
namespace {

constexpr int kTK = 16;  // depth of one op(B) tile

//! [pattern-gemm]
template <class T, int TN, bool TransA, bool TransB>
__global__ void __launch_bounds__(128)
gemm_kernel(int m, int n, int k, T alpha, const T* __restrict__ A, int lda, const T* __restrict__ B, int ldb,
            T beta, T* __restrict__ C, int ldc) {
    __shared__ __align__(16) T sB[kTK][TN];  // op(B)(p0 + q, j0 + c); rows 16-byte aligned
    const int BM = blockDim.x;
    const int t = threadIdx.x;
    const int i = blockIdx.x * BM + t;       // this thread's row of C
    const int j0 = blockIdx.y * TN;
    T acc[TN];
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[c] = 0;
    for (int p0 = 0; p0 < k; p0 += kTK) {
        // Stage op(B)'s TK x TN tile; consecutive threads take consecutive addresses of B as stored.
        for (int e = t; e < kTK * TN; e += BM) {
            const int q = TransB ? e / TN : e % kTK, c = TransB ? e % TN : e / kTK;
            const int p = p0 + q, j = j0 + c;
            sB[q][c] = p < k && j < n ? gemm_detail::load_op_b<TransB>(B, ldb, p, j) : T(0);
        }
        // op(A)(i, p0 .. p0+TK-1) into registers: TK independent loads, issued before the barrier.
        T a[kTK];
#pragma unroll
        for (int q = 0; q < kTK; ++q)
            a[q] = i < m && p0 + q < k ? gemm_detail::load_op_a<TransA>(A, lda, i, p0 + q) : T(0);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kTK; ++q)
#pragma unroll
            for (int c = 0; c < TN; ++c) acc[c] += a[q] * sB[q][c];  // sB[q][c]: same address for all threads
        __syncthreads();
    }
    if (i < m)
#pragma unroll
        for (int c = 0; c < TN; ++c)
            if (j0 + c < n) gemm_detail::store_c(C, ldc, i, j0 + c, alpha, acc[c], beta);
}
//! [pattern-gemm]

template <class T, int TN, bool TA, bool TB>
void launch(const GemmArgs<T>& a, int bm, cudaStream_t s, const char* fn) {
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, bm), kMaxGridX, fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.n, TN), kMaxGridYZ, fn));
    gemm_kernel<T, TN, TA, TB><<<grid, bm, 0, s>>>(a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc);
}

template <class T, int TN>
void dispatch(const GemmArgs<T>& a, int bm, cudaStream_t s, const char* fn) {
    const bool ta = a.op_a == Op::T, tb = a.op_b == Op::T;
    if (!ta && !tb) launch<T, TN, false, false>(a, bm, s, fn);
    else if (!ta && tb) launch<T, TN, false, true>(a, bm, s, fn);
    else if (ta && !tb) launch<T, TN, true, false>(a, bm, s, fn);
    else launch<T, TN, true, true>(a, bm, s, fn);
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "pattern::gemm";
    const int bm = l.block_x > 0 ? l.block_x : 64;
    const int tn = l.thread_n > 0 ? l.thread_n : 16;
    gemm_detail::require_launch(bm == 64 || bm == 128, fn, "block_x", bm, "64 or 128 (rows of C per block)");
    gemm_detail::require_launch(l.block_y == 0 || l.block_y == 1, fn, "block_y", l.block_y, "1 or 0");
    gemm_detail::require_launch(l.tile_m == 0 || l.tile_m == bm, fn, "tile_m", l.tile_m, "block_x or 0");
    gemm_detail::require_launch(tn == 8 || tn == 16, fn, "thread_n", tn, "8 or 16 (the instantiated strips)");
    gemm_detail::require_launch(l.tile_n == 0 || l.tile_n == tn, fn, "tile_n", l.tile_n, "thread_n or 0");
    gemm_detail::require_launch(l.thread_m == 0 || l.thread_m == 1, fn, "thread_m", l.thread_m, "1 or 0");
    gemm_detail::require_launch(l.tile_k == 0 || l.tile_k == kTK, fn, "tile_k", l.tile_k, "16 or 0");
    if (!gemm_detail::gemm_begin(a, fn, s)) return;
    if (tn == 8) dispatch<T, 8>(a, bm, s, fn);
    else dispatch<T, 16>(a, bm, s, fn);
    WB_CHECK_LAUNCH();
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);

}  // namespace wb::pattern
