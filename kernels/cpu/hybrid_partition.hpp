/// \file hybrid_partition.hpp
/// \brief Which data each side of a hybrid call reads, as pure host arithmetic (unit-tested
///        without a GPU): the blocks of the stored triangle a SYMV's share of columns copies and
///        the products it runs on them, and the input
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

/// A range of rows [begin, end).
struct RowRange {
    int begin = 0, end = 0;
};

/// y = alpha A x + beta y with A symmetric and only `uplo`'s triangle stored, split by columns of
/// the stored triangle. Row i of A is A(i, 0:n); the part of it outside the stored triangle is
/// stored as column i, transposed. So a block of whole stored columns [c0, c1) (the chunk's
/// panel) holds everything those columns add to y, for every row:
///   diag  A(c0:c1, c0:c1): a SYMV of its stored triangle adds to y(c0:c1);
///   off   the rest of the panel (Lower: A(c1:n, c0:c1); Upper: A(0:c0, c0:c1)): a GEMV T adds
///         off^T x(off's rows) to y(c0:c1), a GEMV N adds off x(c0:c1) to y(off's rows);
///   panel diag and off, one block to copy (Lower: A(c0:n, c0:c1); Upper: A(0:c1, c0:c1)), each
///         column a contiguous run of the stored triangle; the elements of its diagonal block
///         outside the triangle are copied but never read.
/// The GPU's share of a hybrid SYMV is g whole stored columns and the rows with the same indices
/// (symv_gpu_rows: Lower [0, g), Upper [n - g, n)), taken chunk by chunk in the order
/// symv_gpu_chunk gives (Lower from the first column, Upper from the last). Then a chunk's rows
/// are complete after the chunk: what the columns beyond its off block add to them came from the
/// earlier chunks' GEMV N, and the rest from its own three products. The CPU's rows (the others)
/// are one SYMV of their diagonal block plus what the GPU's GEMV N added to them. Each stored
/// element of the GPU's columns crosses the link once, in runs a whole column long.
/// Throws std::invalid_argument unless 0 <= c0 <= c1 <= n.
struct SymvColumnsPlan {
    Block diag, off, panel;
};
SymvColumnsPlan symv_columns_plan(Uplo uplo, int n, int c0, int c1);
/// The GPU's rows (and columns) of a hybrid SYMV with g of n rows on the GPU: Lower [0, g), Upper
/// [n - g, n). Throws std::invalid_argument unless 0 <= g <= n.
RowRange symv_gpu_rows(Uplo uplo, int n, int g);
/// The CPU's rows, the others: Lower [g, n), Upper [0, n - g). Same rule.
RowRange symv_cpu_rows(Uplo uplo, int n, int g);
/// The columns of the GPU's k-th chunk in its order, where the chunks [r0, r0 + c) cut [0, g)
/// from the start: Lower [r0, r0 + c), Upper [n - r0 - c, n - r0). Throws std::invalid_argument
/// unless 0 <= r0 <= r0 + c <= g <= n.
RowRange symv_gpu_chunk(Uplo uplo, int n, int g, int r0, int c);

/// The balanced hybrid SYMV's axis of equal work. Ordinal k is the k-th stored column in the GPU's
/// order (Lower: column k; Upper: column n - 1 - k), holding n - k stored elements: the columns the
/// GPU takes first are the longest, those the CPU takes first (from the other end) the shortest. A
/// split that balances by time must count elements, not columns, so the balanced call splits n
/// units of equal work (each (n + 1) / 2 stored elements): unit u begins at ordinal
/// symv_ordinal_at(n, u), the first ordinal whose columns before it hold at least u (n + 1) / 2
/// elements. Non-decreasing in u, 0 at u = 0 and n at u = n; consecutive units' ordinals tile
/// [0, n), a unit near the GPU's end holding about half a column, one near the CPU's end many.
/// Throws std::invalid_argument unless n >= 0 and 0 <= u <= n.
int symv_ordinal_at(int n, int u);
/// The units whose work the first k ordinals hold, rounded to the nearest (the model's share of
/// rows as units). Same rule for k.
int symv_units_of(int n, int k);
/// The stored columns of ordinals [o0, o1): Lower [o0, o1), Upper [n - o1, n - o0). Throws
/// std::invalid_argument unless 0 <= o0 <= o1 <= n.
RowRange symv_ordinal_columns(Uplo uplo, int n, int o0, int o1);

/// The input rows the convolution's output rows [r0, r1) read: those within FS/2 of them, clipped
/// to the image [0, rows) (outside it the op reads zeros). An output row computed from this band
/// alone, with zeros outside the band, is the full image's row: every row it reads is in the band
/// or outside the image. Throws std::invalid_argument unless 0 <= r0 <= r1 <= rows and fs is odd
/// and >= 1.
RowRange conv2d_input_rows(int rows, int fs, int r0, int r1);

}  // namespace wb::hybrid
