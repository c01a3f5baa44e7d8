/// \file tuned/cg.cu
/// \brief Chapter 5 — CG as one persistent kernel that keeps a share of A on chip where that pays,
///        else with the tuned deterministic SYMV and one fused vector kernel per iteration,
///        launched as a CUDA graph of several iterations, with a convergence test that does not
///        stall the pipeline.
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
///   whole solve as one persistent cooperative kernel (cg_persistent.cuh) that keeps a share of A
///   in shared memory from one iteration to the next and streams the rest, two grid barriers per
///   iteration, no host involvement until the end.
/// - The default launch (chapter 6's derivation, tuned/cg_default_rule.cpp) sets the schedule: the
///   persistent kernel where the CG model predicts it faster per iteration than the graphs (its
///   walk streams what it does not keep at the card's probed rate, model::cg_walk_tile_cycles), and
///   the check interval (derive::cg_check_interval); schedule = -1 takes the default's schedule
///   (chapters/ch05_unrolled/cg.md, "The rule").
/// Model (common/model/cg): graph: half of A + SYMV's workspace + 13n elements (p and q read twice,
/// the second time from L2), 3 kernels per iteration inside a graph, no host round trip per
/// iteration; persistent: the triangle less its on-chip share, per-tile partials, two barriers.
/// Follows: KBLAS (the Mv); cuda-samples conjugateGradientMultiBlockCG (grid barriers in CG).
/// Run: ./workbook run ch05 -- --op cg       (CgLaunch: the derived block, check_every and schedule)
#include "cg_common.cuh"
#include "symv.hpp"
#include "symv_common.cuh"
#include "cg_persistent.cuh"
#include "vector_offset.hpp"
#include "model/cg.hpp"

#include <cooperative_groups.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
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
    const T pq = cg_detail::broadcast(cg_detail::sum_partials(part, gridDim.x, 1, 0));  // the same bits in every block
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
    const T rr = cg_detail::broadcast(cg_detail::sum_partials(part + kMaxGrid, gridDim.x, 1, 0));
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
void launch_cooperative(void (*kernel)(Params...), int grid, int block, std::size_t smem, cudaStream_t s,
                        Args... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    WB_CUDA(cudaLaunchKernelEx(&cfg, kernel, args...));
}

/// Tiles whose partial sums meet at one barrier in the persistent kernel: 2 (its p values are
/// staged a group ahead, so that their loads have two tiles' time; and a group's shared arrays
/// stay small enough for 4 float tiles per block on chip at 3 blocks per SM).
constexpr int kPersistGroup = 2;

/// The persistent kernel's grid and the tiles each block keeps in shared memory: the tuned SYMV's
/// resident blocks per SM (registers), each with an equal share of the SM's shared memory (less
/// the kernel's static arrays, the per-block reserve and the block's tile table) in whole tiles,
/// never more than the block's tiles. Fewer blocks only where that many cannot be resident.
struct PersistPlan {
    int grid = 1, cache = 0;
    std::size_t smem = 0;
    double share = 0;  ///< kept tiles / stored tiles
};

