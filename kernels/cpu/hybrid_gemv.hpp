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
/// The contract (hybrid_common.hpp): returns when both sides have finished and every copy is
/// complete; a failure on either side surfaces as an exception after both have stopped (the
/// GPU's first), with y unspecified. Arguments are validated as the GPU launchers do
/// (validate_gemv, named "hybrid::gemv"), plus 0 <= gpu_rows <= len(y) and chunk_rows >= 1.
/// alpha == 0 is y = beta y on the host (detail::scale_on_host: A and x are not read).
#pragma once

#include "gemv.hpp"

namespace wb::hybrid {

template <class T>
void gemv(const GemvArgs<T>& host, int gpu_rows, int chunk_rows);

}  // namespace wb::hybrid
