/// \file tuned/cg_persistent.cuh
/// \brief Chapter 5's CG as one persistent cooperative kernel (CgLaunch::schedule = 2) that keeps
///        a share of A in shared memory from one iteration to the next.
///
/// Why: a CG iteration must read the lower triangle of A once (the roofline); a CUDA graph of
/// SYMV + vector kernels reads it from DRAM every iteration. A kernel resident for the whole
/// solve keeps part of it on chip: each block holds some of its tiles in shared memory from the
/// first iteration on (228 KB per SM of an H100 or H200: 30 MB, a fifth of the float triangle at
/// n = 8192). What streams from DRAM per iteration is the rest.
///
/// The work split: the stored 64 x 64 tiles of the lower triangle, numbered column by column
/// ((0,0), (1,0), ..., (nt-1,0), (1,1), ...), are dealt round-robin to the G resident blocks in
/// units of kDeal consecutive tiles (float 1, double 2), so every block streams the same number
/// of tiles (within one unit) and keeps the same number on chip: its last `cache` ones (4 float,
/// 3 double per block). Each block lists its tiles once per solve (a table in shared memory) and
/// walks them with the tuned SYMV's 16-byte tile layout (symv_vec.cuh) and register double
/// buffers: per tile, A_IJ p_J gives 64 row sums (W, slot t) and A_IJ^T p_I 64 column sums (W,
/// slot N + t; a double pair in one column sums them once, at its first tile). The diagonal tile
/// is loaded with its strict upper half zeroed and its diagonal halved, so that its row sums plus
/// its column sums are A_JJ p_J. The next iteration's first tile is fetched before the grid
/// barriers (A does not change), so each walk starts with data in registers.
///
/// One iteration, two grid barriers:
///   (A) p = r + beta p on the fly (every block forms the p values it reads from r and the last p;
///       the owner of a row tile also stores them, into the other of two p buffers, so no block
///       writes what another still reads), and the walk above, which also adds its tiles' share
///       of p.q (2 p_I^T A_IJ p_J per tile: no q is needed for it);
///   (B) barrier; alpha (every block adds the same partials in the same order: the same bits);
///       the owner of row tile J (J = b, b + G, ...) adds its partials in a fixed order into q_J
///       (rows outside A: 0), then x += alpha p, r -= alpha q and its share of r.r; barrier; beta and
///       the convergence test at the top of the next iteration.
/// Deterministic: every sum has a fixed order. Vectors other blocks wrote are read through L2
/// (__ldcg: L1 is not coherent within a kernel). A submatrix view: the aligned origin (load_tile).
/// Measured: docs/notes/cg.md, "CG: a persistent kernel that keeps a share of A on chip".
/// Follows: KBLAS (the tile walk); cuda-samples conjugateGradientMultiBlockCG (grid barriers in CG).
#pragma once

#include "cg_common.cuh"
#include "l2_policy.cuh"
#include "model/cg.hpp"
#include "symv_vec.cuh"
#include "vec16.cuh"

#include <cooperative_groups.h>

