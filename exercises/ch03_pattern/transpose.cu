// Exercise, chapter 3 (computation pattern): several elements per thread.
//
// Task: keep chapter 2's 32x32 tile, but move it with a block of 32x8 threads: each thread
// loads four elements (tile rows ty, ty+8, ty+16, ty+24) and, after the barrier, stores four.
// Unroll those loops. Predict first: what changes in threads per tile, loads in flight per
// thread, barrier cost and resident blocks per SM? Measure it against chapter 2.
// Check your work:  ./workbook grade ch03
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

[[maybe_unused]] constexpr int kCh03Tile = 32;  ///< tile edge
[[maybe_unused]] constexpr int kCh03Rows = 8;   ///< thread rows per block: kCh03Tile / kCh03Rows elements per thread

/// TODO(1): load the tile with 32x8 threads (4 rows each), barrier, store 4 elements each.
__global__ void ch03_transpose_kernel(const float* __restrict__ A, int rows, int cols, int lda,
                                      float* __restrict__ B, int ldb) {
    // TODO(1): your kernel body.
    (void)A; (void)rows; (void)cols; (void)lda; (void)B; (void)ldb;
}

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch03 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    // TODO(2): launch dim3(kCh03Tile, kCh03Rows) blocks over every tile, then WB_CHECK_LAUNCH().
    (void)stream;
    throw std::logic_error("ch03 transpose: not implemented yet (TODO in exercises/ch03_pattern/transpose.cu)");
}

}  // namespace wb::ex::WB_EX_NS
