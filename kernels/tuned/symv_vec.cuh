/// \file tuned/symv_vec.cuh
/// \brief A third tile layout of chapter 5's SYMV: 16-byte loads. nb = 64, 256 threads, where A's
///        columns allow them (every tile's column segment starts on a 16-byte boundary).
///
/// Why: the KBLAS layout (symv.cu) loads one element per thread per column: a warp's load reads
/// 128 bytes. Reading the triangle with that walk and no arithmetic at all takes 137-138 us at
/// float n = 16384 on an H200, and 134-135 us with 16-byte loads (554-561 against 519-526 us at
/// 32768; \ref notes_symv): four times the bytes per load instruction keep
/// more of them in flight.
/// Layout: a thread holds V = 16 / sizeof(T) consecutive rows (one vector) of CPT = 16 / V columns
/// of the 64 x 64 tile, 16 elements as in the KBLAS layout. A warp covers 32 rows x V column
/// groups (lane = V-row vector + 32 / V x group); warps 2h and 2h + 1 hold rows 0-31 and 32-63 of
/// the same columns. So a row's partial sums meet first inside the warp (log2 V shuffles), then
/// over the 4 warps that share those rows (shared memory, one barrier per K tiles); a column's
/// sums meet inside the warp (log2 (32 / V) shuffles) and over the 2 row halves, once per block.
/// Edges: the one tile of a block column that crosses row 0 or row n - 1 (lower: the last; upper:
/// the first, with an aligned origin) is loaded element by element with rows clamped into A, as
/// symv.cu does; columns outside A re-read a column inside it (x_J = 0 there).
/// The grid, work split (Y blocks per block column), diagonal tile, workspace and reduction are
/// symv.cu's.
#pragma once

#include "symv_common.cuh"
#include "symv_layout.hpp"
#include "symv_tile_io.cuh"
#include "vec16.cuh"

#include "model/symv.hpp"

#include <cstdint>

