/// \file tuned/gemv.cu
/// \brief Chapter 5 — GEMV fine-tuned: registers instead of shared tiles, 16-byte loads, unrolled
///        loops with register double-buffered prefetch, hoisted index arithmetic, and the
///        tunables nb, Q, Y (KBLAS TOMS §6, §9) as launch parameters.
///
/// What changes against chapter 4 (White §4.4.1, Listing 4.16; KBLAS TOMS §4.2-§6; Abdelfattah
/// et al., Euro-Par'12 workshops, double buffering):
/// - No shared-memory tile for A: every thread reads 16 bytes of a column per load straight into
///   registers (N: a warp covers block_x * 16 contiguous bytes of each of 32 / block_x columns;
///   T: 512-byte runs), so the data is touched once (DRAM -> register).
/// - Each thread keeps 2 x U (N) or 2 x C (T) independent 16-byte loads in flight: while it
///   multiplies one batch, the next batch is already loading (register double buffering). Little's
///   law: a Hopper SM needs ~32 KB in flight; 2048 threads x 2 x 16 B x U covers it.
/// - Index arithmetic is hoisted: pointers advance by a constant stride; the loops run without
///   bounds checks over the full part of the matrix, and a guarded tail handles the rest.
/// - N: thread (tx, ty) owns W = 16/size(T) consecutive rows (block_x * W rows per block) and
///   every (Q*Y)-th column, starting at column blockIdx.y * Q + ty. T: a block owns nb = C
///   columns; thread (lane, warp) reads W rows of all C columns with one 16-byte load of x shared by the C columns.
///   Columns past n read the last column instead (pointer redirecting, Nath §6.3): no
///   out-of-bounds access, no divergent edge code.
/// - N blocks are tall (up to 512 threads: Q thread rows over a narrow tile of block_x * W rows)
///   and, for square problems, do not split the reduction (Y = 1): all blocks walk the same band of
///   neighbouring columns together, so the whole GPU reads one contiguous stretch of A at a time
///   and no partial results, second pass or extra waves are paid for. cuBLAS's GEMV kernels have
///   the same shape on Hopper (Nsight Compute, docs/results/h200/ncu-gemv-summary.txt).
/// - Where a split is needed (a skinny matrix: few tiles, a long reduction), the Y blocks of a
///   tile interleave their columns (no partition camping between them) and, on GPUs with
///   thread-block clusters (compute capability 9.0+, Y <= 16), sum their partials through
///   distributed shared memory (detail::cluster_finish); elsewhere through global partials and
///   a last-block ticket (detail::split_finish). Both sum in a fixed order: deterministic.
/// - Without a split, the thread that writes y loads beta * y at the start, not after the
///   reduction: the read of a cold y then hides under A's stream instead of adding one DRAM round
///   trip to the end of the kernel (measured in chapters/ch05_unrolled/README.md).
/// - N sums its Q thread rows flat: one barrier, then 8 threads per output (no tree of barriers
///   after the last load; scripts/probes/small_gemv.cu measured the difference).
/// Model: useful bytes only (A once, x mostly from L2, y once); target >= 92% of the read-stream
/// ceiling at n = 16384.
/// Run: ./workbook run ch05 -- --op gemv
///      (GemvLaunch: block_x (N: 4..256, T: 32), block_y = Q, nb = T's columns per block C, Y (0:
///      derived), ept = N's unroll U, cache = loads of A: 0 auto, 1 cached, 2 streaming,
///      3 L2 evict-first policy, 4 streaming with 256-byte L2 fetches (LoadPolicy),
///      cluster = the split: 0 auto, 1 global partials, 2 cluster)
#include "gemv_common.cuh"

