/// \file exercise_transpose.hpp
/// \brief The transpose exercise track's contract (chapters 1-5): the argument block every
///        `transpose.cu` receives, the rules its launcher checks, and the names the grader calls.
///
/// Layout (decided once for the whole track):
///   - `A` is `rows x cols`, **row-major**, element (r, c) at `A[r * lda + c]`, `lda >= max(1, cols)`;
///   - `B` is `cols x rows`, row-major, element (c, r) at `B[c * ldb + r]`, `ldb >= max(1, rows)`;
///   - the operation is out of place: `B(c, r) = A(r, c)` for every `r < rows`, `c < cols`, and
///     nothing else is written (padding columns of `B` between `rows` and `ldb` stay untouched).
/// Read column-major, the same bytes are a `cols x rows` column-major `A` with leading dimension
/// `lda` transposed into a column-major `B`: the BLAS convention of architecture §3 gives the same code.
/// A transpose moves bits and computes nothing, so the grader compares outputs bit-exactly.
///
/// Every chapter's file defines, in `namespace wb::ex::WB_EX_NS` (the build compiles each file
/// twice, as the submission and as the reference, under different names):
/// \code
///   void transpose(const TransposeArgs& args, cudaStream_t stream);
/// \endcode
/// and chapter 4 also `transpose_diagonal` (same signature: diagonal block ordering).
#pragma once

#include "exercise_grid.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#ifndef WB_EX_NS
/// The namespace a compiled exercise file lands in; the build passes e.g. -DWB_EX_NS=sub_ch03_pattern.
#define WB_EX_NS submission
#endif

namespace wb::ex {

/// Arguments of one out-of-place transpose `B = A^T` (see the file comment for the layout).
struct TransposeArgs {
    int rows = 0;             ///< rows of A (= columns of B), >= 0
    int cols = 0;             ///< columns of A (= rows of B), >= 0
    const float* A = nullptr; ///< device pointer, row-major rows x cols
    int lda = 1;              ///< >= max(1, cols)
    float* B = nullptr;       ///< device pointer, row-major cols x rows
    int ldb = 1;              ///< >= max(1, rows)
};

/// The launcher every exercise file defines.
using TransposeFn = void (*)(const TransposeArgs&, cudaStream_t);

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the function,
/// the argument, its value and the rule (architecture §3), e.g.
/// "ch02 transpose: lda (5) must be >= max(1, cols) (8)". Sizes of zero are valid no-ops
/// (then the pointers may be null).
inline void check_transpose_args(const char* fn, const TransposeArgs& a) {
    auto fail = [fn](const std::string& what) {
        throw std::invalid_argument(std::string(fn) + ": " + what);
    };
    if (a.rows < 0) fail("rows (" + std::to_string(a.rows) + ") must be >= 0");
    if (a.cols < 0) fail("cols (" + std::to_string(a.cols) + ") must be >= 0");
    const int min_lda = a.cols > 1 ? a.cols : 1;
    const int min_ldb = a.rows > 1 ? a.rows : 1;
    if (a.lda < min_lda)
        fail("lda (" + std::to_string(a.lda) + ") must be >= max(1, cols) (" + std::to_string(min_lda) + ")");
    if (a.ldb < min_ldb)
        fail("ldb (" + std::to_string(a.ldb) + ") must be >= max(1, rows) (" + std::to_string(min_ldb) + ")");
    if (a.rows == 0 || a.cols == 0) return;
    if (a.A == nullptr) fail("A (null) must point to device memory when rows and cols are > 0");
    if (a.B == nullptr) fail("B (null) must point to device memory when rows and cols are > 0");
    // Out of place: the byte ranges the call reads and writes must not overlap.
    const auto a0 = reinterpret_cast<std::uintptr_t>(a.A);
    const auto a1 = a0 + (static_cast<std::size_t>(a.rows - 1) * a.lda + a.cols) * sizeof(float);
    const auto b0 = reinterpret_cast<std::uintptr_t>(a.B);
    const auto b1 = b0 + (static_cast<std::size_t>(a.cols - 1) * a.ldb + a.rows) * sizeof(float);
    if (a0 < b1 && b0 < a1) fail("A and B (overlapping ranges) must not overlap: the transpose is out of place");
}

}  // namespace wb::ex
