// Exercise, chapter 1 (global memory): a strided batch of GEMVs in one launch.
//
// Contract, rules and the float64 reference: exercises/exercise_gemv_batched.hpp. What is given:
// the launcher below checks the arguments and handles BLAS's quick return. What you write: the
// kernel, and its launch, so that one launch computes every y_b of the batch. Chapter 1's step:
// one thread per output entry, reading A and x straight from global memory; choose which
// thread takes which (b, k) so that the threads of a warp read neighbouring addresses of A
// (A is column-major: for 'N' the rows of one column are adjacent; for 'T' they are not).
// Mind beta == 0 (y is not read), the strides and the increments, and a batch too large for one
// grid pass (use grid_for() and a grid-stride loop).
#include "exercise_gemv_batched.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void gemv_batched_kernel(GemvBatchedArgs a) {
    (void)a;  // TODO: y_b[k] = alpha * sum_l op(A_b)(k, l) * x_b[l] + beta * y_b[k]
}

}  // namespace

void gemv_batched(const GemvBatchedArgs& a, cudaStream_t stream) {
    check_gemv_batched_args("ch01 gemv_batched", a);
    if (gemv_batched_quick_return(a)) return;
    constexpr int kThreads = 256;
    const unsigned blocks = grid_for(a.batch * gemv_y_len(a), kThreads);
    gemv_batched_kernel<<<blocks, kThreads, 0, stream>>>(a);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