namespace wb::tuned::cg_persist {

using cg_detail::kBreakdown;
using cg_detail::kConverged;
using cg_detail::kMaxGrid;
using cg_detail::kRunning;
using cg_detail::State;
using vec::kNb;
using vec::kThreads;
template <class T>
using V16 = typename detail::Vec16<T>::type;

/// The kernel's arguments.
template <class T>
struct Args {
    int n, lda, nt, max_iter;
    long long ntiles;  ///< stored tiles of the lower triangle, nt (nt + 1) / 2
    int cache;         ///< tiles a block keeps in shared memory (its last ones)
    bool vec;          ///< A's columns start every tile on a 16-byte boundary
    int shift;         ///< d: the tiles start d rows and columns before A(0, 0) (the aligned origin)
    const T* A;
    T* p[2];           ///< p of even and odd iterations (nt * 64 elements each, padding zero)
    T *x, *r;          ///< nt * 64 elements each, row i of A at element d + i, padding zero
    T* W;              ///< 2 x ntiles x 64 partials: row sums of tile t at t, column sums at ntiles + t
    State<T>* st;
    T* part;           ///< 2 kMaxGrid block partials
};

/// First tile of column J in the column-by-column numbering.
__device__ __forceinline__ long long col_first(int J, int nt) {
    return static_cast<long long>(J) * nt - static_cast<long long>(J) * (J - 1) / 2;
}
template <class T>
__device__ __forceinline__ T fma_(T a, T b, T c) {
    if constexpr (sizeof(T) == 4) return fmaf(a, b, c);
    else return fma(a, b, c);
}
/// p = r + beta p_old, or r in the first iteration.
template <class T>
__device__ __forceinline__ T p_value(T r, T pold, T beta, bool first) {
    return first ? r : fma_(beta, pold, r);
}
__device__ __forceinline__ float4 ldcg16(const float* p) { return __ldcg(reinterpret_cast<const float4*>(p)); }
__device__ __forceinline__ double2 ldcg16(const double* p) { return __ldcg(reinterpret_cast<const double2*>(p)); }

/// The thread's V rows of tile (I, J) at its CPT columns; tiles start d rows and columns before
/// A(0, 0) (the aligned origin of a submatrix view, KBLAS §6.6; else 0). Off-diagonal tiles
/// inside A with 16-byte columns: one vector load per column. Otherwise element by element, rows
/// and columns clamped into A (their p is 0, rows outside A dropped by the reduction), and in the
/// diagonal tile the strict upper half 0 and the diagonal halved (never read above it).
template <class T>
__device__ __forceinline__ void load_tile(const T* A, int lda, int n, int d, bool vec_ok, int I, int J,
                                          unsigned long long pol, V16<T> (&buf)[vec::Layout<T>::CPT]) {
    using Lt = vec::Layout<T>;
    const vec::Place pl = vec::place<T>();
    const int r0 = I * kNb + pl.row, c0 = J * kNb + pl.col;  // shifted: A's row r0 - d
    if (vec_ok && I != J && I * kNb + kNb <= n + d && J * kNb >= d) {  // inside A (I > J); uniform
        const T* p = A + static_cast<long long>(c0 - d) * lda + (r0 - d);
#pragma unroll
        for (int k = 0; k < Lt::CPT; ++k, p += lda)
            buf[k] = detail::load_l2_16_guarded(p, pol);  // never on the element path
        return;
    }
#pragma unroll
    for (int k = 0; k < Lt::CPT; ++k) {
        const int c = c0 + k;
        const T* col = A + static_cast<long long>(min(max(c - d, 0), n - 1)) * lda;
#pragma unroll
        for (int e = 0; e < Lt::V; ++e) {
            const int row = r0 + e;
            T v = 0;
            if (I != J || row >= c) {
                v = detail::load_l2(col + min(max(row - d, 0), n - 1), pol);
                if (I == J && row == c) v *= T(0.5);
            }
            detail::vset(buf[k], e, v);
        }
    }
}

/// (I, J) of tile t in the column-by-column numbering: J is the largest column with
/// col_first(J) <= t, from the quadratic col_first(J) = J (2 nt + 1 - J) / 2 in float, then
/// corrected (float's rounding moves it by at most one or two). t >= ntiles gives J = nt.
__device__ __forceinline__ void tile_of(long long t, int nt, int& I, int& J) {
    const float c = 2.0f * nt + 1.0f;
    int j = static_cast<int>((c - sqrtf(fmaxf(c * c - 8.0f * static_cast<float>(t), 0.0f))) * 0.5f);
    j = max(0, min(j, nt));
    while (j > 0 && col_first(j, nt) > t) --j;
    while (j < nt && col_first(j + 1, nt) <= t) ++j;
    J = j;
    I = j + static_cast<int>(t - col_first(j, nt));
}

/// How the tiles are dealt: in units of D consecutive tiles (in the column-by-column numbering),
/// unit b, b + G, ... to block b. Double: pairs, mostly of one column, whose column sums meet once
/// for both tiles (their cross-lane sums, 64 shuffles a tile, held the double walk back: its rate
/// 0.88 -> 0.92 of the graphs' at n = 16384 on an H100); float: single tiles (pairs measured 3%
/// slower at n = 8192 and 12288 there).
template <class T>
constexpr int kDeal = model::cg_persistent_deal(static_cast<int>(sizeof(T)));

/// Tile of the block's slot u (units of D tiles, unit b + (u / D) G to block b).
template <int D>
__device__ __forceinline__ long long slot_tile(int b, int G, int u) {
    return D * (b + static_cast<long long>(u / D) * G) + u % D;
}

/// What one block's walk reads besides its buffers (copied out of the kernel's parameters once).
template <class T>
struct Walk {
    const T* A;
    int lda, n, nt, G;  ///< G: the blocks; block b takes units b, b + G, b + 2G, ... (kDeal)
    bool vec;
    int d;  ///< Args::shift, or 0 at compile time in the aligned kernel
    const T* r;
    T* W;
    long long N;            ///< tiles of the triangle
    unsigned long long pol;
    const unsigned* table;  ///< shared memory: the block's tiles, (I << 16) | J per slot
    int count, keep_from;   ///< the block's tiles; the slots from keep_from on are kept on chip
};

/// Shared memory of the walk (besides the kept tiles), per group of K tiles, double-buffered by
/// its parity: the row sums of the 4 warp pairs, column sums of the row halves, p_I and p_J.
template <class T, int K>
struct WalkSmem {
    T part[2][K][4][kNb];
    T colpart[2][K][2][kNb];
    __align__(16) T pst[2][K][2][kNb];  ///< [group & 1][tile][0: p_I, 1: p_J][row or column]
};

/// Fetches the block's tile `slot` (packed (I << 16) | J) into a register buffer: from the block's
/// shared memory after the first iteration where the tile is kept there (its last slots), else
/// from A.
template <class T>
__device__ __forceinline__ void fetch(const Walk<T>& w, const V16<T>* cache, bool first, int slot, unsigned tile,
                                      V16<T> (&buf)[vec::Layout<T>::CPT]) {
    constexpr int CPT = vec::Layout<T>::CPT;
    if (!first && slot >= w.keep_from) {
#pragma unroll
        for (int k = 0; k < CPT; ++k) buf[k] = cache[((slot - w.keep_from) * CPT + k) * kThreads + threadIdx.x];
    } else {
        load_tile(w.A, w.lda, w.n, w.d, w.vec, static_cast<int>(tile >> 16), static_cast<int>(tile & 0xffffu), w.pol, buf);
    }
}

/// p_I and p_J of the tiles of a group, staged in shared memory one group ahead: at the first
/// tile of group g, value v = (h * K + k) * 64 + i (thread v % 256, its v / 256-th) loads r and
/// p_old of row i of tile k of group g + 1's row tile (h = 0) or column tile (h = 1); at the
/// group's last tile, before its barrier, it stores p there. A few registers per thread instead
/// of vectors in every register buffer.
template <class T, int K>
struct Stage {
    static constexpr int kPer = (2 * K * kNb + kThreads - 1) / kThreads;  // values per thread
    T r[kPer], pold[kPer];
    bool valid[kPer];
};
/// The loads of this thread's p values of the block's tiles slot0 .. slot0 + K - 1.
template <class T, int K>
__device__ __forceinline__ void stage_load(const Walk<T>& w, const T* pold, int slot0, Stage<T, K>& st) {
#pragma unroll
    for (int j = 0; j < Stage<T, K>::kPer; ++j) {
        const int v = threadIdx.x + j * kThreads, k = (v / kNb) % K, h = v / (K * kNb);
        st.valid[j] = h < 2 && slot0 + k < w.count;
        if (!st.valid[j]) continue;
        const unsigned e = w.table[slot0 + k];
        const int i = static_cast<int>(h == 0 ? e >> 16 : e & 0xffffu) * kNb + v % kNb;
        st.r[j] = __ldcg(w.r + i);
        st.pold[j] = __ldcg(pold + i);
    }
}
template <class T, int K>
__device__ __forceinline__ void stage_store(const Stage<T, K>& st, T beta, bool first, T (*pst)[2][kNb]) {
#pragma unroll
    for (int j = 0; j < Stage<T, K>::kPer; ++j) {
        const int v = threadIdx.x + j * kThreads;
        if (st.valid[j]) pst[(v / kNb) % K][v / (K * kNb)][v % kNb] = p_value(st.r[j], st.pold[j], beta, first);
    }
}

/// After the barrier that closes group gi (`count` tiles, the first at slot s0): the row sums of
/// its tiles into W(t); the column sums into W(N + t) of the pair's first tile where the pair
/// shares a column (`joint`), else each tile's into its own.
template <class T, int K>
__device__ __forceinline__ void reduce_group(const Walk<T>& w, const WalkSmem<T, K>& sm, int gi, int count, int s0,
                                             bool joint) {
    for (int o = threadIdx.x; o < 2 * K * kNb; o += kThreads) {
        const int k = (o / kNb) % K, i = o % kNb;
        if (k >= count || (o >= K * kNb && joint && k > 0)) continue;
        const long long t = slot_tile<kDeal<T>>(blockIdx.x, w.G, s0 + k);
        if (o < K * kNb)
            w.W[t * kNb + i] = ((sm.part[gi][k][0][i] + sm.part[gi][k][1][i]) + sm.part[gi][k][2][i]) + sm.part[gi][k][3][i];
        else
            w.W[(w.N + t) * kNb + i] = sm.colpart[gi][k][0][i] + sm.colpart[gi][k][1][i];
    }
}

/// Uses the buffered tile `slot`: keeps it on chip in the first iteration where it has a slot;
/// A_IJ p_J into row sums (meeting in the warp, then in part) and A_IJ^T p_I into column sums
/// (meeting in the warp, then in colpart; once for a dealt pair whose tiles share the column:
/// `joint`, acc carried from the first to the second); two tiles per barrier. At a group's first
/// tile the next group's p loads go out.
template <class T, int K>
__device__ __forceinline__ void use(const Walk<T>& w, const V16<T> (&buf)[vec::Layout<T>::CPT], V16<T>* cache,
                                    int slot, Stage<T, K>& st, const T* pold, T beta, bool first,
                                    WalkSmem<T, K>& sm, T& pq, T (&acc)[vec::Layout<T>::CPT], bool joint) {
    static_assert(K == 2 && K % kDeal<T> == 0, "a group is two tiles, a whole number of dealt units");
    using Lt = vec::Layout<T>;
    constexpr int CPT = Lt::CPT, VR = Lt::V;
    const int tid = threadIdx.x, lane = tid & 31;
    const int gi = (slot / K) & 1, s = slot % K;
    if (s == 0) stage_load<T, K>(w, pold, slot + K, st);
    if (first && slot >= w.keep_from) {
#pragma unroll
        for (int k = 0; k < CPT; ++k) cache[((slot - w.keep_from) * CPT + k) * kThreads + tid] = buf[k];
    }
    const vec::Place pl = vec::place<T>();
    const V16<T> pi = *reinterpret_cast<const V16<T>*>(&sm.pst[gi][s][0][pl.row]);
    const T* pj = &sm.pst[gi][s][1][pl.col];
    T rs[VR];
#pragma unroll
    for (int e = 0; e < VR; ++e) rs[e] = 0;
    if (s == 0 || !joint) {
#pragma unroll
        for (int k = 0; k < CPT; ++k) acc[k] = 0;
    }
#pragma unroll
    for (int k = 0; k < CPT; ++k)
#pragma unroll
        for (int e = 0; e < VR; ++e) {
            rs[e] += detail::vget(buf[k], e) * pj[k];
            acc[k] += detail::vget(buf[k], e) * detail::vget(pi, e);
        }
    // p.q of this tile, p_I^T (A_IJ p_J) + p_J^T (A_IJ^T p_I) = 2 p_I^T A_IJ p_J (the diagonal
    // tile's halved diagonal makes it p_J^T A_JJ p_J): this thread's elements' share.
#pragma unroll
    for (int e = 0; e < VR; ++e) pq += detail::vget(pi, e) * rs[e];
#pragma unroll
    for (int off = Lt::kRowLanes; off < 32; off <<= 1)
#pragma unroll
        for (int e = 0; e < VR; ++e) rs[e] += __shfl_xor_sync(0xffffffffu, rs[e], off);
    if (lane < Lt::kRowLanes) {
#pragma unroll
        for (int e = 0; e < VR; ++e) sm.part[gi][s][tid >> 6][pl.row + e] = rs[e];
    }
    const bool last = s == K - 1 || slot == w.count - 1;
    if (!joint || last) {  // the column sums of this tile, or of the pair
#pragma unroll
        for (int off = 1; off < Lt::kRowLanes; off <<= 1)
#pragma unroll
            for (int k = 0; k < CPT; ++k) acc[k] += __shfl_xor_sync(0xffffffffu, acc[k], off);
        if (lane % Lt::kRowLanes == 0) {
#pragma unroll
            for (int k = 0; k < CPT; ++k) sm.colpart[gi][joint ? 0 : s][(tid >> 5) & 1][pl.col + k] = acc[k];
        }
    }
    if (last) {
        stage_store<T, K>(st, beta, first, sm.pst[gi ^ 1]);
        __syncthreads();
        reduce_group<T, K>(w, sm, gi, s + 1, slot - s, joint);
    }
}

/// Phase (A)'s walk: the block's tiles, two register buffers, the first tile (a0) already fetched
/// by the caller before the barriers that precede the walk (A does not change: its first DRAM
/// latency is not waited for at every iteration's start). Returns this thread's half of its
/// tiles' share of p.q.
template <class T, int K>
__device__ __forceinline__ T walk(const Walk<T>& w, V16<T>* cache, WalkSmem<T, K>& sm, const T* pold, T beta,
                                  bool first, V16<T> (&a0)[vec::Layout<T>::CPT]) {
    using V = V16<T>;
    constexpr int CPT = vec::Layout<T>::CPT;
    const int count = w.count;
    T pq = 0;
    // The first group's p (published by the barrier below).
    Stage<T, K> st;
    stage_load<T, K>(w, pold, 0, st);
    stage_store<T, K>(st, beta, first, sm.pst[0]);
    __syncthreads();
    V a1[CPT];
    T acc[CPT];
    unsigned next = count > 1 ? w.table[1] : 0u;  // the table entry of the next fetch, read a step early
    for (int u = 0; u < count; u += 2) {
        bool joint = false;
        if (u + 1 < count) {
            const unsigned e = next;
            joint = kDeal<T> == 2 && (e & 0xffffu) == (w.table[u] & 0xffffu);  // the pair's tiles in one column
            next = u + 2 < count ? w.table[u + 2] : 0u;
            fetch(w, cache, first, u + 1, e, a1);
        }
        use<T, K>(w, a0, cache, u, st, pold, beta, first, sm, pq, acc, joint);
        if (u + 1 >= count) break;
        if (u + 2 < count) {
            const unsigned e = next;
            next = u + 3 < count ? w.table[u + 3] : 0u;
            fetch(w, cache, first, u + 2, e, a0);
        }
        use<T, K>(w, a1, cache, u + 1, st, pold, beta, first, sm, pq, acc, joint);
    }
    return pq;
}

/// sum_{b < G} part[b] in a fixed order, in every thread: each thread adds its few partials
/// (one L2 round trip), warp 0 adds the threads' sums (a butterfly), and two block barriers in
/// all (block_sum and broadcast took four); `sums`: kThreads elements of shared memory that no
/// thread uses between the grid barriers around the call (the walk's row sums). The grid barrier
/// before a call orders the partials; the next grid barrier orders the next call's writes.
template <class T>
__device__ __forceinline__ T grid_total(const T* part, int G, T* sums) {
    __shared__ T total;
    T v = 0;
#pragma unroll 4
    for (int i = threadIdx.x; i < G; i += kThreads) v += __ldcg(part + i);
    sums[threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        T u = 0;
#pragma unroll
        for (int k = 0; k < kThreads / 32; ++k) u += sums[threadIdx.x + 32 * k];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) u += __shfl_xor_sync(0xffffffffu, u, off);
        if (threadIdx.x == 0) total = u;
    }
    __syncthreads();
    return total;
}

