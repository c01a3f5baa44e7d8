/// \file tuned/cg.cu
/// \brief Chapter 5 — CG with the tuned deterministic SYMV and one fused vector kernel per
///        iteration, launched as a CUDA graph of several iterations, with a convergence test that
///        does not stall the pipeline.
///
/// What changes against chapter 4:
/// - The Mv is the SYMV ladder's tuned step (tuned::symv, KBLAS design, deterministic reduction):
///   half of A read, 2 launches.
/// - One vector kernel per iteration (fused_kernel), a cooperative launch with two grid barriers:
///   p.q (partials, barrier, every block adds the partials in the same fixed order, so every block
///   holds the same alpha), then x += alpha p, r -= alpha q and r.r (barrier, beta), then
///   p = r + beta p. Three launches of chapter 4 become one; p and q are read from L2 the second
///   time. The grid is small (at most 2 blocks per SM, as many as can be resident at once).
/// - check_every iterations (default 8) are captured once into a CUDA graph (SYMV's 2 kernels +
///   the fused kernel, per iteration) and replayed: one launch call per 8 iterations instead of
///   24. The graph is kept per thread and rebuilt when the arguments or a workspace change.
/// - The convergence test does not stall the pipeline: chunk k + 1 is queued before the host
///   waits for the status copied after chunk k (an event, not a stream synchronization), so the
///   GPU never idles waiting for the host. Kernels after convergence return at once (the SYMV
///   still runs: at most 2 check_every wasted Mvs per solve, none when timing a fixed number of
///   iterations).
/// - launch.schedule = 0 runs the same kernels as plain stream launches, and schedule = 2 runs the
///   whole solve as one persistent cooperative kernel (persistent_kernel: its own tiled SYMV of
///   the lower triangle with a fixed-order reduction, 4 grid barriers per iteration, no host
///   involvement until the end). The chapter's sweep (ch05 --sweep) times all three. The graph is
///   the default because it measured faster from n = 2048 on (H200 sweep of 2026-11-23,
///   docs/results/h200/sweep-cg-b17e1bd-dirty-all.csv): the persistent kernel saves launches,
///   which wins at n = 1024, but its own SYMV reads A far below the tuned one.
/// Model (common/model/cg): half of A + SYMV's workspace + 13n elements (p and q read twice, the
/// second time from L2), 3 kernels per iteration inside a graph, no host round trip per iteration.
/// Follows: KBLAS (the Mv); cuda-samples conjugateGradientMultiBlockCG (grid barriers in CG).
/// Run: ./workbook run ch05 -- --op cg       (CgLaunch: block = 256, check_every = 8, schedule = 1)
#include "cg_common.cuh"
#include "symv.hpp"
#include "symv_common.cuh"

#include <cooperative_groups.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

