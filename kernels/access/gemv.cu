/// \file access/gemv.cu
/// \brief Chapter 4 — GEMV with the optimized access pattern: padding, staggered starts, 16-byte
///        loads, and irregular edges without out-of-bounds reads.
///
/// What changes against chapter 3 (White §4.3.1, Listing 4.11, Figs. 4.12-4.15; Nath et al. §6.3):
/// - T: the 32 x 32 shared tile gets one padding column (tile[32][33]). The store of a warp's 32
///   rows of one column now falls into 32 different banks instead of one (chapter 3's 32-way
///   conflict); the reads tile[r][tx] stay conflict-free.
/// - Partition-staggered start: block b begins its sweep of the reduction dimension at an offset
///   that depends on b (White: P = blockIdx.x mod 8 partitions), so concurrent blocks do not all
///   start in the same memory partition. On the T10 this fixed partition camping; chapter 0
///   measures whether today's address hashing still needs it.
/// - Aligned wide loads: each thread loads 16 bytes (float4 / double2) when A's base and lda keep
///   every column 16-byte aligned; otherwise the same kernel runs with scalar loads.
/// - Irregular sizes: a vector that would cross the last row is loaded element by element with
///   zero padding in registers — never a read past the matrix (compute-sanitizer checks it).
/// Model: the same bytes as chapter 3; 4x fewer load instructions (floats) and no replayed
/// shared-memory stores.
/// Run: ./workbook run ch04 -- --op gemv      (GemvLaunch: block_x = 32, block_y = Q, Y: 0 = derived)
#include "gemv_common.cuh"

