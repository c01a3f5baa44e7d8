// Known-wrong submission (tests/grading): a naive 2D transpose whose guard tests `cols` twice
// (r < cols instead of r < rows). Where rows < cols its last thread rows read past the end of A
// (the grader's NaN guard band, so nothing crashes) and write what they read beyond B's last
// row; where rows > cols rows of A are never copied. Squares pass. Expected: zero correctness
// points in every class (each has rows < cols and rows > cols cases).
// grading: chapter=ch01_global zero=size,memcheck
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void oob_kernel(const float* __restrict__ A, int rows, int cols, int lda, float* __restrict__ B, int ldb) {
    const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long r = static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y;
    (void)rows;
    if (r < cols && c < cols) B[c * ldb + r] = A[r * lda + c];  // BUG: r < rows
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("wrong oob_read transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    const dim3 block(32, 8);
    const dim3 grid(static_cast<unsigned>((a.cols + 31) / 32), static_cast<unsigned>((a.rows + 7) / 8));
    oob_kernel<<<grid, block, 0, stream>>>(a.A, a.rows, a.cols, a.lda, a.B, a.ldb);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
