// Known-wrong submission (tests/grading): the naive transpose written for the one size its
// author tested, 1000 x 1000: the leading dimensions are the constant 1000 instead of lda and
// ldb. It passes that case only (and 1x1), reads and writes far outside the matrices elsewhere
// (the run may end in an illegal address; the grader records that). Expected: zero correctness
// points in every class.
// grading: chapter=ch01_global zero=size,memcheck
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

constexpr long long kN = 1000;  // BUG: the test size, hard-coded

__global__ void hardcoded_kernel(const float* __restrict__ A, int rows, int cols, float* __restrict__ B) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= static_cast<long long>(rows) * cols) return;
    const long long r = i / cols, c = i % cols;
    B[c * kN + r] = A[r * kN + c];
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong hardcoded_size transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const long long n = static_cast<long long>(a.rows) * a.cols;
    hardcoded_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a.A, a.rows, a.cols, a.B);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
