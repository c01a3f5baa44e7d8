/// \file pattern/gemv.cu
/// \brief Chapter 3 — GEMV with the optimized computation pattern: several threads per result.
///
/// What changes against chapter 2 (White §4.2.1, Listing 4.9; KBLAS TOMS §4.2-4.3, Eq. 5-8):
/// - Q threads share each result. Thread (tx, ty) of a bx x Q block sums the products of every
///   Q-th element of the reduction; the Q partial sums meet in shared memory and one thread per
///   result adds them. More threads, more loads in flight per result.
/// - Y blocks share each tile of results (KBLAS's blocks per row): the reduction dimension is cut
///   into Y slices, so small problems still launch enough blocks to fill every SM. Each block
///   writes its partial results; the last block of a tile to finish sums them in order (no
///   atomics on y: deterministic, and beta == 0 never reads y).
/// - x is read through the read-only data cache (N) or staged in shared memory with the tile (T)
///   instead of constant memory: no more one launch per 24 KB chunk of x.
/// - T keeps chapter 2's unpadded 32 x 32 shared tile (its 32-way store conflict is chapter 4's).
/// Model: the same DRAM bytes as chapter 2; the gain is occupancy and loads in flight (Little's
/// law), largest at small sizes where chapter 2 launches fewer blocks than SMs.
/// Run: ./workbook run ch03 -- --op gemv      (GemvLaunch: block_x = 32, block_y = Q, Y: 0 = derived)
#include "gemv_common.cuh"

namespace wb::pattern {
namespace {

constexpr int kTile = 32;  // rows (N) or columns (T) a block owns, and the T tile height

//! [pattern-gemv-n]
template <class T>
__global__ void gemv_n_kernel(int m, int n, int k_per_block, T alpha, const T* __restrict__ A, int lda,
                              const T* __restrict__ x, T beta, T* __restrict__ y, detail::SplitWorkspace<T> ws) {
    extern __shared__ unsigned char smem_raw[];
    T* red = reinterpret_cast<T*>(smem_raw);  // [Q][kTile]
    const int tx = threadIdx.x, ty = threadIdx.y, Q = blockDim.y;
    const int i = blockIdx.x * kTile + tx;
    const int kb = blockIdx.y * k_per_block, ke = min(n, kb + k_per_block);
    T sum = 0;
    if (i < m)
        for (int j = kb + ty; j < ke; j += Q) sum += A[i + static_cast<long long>(j) * lda] * __ldg(&x[j]);
    red[ty * kTile + tx] = sum;
    __syncthreads();
    T v[1] = {0};
    if (ty == 0)
        for (int q = 0; q < Q; ++q) v[0] += red[q * kTile + tx];
    detail::split_finish<T, 1>(v, ty == 0 && i < m, i, blockIdx.x * kTile, kTile, m, gridDim.y, blockIdx.y,
                               blockIdx.x, alpha, beta, y, ws);
}
//! [pattern-gemv-n]

//! [pattern-gemv-t]
template <class T>
__global__ void gemv_t_kernel(int m, int n, int k_per_block, T alpha, const T* __restrict__ A, int lda,
                              const T* __restrict__ x, T beta, T* __restrict__ y, detail::SplitWorkspace<T> ws) {
    __shared__ T tile[kTile][kTile];  // unpadded: tile[row][col]
    __shared__ T xs[kTile];
    extern __shared__ unsigned char smem_raw[];
    T* red = reinterpret_cast<T*>(smem_raw);  // [Q][kTile]
    const int tx = threadIdx.x, ty = threadIdx.y, Q = blockDim.y;
    const int j0 = blockIdx.x * kTile;
    const int kb = blockIdx.y * k_per_block, ke = min(m, kb + k_per_block);
    T sum = 0;
    for (int i0 = kb; i0 < ke; i0 += kTile) {
        // Coalesced load: warp ty reads kTile consecutive rows of columns ty, ty+Q, ...
        const int row = i0 + tx;
        for (int c = ty; c < kTile; c += Q) {
            const int col = j0 + c;
            tile[tx][c] = (row < ke && col < n) ? A[row + static_cast<long long>(col) * lda] : T(0);
        }
        if (ty == 0) xs[tx] = row < ke ? __ldg(&x[row]) : T(0);
        __syncthreads();
        for (int r = ty; r < kTile; r += Q) sum += tile[r][tx] * xs[r];
        __syncthreads();
    }
    red[ty * kTile + tx] = sum;
    __syncthreads();
    const int j = j0 + tx;
    T v[1] = {0};
    if (ty == 0)
        for (int q = 0; q < Q; ++q) v[0] += red[q * kTile + tx];
    detail::split_finish<T, 1>(v, ty == 0 && j < n, j, j0, kTile, n, gridDim.y, blockIdx.y, blockIdx.x, alpha, beta,
                               y, ws);
}
//! [pattern-gemv-t]

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& a, const GemvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "pattern::gemv";
    const int Q = detail::warp_by_q(l, fn);
    const int bx = kTile;
    if (!detail::gemv_begin(a, fn, s)) return;
    const int len_y = a.len_y(), k = a.len_x();
    const int tiles = detail::ceil_div(len_y, kTile);
    const auto [k_per_block, Y] =  // whole tiles
        gemv_split_reduction(k, detail::derive_split(l.Y, tiles, k, 2048 / (bx * Q), 4 * kTile), kTile);
    const dim3 grid(detail::grid_dim(tiles, kMaxGridX, fn), detail::grid_dim(Y, kMaxGridYZ, fn));
    const dim3 block(bx, Q);
    detail::SplitWorkspace<T> ws{};
    if (Y > 1) ws = detail::split_workspace<T>(Y, len_y, tiles, s);
    const std::size_t smem = static_cast<std::size_t>(Q) * kTile * sizeof(T);
    if (a.op == Op::N)
        gemv_n_kernel<T><<<grid, block, smem, s>>>(a.m, a.n, k_per_block, a.alpha, a.A, a.lda, a.x, a.beta, a.y, ws);
    else
        gemv_t_kernel<T><<<grid, block, smem, s>>>(a.m, a.n, k_per_block, a.alpha, a.A, a.lda, a.x, a.beta, a.y, ws);
    WB_CHECK_LAUNCH();
}

template void gemv<float>(const GemvArgs<float>&, const GemvLaunch&, cudaStream_t);
template void gemv<double>(const GemvArgs<double>&, const GemvLaunch&, cudaStream_t);

}  // namespace wb::pattern
