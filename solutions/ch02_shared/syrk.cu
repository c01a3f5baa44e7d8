// Solution, chapter 2 (shared memory): SYRK, C = alpha op(A) op(A)^T + beta C on one triangle.
//
// GEMM's shared-memory step with one operand: block (bx, by) computes the 16x16 tile of C at
// rows by*16.., columns bx*16.., and for every 16-wide slab of the k dimension stages the slab's
// rows of op(A) for its rows (tile_i) and for its columns (tile_j) in shared memory; each value
// is then read 16 times from shared memory instead of global. The two stagings read the same
// matrix, and on the diagonal the same rows. A tile wholly outside the triangle returns before
// loading anything (about half the blocks: SYRK does half of GEMM's work); a tile the diagonal
// crosses computes all of it and writes only its triangle's entries. Zeros stand in for reads
// past n or k, so the edges need no test in the inner loop.
// Contract and rules: exercises/exercise_syrk.hpp.
#include "exercise_syrk.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 16;

__global__ void syrk_tiled(SyrkArgs a) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long i0 = static_cast<long long>(blockIdx.y) * kTile, j0 = static_cast<long long>(blockIdx.x) * kTile;
    // The whole tile is outside the triangle when even its corner nearest to the diagonal is.
    if (a.uplo == 'L' ? i0 + kTile - 1 < j0 : i0 > j0 + kTile - 1) return;
    __shared__ float tile_i[kTile][kTile + 1];  // [row of the tile][p]; +1: the column reads hit 16 banks
    __shared__ float tile_j[kTile][kTile + 1];
    // The element of the slab this thread stages: threadIdx.x runs along A's contiguous direction
    // (the rows of A for 'N', the p of A^T for 'T'), so a half-warp reads 64 contiguous bytes.
    const int r_off = a.trans == 'N' ? tx : ty, p_off = a.trans == 'N' ? ty : tx;
    const bool reads_a = a.alpha != 0.0f && a.k > 0;
    float acc = 0.0f;
    for (int p0 = 0; reads_a && p0 < a.k; p0 += kTile) {
        const long long p = p0 + p_off;
        auto load = [&](long long r) {
            if (r >= a.n || p >= a.k) return 0.0f;
            return a.trans == 'N' ? a.A[r + p * a.lda] : a.A[p + r * a.lda];
        };
        tile_i[r_off][p_off] = load(i0 + r_off);
        tile_j[r_off][p_off] = load(j0 + r_off);
        __syncthreads();  // the slab is staged
        for (int q = 0; q < kTile; ++q) acc += tile_i[tx][q] * tile_j[ty][q];
        __syncthreads();  // everyone is done with it before the next slab overwrites it
    }
    // threadIdx.x runs down a column of C: the warp's writes are contiguous.
    const long long i = i0 + tx, j = j0 + ty;
    if (i >= a.n || j >= a.n || !syrk_in_triangle(a, i, j)) return;
    float* c = a.C + i + j * a.ldc;
    *c = a.beta == 0.0f ? a.alpha * acc : a.alpha * acc + a.beta * *c;
}

}  // namespace

void syrk(const SyrkArgs& a, cudaStream_t stream) {
    check_syrk_args("ch02 syrk", a);
    if (syrk_quick_return(a)) return;
    const unsigned tiles = static_cast<unsigned>((a.n + kTile - 1) / kTile);
    syrk_tiled<<<dim3(tiles, tiles), dim3(kTile, kTile), 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
