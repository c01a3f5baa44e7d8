// Exercise, chapter 3 (the computation pattern): GBMV, y = alpha op(A) x + beta y, A banded.
//
// Contract, rules, band storage and the float64 reference: exercises/exercise_gbmv.hpp. What is
// given: the launcher (argument checks, BLAS's quick return, blocks of 32 x 8 threads, a grid
// from grid_for()). What you write: the kernel, with chapter 3's Q threads per result: a block
// owns 32 consecutive results, thread (tx, ty) sums every 8th term of result tx's band, and the
// 8 partial sums are added through shared memory before one thread writes y. Mind the band's
// bounds (clip them to the matrix: the first and last rows have shorter bands), the barriers
// (the partial sums must all be in before they are added, and added before they are
// overwritten), beta == 0 (y is not read), and a grid smaller than the number of row blocks
// (a grid-stride loop that all threads of a block take together).
#include "exercise_gbmv.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr int kResults = 32;  // per block: threadIdx.x
constexpr int kQ = 8;         // threads per result: threadIdx.y

__global__ void gbmv_q(GbmvArgs a) {
    (void)a;  // TODO: y_k = alpha * sum over the band of op(A)(k, l) x_l + beta * y_k
}

}  // namespace

void gbmv(const GbmvArgs& a, cudaStream_t stream) {
    check_gbmv_args("ch03 gbmv", a);
    if (gbmv_quick_return(a)) return;
    const unsigned blocks = grid_for(a.trans == 'N' ? a.m : a.n, kResults);
    gbmv_q<<<blocks, dim3(kResults, kQ), 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
