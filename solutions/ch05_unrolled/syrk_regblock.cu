// Solution, chapter 5 (unrolled, more work per thread): SYRK with register blocking,
// C = alpha op(A) op(A)^T + beta C on one triangle.
//
// Chapter 5's step on chapter 2's SYRK: each thread keeps a 4 x 4 tile of C in registers, so a
// 16 x 16 block computes a 64 x 64 tile of C and every value read from shared memory feeds four
// FMAs instead of one. The blocks walk only the tiles of the `uplo` triangle (T (T + 1) / 2 of
// the T x T tiles, numbered row by row of the triangle, in a grid-stride loop), so no block is
// launched for the other half. For each 16-wide slab of the k dimension the block stages op(A)'s
// 64 rows for the tile's rows and 64 for its columns (one matrix, read twice), each thread
// loading four elements along A's contiguous direction. Thread (tx, ty) owns rows tx + 16 a and
// columns ty + 16 b (a, b < 4): a half-warp reads 16 neighbouring words of the staged slab and
// writes 16 neighbouring entries of a column of C. Tiles the diagonal crosses write only their
// triangle's entries; with beta == 0 C is only written.
// Contract and rules: exercises/exercise_syrk.hpp.
#include "exercise_syrk.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 16;          // threads per block side
constexpr int kReg = 4;               // results per thread side
constexpr int kTile = kThreads * kReg;  // 64: the side of a block's tile of C
constexpr int kSlab = 16;             // the k-width of a staged slab

// Row block and column block of the t-th tile of the triangle (row by row: (0,0), (1,0), (1,1) ...
// for 'L'; the transpose for 'U').
__device__ void triangle_tile(const SyrkArgs& a, long long t, long long& bi, long long& bj) {
    long long r = static_cast<long long>((sqrt(8.0 * static_cast<double>(t) + 1.0) - 1.0) / 2.0);
    while (r * (r + 1) / 2 > t) --r;  // the double's rounding, corrected
    while ((r + 1) * (r + 2) / 2 <= t) ++r;
    const long long c = t - r * (r + 1) / 2;
    bi = a.uplo == 'L' ? r : c;
    bj = a.uplo == 'L' ? c : r;
}

__global__ void syrk_regblock(SyrkArgs a, long long tiles) {
    __shared__ float slab_i[kSlab][kTile + 1];  // [p][row of the tile]
    __shared__ float slab_j[kSlab][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kThreads + tx;
    const bool reads_a = a.alpha != 0.0f && a.k > 0;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        long long bi, bj;
        triangle_tile(a, t, bi, bj);
        const long long i0 = bi * kTile, j0 = bj * kTile;
        float acc[kReg][kReg] = {};
        for (int p0 = 0; reads_a && p0 < a.k; p0 += kSlab) {
#pragma unroll
            for (int s = 0; s < kReg; ++s) {
                // 'N': a warp's lanes take 32 neighbouring rows of one column of A; 'T': 16
                // neighbouring p of one row of A^T, two rows.
                const int e = tid + s * kThreads * kThreads;
                const int r = a.trans == 'N' ? e % kTile : e / kSlab, p = a.trans == 'N' ? e / kTile : e % kSlab;
                const long long pp = p0 + p;
                auto load = [&](long long row) {
                    if (row >= a.n || pp >= a.k) return 0.0f;
                    return a.trans == 'N' ? a.A[row + pp * a.lda] : a.A[pp + row * a.lda];
                };
                slab_i[p][r] = load(i0 + r);
                slab_j[p][r] = load(j0 + r);
            }
            __syncthreads();  // the slab is staged
#pragma unroll
            for (int q = 0; q < kSlab; ++q) {
                float ai[kReg], aj[kReg];
#pragma unroll
                for (int u = 0; u < kReg; ++u) {
                    ai[u] = slab_i[q][tx + kThreads * u];
                    aj[u] = slab_j[q][ty + kThreads * u];
                }
#pragma unroll
                for (int u = 0; u < kReg; ++u)
#pragma unroll
                    for (int v = 0; v < kReg; ++v) acc[u][v] += ai[u] * aj[v];
            }
            __syncthreads();  // everyone is done with the slab before the next one overwrites it
        }
#pragma unroll
        for (int v = 0; v < kReg; ++v)
#pragma unroll
            for (int u = 0; u < kReg; ++u) {
                const long long i = i0 + tx + kThreads * u, j = j0 + ty + kThreads * v;
                if (i >= a.n || j >= a.n || !syrk_in_triangle(a, i, j)) continue;
                float* c = a.C + i + j * a.ldc;
                *c = a.beta == 0.0f ? a.alpha * acc[u][v] : a.alpha * acc[u][v] + a.beta * *c;
            }
    }
}

}  // namespace

void syrk(const SyrkArgs& a, cudaStream_t stream) {
    check_syrk_args("ch05 syrk_regblock", a);
    if (syrk_quick_return(a)) return;
    const long long per_side = (a.n + kTile - 1) / kTile, tiles = per_side * (per_side + 1) / 2;
    syrk_regblock<<<grid_for(tiles, 1), dim3(kThreads, kThreads), 0, stream>>>(a, tiles);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
