/// \file access/symv.cu
/// \brief Chapter 4 — SYMV in three kernels, the off-diagonal tiles traversed vertically with
///        register prefetching (Abdelfattah et al., VECPAR'12), and pointer redirecting for
///        irregular n (Nath et al. SC'11 §6.3).
///
/// What changes against chapter 3: the access pattern.
/// - Kernel 1 (diagonal): one block per 64 x 64 diagonal tile, mirrored in shared memory
///   (padded to 65 columns: no bank conflicts), writes A_JJ x_J to the workspace.
/// - Kernel 2 (off-diagonal): block J walks its block *column* of stored tiles (lower: tiles
///   J+1 .. nt-1 below the diagonal; upper: 0 .. J-1 above it). Thread (p, q) of the 64 x 4
///   block holds L = 16 elements of row p of the tile in registers and the 16 matching elements of
///   x_J for the whole walk. The next tile's 16 elements are loaded before the current tile is
///   used (register prefetching), so a thread always has a tile's loads in flight. A_IJ^T x_I —
///   the product that belongs to this block's own rows — is accumulated in registers across the
///   whole walk (no partial products in shared memory: the vertical traversal is what allows
///   it); A_IJ x_J is reduced over the 4 thread columns and written to the workspace.
/// - Kernel 3: the fixed-order reduction of symv_common.cu (bit-identical run to run).
/// - Irregular n: the last tile's rows (lower) or columns (upper) beyond n are redirected to row
///   or column n - 1 (an element of the stored triangle) and their x is 0, so the loads need no
///   branch and read nothing outside the matrix.
/// Model (common/model/symv): the triangle once, coalesced (a warp reads 32 consecutive elements
/// of a column), plus the workspace: n x (nt + 1) partials written and read (nt = ceil(n / 64):
/// 2 n^2 / 64 elements, 3% of the triangle in float); a launch more than chapter 3.
/// Follows: Abdelfattah et al. VECPAR'12 §3-4; Nath et al. SC'11 §6.3 (pointer redirecting).
/// Run: ./workbook run ch04 -- --op symv       (SymvLaunch: nb = 64, block 64x4)
#include "symv_common.cuh"

