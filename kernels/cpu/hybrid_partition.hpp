/// \file hybrid_partition.hpp
/// \brief Which data each side of a hybrid call reads, as pure host arithmetic (unit-tested
///        without a GPU): the blocks a SYMV's rows need from the stored triangle, and the input
///        rows a band of the convolution's output needs. The hybrids (hybrid_symv.cpp,
///        hybrid_conv2d.cpp) copy and compute exactly these.
#pragma once

#include "blas_types.hpp"

namespace wb::hybrid {

/// A block of a column-major matrix: rows [row0, row0 + rows), columns [col0, col0 + cols).
struct Block {
    int row0 = 0, col0 = 0, rows = 0, cols = 0;
    bool empty() const { return rows <= 0 || cols <= 0; }
};

/// Rows [r0, r1) of y = alpha A x + beta y, with A symmetric and only `uplo`'s triangle stored,
/// as three products on stored elements only (row i of A is A(i, 0:n); the part of it outside the
/// stored triangle is stored as column i, transposed):
///   diag      A(r0:r1, r0:r1): a SYMV of its stored triangle (x(r0:r1));
///   direct    the stored block in the rows [r0, r1): a GEMV N (Lower: A(r0:r1, 0:r0) with
///             x(0:r0); Upper: A(r0:r1, r1:n) with x(r1:n));
///   mirrored  the stored block in the columns [r0, r1), whose transpose is the rest of those rows:
///             a GEMV T (Lower: A(r1:n, r0:r1) with x(r1:n); Upper: A(0:r0, r0:r1) with x(0:r0));
///   panel     the columns [r0, r1) of the stored triangle's side, diag and mirrored together, as
///             one block to copy (Lower: A(r0:n, r0:r1); Upper: A(0:r1, r0:r1)); the elements of
///             its diagonal block outside the triangle are copied but never read.
/// diag, direct and mirrored cover every element of the rows [r0, r1) exactly once; the GPU's rows
/// of a hybrid SYMV read n (r1 - r0) elements, as a GEMV of that band of the full matrix would,
/// and the CPU's rows [g, n) are the same plan with r1 = n (its mirrored block then empty for
/// Lower, its direct block empty for Upper). Throws std::invalid_argument unless
/// 0 <= r0 <= r1 <= n.
struct SymvRowsPlan {
    Block diag, direct, mirrored, panel;
};
SymvRowsPlan symv_rows_plan(Uplo uplo, int n, int r0, int r1);

/// A range of rows [begin, end).
struct RowRange {
    int begin = 0, end = 0;
};
/// The input rows the convolution's output rows [r0, r1) read: those within FS/2 of them, clipped
/// to the image [0, rows) (outside it the op reads zeros). An output row computed from this band
/// alone, with zeros outside the band, is the full image's row: every row it reads is in the band
/// or outside the image. Throws std::invalid_argument unless 0 <= r0 <= r1 <= rows and fs is odd
/// and >= 1.
RowRange conv2d_input_rows(int rows, int fs, int r0, int r1);

}  // namespace wb::hybrid