namespace wb::tuned {
namespace {

namespace cgx = cooperative_groups;
using cg_detail::kBreakdown;
using cg_detail::kConverged;
using cg_detail::kMaxGrid;
using cg_detail::kRunning;
using cg_detail::State;
using cg_detail::Vec16;

/// The value thread 0 holds, in every thread of the block.
template <class T>
__device__ __forceinline__ T broadcast(T v) {
    __shared__ T s;
    if (threadIdx.x == 0) s = v;
    __syncthreads();
    const T out = s;
    __syncthreads();
    return out;
}

__device__ __forceinline__ float dot4(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
__device__ __forceinline__ double dot4(double2 a, double2 b) { return a.x * b.x + a.y * b.y; }
__device__ __forceinline__ float4 fma4(float s, float4 a, float4 b) {
    return make_float4(fmaf(s, a.x, b.x), fmaf(s, a.y, b.y), fmaf(s, a.z, b.z), fmaf(s, a.w, b.w));
}
__device__ __forceinline__ double2 fma4(double s, double2 a, double2 b) {
    return make_double2(fma(s, a.x, b.x), fma(s, a.y, b.y));
}

//! [tuned-cg-fused]
/// One iteration's vector work after q = A p, in one cooperative launch (len padded to 64).
template <class T>
__global__ void fused_kernel(int len, const T* __restrict__ q, T* __restrict__ p, T* __restrict__ x,
                             T* __restrict__ r, State<T>* st, T* part) {
    using V = typename Vec16<T>::type;
    if (st->status != kRunning) return;  // the same value in every block: nobody waits at a barrier
    const T rr_old = st->rr;
    const T thresh2 = st->thresh2;
    const int iter = st->iter;
    const int nv = len / Vec16<T>::n;
    const int stride = gridDim.x * blockDim.x;
    const int t0 = blockIdx.x * blockDim.x + threadIdx.x;
    const V* q4 = reinterpret_cast<const V*>(q);
    V* p4 = reinterpret_cast<V*>(p);
    V* x4 = reinterpret_cast<V*>(x);
    V* r4 = reinterpret_cast<V*>(r);
    cgx::grid_group grid = cgx::this_grid();

    T acc = 0;
    for (int i = t0; i < nv; i += stride) acc += dot4(p4[i], q4[i]);
    acc = cg_detail::block_sum(acc);
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
    grid.sync();
    const T pq = broadcast(cg_detail::sum_partials(part, gridDim.x, 1, 0));  // the same bits in every block
    if (!(pq > T(0)) || !isfinite(pq)) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            st->pq = pq;
            st->status = kBreakdown;
        }
        return;  // every block takes this branch
    }
    const T alpha = rr_old / pq;
    acc = 0;
    for (int i = t0; i < nv; i += stride) {
        x4[i] = fma4(alpha, p4[i], x4[i]);
        const V ri = fma4(-alpha, q4[i], r4[i]);
        r4[i] = ri;
        acc += dot4(ri, ri);
    }
    acc = cg_detail::block_sum(acc);
    if (threadIdx.x == 0) part[kMaxGrid + blockIdx.x] = acc;
    grid.sync();
    const T rr = broadcast(cg_detail::sum_partials(part + kMaxGrid, gridDim.x, 1, 0));
    const T beta = rr / rr_old;
    const int status = !isfinite(rr) ? kBreakdown : rr <= thresh2 ? kConverged : kRunning;
    if (status == kRunning)
        for (int i = t0; i < nv; i += stride) p4[i] = fma4(beta, p4[i], r4[i]);
    if (blockIdx.x == 0 && threadIdx.x == 0) {  // every block has read st before the first barrier
        st->pq = pq;
        st->alpha = alpha;
        st->beta = beta;
        st->rr = rr;
        st->iter = iter + 1;
        st->status = status;
    }
}
//! [tuned-cg-fused]


// ---- schedule 2: the whole solve in one persistent cooperative kernel ----

constexpr int kTile = 64;             // tiles of A: 64 x 64
constexpr int kCols = 4;              // thread columns: a block is 64 x 4 = 256 threads (1-D)
constexpr int kPer = kTile / kCols;   // columns of a tile per thread
constexpr int kPersistBlock = kTile * kCols;

template <class T>
struct Persist {
    int n, lda, nt, max_iter;
    const T* A;
    T *p, *q, *x, *r;  ///< padded to nt * 64 elements, the padding zero
    T* W;              ///< 2 x 64 partials per stored tile: A_IJ p_J (rows of I), A_IJ^T p_I (rows of J)
    State<T>* st;
    T* part;
};

/// Tile t of the lower triangle, numbered row by row: (0,0), (1,0), (1,1), (2,0), ...
__device__ __forceinline__ void lower_tile(int t, int& I, int& J) {
    int i = static_cast<int>((sqrtf(8.0f * static_cast<float>(t) + 1.0f) - 1.0f) * 0.5f);
    while (i * (i + 1) / 2 > t) --i;
    while ((i + 1) * (i + 2) / 2 <= t) ++i;
    I = i;
    J = t - i * (i + 1) / 2;
}

//! [tuned-cg-persistent]
/// The whole solve: per iteration (1) every block takes stored tiles round-robin and writes their
/// two partial products, (2) every row tile sums its partials in a fixed order into q, with p.q,
/// (3) alpha, x and r, r.r, (4) beta, p. Four grid barriers per iteration; the scalars live in
/// registers (every block computes the same bits); vectors other blocks wrote are read through L2
/// (__ldcg: L1 is not coherent within a kernel).
template <class T>
__global__ void __launch_bounds__(kPersistBlock) persistent_kernel(Persist<T> a) {
    cgx::grid_group grid = cgx::this_grid();
    __shared__ T rows[kCols][kTile];
    __shared__ T cols[2][kTile];
    const int tid = threadIdx.x, tx = tid % kTile, ty = tid / kTile;
    const int G = gridDim.x;
    const int ntiles = a.nt * (a.nt + 1) / 2;
    const int len = a.nt * kTile;
    T rr = a.st->rr;
    const T thresh2 = a.st->thresh2;
    int status = a.st->status, iter = a.st->iter;
    T pq = 0, alpha = 0, beta = 0;
    const bool ran = status == kRunning && iter < a.max_iter;
    while (status == kRunning && iter < a.max_iter) {
        for (int t = blockIdx.x; t < ntiles; t += G) {  // (1) the stored tiles' partial products
            int I, J;
            lower_tile(t, I, J);
            const int row = I * kTile + tx, c0 = J * kTile + ty * kPer;
            const T pi = __ldcg(a.p + row);
            T rs = 0, acc[kPer];
#pragma unroll
            for (int k = 0; k < kPer; ++k) {
                const int col = c0 + k;
                T v = 0;
                if (row < a.n && col < a.n)
                    v = (I != J || row >= col) ? a.A[row + static_cast<long long>(col) * a.lda]
                                               : a.A[col + static_cast<long long>(row) * a.lda];  // mirrored
                rs += v * __ldcg(a.p + col);
                acc[k] = v * pi;
            }
            rows[ty][tx] = rs;
            if (I != J) {  // the same for the whole block
#pragma unroll
                for (int k = 0; k < kPer; ++k) {
                    T v = acc[k];
#pragma unroll
                    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
                    if (tid % 32 == 0) cols[tx / 32][ty * kPer + k] = v;
                }
            }
            __syncthreads();
            if (tid < kTile)
                a.W[static_cast<long long>(2 * t) * kTile + tid] = rows[0][tid] + rows[1][tid] + rows[2][tid] + rows[3][tid];
            else if (I != J && tid < 2 * kTile)
                a.W[static_cast<long long>(2 * t + 1) * kTile + tid - kTile] = cols[0][tid - kTile] + cols[1][tid - kTile];
            __syncthreads();
        }
        grid.sync();
        T acc_pq = 0;
        for (int I = blockIdx.x; I < a.nt; I += G) {  // (2) q = A p by row tiles, and p.q
            if (tid < kTile) {
                T s = 0;
                const int base = I * (I + 1) / 2;
                for (int J = 0; J <= I; ++J) s += __ldcg(a.W + static_cast<long long>(2 * (base + J)) * kTile + tid);
                for (int K = I + 1; K < a.nt; ++K)
                    s += __ldcg(a.W + static_cast<long long>(2 * (K * (K + 1) / 2 + I) + 1) * kTile + tid);
                const int i = I * kTile + tid;
                a.q[i] = s;
                acc_pq += __ldcg(a.p + i) * s;
            }
        }
        acc_pq = cg_detail::block_sum(acc_pq);
        if (tid == 0) a.part[blockIdx.x] = acc_pq;
        grid.sync();
        pq = broadcast(cg_detail::sum_partials(a.part, G, 1, 0));
        if (!(pq > T(0)) || !isfinite(pq)) {
            status = kBreakdown;
            break;  // every block: the same pq
        }
        alpha = rr / pq;
        T acc_rr = 0;  // (3) x, r, r.r
        for (int i = blockIdx.x * blockDim.x + tid; i < len; i += G * blockDim.x) {
            const T pi = __ldcg(a.p + i), qi = __ldcg(a.q + i);
            a.x[i] = __ldcg(a.x + i) + alpha * pi;
            const T ri = __ldcg(a.r + i) - alpha * qi;
            a.r[i] = ri;
            acc_rr += ri * ri;
        }
        acc_rr = cg_detail::block_sum(acc_rr);
        if (tid == 0) a.part[kMaxGrid + blockIdx.x] = acc_rr;
        grid.sync();
        const T rr_new = broadcast(cg_detail::sum_partials(a.part + kMaxGrid, G, 1, 0));
        beta = rr_new / rr;
        rr = rr_new;
        ++iter;
        status = !isfinite(rr) ? kBreakdown : rr <= thresh2 ? kConverged : kRunning;
        if (status == kRunning)  // (4) p
            for (int i = blockIdx.x * blockDim.x + tid; i < len; i += G * blockDim.x)
                a.p[i] = __ldcg(a.r + i) + beta * __ldcg(a.p + i);
        grid.sync();
    }
    if (ran && blockIdx.x == 0 && tid == 0) {  // every block read st before its first barrier
        a.st->rr = rr;
        a.st->pq = pq;
        a.st->alpha = alpha;
        a.st->beta = beta;
        a.st->iter = iter;
        a.st->status = status;
    }
}
//! [tuned-cg-persistent]

/// Blocks of the persistent kernel: as many as can be resident (at most one per stored tile).
template <class T>
int persistent_grid(int ntiles) {
    thread_local std::map<std::pair<int, int>, int> resident;  // (device, size) -> blocks
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    const auto key = std::make_pair(dev, static_cast<int>(sizeof(T)));
    auto it = resident.find(key);
    if (it == resident.end()) {
        int per_sm = 0;
        WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel<T>, kPersistBlock, 0));
        it = resident.emplace(key, std::max(1, per_sm) * cg_detail::sm_count()).first;
    }
    return std::max(1, std::min(std::min(ntiles, kMaxGrid), it->second));
}

