// Exercise, chapter 5 (unrolled, more work per thread): SYRK with register blocking,
// C = alpha op(A) op(A)^T + beta C on one triangle.
//
// Contract, rules and the float64 reference: exercises/exercise_syrk.hpp (chapter 2's SYRK: the
// same SyrkArgs, the same launcher name syrk(), the same BLAS conventions: only the `uplo`
// triangle of C is read and written, nothing in the other triangle, the padding rows between n
// and ldc, or after C; with beta == 0 C is only written, never read (a NaN there must not come
// through); with alpha == 0 or k == 0, A is not read; n == 0, or alpha or k 0 with beta == 1:
// nothing is touched).
//
// What is given: the launcher (argument checks, the quick return, a 16 x 16 block per 64 x 64
// tile of C, the tiles of the triangle only, numbered row by row, in a grid-stride loop from
// grid_for()) and triangle_tile(), the tile the t-th number stands for. What you write: the
// kernel, with chapter 5's step: each thread computes a 4 x 4 tile of C in registers (rows
// tx + 16 a and columns ty + 16 b, a, b < 4, so that a half-warp's reads of shared memory and
// writes of C stay on 16 neighbouring words), from 16-wide slabs of op(A) staged in shared memory
// (the tile's 64 rows and its 64 columns: one matrix, read twice; zeros for reads past n or k).
// Each value read from shared memory then feeds four FMAs instead of one. Mind the barriers (a
// slab complete before it is read, and read by everyone before the next overwrites it), the tiles
// the diagonal crosses (write only the triangle's entries), the edges, and beta == 0.
#include "exercise_syrk.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kThreads = 16;            // threads per block side
constexpr int kReg = 4;                 // results per thread side
constexpr int kTile = kThreads * kReg;  // 64: the side of a block's tile of C

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
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        long long bi, bj;
        triangle_tile(a, t, bi, bj);
        // TODO: the 64 x 64 tile of C at rows bi * 64.., columns bj * 64..: a 4 x 4 register tile
        // per thread, op(A) staged in 16-wide slabs, only the triangle's entries written.
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
