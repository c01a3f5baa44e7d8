/// \file hybrid_symv.hpp
/// \brief Chapter 7's hybrid SYMV: one call y = alpha A x + beta y on host data, A symmetric with
///        only `uplo`'s triangle stored, computed by the GPU and the CPU at once. The GPU computes
///        gpu_rows rows of y (Lower: the first ones, Upper: the last ones), chunk by chunk, the CPU
///        the rest, into the same host array.
///
/// Which data a share needs. Row i of A is its whole row, but only one triangle is stored: the
/// part of row i outside it is stored as column i. A share of rows would need the stored block in
/// those rows, a band of every column it crosses (a narrow 2-D copy), and the stored block in
/// those columns. A share of whole stored columns needs only those columns: the SYMV of their
/// diagonal block and two GEMVs of the rest of them (T into the share's rows, N into every other
/// row), all three the tuned steps of chapter 5 (hybrid_partition.hpp, symv_columns_plan). So the
/// GPU takes g whole stored columns, and the rows with the same indices: Lower the first g (their
/// columns run from the diagonal down), Upper the last g. Its chunks are slices of those columns,
/// each copied as whole runs of the triangle's columns, every stored element of them once.
///
/// One array on the device. Every chunk adds its products into one y of n on the device, after
/// the chunk before (Lower: chunks from the first column on; Upper: from the last one back), so
/// that a chunk's rows are complete when its kernels end and go back at once. The CPU's rows there
/// collect what the GPU's columns add to them; they come back after the last chunk, and once both
/// sides have stopped the call adds them into y. The CPU's share is then one SYMV of its diagonal
/// block (OpenBLAS; in float its generic SSE kernel reads 16 bytes past A's end: cpu_peers.hpp,
/// kBlasTailBytes): the two sides together move the stored triangle once. gpu_rows = n with
/// chunk_rows = n is the all-GPU call: the whole array (both triangles' places: one 2-D copy) and
/// one SYMV. alpha == 0 is y = beta y on the host (detail::scale_on_host: A and x are not read).
///
/// Balanced (pieces > 1, hybrid_balance.hpp): the split moves while the call runs. The GPU claims
/// stored columns from its end (Lower: the first column; Upper: the last) and the CPU `pieces`-th
/// parts of its plan from the other end. The columns there are short and the GPU's long, so the
/// two sides claim units of equal work, not columns (hybrid_partition.hpp, symv_ordinal_at): the
/// measured time per unit then predicts the rest. Each side adds all its columns give every row
/// into a y of its own (the GPU's chunks as above; the CPU's pieces by cpu::symv_columns, one read
/// of each stored element, where OpenBLAS would need two GEMVs that read the block twice), and
/// y = y_gpu + y_cpu + beta y once both have stopped.
/// Beware the two thread pools: the CPU's pieces run on OpenMP's threads, and for a while after an
/// OpenBLAS call (the CPU peer, any BLAS call of the caller) OpenBLAS's idle threads spin on every
/// core, and the pieces wait for them. On the H200 machine's 16-core host, timed in turn with
/// OpenBLAS's SYMV, cpu::symv_columns took from 2x OpenBLAS's time (n = 16384) to hundreds of times
/// (n = 1024); with OpenBLAS's threads made to sleep at once it reached 0.82 - 0.91 of OpenBLAS's
/// rate at n = 16384 (docs/notes/split.md, session 45; the kernel then walked one column a pass, it
/// now walks four). So chapter 7 runs SYMV at its fixed share (--balanced-symv balances it).
///
/// The contract (hybrid_common.hpp): returns when both sides have finished and every copy is
/// complete; a failure on either side surfaces as an exception after both have stopped, with y
/// unspecified. Arguments: validate_symv (named "hybrid::symv": incx = incy = 1),
/// 0 <= gpu_rows <= n, chunk_rows >= 1, pieces >= 1.
#pragma once

#include "symv.hpp"

namespace wb::hybrid {

template <class T>
void symv(const SymvArgs<T>& host, int gpu_rows, int chunk_rows, int pieces = 1);

}  // namespace wb::hybrid
