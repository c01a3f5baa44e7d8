/// \file cg_common.cuh
/// \brief Pieces every CG step shares (see docs/pages/architecture.md, "How to add an op"): the
///        solver state the device-resident steps keep on the GPU, their workspace, the block and
///        grid reductions (fixed order: a solve is bit-identical run to run), the vector kernels
///        of chapters 3 and 4 (a dot product whose last block computes alpha; the x and r updates
///        with r.r in one pass, whose last block computes beta and tests convergence; the p
///        update), and the host's begin/finish every launcher calls.
///
/// Device-resident state. The steps of chapters 3-5 never bring a scalar to the host inside the
/// loop: alpha, beta, r.r and the status live in a State on the device; every vector kernel reads
/// the status first and does nothing once the solve has converged or broken down, so the host may
/// queue several iterations and look at the status only every few of them.
#pragma once

#include "cg.hpp"
#include "check.hpp"
#include "gemv.hpp"
#include "symv.hpp"
#include "launch_checks.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace wb::cg_detail {

using launch_checks::ceil_div;
using launch_checks::fail;
using launch_checks::grid_dim;
using launch_checks::num;
using launch_checks::require_launch;
using launch_checks::sm_count;

/// Status codes in State::status.
enum : int { kRunning = 0, kConverged = 1, kBreakdown = 2 };

/// The solver's scalars on the device (chapters 3-5). Written only by one thread of the last block
/// of a kernel (or by block 0 after a grid barrier), read by every block of the next kernels.
template <class T>
struct State {
    T rr;       ///< r.r of the current residual
    T bb;       ///< b.b
    T thresh2;  ///< (tol ||b||)^2: converged when rr <= thresh2
    T alpha, beta, pq;
    int iter;    ///< iterations done
    int status;  ///< kRunning, kConverged, kBreakdown
    unsigned counter;  ///< blocks done in the current reduction (the last one resets it to 0)
};


#ifdef __CUDACC__
// ---- device helpers (fixed-order reductions; CUDA sources only) ----

/// Sum of `v` over the block, valid in thread 0: warp shuffles in a fixed butterfly, then the warp
/// sums in order. Every thread of the block must call it; it may be called again in the same kernel.
template <class T>
__device__ __forceinline__ T block_sum(T v) {
    __shared__ T warp_sums[32];
    __syncthreads();  // a previous call's readers are done with warp_sums
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    T s = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < static_cast<int>(blockDim.x + 31) / 32; ++w) s += warp_sums[w];
    return s;
}

/// Whether this block is the last of the grid to finish its partial (threadFenceReduction of the
/// CUDA samples): thread 0 has written the block's partial(s) before the call. Every thread of the
/// block must call it; the answer is the same in every thread.
__device__ __forceinline__ bool last_block(unsigned* counter) {
    __shared__ bool is_last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    return is_last;
}

/// sum_{b < nblocks} part[b * stride + k] in a fixed order, valid in thread 0 (every thread calls
/// it). Reads through L2 (__ldcg): the partials were written by other blocks of the same kernel.
template <class T>
__device__ __forceinline__ T sum_partials(const T* part, int nblocks, int stride, int k) {
    T v = 0;
    for (int b = threadIdx.x; b < nblocks; b += blockDim.x) v += __ldcg(part + b * stride + k);
    return block_sum(v);
}

/// The value thread 0 holds, in every thread of the block (every thread calls it).
template <class T>
__device__ __forceinline__ T broadcast(T v) {
    __shared__ T s;
    if (threadIdx.x == 0) s = v;
    __syncthreads();
    const T out = s;
    __syncthreads();
    return out;
}

/// 16 bytes of T: a float4 or a double2.
template <class T> struct Vec16;
template <> struct Vec16<float> { using type = float4; static constexpr int n = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int n = 2; };
#endif  // __CUDACC__

/// The most blocks a vector kernel launches (the partials buffer holds 2 per block).
constexpr int kMaxGrid = 1024;

/// A device workspace of at least `bytes` for the current device, kept between calls and grown
/// (never shrunk, zeroed when allocated) on demand: a growth synchronizes the device. One per host
/// thread and device; calls that share it must be ordered (one stream).
void* workspace(std::size_t bytes);

/// Page-locked host copy of a State, one per host thread (the target of the status reads).
void* pinned_state(std::size_t bytes);

/// The parts of one solve's workspace: the state, the partials, and `nvec` vectors of `len`
/// elements each (256-byte aligned: len is a multiple of 64 elements).
template <class T>
struct Work {
    State<T>* st = nullptr;
    T* partials = nullptr;  ///< 2 kMaxGrid
    T* v[4] = {nullptr, nullptr, nullptr, nullptr};
    T* extra = nullptr;  ///< `extra` elements after the vectors (256-byte aligned), when asked for
    int len = 0;
};

/// Carves a Work out of the workspace: vectors padded to a multiple of `pad` elements (1: none),
/// and `extra` more elements.
template <class T>
Work<T> make_work(int n, int nvec, int pad, std::size_t extra = 0);

