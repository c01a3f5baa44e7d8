/// \file tuned/symv.cu
/// \brief Chapter 5 — SYMV after KBLAS (Abdelfattah, Keyes, Ltaief, ACM TOMS §6): register double
///        buffers, Y blocks per block column, the diagonal tile fused into the off-diagonal
///        kernel, the tunables nb, Q and Y as template constants and launch fields, and a
///        deterministic reduction by default with an atomics mode as a tunable.
///
/// What changes against chapter 4:
/// - Tunables (KBLAS §6.2, tuning order nb -> Q -> Y of §9): a block is nb x Q threads (Q thread
///   columns, L = nb / Q elements of a tile row per thread, Eq. 7); (nb, Q) in {(32, 4), (64, 4),
///   (64, 8)} are instantiated.
/// - Y blocks per block column (KBLAS Eq. 2-6): the stored tiles of block column J are dealt to
///   Y blocks round-robin, so the long columns of a triangle no longer leave a tail of a few busy
///   SMs (§4.3.4, wave-tail oscillation). Blocks of the longest columns are launched first.
/// - Register double buffers: the next tile's L elements (and its slice of x) are loaded into the
///   second buffer before the current one is used.
/// - The diagonal tile is processed by the first of the Y blocks: one kernel fewer than chapter 4.
///   Its stored triangle is copied into shared memory (cp.async) before the walk and read,
///   mirrored, after it, and the first tile's loads go out before the barrier that publishes x_J:
///   a block's prologue and epilogue each wait for one DRAM latency fewer (H100: 1.06x geometric
///   mean at n = 1024 ... 16384, 1.10x-1.17x at 1024; \ref notes_symv).
/// - L2 policies: where the triangle is larger than the L2, no later call can find it there, so
///   A's loads are evict-first and do not push out what is read again: x and, above all, the
///   partials the reduction pass reads right after the kernel; where it fits, A's loads keep the
///   normal priority, so that repeated calls (CG's iterations) read it from L2. The partials'
///   stores ask L2 to keep them (evict_last) for the part of them that fits in a quarter of the
///   L2 (symv_l2_plan). Measured on an H100 in docs/notes/symv.md, "SYMV: L2
///   policies".
/// - Fewer barriers where A streams (float): the Q thread columns' row sums of a tile meet in
///   shared memory, a barrier per tile; where the triangle exceeds the L2 the float kernel leaves
///   four tiles' row sums there and passes one barrier per four tiles (SymvTile::kGroup; H200:
///   1.01x at 16384, 1.04x at 32768). Double and the L2-resident sizes keep one tile per barrier.
/// - Reduction: deterministic (default, launch.atomics = 0): every partial has its own workspace
///   slot — W(rows of I, J) for tile (I, J), W(rows of J, nt + y) for the column sums of block y —
///   and the fixed-order pass of symv_common.cu adds them: bit-identical run to run.
///   Atomics (launch.atomics = 1, KBLAS's own design): y = beta*y first, then every partial is
///   added into y with atomicAdd: no workspace, no reduction pass, but the order of the
///   additions (and so the last bits of y) changes from run to run.
/// - Irregular n: pointer redirecting as in chapter 4.
/// - Layouts (SymvLayout, symv_layout.hpp): besides the KBLAS tiles, the warp-rows layout as a
///   launch option (nb = 64, block = 32 x 8; symv_warp_rows.cuh): a warp covers 8 rows x 4 column
///   groups, so a tile costs no barrier (the sweep times both).
/// - 16-byte loads (the default where the (64, 4) tile is chosen; symv_vec.cuh, block = 256): a
///   thread holds one 16-byte vector of rows in each of its columns, the same 16 elements per
///   tile; A's columns must start every tile on a 16-byte boundary (else the (64, 4) layout).
/// - Submatrices (KBLAS §6.6, Eq. 10): a submatrix is passed as BLAS passes it (pointer and lda);
///   where lda keeps every column at the same offset in its 128-byte line, the tiles start at the
///   aligned origin d elements before A(0, 0) (symv_origin_shift): warps read whole lines (tiles
///   start on a 256-byte boundary where nb rows span one), and
///   the d rows and columns outside A are redirected and dropped. KBLAS takes the offset as
///   arguments; here it is read off the pointer. (Not in the warp-rows layout.)
/// Model (common/model/symv): the triangle once; deterministic: n x (nt + Y) partials written and
/// read; atomics: n x (nt + Y) atomic adds to y and y read once for beta. nt x Y blocks of nb x Q.
/// The host rules (layouts, launch checks, legal launches, the L2 policies, the aligned origin)
/// are symv_rules.cpp; the default launch is chapter 6's derivation (derive/symv.cpp), read there.
/// Follows: KBLAS (ACM TOMS) §6.1-6.5, §9; Abdelfattah et al. VECPAR'12.
/// Run: ./workbook run ch05 -- --op symv       (SymvLaunch: nb, Q = block_y, Y = y_blocks, atomics)
#include "symv_common.cuh"
#include "symv_layout.hpp"
#include "symv_warp_rows.cuh"
#include "symv_vec.cuh"
#include "symv_small.cuh"
#include "symv_tile_io.cuh"
#include "cp_async.cuh"
#include "l2_policy.cuh"