/// Blocks of the fused kernel: enough for len, at most as many as can be resident at once.
template <class T>
int fused_grid(int len, int block) {
    thread_local std::map<std::tuple<int, int, int>, int> resident;  // (device, block, size) -> blocks
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    const auto key = std::make_tuple(dev, block, static_cast<int>(sizeof(T)));
    auto it = resident.find(key);
    if (it == resident.end()) {
        int per_sm = 0;
        WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fused_kernel<T>, block, 0));
        it = resident.emplace(key, std::max(1, per_sm) * cg_detail::sm_count()).first;
    }
    return std::max(1, std::min(cg_detail::vector_grid(len, block, Vec16<T>::n), it->second));
}

/// A cooperative launch: the kernel's grid-wide barriers need every block resident at once (the
/// callers size the grid by the occupancy API).
template <class... Params, class... Args>
void launch_cooperative(void (*kernel)(Params...), int grid, int block, cudaStream_t s, Args... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    WB_CUDA(cudaLaunchKernelEx(&cfg, kernel, args...));
}

template <class T>
void launch_fused(int grid, int block, int len, const T* q, T* p, T* x, T* r, State<T>* st, T* part, cudaStream_t s) {
    launch_cooperative(fused_kernel<T>, grid, block, s, len, q, p, x, r, st, part);
}