/// The grid of the vector kernels: enough blocks of `block` threads for `len` elements at `per_thread`
/// each, at most 2 per SM and kMaxGrid.
int vector_grid(int len, int block, int per_thread);

/// What every launcher does first: validates (throws before any GPU call) and, for n == 0, writes
/// the converged result. Returns true when there is a solve to run.
template <class T>
bool begin(const CgArgs<T>& a, const char* fn);

/// Writes `r` into *a.result when a.result is set.
template <class T>
void set_result(const CgArgs<T>& a, int iterations, double residual, CgStatus status);

/// b == 0: x = 0 is the solution of A x = 0 (A SPD); writes it into `x` (n elements, device),
/// waits, and reports convergence after 0 iterations. Every step and the peer end this way.
template <class T>
void zero_solution(const CgArgs<T>& a, T* x, cudaStream_t s);

/// Copies the device State to the host (waits for the stream).
template <class T>
State<T> read_state(const State<T>* st, cudaStream_t s);

/// After the loop of a device-resident step: the final state read, x = 0 when b == 0, the
/// result written. `ran` is the number of iterations the host queued (for the max_iter status).
template <class T>
void finish(const CgArgs<T>& a, const State<T>& st, T* x, cudaStream_t s);

// ---- the vector kernels of chapters 3 and 4 (V = elements per access: 1, or 16 bytes' worth on
// padded, aligned vectors) ----

/// r and p: p = r; rr = r.r, bb = b.b; thresh2; status (converged at once when rr <= thresh2 or
/// b == 0); zeroes the padding [n, len) of every vector in `zero`; state counter and iter reset.
template <class T>
void launch_init(int n, int len, const T* b, Work<T>& w, T* const* zero, int nzero, double tol, int block,
                 cudaStream_t s);

/// pq = p.q; its last block: alpha = rr / pq, or breakdown when pq <= 0 or not finite.
template <class T>
void launch_dot_pq(const Work<T>& w, const T* p, const T* q, int block, bool vec, cudaStream_t s);

/// x += alpha p, r -= alpha q, r.r in one pass; its last block: iter + 1, beta, convergence.
template <class T>
void launch_update_xr(const Work<T>& w, const T* p, const T* q, T* x, T* r, int block, bool vec, cudaStream_t s);

/// p = r + beta p.
template <class T>
void launch_update_p(const Work<T>& w, const T* r, T* p, int block, bool vec, cudaStream_t s);

/// The block size of the vector kernels: launch.block or `def`, checked (a multiple of 32 in [64, 1024]).
int vector_block(const CgLaunch& l, int def, const char* fn);

/// The loop of the device-resident steps of chapters 3 and 4: from r = b - A x already in w.v[0],
/// init, then chunks of `check_every` iterations (q = mv(p); p.q and alpha; x, r and r.r, beta;
/// p), the status read after each chunk (the only host round trip), at most max_iter iterations.
/// Kernels queued after convergence do nothing (they read the status first), except the Mv.
template <class T, class Mv>
void device_loop(const CgArgs<T>& a, Work<T>& w, T* x, T* r, T* p, T* q, T* const* zero, int nzero, Mv mv, int block,
                 bool vec, int check_every, cudaStream_t s) {
    launch_init<T>(a.n, w.len, a.b, w, zero, nzero, a.tol, block, s);
    State<T> st = read_state(w.st, s);
    int queued = 0;
    while (st.status == kRunning && queued < a.max_iter) {
        const int chunk = check_every < a.max_iter - queued ? check_every : a.max_iter - queued;
        for (int k = 0; k < chunk; ++k) {
            mv(p, q);
            launch_dot_pq<T>(w, p, q, block, vec, s);
            launch_update_xr<T>(w, p, q, x, r, block, vec, s);
            launch_update_p<T>(w, r, p, block, vec, s);
        }
        queued += chunk;
        st = read_state(w.st, s);
    }
    finish(a, st, x, s);
}

/// y = alpha A x + beta y as GEMV arguments (op N on the whole n x n A): the Mv of steps 1-3.
template <class T>
GemvArgs<T> mv_gemv(const CgArgs<T>& a, T alpha, const T* x, T beta, T* y) {
    GemvArgs<T> g;
    g.op = Op::N;
    g.m = g.n = a.n;
    g.A = a.A;
    g.lda = a.lda;
    g.alpha = alpha;
    g.beta = beta;
    g.x = x;
    g.y = y;
    return g;
}

/// The same Mv as SYMV arguments on A's lower triangle (half of A read): steps 4 and 5.
template <class T>
SymvArgs<T> mv_symv(const CgArgs<T>& a, T alpha, const T* x, T beta, T* y) {
    SymvArgs<T> sa;
    sa.uplo = Uplo::Lower;
    sa.n = a.n;
    sa.A = a.A;
    sa.lda = a.lda;
    sa.alpha = alpha;
    sa.beta = beta;
    sa.x = x;
    sa.y = y;
    return sa;
}

}  // namespace wb::cg_detail