#include "derive/cached_default.hpp"
#include "model/symv.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace wb::tuned {
namespace {

//! [tuned-symv]
/// Registers are what limit this kernel: a thread keeps two tile buffers of L elements in flight,
/// and every other register it holds (column offsets, x_J, sums) lowers the number of resident
/// blocks and so the bytes in flight per SM (Little's law: an H200 needs about 27 KB in flight
/// per SM to stream at its read ceiling). So x_J lives in shared memory (a broadcast read per
/// use), a thread keeps one column pointer and 32-bit column offsets, and __launch_bounds__
/// asks for kMinBlocks resident blocks (symv_rules: the registers that leaves per thread).
template <class T, int NB, int Q>
struct SymvTile {
    static constexpr int L = NB / Q;        // elements of a tile row per thread (KBLAS Eq. 7)
    static constexpr int kWarps = NB / 32;  // warps along one thread column
    static constexpr int kMinBlocks = model::tuned_symv_min_blocks(NB, Q, static_cast<int>(sizeof(T)));
    /// Tiles whose row sums meet per barrier where A streams (float; launch() below picks it): a
    /// barrier per tile held a third of the float kernel's stall cycles on the H200. Double
    /// keeps 1: its (64, 4) tile uses 128 registers, and ptxas spilled at 2.
    static constexpr int kGroup = sizeof(T) == 4 ? 4 : 1;
    static_assert(NB % 32 == 0 && NB % Q == 0 && L >= 1 && Q >= kGroup, "tile relations");
};

/// Loads row tx of tile I (L elements at column offsets k * lda from this thread's column
/// pointer Ac) and x(row) into a register buffer. Tiles start `d` rows and columns before A(0, 0)
/// (the aligned origin, below): rows before 0 or beyond n are redirected to row 0 or n - 1 with
/// x = 0. The thread's columns are col0 .. col0 + L - 1, Ac points at the first of them inside
/// A: the pointer moves on only from a column inside A that is not the last one (columns before 0
/// re-read column 0, columns beyond n - 1 re-read column n - 1; their x_J is 0).
template <class T, int NB, int L>
__device__ __forceinline__ void load_tile(const T* __restrict__ Ac, int lda, int col0, const T* __restrict__ x, int n,
                                          int I, int d, unsigned long long pol, T (&buf)[L], T& xi) {
    const int r = I * NB + static_cast<int>(threadIdx.x) - d;
    const int rr = min(max(r, 0), n - 1);
    xi = r >= 0 && r < n ? x[r] : T(0);
    const T* p = Ac + rr;  // stepped column by column: no offset registers, no 32-bit overflow
#pragma unroll
    for (int k = 0; k < L; ++k) {
        buf[k] = detail::load_l2(p, pol);  // pol: evict-first or normal (symv_l2_plan)
        if (static_cast<unsigned>(col0 + k) < static_cast<unsigned>(n - 1)) p += lda;
    }
}

/// Sums the row sums of `count` tiles, I = I0, I0 + Y, ..., after the barrier that closes them
/// (part[k]: tile k's Q row sums per row): thread column ty < count takes tile ty and writes
/// W(rows of I, J) or adds into y.
template <class T, int NB, int Q, int K>
__device__ __forceinline__ void reduce_tiles(const T (*part)[Q][NB], int count, int I0, int Y, int J, int n, int d,
                                             bool atomics, T alpha, T* __restrict__ W, unsigned long long keep,
                                             T* __restrict__ y) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int k = K == 1 ? 0 : ty;  // the tile this thread column adds
    const int row = (I0 + k * Y) * NB + tx - d;
    if ((K == 1 ? ty == 0 : ty < count) && row >= 0 && row < n) {
        const T s = symv_detail::sum_parts(part[k], Q, tx);
        store_partial(atomics, alpha, y, W, J, n, row, s, keep);  // W(rows of I, J)
    }
}