#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace wb::tuned {
namespace {

template <class V, class T>
__device__ __forceinline__ T dot(const V& a, const V& b);
template <>
__device__ __forceinline__ float dot<float4, float>(const float4& a, const float4& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
template <>
__device__ __forceinline__ double dot<double2, double>(const double2& a, const double2& b) {
    return a.x * b.x + a.y * b.y;
}

/// 16-byte load of data that is reused (x): through the read-only path, cached normally.
template <class T>
__device__ __forceinline__ typename detail::Vec16<T>::type ldv(const T* p) {
    return __ldg(reinterpret_cast<const typename detail::Vec16<T>::type*>(p));
}

/// How the 16-byte loads of A, which is read exactly once, treat the caches (GemvLaunch::cache - 1).
/// The L2 a GEMV meets is usually full of dirty lines (the previous kernel's output; in the
/// benchmarks, the flush's buffer), and every line of A brought in evicts one: a dirty victim
/// costs a DRAM write inside the GEMV. The hints decide which victims A's lines pick.
enum LoadPolicy : int {
    kCached = 0,       ///< ld.global.nc (__ldg): the read-only path, normal L2 priority
    kStreaming = 1,    ///< ld.global.cs (__ldcs): evict-first in L1 and L2
    kEvictFirst = 2,   ///< ld.global.nc.L1::no_allocate.L2::cache_hint, createpolicy evict_first
    kStreaming256 = 3  ///< ld.global.cs.L2::256B: evict-first, and the L2 fetches 256-byte blocks
};

/// A 16-byte load of A with policy P (`pol` is the createpolicy descriptor kEvictFirst uses).
template <int P, class T>
__device__ __forceinline__ typename detail::Vec16<T>::type lda_stream(const T* p, unsigned long long pol) {
    using V = typename detail::Vec16<T>::type;
    if constexpr (P == kCached) {
        return __ldg(reinterpret_cast<const V*>(p));
    } else if constexpr (P == kStreaming) {
        return __ldcs(reinterpret_cast<const V*>(p));
    } else {
        uint4 r;
        if constexpr (P == kEvictFirst)
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                         : "l"(p), "l"(pol));
        else
            asm volatile("ld.global.cs.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                         : "l"(p));
        V v;
        static_assert(sizeof(V) == sizeof(uint4), "16-byte vectors");
        memcpy(&v, &r, sizeof(v));
        return v;
    }
}

/// The L2 policy descriptor of kEvictFirst (all of A's lines evict-first); 0 for the others.
template <int P>
__device__ __forceinline__ unsigned long long load_policy() {
    unsigned long long pol = 0;
    if constexpr (P == kEvictFirst) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}

// ---------------------------------------------------------------------------------------------
// N: y[i] = alpha * sum_j A[i,j] x[j] + beta y[i].  Block (BX, Q); thread rows i0..i0+W-1.
// ---------------------------------------------------------------------------------------------
//! [tuned-gemv-n]
template <class T, bool VEC, int U, int POL>
__global__ void __launch_bounds__(512) gemv_n_kernel(int m, int n, T alpha, const T* __restrict__ A,
                                                     int lda, const T* __restrict__ x, T beta, T* __restrict__ y,
                                                     detail::SplitWorkspace<T> ws, bool cluster) {
    constexpr int W = VEC ? detail::Vec16<T>::width : 1;
    using V = typename detail::Vec16<T>::type;
    extern __shared__ unsigned char smem_raw[];
    const int tx = threadIdx.x, ty = threadIdx.y, BX = blockDim.x, Q = blockDim.y;
    const int i0 = (blockIdx.x * BX + tx) * W;
    // The Y blocks of a tile interleave their columns (block b takes thread rows b*Q .. b*Q+Q-1
    // of one tall virtual block, stride S = Q*Y): at any moment all of them read one narrow band
    // of neighbouring columns. Contiguous column ranges per block would put the blocks' streams
    // a power-of-two distance apart (n/Y columns), on the same DRAM channels (partition camping,
    // chapter 4); measured on an H200, that halved the bandwidth of Y = 2 at n = 2048.
    const int S = Q * static_cast<int>(gridDim.y);
    const int ke = n;
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
        const long long step = static_cast<long long>(S) * lda;  // one column stride per thread
        int j = static_cast<int>(blockIdx.y) * Q + ty;
        const T* a = A + i0 + static_cast<long long>(j) * lda;
        const T* xp = x + j;
        if (VEC && avail >= W) {
            // Full rows: U columns per batch, next batch prefetched while this one is used.
            const int full_batches = (ke - j > 0) ? (ke - j + S - 1) / S / U : 0;
            V cur[U], nxt[U];
            T xc[U], xn[U];
            if (full_batches > 0) {
#pragma unroll
                for (int u = 0; u < U; ++u) { cur[u] = lda_stream<POL>(a + u * step, pol); xc[u] = __ldg(xp + u * S); }
            }
            for (int b = 0; b < full_batches; ++b) {
                const bool more = b + 1 < full_batches;
                if (more) {
#pragma unroll
                    for (int u = 0; u < U; ++u) { nxt[u] = lda_stream<POL>(a + (U + u) * step, pol); xn[u] = __ldg(xp + (U + u) * S); }
                }
#pragma unroll
                for (int u = 0; u < U; ++u)
#pragma unroll
                    for (int k = 0; k < W; ++k) acc[k] += detail::vget(cur[u], k) * xc[u];
                if (more) {
#pragma unroll
                    for (int u = 0; u < U; ++u) { cur[u] = nxt[u]; xc[u] = xn[u]; }
                }
                a += U * step;
                xp += U * S;
            }
            j += full_batches * U * S;
            for (; j < ke; j += S, a += step, xp += S) {
                const V v = lda_stream<POL>(a, pol);
                const T xj = __ldg(xp);
#pragma unroll
                for (int k = 0; k < W; ++k) acc[k] += detail::vget(v, k) * xj;
            }
        } else {
            // Last rows of the matrix (or unaligned A): element loads, zero beyond row m.
            for (; j < ke; j += S, a += step, xp += S) {
                const T xj = __ldg(xp);
#pragma unroll
                for (int k = 0; k < W; ++k)
                    if (k < avail) acc[k] += a[k] * xj;
            }
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
// ---------------------------------------------------------------------------------------------
//! [tuned-gemv-t]
template <class T, bool VEC, int C, int POL>
__global__ void __launch_bounds__(512) gemv_t_kernel(int m, int n, int k_per_block, T alpha, const T* __restrict__ A,
                                                     int lda, const T* __restrict__ x, T beta, T* __restrict__ y,
                                                     detail::SplitWorkspace<T> ws, bool cluster) {
    constexpr int W = VEC ? detail::Vec16<T>::width : 1;
    using V = typename detail::Vec16<T>::type;
    __shared__ T red[32][C];  // one partial per warp and column
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
    if constexpr (VEC) {
        // Full steps: every thread's W rows lie inside [kb, ke). Double-buffered.
        const int full_steps = (ke - kb) / chunk;
        V a_cur[C], a_nxt[C], x_cur, x_nxt;
        if (full_steps > 0) {
            x_cur = ldv(x + row);
#pragma unroll
            for (int c = 0; c < C; ++c) a_cur[c] = lda_stream<POL>(col[c] + row, pol);
        }
        for (int s = 0; s < full_steps; ++s) {
            const bool more = s + 1 < full_steps;
            if (more) {
                x_nxt = ldv(x + row + chunk);
#pragma unroll
                for (int c = 0; c < C; ++c) a_nxt[c] = lda_stream<POL>(col[c] + row + chunk, pol);
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
    }
    // Tail (and the whole sweep for unaligned A): guarded element loads.
    for (; row < ke; row += chunk) {
#pragma unroll
        for (int k = 0; k < W; ++k) {
            if (row + k < ke) {
                const T xv = __ldg(x + row + k);
#pragma unroll
                for (int c = 0; c < C; ++c) acc[c] += __ldg(col[c] + row + k) * xv;
            }
        }
    }
    // Reduce: lanes by shuffles, warps through shared memory.
#pragma unroll
    for (int c = 0; c < C; ++c) {
        T v = acc[c];
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0) red[warp][c] = v;
    }
    __syncthreads();
    T v[1] = {0};
    if (tid < C)
        for (int q = 0; q < Q; ++q) v[0] += red[q][tid];
    if (direct) {
        if (tid < C && j0 + tid < n) y[j0 + tid] = alpha * v[0] + yb;
        return;
    }
    if (cluster) {  // the Y blocks of this tile are one cluster: sum through shared memory
        if (tid < C) red[0][tid] = v[0];  // only this thread read column tid
        detail::cluster_finish<T>(&red[0][0], j0, C, n, alpha, beta, y);
        return;
    }
    detail::split_finish<T, 1>(v, tid < C && j0 + tid < n, j0 + tid, j0, C, n, gridDim.y, blockIdx.y, blockIdx.x,
                               alpha, beta, y, ws);
}
//! [tuned-gemv-t]

/// Largest cluster the tuned kernels ask for: 16 blocks is Hopper's non-portable maximum (8 is
/// the portable one; the kernels opt in to 16).
constexpr int kMaxCluster = 16;

/// The split of a launch: through a cluster (GemvLaunch::cluster 2, or 0 where the device has
/// clusters and 1 < Y <= kMaxCluster) or through global partials (GemvLaunch::cluster 1, or Y beyond
/// a cluster). Throws when a cluster is requested that the device or Y cannot have.
inline bool use_cluster(int Y, int requested, const char* fn) {
    if (requested == 1 || Y <= 1) return false;
    const bool can = Y <= kMaxCluster && detail::cluster_launch_of_current_device();
    if (requested == 2 && !can)
        throw std::invalid_argument(std::string(fn) + ": launch.cluster (2) needs a device with thread-block clusters "
                                    "(compute capability 9.0+) and Y (" + std::to_string(Y) + ") <= " +
                                    std::to_string(kMaxCluster));
    return can;
}

/// Launches `kernel` on grid x block; with cluster_y > 1 the blocks (x, 0 .. cluster_y-1) form
/// one cluster (grid.y == cluster_y).
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, int cluster_y,
                   Args&&... args) {
    if (cluster_y <= 1) {
        kernel<<<grid, block, smem, s>>>(std::forward<Args>(args)...);
        WB_CHECK_LAUNCH();
        return;
    }
    if (cluster_y > 8) {  // opt in to non-portable cluster sizes, once per kernel
        static std::mutex mu;
        static std::set<const void*> done;
        std::lock_guard<std::mutex> lock(mu);
        if (done.insert(reinterpret_cast<const void*>(kernel)).second)
            WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 1;
    attr[0].val.clusterDim.y = static_cast<unsigned>(cluster_y);
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    WB_CUDA(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

/// Blocks per tile when GemvLaunch::Y is 0. Measured on an H200 (launch sweeps, 2026-11-22): as soon
/// as there are tiles for an eighth of the SMs, splitting the reduction only costs: the partials
/// and their second pass, and (with the tall 512-thread blocks of the defaults, one block per SM)
/// Y times as many waves. At n = 2048 (double, N) Y = 2 ran at 0.77x of Y = 1 and Y = 8 at
/// 0.28x. Only a skinny problem (few tiles, a long reduction) splits: the smallest Y that gives
/// every SM a block, at most 16 (one cluster) and at most `max_y`.
inline int split_for(long long tiles, int max_y) {
    const long long sms = detail::sm_count_of_current_device();
    if (8 * tiles >= sms) return 1;
    const long long y = (sms + tiles - 1) / tiles;
    return static_cast<int>(std::max<long long>(1, std::min<long long>({y, kMaxCluster, max_y})));
}

template <class T, bool VEC, int U, int POL>
void launch_n(const GemvArgs<T>& a, int BX, int Q, int Yreq, int cluster, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    constexpr int W = VEC ? detail::Vec16<T>::width : 1;
    const int rows_per_block = BX * W;
    const int tiles = detail::ceil_div(a.m, rows_per_block);
    // Y (KBLAS's blocks per row), derived when 0: see split_for.
    int Y = Yreq > 0 ? Yreq : split_for(tiles, std::max(1, a.n / (4 * Q)));
    Y = std::min(Y, std::max(1, a.n / Q));  // every block gets at least one column per thread row
    const dim3 grid(detail::grid_dim(tiles, 2147483647LL, fn), detail::grid_dim(Y, 65535, fn));
    const bool cl = use_cluster(Y, cluster, fn);
    detail::SplitWorkspace<T> ws{};
    if (Y > 1 && !cl) ws = detail::split_workspace<T>(Y, a.m, tiles);
    const std::size_t smem = static_cast<std::size_t>(BX) * W * (Q + 2) * sizeof(T);  // [O][Q + 1] + O sums
    launch_kernel(gemv_n_kernel<T, VEC, U, POL>, grid, dim3(BX, Q), smem, s, cl ? Y : 1, a.m, a.n, a.alpha, a.A, a.lda, a.x, a.beta, a.y, ws, cl);
}

template <class T, bool VEC, int C, int POL>
void launch_t(const GemvArgs<T>& a, int Q, int Yreq, int cluster, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    constexpr int W = VEC ? detail::Vec16<T>::width : 1;
    const int tiles = detail::ceil_div(a.n, C);
    const int chunk = 32 * Q * W;
    int Y = Yreq > 0 ? Yreq : split_for(tiles, std::max(1, a.m / (2 * chunk)));
    int k_per_block = detail::ceil_div(detail::ceil_div(a.m, Y), chunk) * chunk;  // whole steps
    Y = detail::ceil_div(a.m, k_per_block);
    const dim3 grid(detail::grid_dim(tiles, 2147483647LL, fn), detail::grid_dim(Y, 65535, fn));
    const bool cl = use_cluster(Y, cluster, fn);
    detail::SplitWorkspace<T> ws{};
    if (Y > 1 && !cl) ws = detail::split_workspace<T>(Y, a.n, tiles);
    launch_kernel(gemv_t_kernel<T, VEC, C, POL>, grid, dim3(32, Q), 0, s, cl ? Y : 1, a.m, a.n, k_per_block, a.alpha,
                  a.A, a.lda, a.x, a.beta, a.y, ws, cl);
}

template <class T, bool VEC, int POL>
void dispatch(const GemvArgs<T>& a, const GemvLaunch& l, int BX, int Q, cudaStream_t s) {
    if (a.op == Op::N) {
        switch (l.ept) {
            case 2: return launch_n<T, VEC, 2, POL>(a, BX, Q, l.Y, l.cluster, s);
            case 8: return launch_n<T, VEC, 8, POL>(a, BX, Q, l.Y, l.cluster, s);
            default: return launch_n<T, VEC, 4, POL>(a, BX, Q, l.Y, l.cluster, s);
        }
    }
    switch (l.nb) {
        case 2: return launch_t<T, VEC, 2, POL>(a, Q, l.Y, l.cluster, s);
        case 8: return launch_t<T, VEC, 8, POL>(a, Q, l.Y, l.cluster, s);
        default: return launch_t<T, VEC, 4, POL>(a, Q, l.Y, l.cluster, s);
    }
}

/// The load policy of A for GemvLaunch::cache (1..4 pick kCached..kStreaming256). 0 (auto): stream A
/// when it is at most 8 times the L2. Measured on an H200 (2026-11-22 sweep): the hint helps while
/// a stream of A and the lines around it compete in L2 (up to n = 8192) and costs a few percent
/// on much larger matrices.
template <class T>
int policy_of(const GemvArgs<T>& a, int cache) {
    if (cache != 0) return cache - 1;
    const double bytes = static_cast<double>(a.m) * a.n * sizeof(T);
    return bytes <= 8.0 * static_cast<double>(detail::l2_bytes_of_current_device()) ? kStreaming : kCached;
}

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& a, const GemvLaunch& in, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemv";
    GemvLaunch l = in;
    if (l.block_x <= 0) l.block_x = a.op == Op::N ? 32 : 32;
    if (l.block_y <= 0) l.block_y = 8;
    if (l.nb <= 0) l.nb = 4;
    if (l.ept <= 0) l.ept = 4;
    if (a.op == Op::N)
        detail::require_launch(l.block_x >= 4 && l.block_x <= 256 && (l.block_x & (l.block_x - 1)) == 0, fn,
                               "block_x", l.block_x, "a power of two in [4, 256] (N)");
    else
        detail::require_launch(l.block_x == 32, fn, "block_x", l.block_x, "32 (T: one warp per row stripe)");
    detail::require_launch(l.block_y >= 1 && l.block_x * l.block_y <= 512 && (l.block_x * l.block_y) % 32 == 0, fn,
                           "block_y", l.block_y, ">= 1 with block_x * block_y a multiple of 32 and <= 512");
    detail::require_launch(l.nb == 2 || l.nb == 4 || l.nb == 8, fn, "nb", l.nb, "2, 4 or 8 (T: columns per block)");
    detail::require_launch(l.ept == 2 || l.ept == 4 || l.ept == 8, fn, "ept", l.ept, "2, 4 or 8 (N: unroll U)");
    detail::require_launch(l.cache >= 0 && l.cache <= 4, fn, "cache", l.cache,
                           "0 (auto), 1 (cached loads of A), 2 (streaming), 3 (L2 evict-first policy) or 4 "
                           "(streaming, 256-byte L2 fetches)");
    detail::require_launch(l.Y >= 0, fn, "Y", l.Y, ">= 0 (0: derived)");
    detail::require_launch(l.cluster >= 0 && l.cluster <= 2, fn, "cluster", l.cluster,
                           "0 (auto), 1 (global partials) or 2 (thread-block cluster)");
    if (!detail::gemv_begin(a, fn, s)) return;
    if (!detail::vector_loads_ok(a)) return dispatch<T, false, kCached>(a, l, l.block_x, l.block_y, s);  // scalar
    switch (policy_of(a, l.cache)) {
        case kCached: return dispatch<T, true, kCached>(a, l, l.block_x, l.block_y, s);
        case kStreaming: return dispatch<T, true, kStreaming>(a, l, l.block_x, l.block_y, s);
        case kEvictFirst: return dispatch<T, true, kEvictFirst>(a, l, l.block_x, l.block_y, s);
        default: return dispatch<T, true, kStreaming256>(a, l, l.block_x, l.block_y, s);
    }
}

template void gemv<float>(const GemvArgs<float>&, const GemvLaunch&, cudaStream_t);
template void gemv<double>(const GemvArgs<double>&, const GemvLaunch&, cudaStream_t);

}  // namespace wb::tuned
