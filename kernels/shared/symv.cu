/// \file shared/symv.cu
/// \brief Chapter 2 — SYMV with tiles of the symmetric matrix mirrored in shared memory (Nath et
///        al. SC'11, algorithm 1, "storage oblivious").
///
/// What changes against chapter 1: a block of 32 x block_y threads owns 32 rows of y and walks
/// the block row tile by tile. Each 32 x 32 tile of the full symmetric matrix is staged in shared
/// memory from the stored triangle, always with a warp reading 32 consecutive elements of a stored
/// column (coalesced): a tile of the stored triangle is copied as it is, a tile of the other
/// triangle is read from its stored mirror and written transposed, and a diagonal tile is read
/// once and written to both its halves. The slice of x the tile needs is staged once per tile and
/// read by every thread from shared memory. The tile is padded to 33 columns so that the
/// transposed writes and the row reads hit 32 different banks.
/// Model (common/model/symv): the stored triangle is still read twice (every off-diagonal tile
/// by the block row it lies in and by the one of its mirror): n^2 elements, all coalesced, the
/// 2x overhead of a storage-oblivious design (Nath §5). ceil(n / 32) blocks: at n = 1024, 32
/// blocks leave most SMs idle.
/// Follows: Nath et al. SC'11 §4, algorithm 1.
/// Run: ./workbook run ch02 -- --op symv       (SymvLaunch: nb = 32, block 32 x block_y, default 32x8)
#include "symv_common.cuh"

namespace wb::shared {
namespace {

constexpr int kNb = 32;     // tile size (= threads in x: one row of y per thread column)
constexpr int kMaxBy = 16;  // the largest block_y the partial-sum array holds

//! [shared-symv]
template <class T>
__global__ void symv_kernel(bool lower, int n, T alpha, const T* __restrict__ A, int lda, const T* __restrict__ x,
                            T beta, T* __restrict__ y) {
    __shared__ T tile[kNb][kNb + 1];  // tile[r][c] = element (row0 + r, col0 + c) of the symmetric matrix
    __shared__ T xs[kNb];
    __shared__ T part[kMaxBy][kNb];
    const int tx = threadIdx.x, ty = threadIdx.y, by = blockDim.y;
    const int I = blockIdx.x, row0 = I * kNb;
    T sum = 0;
    for (int J = 0; J * kNb < n; ++J) {
        const int col0 = J * kNb;
        if (ty == 0) xs[tx] = col0 + tx < n ? x[col0 + tx] : T(0);
        for (int c = ty; c < kNb; c += by) {
            if (I == J) {  // diagonal tile: read the stored half once, write it to both halves
                if (lower ? tx >= c : tx <= c) {
                    const int gi = row0 + tx, gj = row0 + c;
                    const T v = gi < n && gj < n ? A[gi + static_cast<long long>(gj) * lda] : T(0);
                    tile[tx][c] = v;
                    tile[c][tx] = v;
                }
            } else if (lower ? I > J : I < J) {  // a tile of the stored triangle, as it is
                const int gi = row0 + tx, gj = col0 + c;
                tile[tx][c] = gi < n && gj < n ? A[gi + static_cast<long long>(gj) * lda] : T(0);
            } else {  // the mirror of a stored tile: A(col0 + tx, row0 + c) is element (row0 + c, col0 + tx)
                const int gi = col0 + tx, gj = row0 + c;
                tile[c][tx] = gi < n && gj < n ? A[gi + static_cast<long long>(gj) * lda] : T(0);
            }
        }
        __syncthreads();
        for (int c = ty; c < kNb; c += by) sum += tile[tx][c] * xs[c];
        __syncthreads();
    }
    part[ty][tx] = sum;
    __syncthreads();
    const int i = row0 + tx;
    if (ty == 0 && i < n) {
        const T total = symv_detail::sum_parts(part, by, tx);  // fixed order: reproducible
        y[i] = beta == T(0) ? alpha * total : alpha * total + beta * y[i];
    }
}
//! [shared-symv]

}  // namespace

template <class T>
void symv(const SymvArgs<T>& a, const SymvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "shared::symv";
    const int nb = l.nb > 0 ? l.nb : kNb, bx = l.block_x > 0 ? l.block_x : kNb, by = l.block_y > 0 ? l.block_y : 8;
    symv_detail::require_launch(nb == kNb, fn, "nb", nb, "32 (the instantiated tile)");
    symv_detail::require_launch(bx == kNb, fn, "block_x", bx, "32 (one thread per row of the tile)");
    symv_detail::require_launch(by == 4 || by == 8 || by == 16, fn, "block_y", by, "4, 8 or 16");
    if (!symv_detail::symv_begin(a, fn, s)) return;
    const unsigned grid = symv_detail::grid_dim(symv_detail::ceil_div(a.n, kNb), kMaxGridX, fn);
    symv_kernel<T><<<grid, dim3(kNb, by), 0, s>>>(a.uplo == Uplo::Lower, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y);
    WB_CHECK_LAUNCH();
}

template void symv<float>(const SymvArgs<float>&, const SymvLaunch&, cudaStream_t);
template void symv<double>(const SymvArgs<double>&, const SymvLaunch&, cudaStream_t);

}  // namespace wb::shared