/// Uses one buffered tile, the block's t-th (tile I): A_IJ^T x_I accumulated in registers for
/// the block's own columns, and A_IJ x_J, whose Q row sums per row meet in shared memory. K == 1:
/// a barrier per tile, part double-buffered by the tile's parity t & 1, which is also its
/// register buffer's (the next tile writes the other half). K > 1: the row sums of K tiles meet at one barrier (groups of K
/// tiles alternate between part[0] and part[1]), and K thread columns add them instead of one.
template <class T, int NB, int Q, int L, int K>
__device__ __forceinline__ void use_tile(const T (&buf)[L], T xi, const T* xj, T (&acc)[L], T (*part)[K][Q][NB], int t,
                                         int I, int Y, int J, int n, int d, bool atomics, T alpha,
                                         T* __restrict__ W, unsigned long long keep, T* __restrict__ y) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    T rs = 0;
#pragma unroll
    for (int k = 0; k < L; ++k) {
        rs += buf[k] * xj[k];
        acc[k] += buf[k] * xi;
    }
    const int g = (t / K) & 1, slot = t % K;  // K == 1: g = t & 1, slot 0
    part[g][slot][ty][tx] = rs;
    if (slot != K - 1) return;  // the group is not complete
    __syncthreads();
    reduce_tiles<T, NB, Q, K>(part[g], K, I - (K - 1) * Y, Y, J, n, d, atomics, alpha, W, keep, y);
}