template <class T>
PersistPlan persistent_plan(long long ntiles) {
    struct Device {
        long long sm_smem = 0, dyn_cap = 0, per_block = 0;
        int sms = 0;
    };
    thread_local std::map<std::pair<int, int>, Device> known;  // (device, size) -> shared memory figures
    int dev = 0;
    WB_CUDA(cudaGetDevice(&dev));
    const auto key = std::make_pair(dev, static_cast<int>(sizeof(T)));
    // The plan of both instantiations (aligned, shifted origin): the same registers and shared memory.
    auto kernel = cg_persist::solve_kernel<T, kPersistGroup, false>;
    constexpr int want = vec::Layout<T>::kMinBlocks;
    constexpr long long tile = static_cast<long long>(vec::kNb) * vec::kNb * sizeof(T);
    auto it = known.find(key);
    if (it == known.end()) {
        int sm_smem = 0, optin = 0, reserved = 0;
        WB_CUDA(cudaDeviceGetAttribute(&sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
        WB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        WB_CUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
        cudaFuncAttributes fa{};
        WB_CUDA(cudaFuncGetAttributes(&fa, kernel));
        Device d;
        d.sm_smem = sm_smem;
        d.dyn_cap = static_cast<long long>(optin) - static_cast<long long>(fa.sharedSizeBytes);
        d.per_block = std::min<long long>(d.dyn_cap, static_cast<long long>(sm_smem) / want - reserved -
                                                         static_cast<long long>(fa.sharedSizeBytes));
        d.sms = cg_detail::sm_count();
        for (auto k : {kernel, cg_persist::solve_kernel<T, kPersistGroup, true>})  // both launch with this plan
            WB_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(d.dyn_cap)));
        it = known.emplace(key, d).first;
    }
    const Device& d = it->second;
    constexpr int deal = model::cg_persistent_deal(sizeof(T));
    const long long units = cg_detail::ceil_div(ntiles, deal);  // the kernel deals its tiles in units
    auto most_tiles = [&](int grid) { return deal * cg_detail::ceil_div(units, grid); };
    PersistPlan pl;
    for (int per_sm = want; per_sm >= 1; --per_sm) {
        pl.grid = static_cast<int>(std::max(1LL, std::min<long long>({units, static_cast<long long>(per_sm) * d.sms,
                                                                      cg_detail::kMaxGrid})));
        const long long table = (most_tiles(pl.grid) * 4 + 15) / 16 * 16;
        const long long room = (per_sm == want ? d.per_block : d.dyn_cap) - table;
        pl.cache = static_cast<int>(std::min<long long>(std::max(0LL, room) / tile, most_tiles(pl.grid)));
        for (; pl.cache >= 0 && table <= d.dyn_cap; --pl.cache) {  // until per_sm blocks are resident
            pl.smem = static_cast<std::size_t>(pl.cache * tile + table);
            int resident = 0;
            WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, vec::kThreads, pl.smem));
            if (static_cast<long long>(resident) * d.sms >= pl.grid) {
                pl.share = model::cg_persistent_share(ntiles, pl.grid, pl.cache, deal);
                return pl;
            }
        }
    }
    return PersistPlan{0, 0, 0, 0.0};  // no table fits (n of several hundred thousand): grid 0
}

template <class T>
void launch_fused(int grid, int block, int len, const T* q, T* p, T* x, T* r, State<T>* st, T* part, cudaStream_t s) {
    launch_cooperative(fused_kernel<T>, grid, block, 0, s, len, q, p, x, r, st, part);
}

/// The largest n of the persistent kernel: its tile table packs I and J into 16 bits each.
constexpr int kPersistMaxN = std::numeric_limits<std::uint16_t>::max() * 64;

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
double cg_persistent_onchip_share(int n) {
    if (n <= 0 || n > kPersistMaxN) return 0;
    const long long nt = cg_detail::ceil_div(n, vec::kNb);
    return persistent_plan<T>(nt * (nt + 1) / 2).share;
}

int check_cg_launch(const CgLaunch& l, const char* fn) {
    const int block = cg_detail::vector_block(l, 256, fn);
    const int check = l.check_every > 0 ? l.check_every : 8;
    cg_detail::require_launch(check >= 1 && check <= 64, fn, "check_every", check, "in [1, 64]");
    cg_detail::require_launch(l.schedule >= -1 && l.schedule <= 2, fn, "schedule", l.schedule,
                              "-1 (default), 0 (stream launches), 1 (CUDA graphs) or 2 (persistent kernel)");
    cg_detail::require_launch(l.schedule != 2 || block == vec::kThreads, fn, "block", block,
                              "256 with schedule 2 (the persistent kernel's tile threads)");
    return block;
}

