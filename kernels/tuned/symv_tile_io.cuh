/// \file tuned/symv_tile_io.cuh
/// \brief What the tuned SYMV's two tile layouts (symv.cu's KBLAS layout, symv_vec.cuh's
///        16-byte layout) share around their walk: the diagonal tile through shared memory and
///        the store of one partial result.
#pragma once

#include "cp_async.cuh"
#include "l2_policy.cuh"

namespace wb::tuned {

/// Starts copying the stored triangle of diagonal tile J into shared memory (cp.async, one commit
/// group): this thread copies row `row`, columns c0, c0 + step, ... Tiles start d rows and
/// columns before A(0, 0); rows and columns outside A read A(0, 0) or A(n-1, n-1), which are
/// stored (their x_J is 0).
template <class T, int NB>
__device__ __forceinline__ void copy_diagonal_tile(T (*tile)[NB + 1], const T* __restrict__ A, int lda, int n, int J,
                                                   int d, bool lower, int row, int c0, int step) {
    const int r0 = J * NB - d;
    for (int c = c0; c < NB; c += step)
        if (lower ? row >= c : row <= c)
            detail::cp_async(&tile[row][c],
                             A + min(max(r0 + row, 0), n - 1) + static_cast<long long>(min(max(r0 + c, 0), n - 1)) * lda,
                             sizeof(T), sizeof(T));
    detail::cp_async_commit();
}

/// Row `row` of the diagonal tile times x_J (xs) over columns c0, c0 + step, ...: (row, c)
/// outside the stored triangle reads the mirror element (c, row).
template <class T, int NB>
__device__ __forceinline__ T diagonal_row_sum(const T (*tile)[NB + 1], const T* xs, bool lower, int row, int c0,
                                              int step) {
    T s = 0;
    for (int c = c0; c < NB; c += step) s += ((lower ? row >= c : row <= c) ? tile[row][c] : tile[c][row]) * xs[c];
    return s;
}

/// One partial result s of element `row`: added into y as alpha * s (atomics mode), or stored as
/// W(row, slot) with the L2 policy `keep` (deterministic mode: the reduction pass adds it).
template <class T>
__device__ __forceinline__ void store_partial(bool atomics, T alpha, T* __restrict__ y, T* __restrict__ W,
                                              long long slot, int n, int row, T s, unsigned long long keep) {
    if (atomics) atomicAdd(y + row, alpha * s);
    else detail::store_l2(W + row + slot * n, s, keep);
}

}  // namespace wb::tuned
