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
/// chunk are the panel of its columns and the block of its rows (2-D copies). Neither side ever
/// reads the other triangle (it may hold anything, NaN included), as SYMV's contract says.
///
/// The rectangle between the two sides' rows. The CPU's rows [g, n) need their diagonal block and
/// the stored block beside it, which the GPU's chunks have already copied (it is the part of their
/// columns, or rows, that lies in the CPU's rows). Were the CPU to read it again, the CPU's share
/// would read (n - g)(n + g) / 2 elements, nearly the whole triangle for a small g. So the GPU
/// adds that block's part of the CPU's rows too, into one array y_low on the device, copied back
/// after its last chunk; the CPU runs one SYMV of its diagonal block (OpenBLAS), and once both
/// sides have stopped the call adds y_low into y(g:n). The two sides then move n g + (n - g)^2 / 2
/// elements: the triangle's n^2 / 2 and g^2 / 2 more, the rectangle between the GPU's own chunks,
/// which each chunk's row block and an earlier chunk's panel both hold (the GPU's rows read as a
/// GEMV of its band would). gpu_rows = n with chunk_rows = n is the all-GPU call: the whole array
/// (both triangles' places: one 2-D copy) and one SYMV.
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