template <class T>
void cg(const CgArgs<T>& a, const CgLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::cg";
    const int block = check_cg_launch(l, fn);
    const int check = l.check_every > 0 ? l.check_every : 8;
    if (!cg_detail::begin(a, fn)) return;
    const int n = a.n;
    const bool may_persist = (l.schedule == -1 || l.schedule == 2) && block == vec::kThreads && n <= kPersistMaxN;
    // The persistent kernel's aligned origin (KBLAS §6.6, as the tuned SYMV's): in a submatrix
    // view whose columns all start d elements past a 16-byte boundary, its tiles start d rows and
    // columns before A(0, 0), so that every tile's column segment is whole 16-byte vectors (and
    // whole DRAM lines) of memory; its vectors then hold row i at element d + i.
    const int d = may_persist && !vec::fits(a.A, a.lda, 0) ? std::max(0, detail::vector_offset(a.A, a.lda)) : 0;
    const int nt = static_cast<int>(cg_detail::ceil_div(static_cast<long long>(n) + d, vec::kNb));
    const long long ntiles = static_cast<long long>(nt) * (nt + 1) / 2;
    // The persistent kernel's plan, made once per solve: the default's rule reads its on-chip
    // share, schedule 2 launches it. Grid 0: no plan (n too large, or a block other than 256).
    const PersistPlan plan = may_persist ? persistent_plan<T>(ntiles) : PersistPlan{0, 0, 0, 0.0};
    // The default (-1): the schedule of the step's default launch (chapter 6's derivation: the
    // persistent kernel where the CG model predicts it the faster), where the persistent kernel
    // can run (a plan, its block of 256 threads not overridden); else the graphs.
    const int schedule = l.schedule >= 0 ? l.schedule : plan.grid > 0 && cg_default<T>(a).schedule == 2 ? 2 : 1;
    const bool use_graph = schedule == 1;
    // The persistent kernel's second p buffer and its partials (2 x 64 per tile).
    const std::size_t extra =
        schedule == 2 ? static_cast<std::size_t>(nt) * vec::kNb + 2 * static_cast<std::size_t>(ntiles) * vec::kNb : 0;
    const int ds = schedule == 2 ? d : 0;  // the vectors' first ds elements: rows before A(0, 0)
    cg_detail::Work<T> w = cg_detail::make_work<T>(n + ds, 4, Vec16<T>::n, extra);
    T *r = w.v[0] + ds, *p = w.v[1] + ds, *q = w.v[2] + ds, *x = w.v[3] + ds;
    cg_detail::Work<T> wi = w;  // the vectors from row 0 on, for the set-up below
    for (int k = 0; k < 4; ++k) wi.v[k] += ds;
    wi.len -= ds;
    for (int k = 0; k < 4 && ds > 0; ++k) WB_CUDA(cudaMemsetAsync(w.v[k], 0, ds * sizeof(T), s));
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
    cg_detail::launch_init<T>(n, wi.len, a.b, wi, pads, 4, a.tol, block, s);
    cg_detail::State<T> st = cg_detail::read_state(w.st, s);
    if (schedule == 2) {  // the whole solve in one cooperative launch; the host waits for its end
        if (st.status == kRunning && a.max_iter > 0) {
            if (n > kPersistMaxN)
                throw std::invalid_argument("tuned::cg: n (" + std::to_string(n) + ") must be <= " +
                                            std::to_string(kPersistMaxN) + " with schedule 2 (the persistent kernel)");
            if (plan.grid == 0)
                throw std::invalid_argument("tuned::cg: n (" + std::to_string(n) +
                                            ") too large for the persistent kernel's tile table (schedule 2)");
            cg_persist::Args<T> pa{};
            pa.n = n;
            pa.lda = a.lda;
            pa.nt = nt;
            pa.max_iter = a.max_iter;
            pa.ntiles = ntiles;
            pa.cache = plan.cache;
            pa.vec = vec::fits(a.A, a.lda, ds);
            pa.shift = ds;
            pa.A = a.A;
            pa.p[0] = w.v[1];  // from the tiles' first row (ds before A's)
            pa.p[1] = w.extra;
            pa.x = w.v[3];
            pa.r = w.v[0];
            pa.W = w.extra + static_cast<std::size_t>(nt) * vec::kNb;
            pa.st = w.st;
            pa.part = w.partials;
            if (ds > 0)
                launch_cooperative(cg_persist::solve_kernel<T, kPersistGroup, true>, plan.grid, vec::kThreads, plan.smem, s, pa);
            else
                launch_cooperative(cg_persist::solve_kernel<T, kPersistGroup, false>, plan.grid, vec::kThreads, plan.smem, s,
                                   pa);
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
template double cg_persistent_onchip_share<float>(int);
template double cg_persistent_onchip_share<double>(int);

}  // namespace wb::tuned