template <class T, int NB, int Q, int K>
__global__ void __launch_bounds__(NB * Q, (SymvTile<T, NB, Q>::kMinBlocks))
symv_kernel(bool lower, bool atomics, int n, int nt, int Y, int d, T alpha, const T* __restrict__ A, int lda,
            const T* __restrict__ x, T* __restrict__ W, bool stream_a, float keep_fraction, T* __restrict__ y) {
    constexpr int L = SymvTile<T, NB, Q>::L, kWarps = SymvTile<T, NB, Q>::kWarps;
    __shared__ T tile[NB][NB + 1];   // the diagonal tile's stored triangle (block y == 0 only)
    __shared__ T part[2][K][Q][NB];  // reduction space over the thread columns (KBLAS Eq. 8), 2 x K tiles
    __shared__ T colsum[kWarps][NB];
    __shared__ T xs[NB];             // x_J
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int b = static_cast<int>(blockIdx.x) / Y, yb = static_cast<int>(blockIdx.x) % Y;
    const int J = lower ? b : nt - 1 - b;  // the longest columns first
    const int col0 = J * NB + ty * L - d;  // this thread's first column (negative: before A(0, 0))
    // L2 policies (symv_l2_plan): A's loads evict-first or normal; the share keep_fraction of the
    // partials' stores evict_last, so that the reduction pass finds them in L2.
    const unsigned long long keep = detail::l2_evict_last(keep_fraction);
    const unsigned long long first = detail::l2_evict_first(), normal = detail::l2_evict_normal();
    const unsigned long long pol = stream_a ? first : normal;
    // The diagonal tile (block yb == 0): its stored triangle is copied into shared memory now, in
    // flight during the walk, instead of a DRAM latency after it (rows and columns outside A
    // read A(0, 0) or A(n-1, n-1), which are stored).
    if (yb == 0) copy_diagonal_tile<T, NB>(tile, A, lda, n, J, d, lower, tx, ty, Q);
    for (int t = ty * NB + tx; t < NB; t += NB * Q) {
        const int c = J * NB + t - d;
        xs[t] = c >= 0 && c < n ? x[c] : T(0);
    }
    // One column pointer per thread, at its first column inside A: columns before 0 (the first
    // block column of a shifted origin) and beyond n (upper, last tile) read that column again.
    const int c0 = min(max(col0, 0), n - 1);
    const T* Ac = A + static_cast<long long>(c0) * lda;
    T acc[L];
#pragma unroll
    for (int k = 0; k < L; ++k) acc[k] = 0;
    const T* xj = xs + ty * L;
    // This block's tiles: I = i0 + yb, i0 + yb + Y, ... < i1, two at a time through the two
    // register buffers (a0, a1): the next tile loads while the current one is used. The first
    // tile's loads go out before the barrier that publishes x_J: one DRAM latency, not two.
    const int i0 = (lower ? J + 1 : 0) + yb, i1 = lower ? nt : J;
    T a0[L], a1[L], x0 = 0, x1 = 0;
    if (i0 < i1) load_tile<T, NB, L>(Ac, lda, col0, x, n, i0, d, pol, a0, x0);
    __syncthreads();
    int used = 0;  // tiles used (K > 1: their place in a group)
    for (int I = i0; I < i1; I += 2 * Y) {
        if (I + Y < i1) load_tile<T, NB, L>(Ac, lda, col0, x, n, I + Y, d, pol, a1, x1);
        use_tile<T, NB, Q, L, K>(a0, x0, xj, acc, part, used++, I, Y, J, n, d, atomics, alpha, W, keep, y);
        if (I + Y >= i1) break;
        if (I + 2 * Y < i1) load_tile<T, NB, L>(Ac, lda, col0, x, n, I + 2 * Y, d, pol, a0, x0);
        use_tile<T, NB, Q, L, K>(a1, x1, xj, acc, part, used++, I + Y, Y, J, n, d, atomics, alpha, W, keep, y);
    }
    if (K > 1 && used % K != 0) {  // the last group, not complete
        __syncthreads();
        reduce_tiles<T, NB, Q, K>(part[(used / K) & 1], used % K, i0 + (used - used % K) * Y, Y, J, n, d, atomics, alpha,
                               W, keep, y);
    }
    __syncthreads();  // the last tiles' part[] is read before the diagonal's sums overwrite part[0]
    // The diagonal tile (block yb == 0): its row sums, kept in part; (tx, c) outside the stored
    // triangle reads the mirror element (c, tx).
    T dsum = 0;
    if (yb == 0) {
        detail::cp_async_wait<0>();  // this thread's copies have landed
        __syncthreads();             // and everyone's
        dsum = diagonal_row_sum<T, NB>(tile, xs, lower, tx, ty, Q);
    }
    part[0][0][ty][tx] = dsum;
    // Column sums of the walk: shuffles within a warp, then the warps of a thread column.
    symv_detail::warp_column_sums<T, NB, L>(acc, colsum);
    __syncthreads();
    const int t = ty * NB + tx, c = J * NB + t - d;
    if (t < NB && c >= 0 && c < n) {
        const T s = symv_detail::sum_parts(colsum, kWarps, t) + symv_detail::sum_parts(part[0][0], Q, t);
        store_partial(atomics, alpha, y, W, nt + yb, n, c, s, keep);  // W(rows of J, nt + yb)
    }
}
//! [tuned-symv]

