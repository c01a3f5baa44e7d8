/// \file hybrid_gemv.hpp
/// \brief Chapter 7's hybrid GEMV: one call y = alpha op(A) x + beta y on host data, computed by
///        the GPU and the CPU at once. The GPU computes the outputs [0, gpu_rows) (rows of y),
///        chunk by chunk, the CPU the rest (cpu::gemv, every core) into the same host array.
///
/// The GPU side. Its rows of A (op N: a band of rows, copied as a 2-D block; op T: a band of
/// columns) travel in chunks of chunk_rows outputs on two streams, alternately, into two device
/// buffers, so that the copy of one chunk overlaps the kernel of the other (with pinned host
/// memory; pageable memory serializes the copies). Each chunk runs the tuned step's GEMV (chapter
/// 5) and its piece of y is copied straight back into place; x is copied once.
///
/// The contract. Returns when both sides have finished and every copy is complete: the caller
/// never sees y while a copy into it may still run. When either side fails, the call waits for
/// the other side to stop, then throws (the GPU's error first): y is then unspecified and nothing
/// is reported as done. Arguments are validated as the GPU launchers do (validate_gemv, named
/// "hybrid::gemv"), plus 0 <= gpu_rows <= len(y) and chunk_rows >= 1.
///
/// Status: written against the CUDA runtime and the tuned launcher; its gpu tests (correctness on
/// odd sizes against the float64 reference, failures surfacing, no early read of y) come with the
/// chapter's GPU part.
#pragma once

#include "gemv.hpp"

namespace wb::hybrid {

template <class T>
void gemv(const GemvArgs<T>& host, int gpu_rows, int chunk_rows);

}  // namespace wb::hybrid
