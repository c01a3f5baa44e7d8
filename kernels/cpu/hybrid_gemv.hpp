/// \file hybrid_gemv.hpp
/// \brief Chapter 7's hybrid GEMV: one call y = alpha op(A) x + beta y on host data, computed by
///        the GPU and the CPU at once. The GPU computes the outputs [0, gpu_rows) (rows of y),
///        chunk by chunk, the CPU the rest (cpu::gemv, every core) into the same host array.
///
/// The GPU side, in ceil(gpu_rows / chunk_rows) chunks on two streams (hybrid_common.hpp), each
/// running the tuned step's GEMV (chapter 5); x is copied once. Op T: its rows of y are a band of
/// columns of A, contiguous; each chunk is chunk_rows of them, and its piece of y is copied
/// straight back into place. Op N: its rows of A are a band of every column, a 2-D copy, which the
/// copy engine moves at its full rate only when the band is wide; so each chunk is the whole band
/// over a slice of the columns, its kernel adds that slice's part to y on the device (in order),
/// and y is copied back once. gpu_rows = len(y) with chunk_rows = len(y) is the all-GPU call:
/// copy in, kernel, copy out, in sequence.
///
/// Balanced (op N, pieces > 1, hybrid_balance.hpp): the split moves while the call runs, and it
/// splits the *columns* of A, not the rows of y. The plan gives the GPU the share gpu_rows / len(y)
/// of the columns, in chunks of chunk_rows n / m columns; the GPU claims chunks from the first
/// column and the CPU `pieces`-th parts of its planned columns from the last, each adding its
/// columns' part of alpha A x into a partial y of its own (the GPU's on the device, chunk after
/// chunk, then back to page-locked scratch), and y = y_gpu + y_cpu + beta y once both have stopped
/// (last_side_times().gpu_outputs: the GPU's columns). Whole columns are contiguous blocks: the
/// copies run at the link's full rate, where a band of rows would be a narrow 2-D copy. Op T,
/// pageable arrays, or a share that rounds to no column on one side: the fixed share.
///
/// The contract (hybrid_common.hpp): returns when both sides have finished and every copy is
/// complete; a failure on either side surfaces as an exception after both have stopped (the
/// GPU's first), with y unspecified. Arguments are validated as the GPU launchers do
/// (validate_gemv, named "hybrid::gemv"), plus 0 <= gpu_rows <= len(y), chunk_rows >= 1 and
/// pieces >= 1.
/// alpha == 0 is y = beta y on the host (detail::scale_on_host: A and x are not read).
#pragma once

#include "gemv.hpp"

namespace wb::hybrid {

template <class T>
void gemv(const GemvArgs<T>& host, int gpu_rows, int chunk_rows, int pieces = 1);

}  // namespace wb::hybrid