namespace wb::tuned::vec {

template <class T>
struct Layout {
    static constexpr int V = 16 / static_cast<int>(sizeof(T));  // rows per thread: one 16-byte vector
    static constexpr int kRowLanes = 32 / V;                      // lanes along a warp's 32 rows
    static constexpr int kGroups = 4 * V;                         // column groups of the tile
    static constexpr int CPT = kNb / kGroups;                     // columns per thread
    // The (64, 4) tile's register rule (model::tuned_symv_regs): the same 16 elements, two buffers
    // and column sums per thread, so the same resident blocks (float 3, double 2).
    static constexpr int kMinBlocks = model::tuned_symv_min_blocks(kNb, 4, static_cast<int>(sizeof(T)));
    static_assert(V * CPT == 16, "16 elements of a tile per thread");
};

using detail::Vec16;
using detail::vget;
using detail::vset;

/// The thread's place in the tile: first row (of V) and first column (of CPT).
struct Place {
    int row, col;
};
template <class T>
__device__ __forceinline__ Place place() {
    using Lt = Layout<T>;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    return {(w & 1) * 32 + (lane % Lt::kRowLanes) * Lt::V, (lane / Lt::kRowLanes + Lt::V * (w >> 1)) * Lt::CPT};
}

/// The thread's V rows of tile I at its CPT columns (column pointer Ac at its first column inside
/// A, stepped while the column is inside A and not the last) and x of those rows.
template <class T>
__device__ __forceinline__ void load_tile(const T* __restrict__ Ac, int lda, int col0, const T* __restrict__ x, int n,
                                          int I, int d, unsigned long long pol, typename Vec16<T>::type (&buf)[Layout<T>::CPT],
                                          typename Vec16<T>::type& xi) {
    using Lt = Layout<T>;
    const int r = I * kNb + place<T>().row - d;
    const bool inside = I * kNb - d >= 0 && I * kNb - d + kNb <= n;  // the whole tile: uniform per block
    const T* p = Ac;
#pragma unroll
    for (int k = 0; k < Lt::CPT; ++k) {
        if (inside) {
            buf[k] = detail::load_l2_16(p + r, pol);
        } else {
#pragma unroll
            for (int e = 0; e < Lt::V; ++e) vset(buf[k], e, detail::load_l2(p + min(max(r + e, 0), n - 1), pol));
        }
        if (static_cast<unsigned>(col0 + k) < static_cast<unsigned>(n - 1)) p += lda;
    }
#pragma unroll
    for (int e = 0; e < Lt::V; ++e) vset(xi, e, r + e >= 0 && r + e < n ? x[r + e] : T(0));
}

/// Adds the sums of a group of `count` tiles (I0, I0 + Y, ...): thread t < count x 64 takes row
/// t % 64 of tile t / 64, adds its 4 warps' partials and writes W(rows of I, J) or adds into y.
template <class T, int K>
__device__ __forceinline__ void reduce_tiles(const T (*part)[4][kNb], int count, int I0, int Y, int J, int n, int d,
                                             bool atomics, T alpha, T* __restrict__ W, unsigned long long keep,
                                             T* __restrict__ y) {
    const int t = threadIdx.x, k = t / kNb, i = t % kNb;
    const int row = (I0 + k * Y) * kNb + i - d;
    if (k < count && row >= 0 && row < n) {
        const T s = ((part[k][0][i] + part[k][1][i]) + part[k][2][i]) + part[k][3][i];
        store_partial(atomics, alpha, y, W, J, n, row, s, keep);  // W(rows of I, J)
    }
}

/// Uses the buffered tile, the block's t-th: A_IJ^T x_I into the column sums, A_IJ x_J (xj: the
/// thread's CPT values of x_J in shared memory) into row sums that meet in the warp and then in
/// part[g][t % K] at one barrier per K tiles.
template <class T, int K>
__device__ __forceinline__ void use_tile(const typename Vec16<T>::type (&buf)[Layout<T>::CPT],
                                         const typename Vec16<T>::type& xi, const T* xj,
                                         T (&acc)[Layout<T>::CPT], T (*part)[K][4][kNb], int t, int I, int Y, int J,
                                         int n, int d, bool atomics, T alpha, T* __restrict__ W,
                                         unsigned long long keep, T* __restrict__ y) {
    using Lt = Layout<T>;
    T rs[Lt::V];
#pragma unroll
    for (int e = 0; e < Lt::V; ++e) rs[e] = 0;
#pragma unroll
    for (int k = 0; k < Lt::CPT; ++k)
#pragma unroll
        for (int e = 0; e < Lt::V; ++e) {
            rs[e] += vget(buf[k], e) * xj[k];
            acc[k] += vget(buf[k], e) * vget(xi, e);
        }
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int off = Lt::kRowLanes; off < 32; off <<= 1)
#pragma unroll
        for (int e = 0; e < Lt::V; ++e) rs[e] += __shfl_xor_sync(0xffffffffu, rs[e], off);
    const int g = (t / K) & 1, slot = t % K;
    if (lane < Lt::kRowLanes) {
        const Place pl = place<T>();
#pragma unroll
        for (int e = 0; e < Lt::V; ++e) part[g][slot][threadIdx.x >> 6][pl.row + e] = rs[e];
    }
    if (slot != K - 1) return;
    __syncthreads();
    reduce_tiles<T, K>(part[g], K, I - (K - 1) * Y, Y, J, n, d, atomics, alpha, W, keep, y);
}

