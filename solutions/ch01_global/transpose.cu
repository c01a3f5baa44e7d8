// Solution, chapter 1 (global memory): the naive out-of-place transpose B = A^T.
//
// One element per thread, straight from global memory (White's step 1, architecture §2). Thread i of a
// grid-stride loop takes element (r, c) = (i / cols, i % cols): a warp reads 32 consecutive
// floats of a row of A (coalesced: 128 bytes, 4 sectors) and writes them down a column of B,
// 32 floats ldb apart: 32 separate 32-byte sectors of which 4 bytes each are useful. The write
// side therefore moves ~8x the useful bytes; that waste is what chapter 2 removes.
// Layout and rules: exercises/exercise_transpose.hpp. Graded by: ./workbook grade ch01
#include "exercise_transpose.hpp"

#include "check.hpp"

namespace wb::ex::WB_EX_NS {
namespace {

__global__ void transpose_naive(const float* __restrict__ A, int rows, int cols, int lda,
                                float* __restrict__ B, int ldb) {
    const long long n = static_cast<long long>(rows) * cols;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const long long r = i / cols;
        const long long c = i - r * cols;
        B[c * ldb + r] = A[r * lda + c];
    }
}

}  // namespace

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch01 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    constexpr int kThreads = 256;
    const unsigned blocks = grid_for(static_cast<long long>(a.rows) * a.cols, kThreads);
    transpose_naive<<<blocks, kThreads, 0, stream>>>(a.A, a.rows, a.cols, a.lda, a.B, a.ldb);
    WB_CHECK_LAUNCH();
}

}  // namespace wb::ex::WB_EX_NS