//! [tuned-cg-persistent]
/// The whole solve (see the file comment). K: tiles whose row sums meet at one barrier. SHIFT:
/// tiles start a.shift rows and columns before A(0, 0) (else d is a compile-time 0).
template <class T, int K, bool SHIFT>
__global__ void __launch_bounds__(kThreads, vec::Layout<T>::kMinBlocks) solve_kernel(Args<T> a) {
    using V = V16<T>;
    namespace cgx = cooperative_groups;
    cgx::grid_group grid = cgx::this_grid();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    V* cache = reinterpret_cast<V*>(smem_raw);  // [a.cache][CPT][kThreads]: thread-major, conflict-free
    __shared__ WalkSmem<T, K> sm;

    const int tid = threadIdx.x, b = blockIdx.x, G = gridDim.x, nt = a.nt;
    const long long N = a.ntiles;
    // The block's tiles (units b, b + G, ... of kDeal tiles) once for the whole solve, after the
    // kept tiles.
    constexpr int D = kDeal<T>;
    unsigned* table = reinterpret_cast<unsigned*>(smem_raw + static_cast<std::size_t>(a.cache) * sizeof(V) *
                                                                 vec::Layout<T>::CPT * kThreads);
    const long long units = (N + D - 1) / D;                       // the grid has at most this many blocks
    const int nu = static_cast<int>((units - 1 - b) / G + 1);      // this block's units
    const int count = D * nu - (slot_tile<D>(b, G, D * nu - 1) >= N);  // the last unit may be short
    for (int u = tid; u < count; u += kThreads) {
        int I, J;
        tile_of(slot_tile<D>(b, G, u), nt, I, J);
        table[u] = (static_cast<unsigned>(I) << 16) | static_cast<unsigned>(J);
    }
    __syncthreads();
    // What streams from DRAM is read once per iteration and never again before the next: its
    // loads are evict-first, so that they do not push the partials and vectors out of the L2.
    const int d = SHIFT ? a.shift : 0;
    const Walk<T> w{a.A, a.lda, a.n, nt, G, a.vec, d, a.r, a.W, N, detail::l2_evict_first(), table, count,
                    count - min(a.cache, count)};

    T rr = a.st->rr;
    const T thresh2 = a.st->thresh2;
    int status = a.st->status, iter = a.st->iter;
    T pq = 0, alpha = 0, beta = 0;
    const bool ran = status == kRunning && iter < a.max_iter;
    V a0[vec::Layout<T>::CPT];
    fetch(w, cache, true, 0, table[0], a0);  // (from A: nothing is kept yet)
    for (int it = 0; status == kRunning && iter < a.max_iter; ++it) {
        const bool first = it == 0;
        const T* pold = (it & 1) ? a.p[0] : a.p[1];  // no run-time index into the parameters
        T* pnew = (it & 1) ? a.p[1] : a.p[0];
        // (A) the owned rows' p, then the walk.
        for (int J = b; J < nt; J += G)
            if (tid < kNb) {
                const int i = J * kNb + tid;
                pnew[i] = p_value(__ldcg(a.r + i), __ldcg(pold + i), beta, first);
            }
        const T pq_part = cg_detail::block_sum(walk<T, K>(w, cache, sm, pold, beta, first, a0));
        fetch(w, cache, false, 0, table[0], a0);  // the next iteration's first tile, over the barriers
        if (tid == 0) a.part[b] = 2 * pq_part;
        grid.sync();

        // (B) alpha (every block adds the same partials in the same order: the same bits); then
        // on the owned row tiles q in a fixed order, x += alpha p, r -= alpha q and r.r.
        static_assert(sizeof(sm.part) >= kThreads * sizeof(T), "grid_total's scratch");
        pq = grid_total(a.part, G, &sm.part[0][0][0][0]);
        if (!(pq > T(0)) || !isfinite(pq)) {
            status = kBreakdown;
            break;  // every block: the same pq
        }
        alpha = rr / pq;
        constexpr int VW = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte load
        constexpr int kLanes = kNb / VW, kGroups = kThreads / kLanes;
        static_assert(kGroups * kNb <= 2 * K * 4 * kNb, "the group sums fit in part");
        T* gs = &sm.part[0][0][0][0];  // [kGroups][kNb]
        T acc_rr = 0;
        for (int Jq = b; Jq < nt; Jq += G) {
            const int le = tid % kLanes, grp = tid / kLanes;
            T s[VW];
#pragma unroll
            for (int e = 0; e < VW; ++e) s[e] = 0;
            // Row sums of tiles (Jq, e), e <= Jq; then column Jq's column sums: one per tile (I, Jq)
            // (single tiles), or one per pair at the pair's first tile (even), and at the column's
            // first tile where that one is odd (its pair began in the column before).
            const long long f = col_first(Jq, nt), l = f + nt - Jq - 1, even0 = f + (f & 1);
            const int ncol = D == 1 ? nt - Jq : static_cast<int>((f & 1) + (l >= even0 ? (l - even0) / 2 + 1 : 0));
#pragma unroll 4
            for (int e = grp; e <= Jq + ncol; e += kGroups) {
                const int m = e - Jq - 1;  // the m-th column partial
                const long long slot =
                    e <= Jq  ? col_first(e, nt) + (Jq - e)
                    : D == 1 ? N + f + m
                             : N + ((f & 1) ? (m == 0 ? f : even0 + 2 * (m - 1)) : even0 + 2 * m);
                const V v = ldcg16(a.W + slot * kNb + le * VW);
#pragma unroll
                for (int k = 0; k < VW; ++k) s[k] += detail::vget(v, k);
            }
#pragma unroll
            for (int k = 0; k < VW; ++k) gs[grp * kNb + le * VW + k] = s[k];
            __syncthreads();
            if (tid < kNb) {
                T qv = 0;
#pragma unroll
                for (int g = 0; g < kGroups; ++g) qv += gs[g * kNb + tid];
                const int i = Jq * kNb + tid;
                if (i < d || i >= a.n + d) qv = 0;  // rows outside A
                a.x[i] = fma_(alpha, __ldcg(pnew + i), __ldcg(a.x + i));
                const T ri = fma_(-alpha, qv, __ldcg(a.r + i));
                a.r[i] = ri;
                acc_rr += ri * ri;
            }
            __syncthreads();
        }
        acc_rr = cg_detail::block_sum(acc_rr);
        if (tid == 0) a.part[kMaxGrid + b] = acc_rr;
        grid.sync();
        const T rr_new = grid_total(a.part + kMaxGrid, G, &sm.part[0][0][0][0]);
        beta = rr_new / rr;
        rr = rr_new;
        ++iter;
        status = !isfinite(rr) ? kBreakdown : rr <= thresh2 ? kConverged : kRunning;
    }
    if (ran && b == 0 && tid == 0) {  // every block read st before its first barrier
        a.st->rr = rr;
        a.st->pq = pq;
        a.st->alpha = alpha;
        a.st->beta = beta;
        a.st->iter = iter;
        a.st->status = status;
    }
}
//! [tuned-cg-persistent]

}  // namespace wb::tuned::cg_persist