/// A captured chunk of iterations and what it was captured for.
struct GraphKey {
    int dev, elem, n, lda, block, grid, chunk, unused;  // 8 ints: no padding before the pointers
    const void *A, *r, *p, *q, *x, *st, *symv_ws;
    bool operator<(const GraphKey& o) const {
        return std::memcmp(this, &o, sizeof(GraphKey)) < 0;
    }
};

struct Graphs {
    std::map<GraphKey, cudaGraphExec_t> exec;  // released with the context at exit
    std::map<int, cudaStream_t> capture;      // a non-blocking stream per device to capture on
    bool unsupported = false;                 // a capture failed once: stream launches from then on
};

Graphs& graphs() {
    thread_local Graphs g;
    return g;
}

/// Two events (the status of chunk k and of chunk k + 1), per thread and device.
cudaEvent_t status_event(int k) {
    thread_local std::map<int, std::pair<cudaEvent_t, cudaEvent_t>> ev;
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    auto it = ev.find(dev);
    if (it == ev.end()) {
        cudaEvent_t a, b;
        WB_CUDA(cudaEventCreateWithFlags(&a, cudaEventDisableTiming));
        WB_CUDA(cudaEventCreateWithFlags(&b, cudaEventDisableTiming));
        it = ev.emplace(dev, std::make_pair(a, b)).first;
    }
    return k == 0 ? it->second.first : it->second.second;
}

}  // namespace

