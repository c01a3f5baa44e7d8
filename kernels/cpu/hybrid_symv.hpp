/// \file hybrid_symv.hpp
/// \brief Chapter 7's hybrid SYMV: one call y = alpha A x + beta y on host data, A symmetric with
///        only `uplo`'s triangle stored, computed by the GPU and the CPU at once. The GPU computes
///        the rows [0, gpu_rows) of y, chunk by chunk, the CPU the rest, into the same host array.
///
/// Which data a share of rows needs. Row i of A is its whole row, but only one triangle is stored:
/// the part of row i outside it is stored as column i. So the rows [r0, r1) need the stored block
/// in those rows and the stored block in those columns (hybrid_partition.hpp, symv_rows_plan):
/// together n (r1 - r0) elements, what a GEMV on that band of the full matrix reads. The GPU runs
/// each chunk as the band's GEMV would, from the stored triangle only: a SYMV of the diagonal
/// block, a GEMV N of the stored block in its rows and a GEMV T of the stored block in its
/// columns, all three the tuned steps (chapter 5), accumulating into the chunk's y. Its copies per
/// chunk are the panel of its columns and the block of its rows (2-D copies). The CPU's rows
/// [g, n) are one SYMV of their diagonal block and one GEMV of the rest (OpenBLAS). Neither side
/// ever reads the other triangle (it may hold anything, NaN included), as SYMV's contract says.
///
/// The price of the split: the symmetric storage lets a SYMV read each stored element once for two
/// outputs, but the split's two sides both need the rectangle between their rows, so the hybrid
/// moves more than the triangle: the GPU's share reads n g elements where the CPU alone would
/// read about g n - g^2 / 2 for the same rows. gpu_rows = n with chunk_rows = n is the all-GPU call:
/// the whole array (both triangles' places: one 2-D copy) and one SYMV.
///
/// The contract (hybrid_common.hpp): returns when both sides have finished and every copy is
/// complete; a failure on either side surfaces as an exception after both have stopped, with y
/// unspecified. Arguments: validate_symv (named "hybrid::symv": incx = incy = 1),
/// 0 <= gpu_rows <= n, chunk_rows >= 1.
#pragma once

#include "symv.hpp"

namespace wb::hybrid {

template <class T>
void symv(const SymvArgs<T>& host, int gpu_rows, int chunk_rows);

}  // namespace wb::hybrid
