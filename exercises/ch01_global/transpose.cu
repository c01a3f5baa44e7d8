// Exercise, chapter 1 (global memory): the naive out-of-place transpose B = A^T.
//
// Task: write a kernel in which each thread copies one element A(r, c) to B(c, r), straight
// from global memory, and launch it with enough threads to cover all rows x cols elements.
// Then predict: a warp of 32 threads reads 32 consecutive floats of a row of A; how many
// 32-byte sectors does its write to B touch? (Chapter 1 of the workbook; White §3.3.)
// Check your work:  ./workbook grade ch01      (prints the rubric; see docs/pages/student.md)
//
// Rules (the grader checks them; see docs/pages/student.md):
//   - Keep the launcher's signature and namespace exactly as given; edit only this file.
//   - Correct for EVERY size: rows, cols >= 1 of any value (1, 17, 1000x37, 4097, ...), and
//     lda > cols, ldb > rows (padding). Never read or write outside the matrices: the grader
//     surrounds them with guard bands and checks every bit of them.
//   - Write every B(c, r) exactly once, nothing else (B's padding columns stay untouched).
//   - Keep check_transpose_args() first and WB_CHECK_LAUNCH() after every launch.
//   - The output is compared bit-exactly with A; performance is timed against the reference
//     solution of this chapter in the same run.
// Layout: A row-major rows x cols (A[r * lda + c]); B row-major cols x rows (B[c * ldb + r]).
// Full contract: exercises/exercise_transpose.hpp.
#include "exercise_transpose.hpp"

#include "check.hpp"

#include <stdexcept>

namespace wb::ex::WB_EX_NS {

/// One element per thread. TODO(1): compute this thread's element index, turn it into (r, c),
/// and copy A[r * lda + c] to B[c * ldb + r] when the element exists. Use 64-bit (long long)
/// arithmetic for the index and the offsets, and a grid-stride loop if you cap the grid.
__global__ void ch01_transpose_kernel(const float* __restrict__ A, int rows, int cols, int lda,
                                      float* __restrict__ B, int ldb) {
    // TODO(1): your kernel body.
    (void)A; (void)rows; (void)cols; (void)lda; (void)B; (void)ldb;
}

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch01 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    // TODO(2): choose a block size, compute the grid (grid_for() in exercise_transpose.hpp
    // helps), launch ch01_transpose_kernel on `stream`, then WB_CHECK_LAUNCH(). Delete the throw.
    (void)stream;
    throw std::logic_error("ch01 transpose: not implemented yet (TODO in exercises/ch01_global/transpose.cu)");
}

}  // namespace wb::ex::WB_EX_NS