/// The row panels of `rows` (8 or 16) rows per block.
template <class T>
void launch_small(const SymvArgs<T>& a, int rows, cudaStream_t s, const char* fn) {
    const unsigned grid = symv_detail::grid_dim(symv_detail::ceil_div(static_cast<long long>(a.n), rows), kMaxGridX, fn);
    auto* kernel = rows == small::kRowsWide ? small::symv_kernel<T, small::kRowsWide> : small::symv_kernel<T, small::kRows>;
    kernel<<<grid, small::kThreads, 0, s>>>(a.uplo == Uplo::Lower, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y);
    WB_CHECK_LAUNCH();
}

/// The layouts share the launch: the workspace or y = beta*y, the grid of nt x Y blocks (the
/// longest columns first), and the deterministic mode's reduction pass. kVec: the vector layout
/// (symv_vec.cuh) where A's columns allow 16-byte loads, else the (64, 4) KBLAS tile it replaces.
template <class T, int NB, int Q, bool kWarpRows = false, bool kVec = false>
void launch(const SymvArgs<T>& a, int Y, bool atomics, cudaStream_t s, const char* fn) {
    const bool lower = a.uplo == Uplo::Lower;
    const int d = kWarpRows ? 0 : symv_origin_shift(a.A, a.lda, NB);  // the warp-rows layout keeps A(0, 0)
    const int nt = static_cast<int>(symv_detail::ceil_div(static_cast<long long>(a.n) + d, NB));
    T* W = nullptr;
    if (atomics) symv_scale_y(a, s);  // y = beta*y (0 without reading y when beta == 0)
    else W = symv_detail::workspace<T>(symv_workspace_elems(a.n, NB, Y), s);
    const unsigned grid = symv_detail::grid_dim(static_cast<long long>(nt) * Y, kMaxGridX, fn);
    const SymvL2Plan l2 = symv_l2_plan(a.n, nt, Y, static_cast<int>(sizeof(T)), symv_detail::l2_bytes());
    if constexpr (kWarpRows) {
        warp_rows::symv_kernel<T><<<grid, dim3(32, warp_rows::kWarps), 0, s>>>(lower, atomics, a.n, nt, Y, a.alpha,
                                                                              a.A, a.lda, a.x, W, a.y);
    } else {
        // The tile layouts share one signature: pick the kernel (16-byte loads where the columns
        // allow them; kGroup tiles per barrier where A streams), then launch it.
        constexpr int kG = SymvTile<T, NB, Q>::kGroup;
        const bool grouped = kG > 1 && l2.stream_a, vectors = kVec && vec::fits(a.A, a.lda, d);
        auto* kernel = vectors ? (grouped ? vec::symv_kernel<T, kG> : vec::symv_kernel<T, 1>)
                               : (grouped ? symv_kernel<T, NB, Q, kG> : symv_kernel<T, NB, Q, 1>);
        const dim3 block = vectors ? dim3(vec::kThreads) : dim3(NB, Q);
        kernel<<<grid, block, 0, s>>>(lower, atomics, a.n, nt, Y, d, a.alpha, a.A, a.lda, a.x, W, l2.stream_a,
                                      l2.keep_fraction, a.y);
    }
    WB_CHECK_LAUNCH();
    // Deterministic: row tile b gathers its off-diagonal tiles' partials (lower W(., 0 .. b-1),
    // upper W(., b+1 .. nt-1): the diagonal slot is unused) and the Y column sums W(., nt + y);
    // row i lies in tile (i + d) / NB.
    if (!atomics) symv_detail::reduce(a, W, NB, nt, /*from_start=*/lower, /*skip=*/1, /*extra=*/Y, s, /*shift=*/d);
}

}  // namespace

