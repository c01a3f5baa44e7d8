// Exercise, chapter 2 (shared memory): stage the transpose through a 32x32 shared-memory tile.
//
// Task: a block of 32x32 threads owns one 32x32 tile of A. Each thread reads one element of
// the tile along a row of A (coalesced) into shared memory; after a barrier, each thread writes
// one element of the tile's transpose along a row of B (coalesced as well). Guard both phases:
// tiles at the right and bottom edges are partly outside the matrix.
// Predict first: how many bytes does each warp store move now, against chapter 1?
// Check your work:  ./workbook grade ch02
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

[[maybe_unused]] constexpr int kCh02Tile = 32;

/// One 32x32 tile per block (or per loop iteration, if the grid is capped and the block loops
/// over tiles). TODO(1): declare the __shared__ tile, load it, synchronize, store the transpose.
/// If a block handles several tiles, think about what a second barrier is for.
__global__ void ch02_transpose_kernel(const float* __restrict__ A, int rows, int cols, int lda,
                                      float* __restrict__ B, int ldb) {
    // TODO(1): your kernel body.
    (void)A; (void)rows; (void)cols; (void)lda; (void)B; (void)ldb;
}

void transpose(const TransposeArgs& a, cudaStream_t stream) {
    check_transpose_args("ch02 transpose", a);
    if (a.rows == 0 || a.cols == 0) return;
    // TODO(2): launch blocks of kCh02Tile x kCh02Tile threads covering every tile (a 2D grid is
    // limited to 65535 blocks in y: a 1D grid of tiles avoids that), then WB_CHECK_LAUNCH().
    (void)stream;
    throw std::logic_error("ch02 transpose: not implemented yet (TODO in exercises/ch02_shared/transpose.cu)");
}

}  // namespace wb::ex::WB_EX_NS
