/// \file pattern/symv.cu
/// \brief Chapter 3 — SYMV reading the stored triangle once (Nath et al. SC'11, algorithm 2,
///        "storage aware"): each off-diagonal tile is used twice, partial results go to a
///        workspace, and a second pass reduces them in a fixed order.
///
/// What changes against chapter 2: the computation pattern. Block I (32 x block_y threads) walks
/// only the stored tiles of its block row (lower: tiles (I, 0..I); upper: (I, I..nt-1)). An
/// off-diagonal tile A_IJ is staged once in shared memory and used for two products:
///   A_IJ x_J    (rows of block I: accumulated in registers over the walk), and
///   A_IJ^T x_I  (rows of block J: belongs to another block, so it is written to the workspace
///               column I, rows of J).
/// The diagonal tile is mirrored in shared memory as in chapter 2. At the end each block writes
/// its own rows' sum to W(rows of I, I); the reduction pass (symv_common.cu) adds, for every row,
/// the nt - b (lower) or b + 1 (upper) partials of its tile row b in a fixed order and applies
/// alpha and beta. Nothing is atomic: the result is bit-identical run to run. Blocks with the
/// longest walks are launched first (lower: the last block row).
/// Model (common/model/symv): the triangle is read once (n(n+1)/2 elements, about half of
/// chapter 2), plus the workspace: n x nt partials written and read back (nt = ceil(n / 32)), the
/// overhead of Nath §5 (2 n^2 / 32 elements: 6% of the triangle in float).
/// Not done: Nath's recursive blocking (§6.2) of the diagonal tiles; the 32 x 32 diagonal tile is
/// mirrored whole.
/// Follows: Nath et al. SC'11 §4, algorithm 2; §5 for the workspace overhead.
/// Run: ./workbook run ch03 -- --op symv       (SymvLaunch: nb = 32, block 32 x block_y, default 32x8)
#include "symv_common.cuh"

namespace wb::pattern {
namespace {

constexpr int kNb = 32;
constexpr int kMaxBy = 8;

//! [pattern-symv]
template <class T>
__global__ void symv_kernel(bool lower, int n, int nt, const T* __restrict__ A, int lda, const T* __restrict__ x,
                            T* __restrict__ W) {
    __shared__ T tile[kNb][kNb + 1];  // tile[r][c] = A(row0 + r, col0 + c)
    __shared__ T xi[kNb], xj[kNb];
    __shared__ T part[kMaxBy][kNb];
    const int tx = threadIdx.x, ty = threadIdx.y, by = blockDim.y;
    // The longest walks first: lower block row I has I + 1 tiles, upper nt - I.
    const int I = lower ? nt - 1 - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);
    const int row0 = I * kNb;
    if (ty == 0) xi[tx] = row0 + tx < n ? x[row0 + tx] : T(0);
    T own = 0;  // row row0 + tx of A_I* x, the part over this thread's columns
    const int j0 = lower ? 0 : I, j1 = lower ? I : nt - 1;
    for (int J = j0; J <= j1; ++J) {
        const int col0 = J * kNb;
        if (ty == 0) xj[tx] = col0 + tx < n ? x[col0 + tx] : T(0);
        const int gi = row0 + tx;
        for (int c = ty; c < kNb; c += by) {
            const int gj = col0 + c;
            if (J != I) {
                tile[tx][c] = gi < n && gj < n ? A[gi + static_cast<long long>(gj) * lda] : T(0);
            } else if (lower ? tx >= c : tx <= c) {  // diagonal: the stored half, mirrored
                const T v = gi < n && gj < n ? A[gi + static_cast<long long>(gj) * lda] : T(0);
                tile[tx][c] = v;
                tile[c][tx] = v;
            }
        }
        __syncthreads();
        for (int c = ty; c < kNb; c += by) own += tile[tx][c] * xj[c];
        if (J != I) {  // A_IJ^T x_I: column tx of the tile, rows ty, ty + by, ...
            T t = 0;
            for (int r = ty; r < kNb; r += by) t += tile[r][tx] * xi[r];
            part[ty][tx] = t;
            __syncthreads();
            if (ty == 0 && col0 + tx < n)
                W[col0 + tx + static_cast<long long>(I) * n] = symv_detail::sum_parts(part, by, tx);  // W(rows of J, I)
        }
        __syncthreads();
    }
    part[ty][tx] = own;
    __syncthreads();
    if (ty == 0 && row0 + tx < n)
        W[row0 + tx + static_cast<long long>(I) * n] = symv_detail::sum_parts(part, by, tx);  // W(rows of I, I)
}
//! [pattern-symv]

}  // namespace

template <class T>
void symv(const SymvArgs<T>& a, const SymvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "pattern::symv";
    const int nb = l.nb > 0 ? l.nb : kNb, bx = l.block_x > 0 ? l.block_x : kNb, by = l.block_y > 0 ? l.block_y : 8;
    symv_detail::require_launch(nb == kNb, fn, "nb", nb, "32 (the instantiated tile)");
    symv_detail::require_launch(bx == kNb, fn, "block_x", bx, "32 (one thread per row of the tile)");
    symv_detail::require_launch(by == 4 || by == 8, fn, "block_y", by, "4 or 8");
    if (!symv_detail::symv_begin(a, fn, s)) return;
    const int nt = static_cast<int>(symv_detail::ceil_div(a.n, kNb));
    T* W = symv_detail::workspace<T>(static_cast<std::size_t>(a.n) * nt, s);
    const bool lower = a.uplo == Uplo::Lower;
    symv_kernel<T><<<symv_detail::grid_dim(nt, kMaxGridX, fn), dim3(kNb, by), 0, s>>>(lower, a.n, nt, a.A, a.lda,
                                                                                         a.x, W);
    WB_CHECK_LAUNCH();
    // Lower: row tile b gathers W(., b .. nt-1); upper: W(., 0 .. b).
    symv_detail::reduce(a, W, kNb, nt, /*from_start=*/!lower, /*skip=*/0, /*extra=*/0, s);
}

template void symv<float>(const SymvArgs<float>&, const SymvLaunch&, cudaStream_t);
template void symv<double>(const SymvArgs<double>&, const SymvLaunch&, cudaStream_t);

}  // namespace wb::pattern