namespace {
/// Chapter 6's derivation on this device's profile (derive::default_profile: read once per
/// device), cached per thread for each device and call shape: the derivation formats its lines,
/// which a call of a few microseconds must not pay each time. `panels`: whether the row panels
/// may be taken (false for a launch that names a tile field).
template <class T>
SymvLaunch device_rule(const SymvArgs<T>& a, bool panels) {
    return derive::cached_default<SymvLaunch>(std::tuple<int, int, bool>{a.n, a.lda, panels},
                                              [&](const DeviceProfile& dev, bool) {
                                                  return symv_derived_launch(dev, a.n, a.lda, static_cast<int>(sizeof(T)), panels);
                                              });
}
}  // namespace

template <class T>
SymvLaunch symv_default(const SymvArgs<T>& a) {
    return device_rule(a, true);
}

template <class T>
void symv(const SymvArgs<T>& a, const SymvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::symv";
    // The launch's own fields are checked before anything else; the default (which asks the
    // device) fills the fields left at 0 only once the call is known to run.
    check_symv_launch(l, fn);
    const SymvLayout named_layout = symv_layout_of(l);
    const bool vec_layout = named_layout == SymvLayout::kVector;
    if (!symv_detail::symv_begin(a, fn, s)) return;
    if (named_layout == SymvLayout::kRowPanels) {
        launch_small(a, l.nb > 0 ? l.nb : small::kRows, s, fn);  // block_x = 1024 alone: 8 rows
        return;
    }
    const bool atomics = l.atomics == 1;
    const int nb_set = l.nb > 0 ? l.nb : (vec_layout ? vec::kNb : l.block_x);  // block_x alone names the tile too
    const bool all_set = nb_set > 0 && (l.block_y > 0 || vec_layout) && l.y_blocks > 0;
    // The fields left at 0 come from the rule: with the row panels where the launch names no field
    // but the mode, else among the tiles (a launch that names a tile field asks for a tile layout).
    const bool named = l.nb > 0 || l.block_x > 0 || l.block_y > 0 || l.y_blocks > 0;
    const SymvLaunch d = all_set ? l : device_rule(a, /*panels=*/!named);
    const SymvLayout d_layout = symv_layout_of(d);
    if (d_layout == SymvLayout::kRowPanels) {
        launch_small(a, d.nb, s, fn);
        return;
    }
    const bool d_vec = d_layout == SymvLayout::kVector;
    const int nb = nb_set > 0 ? nb_set : d.nb;
    // The layout: as set, else the default's where the launch names no thread shape and the same tile.
    const bool use_vec = vec_layout || (l.block_x == 0 && l.block_y == 0 && d_vec && nb == vec::kNb);
    const int q = l.block_y > 0 ? l.block_y : (nb == d.nb && !d_vec ? d.block_y : 4);
    const int yb = l.y_blocks > 0 ? l.y_blocks : d.y_blocks;
    const SymvLayout layout = named_layout == SymvLayout::kWarpRows ? SymvLayout::kWarpRows
                              : use_vec                             ? SymvLayout::kVector
                                                                    : SymvLayout::kTiles;
    switch (layout) {
        case SymvLayout::kWarpRows: launch<T, warp_rows::kNb, warp_rows::kWarps, true>(a, yb, atomics, s, fn); break;
        case SymvLayout::kVector: launch<T, 64, 4, false, true>(a, yb, atomics, s, fn); break;
        case SymvLayout::kTiles:
            if (nb == 32) launch<T, 32, 4>(a, yb, atomics, s, fn);
            else if (q == 4) launch<T, 64, 4>(a, yb, atomics, s, fn);
            else launch<T, 64, 8>(a, yb, atomics, s, fn);
            break;
        case SymvLayout::kRowPanels: break;  // launched above
    }
}

template void symv<float>(const SymvArgs<float>&, const SymvLaunch&, cudaStream_t);
template void symv<double>(const SymvArgs<double>&, const SymvLaunch&, cudaStream_t);
template SymvLaunch symv_default<float>(const SymvArgs<float>&);
template SymvLaunch symv_default<double>(const SymvArgs<double>&);

}  // namespace wb::tuned
