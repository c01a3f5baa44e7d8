// Exercise, chapter 4 (access pattern): padding against bank conflicts, and the partition-aware
// (diagonal) block order.
//
// Task 1 (graded for correctness and speed): chapter 3's kernel reads a column of a 32x32 float
// tile, 32 addresses 32 floats apart: all in one bank (White §3.2, Table 3.2). Pad the tile so a
// column read spans all 32 banks, and explain the bank of tile[tx][j] for tx = 0..31.
// Task 2 (reported: its correctness and speed are printed, not scored): transpose_diagonal() with
// the diagonal block order of Ruetsch & Micikevicius (White's reference [54], White §3.1 on
// partition camping): block t takes tile row by = t mod tiles_y and tile column
// bx = (t / tiles_y + by) mod tiles_x. Prove that this visits every tile once, then measure
// whether it still helps on your GPU (the T10 had 8 partitions of 256 bytes; today's GPUs hash).
// Check your work:  ./workbook grade ch04
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

[[maybe_unused]] constexpr int kCh04Tile = 32;
[[maybe_unused]] constexpr int kCh04Rows = 8;

/// TODO(1): chapter 3's kernel with a padded tile; TODO(3): the diagonal block order when
/// \p diagonal is true (the same kernel can serve both orders).
__global__ void ch04_transpose_kernel(const float* __restrict__ A, int rows, int cols, int lda,
                                      float* __restrict__ B, int ldb, bool diagonal) {
    // TODO(1), TODO(3): your kernel body.
    (void)A; (void)rows; (void)cols; (void)lda; (void)B; (void)ldb; (void)diagonal;
}

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch04 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    // TODO(2): launch in plain row order, then WB_CHECK_LAUNCH(). Delete the throw.
    (void)stream;
    throw std::logic_error("ch04 transpose: not implemented yet (TODO in exercises/ch04_access/transpose.cu)");
}

void transpose_diagonal(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch04 transpose_diagonal", a);
    if (a.rows == 0 || a.cols == 0) return;
    // TODO(4): launch in diagonal order, then WB_CHECK_LAUNCH(). Delete the throw.
    (void)stream;
    throw std::logic_error("ch04 transpose_diagonal: not implemented yet (TODO in exercises/ch04_access/transpose.cu)");
}

}  // namespace wb::ex::WB_EX_NS
