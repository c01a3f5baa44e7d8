/// \file hybrid_gemm.hpp
/// \brief Chapter 7's hybrid GEMM: one call C = alpha op(A) op(B) + beta C on host data, computed
///        by the GPU and the CPU at once. The GPU computes the columns [0, gpu_cols) of C, chunk by
///        chunk, the CPU the rest (cpu::gemm, every core) into the same host array.
///
/// Why columns, where the other hybrids split rows: C is column-major, so a band of its columns
/// (and of op(B)'s, when op_b = N) is one contiguous block of memory, copied in one piece, and the
/// two sides never write the same cache line of C; a band of rows would be a 2-D copy of short
/// runs, interleaved with the CPU's rows in every column. (For C^T = op(B)^T op(A)^T it is the
/// split of the rows.) The GPU copies op(A) whole, once; each chunk copies its columns of op(B)
/// (and of C when beta != 0), runs the tuned step's GEMM (chapter 5) on them and copies its
/// columns of C back in place (hybrid_common.hpp: two streams, overlapped). gpu_cols = n with
/// chunk_cols = n is the all-GPU call.
///
/// Balanced (pieces > 1, hybrid_balance.hpp): gpu_cols is the plan, not the split. The GPU claims
/// chunks of at most chunk_cols columns from column 0 and the CPU `pieces`-th parts of its planned
/// columns from column n - 1 while the call runs, until they meet where both end together as
/// measured (last_side_times().gpu_outputs: the GPU's columns). Where a host array is pageable,
/// or the share is not strictly inside (0, n), the call is the fixed share.
///
/// The contract (hybrid_common.hpp): returns when both sides have finished and every copy is
/// complete; a failure on either side surfaces as an exception after both have stopped, with C
/// unspecified. Arguments: validate_gemm (named "hybrid::gemm"), 0 <= gpu_cols <= n,
/// chunk_cols >= 1, pieces >= 1. alpha == 0 or k == 0 is C = beta C on the host (detail::scale_on_host: A and
/// B are not read).
#pragma once

#include "gemm.hpp"

namespace wb::hybrid {

template <class T>
void gemm(const GemmArgs<T>& host, int gpu_cols, int chunk_cols, int pieces = 1);

}  // namespace wb::hybrid