template <class T, int K>
__global__ void __launch_bounds__(kThreads, Layout<T>::kMinBlocks)
symv_kernel(bool lower, bool atomics, int n, int nt, int Y, int d, T alpha, const T* __restrict__ A, int lda,
            const T* __restrict__ x, T* __restrict__ W, bool stream_a, float keep_fraction, T* __restrict__ y) {
    using Lt = Layout<T>;
    using V16 = typename Vec16<T>::type;
    constexpr int CPT = Lt::CPT;
    __shared__ T tile[kNb][kNb + 1];     // the diagonal tile's stored triangle (block y == 0 only)
    __shared__ T part[2][K][4][kNb];     // row sums of the 4 warps that share a row, 2 x K tiles
    __shared__ T colsum[2][kNb];         // column sums of the two row halves
    __shared__ T dpart[4][kNb];          // the diagonal tile's row sums, 4 parts
    __shared__ T xs[kNb];                // x_J
    const int tid = threadIdx.x;
    const int b = static_cast<int>(blockIdx.x) / Y, yb = static_cast<int>(blockIdx.x) % Y;
    const int J = lower ? b : nt - 1 - b;
    const Place pl = place<T>();
    const int col0 = J * kNb + pl.col - d;  // this thread's first column (negative: before A(0, 0))
    const unsigned long long keep = detail::l2_evict_last(keep_fraction);
    const unsigned long long first = detail::l2_evict_first(), normal = detail::l2_evict_normal();
    const unsigned long long pol = stream_a ? first : normal;
    if (yb == 0) copy_diagonal_tile<T, kNb>(tile, A, lda, n, J, d, lower, tid % kNb, tid / kNb, kThreads / kNb);
    if (tid < kNb) {
        const int c = J * kNb + tid - d;
        xs[tid] = c >= 0 && c < n ? x[c] : T(0);
    }
    const T* Ac = A + static_cast<long long>(min(max(col0, 0), n - 1)) * lda;
    T acc[CPT];
    const T* xj = xs + pl.col;  // x_J of the thread's columns: read from shared memory per tile, not held in registers
#pragma unroll
    for (int k = 0; k < CPT; ++k) acc[k] = 0;
    const int i0 = (lower ? J + 1 : 0) + yb, i1 = lower ? nt : J;
    V16 a0[CPT], a1[CPT], x0, x1;
    if (i0 < i1) load_tile<T>(Ac, lda, col0, x, n, i0, d, pol, a0, x0);
    __syncthreads();
    int used = 0;
    for (int I = i0; I < i1; I += 2 * Y) {
        if (I + Y < i1) load_tile<T>(Ac, lda, col0, x, n, I + Y, d, pol, a1, x1);
        use_tile<T, K>(a0, x0, xj, acc, part, used++, I, Y, J, n, d, atomics, alpha, W, keep, y);
        if (I + Y >= i1) break;
        if (I + 2 * Y < i1) load_tile<T>(Ac, lda, col0, x, n, I + 2 * Y, d, pol, a0, x0);
        use_tile<T, K>(a1, x1, xj, acc, part, used++, I + Y, Y, J, n, d, atomics, alpha, W, keep, y);
    }
    if (used % K != 0) {  // the last group, not complete
        __syncthreads();
        reduce_tiles<T, K>(part[(used / K) & 1], used % K, i0 + (used - used % K) * Y, Y, J, n, d, atomics, alpha, W,
                           keep, y);
    }
    // The diagonal tile (block yb == 0): row tid % 64's sum over a quarter of the columns;
    // (r, c) outside the stored triangle reads the mirror element (c, r).
    T ds = 0;
    if (yb == 0) {
        detail::cp_async_wait<0>();
        __syncthreads();
        ds = diagonal_row_sum<T, kNb>(tile, xs, lower, tid % kNb, tid / kNb, kThreads / kNb);
    }
    dpart[tid / kNb][tid % kNb] = ds;
    // Column sums of the walk: over the warp's rows (shuffles), then the two row halves.
    const int lane = tid & 31;
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
        T v = acc[k];
#pragma unroll
        for (int off = 1; off < Lt::kRowLanes; off <<= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane % Lt::kRowLanes == 0) colsum[(tid >> 5) & 1][pl.col + k] = v;
    }
    __syncthreads();
    const int c = J * kNb + tid - d;
    if (tid < kNb && c >= 0 && c < n) {
        const T s = (colsum[0][tid] + colsum[1][tid]) + (((dpart[0][tid] + dpart[1][tid]) + dpart[2][tid]) + dpart[3][tid]);
        store_partial(atomics, alpha, y, W, nt + yb, n, c, s, keep);  // W(rows of J, nt + yb)
    }
}

/// Whether every tile's column segment starts on a 16-byte boundary: the aligned origin A - d and
/// lda * sizeof(T) both multiples of 16 bytes.
template <class T>
bool fits(const T* A, int lda, int d) {
    const auto origin = reinterpret_cast<std::uintptr_t>(A) - static_cast<std::uintptr_t>(d) * sizeof(T);
    return origin % 16 == 0 && (static_cast<long long>(lda) * sizeof(T)) % 16 == 0;
}

}  // namespace wb::tuned::vec
