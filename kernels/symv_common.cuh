/// \file symv_common.cuh
/// \brief Pieces every SYMV step shares: the mirrored read of the stored triangle, launch guards
///        and grid helpers, the host-side begin() every launcher calls first (validate, then
///        BLAS's degenerate cases), the workspace of the storage-aware steps and their
///        fixed-order reduction pass (see docs/pages/architecture.md, "How to add an op").
///
/// The workspace W (n x cols, column s at W + s*n) holds partial results of y. Its layout, shared
/// by the pattern, access and tuned steps: W(i, s) for s < nt (nt = ceil(n / nb) tiles) is the
/// partial product of one off-diagonal tile (or a block's own sum) for row i; columns nt ... hold
/// the extra partials a step adds (the diagonal tiles, or the Y column sums of the tuned step).
/// Every entry the reduction reads is written exactly once per call, and the reduction adds them in
/// a fixed order: the result is bit-identical run to run.
#pragma once

#include "symv.hpp"
#include "launch_checks.hpp"
#include "check.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace wb::symv_detail {

using launch_checks::ceil_div;
using launch_checks::grid_dim;
using launch_checks::require_launch;
using launch_checks::sm_count;
using launch_checks::l2_bytes;

/// A(i, j) of the symmetric matrix, reading only the stored triangle: A(i, j) itself when (i, j)
/// lies in it, else its mirror A(j, i). Column-major, leading dimension lda.
template <class T>
__device__ __forceinline__ T sym_load(const T* A, int lda, bool lower, int i, int j) {
    const bool stored = lower ? i >= j : i <= j;
    return stored ? A[i + static_cast<long long>(j) * lda] : A[j + static_cast<long long>(i) * lda];
}

/// The fixed-order sum part[0][col] + ... + part[rows-1][col] of a block's partial results in
/// shared memory (one row per thread column): the same order on every run.
template <class T, int N>
__device__ __forceinline__ T sum_parts(const T (*part)[N], int rows, int col) {
    T s = 0;
    for (int q = 0; q < rows; ++q) s += part[q][col];
    return s;
}

/// Column sums of a vertical walk (chapters 4 and 5): thread (p, q) of an NB x Q block holds
/// acc[k], its row p's share of column q*L + k. Sums acc over the 32 lanes of each warp with
/// shuffles (fixed butterfly order) and leaves warp w's sum of column c in colsum[w][c]; the
/// caller adds the NB / 32 warps after a barrier. Every thread of the block must call it.
template <class T, int NB, int L>
__device__ __forceinline__ void warp_column_sums(const T (&acc)[L], T (*colsum)[NB]) {
#pragma unroll
    for (int k = 0; k < L; ++k) {
        T v = acc[k];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (threadIdx.x % 32 == 0) colsum[threadIdx.x / 32][threadIdx.y * L + k] = v;
    }
}

/// What every launcher does first: validate (throws before anything touches the GPU), then
/// BLAS's degenerate cases: n == 0 (or alpha == 0 and beta == 1) returns at once; alpha == 0
/// gives y = beta*y without reading A or x. Returns true when the step's kernels must run.
template <class T>
bool symv_begin(const SymvArgs<T>& a, const char* fn, cudaStream_t s) {
    if (!validate_symv(a, fn)) return false;
    if (a.alpha == T(0)) {
        symv_scale_y(a, s);
        return false;
    }
    return true;
}

/// A device workspace of at least `elems` elements of T for the current device and stream `s`,
/// kept between calls and grown (never shrunk) on demand: a growth synchronizes the device
/// (cudaFree), so the timed calls after the warm-up never allocate. One per host thread, device
/// and stream (common/buffer.hpp): calls on two streams may overlap and never share it.
template <class T>
T* workspace(std::size_t elems, cudaStream_t s);

/// The reduction pass of the storage-aware steps, one thread per row, in a fixed order:
///   y(i) = alpha * (sum_{s in S(b)} W(i, s) + sum_{e < extra} W(i, nt + e)) + beta * y(i)
/// with b = (i + shift) / nb the tile of row i (shift: the tiles' origin d rows before row 0) and
/// S(b) = [0, b + 1 - skip) when `from_start`, else [b + skip, nt). `skip` = 1 leaves the
/// diagonal slot s = b out. beta == 0 never reads y.
template <class T>
void reduce(const SymvArgs<T>& a, const T* W, int nb, int nt, bool from_start, int skip, int extra,
            cudaStream_t s, int shift = 0);

}  // namespace wb::symv_detail
