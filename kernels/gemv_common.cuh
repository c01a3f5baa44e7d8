/// \file gemv_common.cuh
/// \brief Device-side pieces every GEMV step shares: 16-byte vector types, the launch guard,
///        and the split-reduction finish (KBLAS's blocks-per-row Y, done without atomics on y:
///        each block writes its partial results, the last block of a tile sums them in a fixed
///        order, so results are deterministic and beta == 0 never reads y).
#pragma once

#include "gemv.hpp"
#include "check.hpp"
#include "launch_checks.hpp"
#include "vec16.cuh"

#include <cuda_runtime.h>
#include <cooperative_groups.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <cstring>

namespace wb::detail {

/// True when A and x allow 16-byte loads: 16-byte-aligned base pointers and a leading dimension
/// that keeps every column start aligned (lda % width == 0).
template <class T>
bool vector_loads_ok(const GemvArgs<T>& a) {
    constexpr int w = Vec16<T>::width;
    return reinterpret_cast<std::uintptr_t>(a.A) % 16 == 0 && reinterpret_cast<std::uintptr_t>(a.x) % 16 == 0 &&
           a.lda % w == 0;
}

/// Workspace of the split reduction: `partial` holds Y partial results per output element,
/// `tickets` one counter per output tile (zero between launches: the last block resets it).
template <class T>
struct SplitWorkspace {
    T* partial = nullptr;     ///< Y rows of `ld` elements: row b holds block b's partial results
    unsigned* tickets = nullptr;
    int ld = 0;               ///< len(y) rounded up to 4, so rows of W-vectors stay 16-byte aligned
};

/// The calling thread's grow-only workspace for the current device and stream `s`
/// (common/buffer.hpp): launches on two streams may overlap, so each stream has its own partials
/// and tickets (the tickets zero-filled when they grow, then reset by the kernels themselves).
template <class T>
SplitWorkspace<T> split_workspace(int Y, int len_y, std::size_t tiles, cudaStream_t s);

/// Finishes a split reduction. The writing thread of each group of W consecutive outputs
/// (`writer`, rows i0 .. i0+W-1, i0 a multiple of W) passes their values `v` from this block,
/// block `yb` of Y; the tile's outputs are [tile_begin, tile_begin + tile_len). With Y == 1 the
/// writers store y directly. Otherwise each block stores its partials (as W-vectors, zeros past
/// len(y)), and the last block to arrive (a ticket per tile) sums the Y partials of the tile
/// with all of its threads: G groups of threads take every G-th partial with 16-byte loads and
/// four independent chains, then meet in shared memory. The order of the sum is fixed, so the
/// result is deterministic; y is read only when beta != 0. All threads of the block must call it.
template <class T, int W>
__device__ void split_finish(const T (&v)[W], bool writer, int i0, int tile_begin, int tile_len, int len_y, int Y,
                             int yb, int tile, T alpha, T beta, T* __restrict__ y, SplitWorkspace<T> ws) {
    using V = typename std::conditional<W == 1, T, typename Vec16<T>::type>::type;
    static_assert(W == 1 || W == Vec16<T>::width, "W is 1 or a 16-byte vector's width");
    constexpr int kRed = 1024;  // shared scratch, in elements of T
    __shared__ bool is_last;
    __shared__ V red[kRed / W];
    if (Y == 1) {  // no split: write the result directly
        if (writer)
#pragma unroll
            for (int k = 0; k < W; ++k)
                if (i0 + k < len_y)
                    y[i0 + k] = beta == T(0) ? alpha * v[k] : alpha * v[k] + beta * y[i0 + k];
        return;
    }
    if (writer) {
        T* p = ws.partial + static_cast<std::size_t>(yb) * ws.ld + i0;
        if constexpr (W == 1) {
            *p = v[0];
        } else {
            T w[W];
#pragma unroll
            for (int k = 0; k < W; ++k) w[k] = i0 + k < len_y ? v[k] : T(0);
            V out;
            std::memcpy(&out, w, sizeof(V));
            *reinterpret_cast<V*>(p) = out;
        }
    }
    __threadfence();  // make the partials visible device-wide before taking a ticket
    __syncthreads();
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
    if (tid == 0) {
        const unsigned ticket = atomicAdd(&ws.tickets[tile], 1u);
        is_last = (ticket == static_cast<unsigned>(Y - 1));
        if (is_last) ws.tickets[tile] = 0;  // ready for the next launch
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    const int nvec = (min(tile_len, len_y - tile_begin) + W - 1) / W;  // W-vectors in this tile
    const int G = max(1, min(min(Y, nthreads / max(1, nvec)), (kRed / W) / max(1, nvec)));
    const int per = nthreads / G;  // threads per group
    auto add = [](V& a, const V& b) {
        if constexpr (W == 1) {
            a += b;
        } else {
            T* pa = reinterpret_cast<T*>(&a);
            const T* pb = reinterpret_cast<const T*>(&b);
#pragma unroll
            for (int k = 0; k < W; ++k) pa[k] += pb[k];
        }
    };
    for (int e0 = 0; e0 < nvec; e0 += per) {
        const int e = e0 + tid % per, g = tid / per;
        V s{};
        if (e < nvec && g < G) {
            const V* p = reinterpret_cast<const V*>(ws.partial + tile_begin) + e;
            const std::size_t stride = static_cast<std::size_t>(ws.ld) / W;
            V s1{}, s2{}, s3{};  // four independent chains: the loads overlap
            int b = g;
            for (; b + 3 * G < Y; b += 4 * G) {
                add(s, __ldcg(p + b * stride));
                add(s1, __ldcg(p + (b + G) * stride));
                add(s2, __ldcg(p + (b + 2 * G) * stride));
                add(s3, __ldcg(p + (b + 3 * G) * stride));
            }
            for (; b < Y; b += G) add(s, __ldcg(p + b * stride));
            add(s, s1);
            add(s2, s3);
            add(s, s2);
        }
        if (G > 1) {
            __syncthreads();
            if (g < G) red[tid] = s;
            __syncthreads();
            if (g == 0 && e < nvec)
                for (int q = 1; q < G; ++q) add(s, red[q * per + tid]);
        }
        if (g == 0 && e < nvec) {
            const T* ps = reinterpret_cast<const T*>(&s);
#pragma unroll
            for (int k = 0; k < W; ++k) {
                const int row = tile_begin + e * W + k;
                if (row < len_y) y[row] = beta == T(0) ? alpha * ps[k] : alpha * ps[k] + beta * y[row];
            }
        }
    }
}

/// Finishes a split reduction through a thread-block cluster (Hopper, compute capability 9.0+):
/// the Y blocks of a tile are launched as one cluster (dimensions 1 x Y), so they run at the same
/// time on one GPC and can read each other's shared memory (distributed shared memory). Each
/// block leaves its partial results for the tile in its own shared array `part` (tile-local
/// index, `tile_len` elements); after one cluster barrier, block r of the cluster sums elements
/// r, r + Y, r + 2Y, ... over the Y blocks in rank order and writes y. Against split_finish this
/// removes the global partials, the __threadfence, the ticket and the serial last block: the
/// kernel's tail is two hardware barriers and Y reads of neighbouring SMs' shared memory. The
/// order of the sum is fixed (deterministic); y is read only when beta != 0. All threads of the
/// block must call it; without a cluster launch (Y == 1) it writes y directly.
template <class T>
__device__ void cluster_finish(const T* part, int tile_begin, int tile_len, int len_y, T alpha, T beta,
                               T* __restrict__ y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // every block's partials are in its shared memory (release/acquire)
    const int Y = static_cast<int>(cluster.num_blocks()), r = static_cast<int>(cluster.block_rank());
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
    const int len = min(tile_len, len_y - tile_begin);
    for (int e = r + tid * Y; e < len; e += nthreads * Y) {
        T s0 = 0, s1 = 0;  // two chains: the remote loads overlap
        int b = 0;
        for (; b + 1 < Y; b += 2) {
            s0 += cluster.map_shared_rank(part, b)[e];
            s1 += cluster.map_shared_rank(part, b + 1)[e];
        }
        if (b < Y) s0 += cluster.map_shared_rank(part, b)[e];
        const T s = s0 + s1;
        const int row = tile_begin + e;
        y[row] = beta == T(0) ? alpha * s : alpha * s + beta * y[row];
    }
    cluster.sync();  // keep this block's shared memory alive until every block has read it
#else
    (void)part; (void)tile_begin; (void)tile_len; (void)len_y; (void)alpha; (void)beta; (void)y;
    __trap();  // never launched: the host uses clusters only where the device has them
#endif
}

// Grid sizes and launch-field rules are checked as every op checks them (launch_checks.hpp).
using launch_checks::grid_dim;
using launch_checks::require_launch;

inline int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

/// What every launcher does first: validate (throws), then handle the degenerate cases as BLAS
/// does — m == 0 or n == 0 is a no-op; alpha == 0 gives y = beta*y without reading A or x.
/// Returns true when the kernel must run.
template <class T>
bool gemv_begin(const GemvArgs<T>& a, const char* fn, cudaStream_t s) {
    if (!validate_gemv(a, fn)) return false;
    if (a.alpha == T(0)) {
        gemv_scale_y(a, s);
        return false;
    }
    return true;
}

/// The launch shape of chapters 3 and 4: one warp across a 32-wide tile (block_x = 32, 0 picks
/// it), Q = block_y threads per result (0 picks 8), Y >= 0 (0: derived). Returns Q.
inline int warp_by_q(const GemvLaunch& l, const char* fn) {
    const int bx = l.block_x > 0 ? l.block_x : 32;
    const int Q = l.block_y > 0 ? l.block_y : 8;
    require_launch(bx == 32, fn, "block_x", bx, "32 (one warp across the tile)");
    require_launch(Q >= 1 && Q <= 32, fn, "block_y", Q, "in [1, 32] (threads per result Q)");
    require_launch(l.Y >= 0, fn, "Y", l.Y, ">= 0 (0: derived)");
    return Q;
}

}  // namespace wb::detail

namespace wb::detail {

/// KBLAS's blocks per row (TOMS §4.3, Eq. 5-6): split the reduction dimension `k` over Y blocks
/// so that tiles x Y fills about `waves` waves of `blocks_per_sm` blocks on every SM, keeping at
/// least `min_k_per_block` of the reduction per block and at most `max_y` partials per result
/// (the last block of a tile sums them: a long sum there is the kernel's tail). `requested` > 0
/// overrides.
inline int derive_split(int requested, long long tiles, long long k, int blocks_per_sm, int min_k_per_block,
                        int waves = 1, int max_y_cap = 64) {
    if (requested > 0) return requested;
    const long long target = static_cast<long long>(launch_checks::sm_count()) * blocks_per_sm * waves;
    long long y = (target + tiles - 1) / tiles;
    const long long max_y = std::max<long long>(1, std::min<long long>(max_y_cap, k / min_k_per_block));
    if (y > max_y) y = max_y;
    if (y < 1) y = 1;
    return static_cast<int>(y);
}

}  // namespace wb::detail
