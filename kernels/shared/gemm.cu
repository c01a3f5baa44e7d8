/// \file shared/gemm.cu
/// \brief Chapter 2 — GEMM with square tiles of op(A) and op(B) staged in shared memory.
///
/// What changes against chapter 1: a block of TILE x TILE threads computes a TILE x TILE tile of
/// C. The k loop walks the reduction TILE columns at a time: every thread loads one element of
/// the op(A) tile and one of the op(B) tile into shared memory (coalesced: consecutive threads
/// read consecutive addresses of the operand as stored), a barrier, TILE FMAs from shared
/// memory, a barrier (White, Listing 4.8; Eq. 4.3-4.5: 2 TILE^2 elements of shared memory per
/// block, each loaded element reused TILE times).
/// Model: global loads per FMA fall from 2 to 2/TILE; shared-memory loads per FMA are 2, and
/// the shared-memory load rate now limits the step. Each tile is stored as it was loaded, so
/// op(A) = A^T is read down a column of the shared tile (TILE-way bank conflicts): chapter 4's
/// transposed staging removes them; op_a = N, the case the chapter measures, has none.
/// Run: ./workbook run ch02 -- --op gemm       (GemmLaunch: tile_m = tile_n = tile_k = TILE, 16 or 32)
#include "gemm_common.cuh"

namespace wb::shared {
namespace {

//! [shared-gemm]
template <class T, int TILE, bool TransA, bool TransB>
__global__ void __launch_bounds__(TILE * TILE)
gemm_kernel(int m, int n, int k, T alpha, const T* __restrict__ A, int lda, const T* __restrict__ B, int ldb,
            T beta, T* __restrict__ C, int ldc) {
    // Each tile is stored in the order it is read from global memory ([ty][tx], tx the
    // contiguous direction of the operand as stored), so loads coalesce and stores never conflict.
    //   op_a = N: sA[p][i]    op_a = T: sA[i][p]    op_b = N: sB[j][p]    op_b = T: sB[p][j]
    __shared__ T sA[TILE][TILE];
    __shared__ T sB[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i0 = blockIdx.x * TILE, j0 = blockIdx.y * TILE;
    T sum = 0;
    for (int p0 = 0; p0 < k; p0 += TILE) {
        {   // op(A)(i0 + ., p0 + .): tx runs along the contiguous index of A as stored
            const int i = i0 + (TransA ? ty : tx), p = p0 + (TransA ? tx : ty);
            sA[ty][tx] = i < m && p < k ? gemm_detail::load_op_a<TransA>(A, lda, i, p) : T(0);
        }
        {   // op(B)(p0 + ., j0 + .)
            const int p = p0 + (TransB ? ty : tx), j = j0 + (TransB ? tx : ty);
            sB[ty][tx] = p < k && j < n ? gemm_detail::load_op_b<TransB>(B, ldb, p, j) : T(0);
        }
        __syncthreads();  // the whole tile is in shared memory
#pragma unroll
        for (int q = 0; q < TILE; ++q) {
            const T a = TransA ? sA[tx][q] : sA[q][tx];  // op(A)(i0 + tx, p0 + q)
            const T b = TransB ? sB[q][ty] : sB[ty][q];  // op(B)(p0 + q, j0 + ty): one address per warp row
            sum += a * b;
        }
        __syncthreads();  // nobody overwrites the tile while others still read it
    }
    const int i = i0 + tx, j = j0 + ty;
    if (i < m && j < n) gemm_detail::store_c(C, ldc, i, j, alpha, sum, beta);
}
//! [shared-gemm]

template <class T, int TILE, bool TA, bool TB>
void launch(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    const dim3 block(TILE, TILE);
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, TILE), kMaxGridX, fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.n, TILE), kMaxGridYZ, fn));
    gemm_kernel<T, TILE, TA, TB><<<grid, block, 0, s>>>(a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C,
                                                        a.ldc);
}

template <class T, int TILE>
void dispatch(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    const bool ta = a.op_a == Op::T, tb = a.op_b == Op::T;
    if (!ta && !tb) launch<T, TILE, false, false>(a, s, fn);
    else if (!ta && tb) launch<T, TILE, false, true>(a, s, fn);
    else if (ta && !tb) launch<T, TILE, true, false>(a, s, fn);
    else launch<T, TILE, true, true>(a, s, fn);
}

}  // namespace

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "shared::gemm";
    const int tile = l.tile_m > 0 ? l.tile_m : 32;
    gemm_detail::require_launch(tile == 16 || tile == 32, fn, "tile_m", tile, "16 or 32 (the instantiated tiles)");
    gemm_detail::require_launch(l.tile_n == 0 || l.tile_n == tile, fn, "tile_n", l.tile_n, "tile_m (square tiles) or 0");
    gemm_detail::require_launch(l.tile_k == 0 || l.tile_k == tile, fn, "tile_k", l.tile_k, "tile_m (square tiles) or 0");
    gemm_detail::require_launch(l.block_x == 0 || l.block_x == tile, fn, "block_x", l.block_x, "tile_m or 0");
    gemm_detail::require_launch(l.block_y == 0 || l.block_y == tile, fn, "block_y", l.block_y, "tile_m or 0");
    if (!gemm_detail::gemm_begin(a, fn, s)) return;
    if (tile == 16) dispatch<T, 16>(a, s, fn);
    else dispatch<T, 32>(a, s, fn);
    WB_CHECK_LAUNCH();
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);

}  // namespace wb::shared