template <class T>
void cg(const CgArgs<T>& a, const CgLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::cg";
    const int block = cg_detail::vector_block(l, 256, fn);
    const int check = l.check_every > 0 ? l.check_every : 8;
    cg_detail::require_launch(check >= 1 && check <= 64, fn, "check_every", check, "in [1, 64]");
    const int schedule = l.schedule < 0 ? 1 : l.schedule;
    cg_detail::require_launch(schedule >= 0 && schedule <= 2, fn, "schedule", l.schedule,
                              "-1 (default), 0 (stream launches), 1 (CUDA graphs) or 2 (persistent kernel)");
    cg_detail::require_launch(schedule != 2 || block == kPersistBlock, fn, "block", block,
                              "256 with schedule 2 (the persistent kernel's 64 x 4 tile threads)");
    const bool use_graph = schedule == 1;
    if (!cg_detail::begin(a, fn)) return;
    const int n = a.n;
    const int nt = static_cast<int>(cg_detail::ceil_div(n, kTile));
    const std::size_t ntiles = static_cast<std::size_t>(nt) * (nt + 1) / 2;
    cg_detail::Work<T> w = cg_detail::make_work<T>(n, 4, Vec16<T>::n, schedule == 2 ? 2 * ntiles * kTile : 0);
    T *r = w.v[0], *p = w.v[1], *q = w.v[2], *x = w.v[3];
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    WB_CUDA(cudaMemcpyAsync(x, a.x, bytes, cudaMemcpyDeviceToDevice, s));
    WB_CUDA(cudaMemcpyAsync(r, a.b, bytes, cudaMemcpyDeviceToDevice, s));
    SymvArgs<T> sa = cg_detail::mv_symv(a, T(-1), x, T(1), r);
    SymvLaunch sl = step<SymvArgs<T>>(5).default_launch(sa);
    sl.atomics = 0;  // deterministic
    tuned::symv(sa, sl, s);  // r = b - A x0
    sa.alpha = T(1);
    sa.beta = T(0);
    sa.x = p;
    sa.y = q;
    T* const pads[4] = {r, p, q, x};
    cg_detail::launch_init<T>(n, w.len, a.b, w, pads, 4, a.tol, block, s);
    cg_detail::State<T> st = cg_detail::read_state(w.st, s);
    if (schedule == 2) {  // the whole solve in one cooperative launch; the host waits for its end
        if (st.status == kRunning && a.max_iter > 0) {
            const Persist<T> pa{n, a.lda, nt, a.max_iter, a.A, p, q, x, r, w.extra, w.st, w.partials};
            launch_cooperative(persistent_kernel<T>, persistent_grid<T>(static_cast<int>(ntiles)), kPersistBlock, s, pa);
            st = cg_detail::read_state(w.st, s);
        }
        cg_detail::finish(a, st, x, s);
        WB_CUDA(cudaMemcpyAsync(a.x, x, bytes, cudaMemcpyDeviceToDevice, s));
        WB_CUDA(cudaStreamSynchronize(s));
        return;
    }
    const int grid = fused_grid<T>(w.len, block);

    //! [tuned-cg-chunk]
    auto iterate = [&](cudaStream_t on) {
        tuned::symv(sa, sl, on);
        launch_fused<T>(grid, block, w.len, q, p, x, r, w.st, w.partials, on);
    };
    auto queue_chunk = [&](int chunk) {
        if (!use_graph || chunk != check) {  // stream launches (and the tail of max_iter)
            for (int k = 0; k < chunk; ++k) iterate(s);
            return;
        }
        Graphs& g = graphs();
        if (g.unsupported) {
            for (int k = 0; k < chunk; ++k) iterate(s);
            return;
        }
        int dev = 0;
        WB_CUDA(cudaGetDevice(&dev));
        cudaStream_t& cs = g.capture[dev];
        if (!cs) WB_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
        // The captured SYMV takes the capture stream's workspace (one per stream): sized here,
        // since nothing may be allocated inside a capture, and part of the graph's key.
        // (sl is SYMV's derived default: nb and Y are always set.)
        T* const symv_ws = symv_detail::workspace<T>(tuned::symv_workspace_elems(n, sl.nb, sl.y_blocks), cs);
        const GraphKey key{dev, static_cast<int>(sizeof(T)), n, a.lda, block, grid, chunk, 0, a.A, r, p, q, x,
                           w.st, symv_ws};
        auto it = g.exec.find(key);
        if (it == g.exec.end()) {
            cudaGraph_t graph = nullptr;
            cudaGraphExec_t exec = nullptr;
            try {
                WB_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
                for (int k = 0; k < chunk; ++k) iterate(cs);
                WB_CUDA(cudaStreamEndCapture(cs, &graph));
                WB_CUDA(cudaGraphInstantiate(&exec, graph, 0));
                WB_CUDA(cudaGraphDestroy(graph));
            } catch (const CudaError& e) {
                // A runtime that cannot capture the cooperative kernel: end the capture, say so
                // once, and run the same kernels as stream launches (the results are identical).
                cudaGraph_t partial = nullptr;
                cudaStreamEndCapture(cs, &partial);
                if (partial) cudaGraphDestroy(partial);
                if (graph) cudaGraphDestroy(graph);
                cudaGetLastError();
                g.unsupported = true;
                std::fprintf(stderr, "tuned::cg: CUDA graph capture failed (%s); stream launches instead\n", e.what());
                for (int k = 0; k < chunk; ++k) iterate(s);
                return;
            }
            it = g.exec.emplace(key, exec).first;
        }
        WB_CUDA(cudaGraphLaunch(it->second, s));
    };
    // Chunk k + 1 is queued before the host waits for chunk k's status.
    auto* host = static_cast<cg_detail::State<T>*>(cg_detail::pinned_state(2 * sizeof(cg_detail::State<T>)));
    int queued = 0, cur = 0;
    auto queue_with_status = [&](int slot) {
        const int chunk = std::min(check, a.max_iter - queued);
        queue_chunk(chunk);
        queued += chunk;
        WB_CUDA(cudaMemcpyAsync(host + slot, w.st, sizeof(cg_detail::State<T>), cudaMemcpyDeviceToHost, s));
        WB_CUDA(cudaEventRecord(status_event(slot), s));
    };
    if (st.status == kRunning && queued < a.max_iter) {
        queue_with_status(cur);
        for (;;) {
            if (queued < a.max_iter) queue_with_status(1 - cur);
            WB_CUDA(cudaEventSynchronize(status_event(cur)));
            if (host[cur].status != kRunning || queued >= a.max_iter) break;
            cur = 1 - cur;
        }
    }
    //! [tuned-cg-chunk]
    st = cg_detail::read_state(w.st, s);  // after everything queued (exact: late kernels did nothing)
    cg_detail::finish(a, st, x, s);
    WB_CUDA(cudaMemcpyAsync(a.x, x, bytes, cudaMemcpyDeviceToDevice, s));
    WB_CUDA(cudaStreamSynchronize(s));
}

template void cg<float>(const CgArgs<float>&, const CgLaunch&, cudaStream_t);
template void cg<double>(const CgArgs<double>&, const CgLaunch&, cudaStream_t);

}  // namespace wb::tuned