namespace wb::access {
namespace {

constexpr int kNb = 64;          // tile
constexpr int kQ = 4;            // thread columns
constexpr int kL = kNb / kQ;     // elements of a tile row per thread
constexpr int kWarps = kNb / 32; // warps along a thread column

//! [access-symv-diag]
/// Kernel 1: W(rows of J, nt) = A_JJ x_J for diagonal tile J, mirrored in shared memory.
template <class T>
__global__ void diag_kernel(bool lower, int n, int nt, const T* __restrict__ A, int lda, const T* __restrict__ x,
                            T* __restrict__ W) {
    __shared__ T tile[kNb][kNb + 1];
    __shared__ T xs[kNb];
    __shared__ T part[kQ][kNb];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.x * kNb;
    if (ty == 0) xs[tx] = row0 + tx < n ? x[row0 + tx] : T(0);
    for (int c = ty; c < kNb; c += kQ) {
        if (lower ? tx >= c : tx <= c) {
            // Redirected: rows and columns beyond n read element (n-1, n-1) side of the triangle;
            // their x is 0 and their rows are not written.
            const int gi = min(row0 + tx, n - 1), gj = min(row0 + c, n - 1);
            const T v = A[gi + static_cast<long long>(gj) * lda];
            tile[tx][c] = v;
            tile[c][tx] = v;
        }
    }
    __syncthreads();
    T s = 0;
    for (int c = ty; c < kNb; c += kQ) s += tile[tx][c] * xs[c];
    part[ty][tx] = s;
    __syncthreads();
    if (ty == 0 && row0 + tx < n) W[row0 + tx + static_cast<long long>(nt) * n] = symv_detail::sum_parts(part, kQ, tx);
}
//! [access-symv-diag]

//! [access-symv-offdiag]
/// Kernel 2: block J walks the stored off-diagonal tiles of block column J.
template <class T>
__global__ void __launch_bounds__(kNb * kQ) offdiag_kernel(bool lower, int n, int nt, const T* __restrict__ A, int lda,
                                                            const T* __restrict__ x, T* __restrict__ W) {
    __shared__ T part[kQ][kNb];
    __shared__ T colsum[kWarps][kNb];
    const int tx = threadIdx.x, ty = threadIdx.y;
    // The longest walks first: lower column J has nt - 1 - J tiles, upper J tiles.
    const int J = lower ? static_cast<int>(blockIdx.x) : nt - 1 - static_cast<int>(blockIdx.x);
    const int col0 = J * kNb + ty * kL;  // this thread's first column
    const int i0 = lower ? J + 1 : 0, i1 = lower ? nt : J;  // tiles I in [i0, i1)
    // Columns beyond n (upper, last block column) are redirected to column n - 1 with x = 0.
    T xj[kL], acc[kL];
    long long coff[kL];
#pragma unroll
    for (int k = 0; k < kL; ++k) {
        const int c = col0 + k;
        xj[k] = c < n ? x[c] : T(0);
        coff[k] = static_cast<long long>(min(c, n - 1)) * lda;
        acc[k] = 0;
    }
    T cur[kL], nxt[kL];
    T xi_cur = 0;
    if (i0 < i1) {
        const int r = i0 * kNb + tx;
        const int rr = min(r, n - 1);  // redirected row (lower, last tile)
        xi_cur = r < n ? x[r] : T(0);
#pragma unroll
        for (int k = 0; k < kL; ++k) cur[k] = A[rr + coff[k]];
    }
    for (int I = i0; I < i1; ++I) {
        // Prefetch the next tile's elements before using this one's.
        T xi_nxt = 0;
        if (I + 1 < i1) {
            const int r = (I + 1) * kNb + tx;
            const int rr = min(r, n - 1);
            xi_nxt = r < n ? x[r] : T(0);
#pragma unroll
            for (int k = 0; k < kL; ++k) nxt[k] = A[rr + coff[k]];
        }
        T rs = 0;
#pragma unroll
        for (int k = 0; k < kL; ++k) {
            rs += cur[k] * xj[k];      // A_IJ x_J: row tx of tile I
            acc[k] += cur[k] * xi_cur; // A_IJ^T x_I: this block's own rows, in registers
        }
        part[ty][tx] = rs;
        __syncthreads();
        const int row = I * kNb + tx;
        if (ty == 0 && row < n) W[row + static_cast<long long>(J) * n] = symv_detail::sum_parts(part, kQ, tx);  // W(rows of I, J)
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kL; ++k) cur[k] = nxt[k];
        xi_cur = xi_nxt;
    }
    // Column sums of the walk: reduce acc over the 64 rows (shuffles within a warp, then the warps).
    symv_detail::warp_column_sums<T, kNb, kL>(acc, colsum);
    __syncthreads();
    const int t = ty * kNb + tx;  // 0 .. kNb*kQ-1: the first kNb threads write the column sums
    if (t < kNb && J * kNb + t < n) {
        const T s = symv_detail::sum_parts(colsum, kWarps, t);
        W[J * kNb + t + static_cast<long long>(J) * n] = s;  // W(rows of J, J)
    }
}
//! [access-symv-offdiag]

}  // namespace

template <class T>
void symv(const SymvArgs<T>& a, const SymvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "access::symv";
    const int nb = l.nb > 0 ? l.nb : kNb, bx = l.block_x > 0 ? l.block_x : kNb, by = l.block_y > 0 ? l.block_y : kQ;
    symv_detail::require_launch(nb == kNb, fn, "nb", nb, "64 (the instantiated tile)");
    symv_detail::require_launch(bx == kNb, fn, "block_x", bx, "64 (one thread per row of the tile)");
    symv_detail::require_launch(by == kQ, fn, "block_y", by, "4 (the instantiated thread columns)");
    if (!symv_detail::symv_begin(a, fn, s)) return;
    const int nt = static_cast<int>(symv_detail::ceil_div(a.n, kNb));
    T* W = symv_detail::workspace<T>(static_cast<std::size_t>(a.n) * (nt + 1), s);
    const bool lower = a.uplo == Uplo::Lower;
    const unsigned grid = symv_detail::grid_dim(nt, kMaxGridX, fn);
    diag_kernel<T><<<grid, dim3(kNb, kQ), 0, s>>>(lower, a.n, nt, a.A, a.lda, a.x, W);
    WB_CHECK_LAUNCH();
    offdiag_kernel<T><<<grid, dim3(kNb, kQ), 0, s>>>(lower, a.n, nt, a.A, a.lda, a.x, W);
    WB_CHECK_LAUNCH();
    // Lower: row tile b gathers W(., 0 .. b) (tiles A_bJ x_J, then its column sum) and the
    // diagonal W(., nt); upper: W(., b .. nt-1) and W(., nt).
    symv_detail::reduce(a, W, kNb, nt, /*from_start=*/lower, /*skip=*/0, /*extra=*/1, s);
}

template void symv<float>(const SymvArgs<float>&, const SymvLaunch&, cudaStream_t);
template void symv<double>(const SymvArgs<double>&, const SymvLaunch&, cudaStream_t);

}  // namespace wb::access
