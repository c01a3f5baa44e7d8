// Exercise, chapter 2 (shared memory): SYRK, C = alpha op(A) op(A)^T + beta C on one triangle.
//
// Contract, rules and the float64 reference: exercises/exercise_syrk.hpp. What is given: the
// launcher (argument checks, BLAS's quick return, one 16x16 block per 16x16 tile of C). What you
// write: the kernel. Chapter 2's step, as chapter 2's GEMM takes it: stage 16-wide slabs of
// op(A) in shared memory, once for the tile's rows and once for its columns (the same matrix),
// and accumulate from there. Then the SYRK part: a block whose tile lies wholly outside the
// `uplo` triangle does nothing, and a tile the diagonal crosses writes only its triangle's
// entries. Mind the barriers (a slab is complete before it is read, and read by everyone before
// it is overwritten), the edges (n and k need not be multiples of 16), beta == 0 (C is not
// read), and alpha == 0 or k == 0 (A is not read).
#include "exercise_syrk.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kTile = 16;

__global__ void syrk_tiled(SyrkArgs a) {
    (void)a;  // TODO: C(i, j) = alpha * sum_p op(A)(i, p) op(A)(j, p) + beta * C(i, j) on the triangle
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
