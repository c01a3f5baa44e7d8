/// \file tuned/gemv.cu
/// \brief Chapter 5 — GEMV fine-tuned: registers instead of shared tiles, 16-byte loads, unrolled
///        loops with register double-buffered prefetch, hoisted index arithmetic, and a launch
///        derived from the shape (kernels/gemv_rules.hpp), so that every shape, not only the
///        square ones, keeps the memory bus busy.
///
/// What changes against chapter 4 (White §4.4.1, Listing 4.16; KBLAS TOMS §4.2-§6; Abdelfattah
/// et al., Euro-Par'12 workshops, double buffering):
/// - No shared-memory tile for A: every thread reads 16 bytes of a column per load straight into
///   registers (N: a warp covers block_x * 16 contiguous bytes of each of 32 / block_x columns;
///   T: 512-byte runs), so the data is touched once (DRAM -> register).
/// - Each thread keeps 2 x U (N) or 2 x C (T) independent loads in flight: while it
///   multiplies one batch, the next batch is already loading (register double buffering). Little's
///   law: an H200 SM needs ~25 KB in flight; 2048 threads x 2 x 16 B x U covers it.
/// - Index arithmetic is hoisted: pointers advance by a constant stride; the loops run without
///   bounds checks over whole batches, and one guarded batch (all its loads in flight) does the rest.
/// - N: thread (tx, ty) owns W = 16/size(T) consecutive rows (block_x * W rows per block) and
///   every (Q*Y)-th column, starting at column blockIdx.y * Q + ty. T: a block owns nb = C
///   columns; thread (lane, warp) reads W rows of all C columns with one 16-byte load of x shared
///   by the C columns. Columns past n read the last column instead (pointer redirecting, Nath
///   §6.3): no out-of-bounds access, no divergent edge code.
/// - The launch comes from the shape (gemv_rules.hpp states the rules): square matrices run tall
///   N blocks with no split (all blocks walk one band of neighbouring columns together); where
///   the output is short and the reduction long (N with few rows, T with few columns) the
///   reduction is split over Y blocks per tile (KBLAS's blocks per row), summed in a fixed order
///   through a thread-block cluster (Y <= 16, detail::cluster_finish) or global partials and a
///   last-block ticket (detail::split_finish): deterministic; where the reduction is short (N
///   with few columns, T with few rows) blocks get fewer thread rows or warps, and T with
///   m <= 64 W runs several columns per warp (tuned/gemv_t_shapes.cuh); where such short
///   columns are many, blocks loop over column tiles so that the loads never drain between
///   tiles (rule 8, tuned/gemv_t_loop.cuh).
/// - Columns that do not start on a 16-byte boundary (odd lda, a submatrix at an offset): N reads
///   one element per load, a warp across 32 consecutive rows of a column (one 32-byte sector
///   more per warp load than an aligned run), two batches of U = 64 / size(T) columns in flight
///   per thread (tuned/gemv_rows.cuh); T peels each column's head and tail and streams its
///   aligned part (tuned/gemv_t_shapes.cuh), as KBLAS's offset interface does (TOMS §6.6).
/// - Without a split, the thread that writes y loads beta * y at the start, not after the
///   reduction: the read of a cold y then hides under A's stream instead of adding one DRAM round
///   trip to the end of the kernel (measured in docs/notes/gemv.md).
/// - N sums its Q thread rows flat: one barrier, then 8 threads per output (no tree of barriers
///   after the last load; scripts/probes/small_gemv.cu measured the difference).
/// Model: useful bytes only (A once, x mostly from L2, y once); target >= 92% of the read-stream
/// ceiling at n = 16384, and at least cuBLAS's speed at every shape of `ch05_unrolled --shapes`.
/// Run: ./workbook run ch05 -- --op gemv      (the square sizes)
///      ./workbook run ch05 -- --op gemv --shapes   (the shape set: rectangular, odd lda, offsets)
///      (GemvLaunch: block_x (N: 4..256; T: 32, or 2..16 lanes per column for short columns),
///      block_y = Q, nb = T's columns per block (or per thread, short T) C, Y (0: derived),
///      ept = N's unroll U, cache = policy of A's aligned loads (tuned/gemv_load_policy.cuh),
///      cluster = the split: 0 auto, 1 global partials, 2 cluster; loop = 1: T's looping kernel,
///      block_x lanes per tile of nb columns)
#include "gemv_cluster_launch.cuh"
#include "gemv_common.cuh"
#include "gemv_rows.cuh"
#include "gemv_t_loop.cuh"
#include "gemv_t_shapes.cuh"

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace wb::tuned {
namespace {

// ---------------------------------------------------------------------------------------------
// N: y[i] = alpha * sum_j A[i,j] x[j] + beta y[i].  Block (BX, Q); thread rows i0..i0+W-1.
// ---------------------------------------------------------------------------------------------
//! [tuned-gemv-n]
template <class T, int K, int U, int POL>
__global__ void __launch_bounds__(512) gemv_n_kernel(int m, int n, T alpha, const T* __restrict__ A,
                                                     int lda, const T* __restrict__ x, T beta, T* __restrict__ y,
                                                     detail::SplitWorkspace<T> ws, bool cluster) {
    constexpr int W = Rows<T, K>::width;  // rows per thread: one 16-byte vector, or one element
    using R = typename Rows<T, K>::type;
    extern __shared__ unsigned char smem_raw[];
    const int tx = threadIdx.x, ty = threadIdx.y, BX = blockDim.x, Q = blockDim.y;
    const int i0 = (blockIdx.x * BX + tx) * W;
    // The Y blocks of a tile interleave their columns (block b takes thread rows b*Q .. b*Q+Q-1
    // of one tall virtual block, stride S = Q*Y): at any moment all of them read one narrow band
    // of neighbouring columns. Contiguous column ranges per block would put the blocks' streams
    // a power-of-two distance apart (n/Y columns), on the same DRAM channels (partition camping,
    // chapter 4); measured on an H200, that halved the bandwidth of Y = 2 at n = 2048.
    const int S = Q * static_cast<int>(gridDim.y);
    const unsigned long long pol = load_policy<POL>();
    const int avail = m - i0;
    T acc[W];
#pragma unroll
    for (int k = 0; k < W; ++k) acc[k] = 0;
    // The reduction at the end (below): P threads per output, output o of the block's O = BX * W
    // taken by threads t = o * P .. o * P + P - 1 (in passes of BX * Q / P outputs when there are
    // more). Without a split, the thread that writes y[row0 + o] loads beta * y now: read at the
    // end, y (cold after any other kernel) would add one full DRAM round trip after the
    // reduction, ~1 us, an eighth of the whole call at n = 1024. beta == 0 never reads y (BLAS).
    const int O = BX * W, row0 = blockIdx.x * O, t = ty * BX + tx;
    const int lp = Q >= 8 ? 3 : Q >= 4 ? 2 : Q >= 2 ? 1 : 0, P = 1 << lp;
    const bool direct = gridDim.y == 1 && !cluster;
    const T yb0 = (direct && t < O * P && (t & (P - 1)) == 0 && row0 + (t >> lp) < m && beta != T(0))
                      ? beta * y[row0 + (t >> lp)]
                      : T(0);

    if (avail > 0) {
        // A thread whose rows pass m (the last one, when W does not divide m) loads whole vectors
        // too: its rows past m lie in the column's own storage (aligned: lda is a multiple of W),
        // and their sums are never written.
        const long long step = static_cast<long long>(S) * lda;  // one column stride per thread
        const int j = static_cast<int>(blockIdx.y) * Q + ty;
        const T* a = A + i0 + static_cast<long long>(j) * lda;
        const T* xp = x + j;
        const int cols = n > j ? (n - j + S - 1) / S : 0;  // columns this thread visits
        const int full_batches = cols / U;
        // Whole batches: U columns per batch, the next batch prefetched while this one is used.
        R cur[U], nxt[U];
        T xc[U], xn[U];
        if (full_batches > 0) {
#pragma unroll
            for (int u = 0; u < U; ++u) {
                cur[u] = load_rows<K, POL>(a + u * step, pol);
                xc[u] = __ldg(xp + u * S);
            }
        }
        for (int b = 0; b < full_batches; ++b) {
            const bool more = b + 1 < full_batches;
            if (more) {
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    nxt[u] = load_rows<K, POL>(a + (U + u) * step, pol);
                    xn[u] = __ldg(xp + (U + u) * S);
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int k = 0; k < W; ++k) acc[k] += elem(cur[u], k) * xc[u];
            if (more) {
#pragma unroll
                for (int u = 0; u < U; ++u) { cur[u] = nxt[u]; xc[u] = xn[u]; }
            }
            a += U * step;
            xp += U * S;
        }
        // The last cols % U columns: one guarded batch, its loads in flight together.
        const int rest = cols - full_batches * U;
        if (rest > 0) {
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (u < rest) {
                    cur[u] = load_rows<K, POL>(a + u * step, pol);
                    xc[u] = __ldg(xp + u * S);
                }
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (u < rest)
#pragma unroll
                    for (int k = 0; k < W; ++k) acc[k] += elem(cur[u], k) * xc[u];
        }
    }
    // Sum the Q thread rows. Every thread leaves its W sums in shared memory, transposed and
    // padded (red[o][q], rows of Q + 1: the P readers of one output hit different banks); after
    // one barrier, P threads per output (8, or the largest power of two <= Q below that) add
    // every P-th partial and finish with log2(P) shuffles, and the first of them writes y. Fixed
    // order: deterministic. Measured on an H200 (scripts/probes/small_gemv.cu, double,
    // n = 1024-4096): 0.3-0.5 us faster than
    // shuffles over the thread rows of a warp followed by a tree of log2(Q * BX / 32) barriers,
    // a chain of dependent shared-memory rounds that the last block pays after its last load.
    T* red = reinterpret_cast<T*>(smem_raw);  // [O][Q + 1], then the block's O sums (splits)
    const int ld = Q + 1;
#pragma unroll
    for (int k = 0; k < W; ++k) red[(tx * W + k) * ld + ty] = acc[k];
    __syncthreads();
    T* sums = red + O * ld;
    for (int base = 0; base < O * P; base += BX * Q) {  // the same trip count in every thread
        const int idx = base + t, o = idx >> lp, p = idx & (P - 1);
        T v = 0;
        if (o < O)
            for (int q = p; q < Q; q += P) v += red[o * ld + q];
        for (int off = P >> 1; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (p == 0 && o < O) {
            if (!direct) {
                sums[o] = v;
            } else if (row0 + o < m) {
                const T yv = base == 0 ? yb0 : (beta != T(0) ? beta * y[row0 + o] : T(0));
                y[row0 + o] = alpha * v + yv;
            }
        }
    }
    if (direct) return;
    if (cluster) {  // the Y blocks of this tile are one cluster: sum through shared memory
        detail::cluster_finish<T>(sums, row0, O, m, alpha, beta, y);  // starts with a cluster barrier
        return;
    }
    __syncthreads();
    T v[W];
#pragma unroll
    for (int k = 0; k < W; ++k) v[k] = sums[tx * W + k];
    detail::split_finish<T, W>(v, ty == 0 && avail > 0, i0, row0, O, m, gridDim.y, blockIdx.y, blockIdx.x, alpha, beta,
                               y, ws);
}
//! [tuned-gemv-n]

// ---------------------------------------------------------------------------------------------
// T: y[j] = alpha * sum_i A[i,j] x[i] + beta y[j].  Block (32, Q) owns C columns.
// Aligned columns and x; the other shapes' T kernels: tuned/gemv_t_shapes.cuh.
// ---------------------------------------------------------------------------------------------
//! [tuned-gemv-t]
template <class T, int C, int POL>
__global__ void __launch_bounds__(512) gemv_t_kernel(int m, int n, int k_per_block, T alpha, const T* __restrict__ A,
                                                     int lda, const T* __restrict__ x, T beta, T* __restrict__ y,
                                                     detail::SplitWorkspace<T> ws, bool cluster) {
    constexpr int W = detail::Vec16<T>::width;
    using V = typename detail::Vec16<T>::type;
    const int lane = threadIdx.x, warp = threadIdx.y, Q = blockDim.y;
    const int j0 = blockIdx.x * C;
    const int kb = blockIdx.y * k_per_block, ke = min(m, kb + k_per_block);
    const unsigned long long pol = load_policy<POL>();
    // Pointer redirecting: columns past n re-read column n-1; their results are discarded.
    const T* col[C];
#pragma unroll
    for (int c = 0; c < C; ++c) col[c] = A + static_cast<long long>(min(j0 + c, n - 1)) * lda;
    T acc[C];
#pragma unroll
    for (int c = 0; c < C; ++c) acc[c] = 0;
    // Without a split, the thread that writes y[j0 + tid] loads beta * y now (see the N kernel).
    const int tid = warp * 32 + lane;
    const bool direct = gridDim.y == 1 && !cluster;
    const T yb = (direct && tid < C && j0 + tid < n && beta != T(0)) ? beta * y[j0 + tid] : T(0);

    const int chunk = 32 * Q * W;                       // rows the block covers per step
    int row = kb + (warp * 32 + lane) * W;              // this thread's first row
    // Full steps: every thread's W rows lie inside [kb, ke). Double-buffered.
    const int full_steps = (ke - kb) / chunk;
    V a_cur[C], a_nxt[C], x_cur, x_nxt;
    if (full_steps > 0) {
        x_cur = ldv(x + row);
#pragma unroll
        for (int c = 0; c < C; ++c) a_cur[c] = load_a<POL>(col[c] + row, pol);
    }
    for (int s = 0; s < full_steps; ++s) {
        const bool more = s + 1 < full_steps;
        if (more) {
            x_nxt = ldv(x + row + chunk);
#pragma unroll
            for (int c = 0; c < C; ++c) a_nxt[c] = load_a<POL>(col[c] + row + chunk, pol);
        }
#pragma unroll
        for (int c = 0; c < C; ++c) acc[c] += dot<V, T>(a_cur[c], x_cur);
        if (more) {
            x_cur = x_nxt;
#pragma unroll
            for (int c = 0; c < C; ++c) a_cur[c] = a_nxt[c];
        }
        row += chunk;
    }
    // The last, partial step: whole vectors where they fit, elements after the last whole one.
    if (row + W <= ke) {
        const V xv = ldv(x + row);
#pragma unroll
        for (int c = 0; c < C; ++c) a_cur[c] = load_a<POL>(col[c] + row, pol);
#pragma unroll
        for (int c = 0; c < C; ++c) acc[c] += dot<V, T>(a_cur[c], xv);
    } else if (row < ke) {
#pragma unroll
        for (int k = 0; k < W; ++k) {
            if (row + k < ke) {
                const T xv = __ldg(x + row + k);
#pragma unroll
                for (int c = 0; c < C; ++c) acc[c] += __ldg(col[c] + row + k) * xv;
            }
        }
    }
    // Reduce (lanes by shuffles, warps through shared memory) and write y or the split's partials:
    // the end every T kernel shares (gemv_t_shapes.cuh).
    finish_t<T, C>(acc, j0, n, alpha, beta, yb, direct, cluster, y, ws);
}
//! [tuned-gemv-t]

template <class T, int K, int U, int POL>
void launch_n(const GemvArgs<T>& a, const GemvLaunch& l, int Y, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    constexpr int W = Rows<T, K>::width;
    const int BX = l.block_x, Q = l.block_y;
    const int tiles = detail::ceil_div(a.m, BX * W);
    Y = std::min(Y, tuned_gemv_n_max_split(a.n, Q));  // a column per thread row; Q Y within an int
    const dim3 grid(detail::grid_dim(tiles, kMaxGridX, fn), detail::grid_dim(Y, kMaxGridYZ, fn));
    const std::size_t smem = static_cast<std::size_t>(BX) * W * (Q + 2) * sizeof(T);  // [O][Q + 1] + O sums
    const auto kernel = gemv_n_kernel<T, K, U, POL>;
    const bool cl = use_cluster_for(kernel, tiles, Y, l.cluster, dim3(BX, Q), smem, fn);
    detail::SplitWorkspace<T> ws{};
    if (Y > 1 && !cl) ws = detail::split_workspace<T>(Y, a.m, tiles, s);
    launch_kernel(kernel, grid, dim3(BX, Q), smem, s, cl ? Y : 1, a.m, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y, ws,
                  cl);
}

template <class T, int C, int POL>
void launch_t(const GemvArgs<T>& a, const GemvLaunch& l, int Y, bool shifted, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    constexpr int W = detail::Vec16<T>::width;
    const int Q = l.block_y;
    const int tiles = detail::ceil_div(a.n, C);
    const int chunk = 32 * Q * W;
    const GemvSplit split = gemv_split_reduction(a.m, Y, chunk);  // whole steps
    const int k_per_block = split.k_per_block;
    Y = split.Y;
    const dim3 grid(detail::grid_dim(tiles, kMaxGridX, fn), detail::grid_dim(Y, kMaxGridYZ, fn));
    // The kernel: shifted columns (A at an offset, or x unaligned) with the policies they take,
    // every column at the same offset or each with its own head (odd lda); else the aligned one.
    auto kernel = gemv_t_kernel<T, C, POL>;
    if constexpr (POL == kCached || POL == kStreaming) {
        if (shifted) kernel = a.lda % W == 0 ? gemv_t_shifted_kernel<T, C, true, POL> : gemv_t_shifted_kernel<T, C, false, POL>;
    }
    const bool cl = use_cluster_for(kernel, tiles, Y, l.cluster, dim3(32, Q), 0, fn);
    detail::SplitWorkspace<T> ws{};
    if (Y > 1 && !cl) ws = detail::split_workspace<T>(Y, a.n, tiles, s);
    launch_kernel(kernel, grid, dim3(32, Q), 0, s, cl ? Y : 1, a.m, a.n, k_per_block, a.alpha, a.A, a.lda, a.x, a.beta,
                  a.y, ws, cl);
}

template <class T, int C>
void launch_t_short(const GemvArgs<T>& a, const GemvLaunch& l, bool aligned, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    const int L = l.block_x, G = 256 / L;
    const dim3 grid(detail::grid_dim(detail::ceil_div(a.n, static_cast<long long>(G) * C), kMaxGridX, fn));
    if (aligned)
        launch_kernel(gemv_t_short_kernel<T, true, C>, grid, dim3(L, G), 0, s, 1, a.m, a.n, a.alpha, a.A, a.lda, a.x,
                      a.beta, a.y);
    else
        launch_kernel(gemv_t_short_kernel<T, false, C>, grid, dim3(L, G), 0, s, 1, a.m, a.n, a.alpha, a.A, a.lda, a.x,
                      a.beta, a.y);
}

template <class T, int K, int POL>
void dispatch_n(const GemvArgs<T>& a, const GemvLaunch& l, int Y, cudaStream_t s) {
    switch (l.ept) {
        case 2: return launch_n<T, K, 2, POL>(a, l, Y, s);
        case 8: return launch_n<T, K, 8, POL>(a, l, Y, s);
        case 16:  // float element loads only (more registers would spill: 2 x 16 loads of A and x)
            if constexpr (K == kElement && sizeof(T) == 4) return launch_n<T, K, 16, POL>(a, l, Y, s);
            return;
        default: return launch_n<T, K, 4, POL>(a, l, Y, s);
    }
}

template <class T, int POL>
void dispatch_t(const GemvArgs<T>& a, const GemvLaunch& l, int Y, bool shifted, cudaStream_t s) {
    switch (l.nb) {
        case 2: return launch_t<T, 2, POL>(a, l, Y, shifted, s);
        case 8: return launch_t<T, 8, POL>(a, l, Y, shifted, s);
        default: return launch_t<T, 4, POL>(a, l, Y, shifted, s);
    }
}

/// The load policy of A's aligned loads for GemvLaunch::cache (1..4 pick kCached..kStreaming256).
/// 0 (auto): stream A when it is at most 8 times the L2 (tuned/gemv_load_policy.cuh says why).
template <class T>
int policy_of(const GemvArgs<T>& a, int cache) {
    if (cache != 0) return cache - 1;
    const double bytes = static_cast<double>(a.m) * a.n * sizeof(T);
    return bytes <= 8.0 * static_cast<double>(launch_checks::l2_bytes()) ? kStreaming : kCached;
}

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& a, const GemvLaunch& in, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    GemvLaunch l = check_tuned_gemv_launch(a.op, in, fn);  // the launch's own fields (gemv_rules.hpp)
    if (!detail::gemv_begin(a, fn, s)) return;
    const GemvShape shape = gemv_shape(a);
    const GemvMachine machine = gemv_machine_of_current_device();
    if (l.block_x <= 0) {
        const GemvLaunch d = tuned_gemv_default(shape);  // chapter 6's derivation (gemv_rules.hpp)
        l = GemvLaunch{d.block_x, d.block_y, d.nb, d.Q, in.Y > 0 ? in.Y : d.Y, d.ept, in.cache, in.cluster, d.loop};
    }
    const int Y = tuned_gemv_split(shape, l, machine);
    const GemvLoads loads = tuned_gemv_loads(shape);
    check_tuned_gemv_ept(shape, l, fn);
    if (a.op == Op::T) {
        if (tuned_gemv_loop_t(a.op, l)) {  // rule 8: x as vectors where every column and x are aligned
            const bool xvec = loads == GemvLoads::kAligned16;
            const int pol = policy_of(a, l.cache) == kCached ? kCached : kStreaming;
            switch (l.nb) {
                case 2: return launch_t_loop<T, 2>(a, l, xvec, pol, s);
                case 8: return launch_t_loop<T, 8>(a, l, xvec, pol, s);
                default: return launch_t_loop<T, 4>(a, l, xvec, pol, s);
            }
        }
        if (tuned_gemv_short_t(a.op, l)) {
            const bool aligned = loads == GemvLoads::kAligned16;
            switch (l.nb) {
                case 2: return launch_t_short<T, 2>(a, l, aligned, s);
                case 8: return launch_t_short<T, 8>(a, l, aligned, s);
                default: return launch_t_short<T, 4>(a, l, aligned, s);
            }
        }
        // Shifted columns (not aligned): A's aligned parts load like the aligned kernel's A,
        // cached or streaming (the other policies are sweeps of the aligned kernel).
        const bool shifted = loads != GemvLoads::kAligned16;
        if (shifted)
            return policy_of(a, l.cache) == kCached ? dispatch_t<T, kCached>(a, l, Y, true, s)
                                                    : dispatch_t<T, kStreaming>(a, l, Y, true, s);
        switch (policy_of(a, l.cache)) {
            case kCached: return dispatch_t<T, kCached>(a, l, Y, false, s);
            case kStreaming: return dispatch_t<T, kStreaming>(a, l, Y, false, s);
            case kEvictFirst: return dispatch_t<T, kEvictFirst>(a, l, Y, false, s);
            default: return dispatch_t<T, kStreaming256>(a, l, Y, false, s);
        }
    }
    // Element loads (columns not 16-byte aligned): cached, or streaming for every other policy.
    if (loads == GemvLoads::kElement)
        return policy_of(a, l.cache) == kCached ? dispatch_n<T, kElement, kCached>(a, l, Y, s)
                                                : dispatch_n<T, kElement, kStreaming>(a, l, Y, s);
    switch (policy_of(a, l.cache)) {
        case kCached: return dispatch_n<T, kAligned16, kCached>(a, l, Y, s);
        case kStreaming: return dispatch_n<T, kAligned16, kStreaming>(a, l, Y, s);
        case kEvictFirst: return dispatch_n<T, kAligned16, kEvictFirst>(a, l, Y, s);
        default: return dispatch_n<T, kAligned16, kStreaming256>(a, l, Y, s);
    }
}

template void gemv<float>(const GemvArgs<float>&, const GemvLaunch&, cudaStream_t);
template void gemv<double>(const GemvArgs<double>&, const GemvLaunch&, cudaStream_t);

}  // namespace wb::tuned