namespace wb::access {
namespace {

constexpr int kTile = 32;
constexpr int kPartitions = 8;  // White's T10: 8 partitions; the stagger cycles through 8 starts

/// Loads W consecutive elements p[0..W) — one 16-byte load when `full`, else guarded scalars.
template <class T, int W, bool VEC>
__device__ __forceinline__ void load_run(const T* p, int avail, T (&out)[W]) {
    if constexpr (VEC) {
        if (avail >= W) {
            const auto v = *reinterpret_cast<const typename detail::Vec16<T>::type*>(p);
#pragma unroll
            for (int k = 0; k < W; ++k) out[k] = detail::vget(v, k);
            return;
        }
    }
#pragma unroll
    for (int k = 0; k < W; ++k) out[k] = k < avail ? p[k] : T(0);
}

//! [access-gemv-n]
template <class T, bool VEC>
__global__ void gemv_n_kernel(int m, int n, int k_per_block, T alpha, const T* __restrict__ A, int lda,
                              const T* __restrict__ x, T beta, T* __restrict__ y, detail::SplitWorkspace<T> ws) {
    constexpr int W = VEC ? detail::Vec16<T>::width : 1;  // rows per thread
    extern __shared__ unsigned char smem_raw[];
    T* red = reinterpret_cast<T*>(smem_raw);  // [Q][kTile * W], written W elements per thread
    const int tx = threadIdx.x, ty = threadIdx.y, Q = blockDim.y;
    const int i0 = (blockIdx.x * kTile + tx) * W;
    const int kb = blockIdx.y * k_per_block, ke = min(n, kb + k_per_block), L = ke - kb;
    const int off = (blockIdx.x % kPartitions) * (L / kPartitions);  // staggered start
    const int avail = m - i0;
    T acc[W];
#pragma unroll
    for (int k = 0; k < W; ++k) acc[k] = 0;
    auto sweep = [&](int from, int to) {
        for (int j = from + ty; j < to; j += Q) {
            T a[W];
            load_run<T, W, VEC>(A + i0 + static_cast<long long>(j) * lda, avail, a);
            const T xj = __ldg(&x[j]);
#pragma unroll
            for (int k = 0; k < W; ++k) acc[k] += a[k] * xj;
        }
    };
    if (avail > 0) {
        sweep(kb + off, ke);
        sweep(kb, kb + off);
    }
#pragma unroll
    for (int k = 0; k < W; ++k) red[(ty * kTile + tx) * W + k] = acc[k];
    __syncthreads();
    T v[W];
#pragma unroll
    for (int k = 0; k < W; ++k) {
        v[k] = 0;
        if (ty == 0)
            for (int q = 0; q < Q; ++q) v[k] += red[(q * kTile + tx) * W + k];
    }
    detail::split_finish<T, W>(v, ty == 0 && avail > 0, i0, blockIdx.x * kTile * W, kTile * W, m, gridDim.y,
                               blockIdx.y, blockIdx.x, alpha, beta, y, ws);
}
//! [access-gemv-n]

//! [access-gemv-t]
template <class T, bool VEC>
__global__ void gemv_t_kernel(int m, int n, int k_per_block, T alpha, const T* __restrict__ A, int lda,
                              const T* __restrict__ x, T beta, T* __restrict__ y, detail::SplitWorkspace<T> ws) {
    constexpr int W = VEC ? detail::Vec16<T>::width : 1;  // rows per load
    constexpr int kRuns = kTile / W;                       // loads per tile column
    __shared__ T tile[kTile][kTile + 1];                   // +1: conflict-free column stores
    __shared__ T xs[kTile];
    extern __shared__ unsigned char smem_raw[];
    T* red = reinterpret_cast<T*>(smem_raw);  // [Q][kTile]
    const int tx = threadIdx.x, ty = threadIdx.y, Q = blockDim.y, tid = ty * kTile + tx;
    const int j0 = blockIdx.x * kTile;
    const int kb = blockIdx.y * k_per_block, ke = min(m, kb + k_per_block);
    const int ntiles = (ke - kb + kTile - 1) / kTile;
    const int t0 = ntiles > 0 ? (blockIdx.x % kPartitions) % ntiles : 0;  // staggered start
    T sum = 0;
    for (int t = 0; t < ntiles; ++t) {
        const int i0 = kb + ((t0 + t) % ntiles) * kTile;
        for (int idx = tid; idx < kTile * kRuns; idx += kTile * Q) {
            const int c = idx / kRuns, q = idx % kRuns, col = j0 + c, row = i0 + q * W;
            T a[W];
            if (col < n)
                load_run<T, W, VEC>(A + row + static_cast<long long>(col) * lda, ke - row, a);
            else
#pragma unroll
                for (int k = 0; k < W; ++k) a[k] = 0;
#pragma unroll
            for (int k = 0; k < W; ++k) tile[q * W + k][c] = a[k];
        }
        if (ty == 0) xs[tx] = i0 + tx < ke ? __ldg(&x[i0 + tx]) : T(0);
        __syncthreads();
        for (int r = ty; r < kTile; r += Q) sum += tile[r][tx] * xs[r];
        __syncthreads();
    }
    red[tid] = sum;
    __syncthreads();
    const int j = j0 + tx;
    T v[1] = {0};
    if (ty == 0)
        for (int q = 0; q < Q; ++q) v[0] += red[q * kTile + tx];
    detail::split_finish<T, 1>(v, ty == 0 && j < n, j, j0, kTile, n, gridDim.y, blockIdx.y, blockIdx.x, alpha, beta,
                               y, ws);
}
//! [access-gemv-t]

template <class T, bool VEC>
void launch(const GemvArgs<T>& a, int Q, int Yreq, cudaStream_t s) {
    constexpr const char* fn = "access::gemv";
    constexpr int W = VEC ? detail::Vec16<T>::width : 1;
    const int len_y = a.len_y(), k = a.len_x();
    const int rows_per_tile = a.op == Op::N ? kTile * W : kTile;
    const int tiles = detail::ceil_div(len_y, rows_per_tile);
    const auto [k_per_block, Y] = gemv_split_reduction(
        k, detail::derive_split(Yreq, tiles, k, 2048 / (kTile * Q), 4 * kTile, 1, a.op == Op::N ? 16 : 64), kTile);
    const dim3 grid(detail::grid_dim(tiles, kMaxGridX, fn), detail::grid_dim(Y, kMaxGridYZ, fn));
    detail::SplitWorkspace<T> ws{};
    if (Y > 1) ws = detail::split_workspace<T>(Y, len_y, tiles, s);
    if (a.op == Op::N) {
        const std::size_t smem = static_cast<std::size_t>(Q) * kTile * W * sizeof(T);
        gemv_n_kernel<T, VEC><<<grid, dim3(kTile, Q), smem, s>>>(a.m, a.n, k_per_block, a.alpha, a.A, a.lda, a.x,
                                                                 a.beta, a.y, ws);
    } else {
        const std::size_t smem = static_cast<std::size_t>(Q) * kTile * sizeof(T);
        gemv_t_kernel<T, VEC><<<grid, dim3(kTile, Q), smem, s>>>(a.m, a.n, k_per_block, a.alpha, a.A, a.lda, a.x,
                                                                 a.beta, a.y, ws);
    }
    WB_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& a, const GemvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "access::gemv";
    const int Q = detail::warp_by_q(l, fn);
    if (!detail::gemv_begin(a, fn, s)) return;
    if (detail::vector_loads_ok(a))
        launch<T, true>(a, Q, l.Y, s);
    else
        launch<T, false>(a, Q, l.Y, s);
}

template void gemv<float>(const GemvArgs<float>&, const GemvLaunch&, cudaStream_t);
template void gemv<double>(const GemvArgs<double>&, const GemvLaunch&, cudaStream_t);

}  // namespace wb::access
