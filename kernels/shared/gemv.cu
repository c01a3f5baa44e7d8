/// \file shared/gemv.cu
/// \brief Chapter 2 — GEMV with reused data in constant and shared memory.
///
/// What changes against chapter 1 (White §4.1.1, Listings 4.4-4.6; Nath et al. §3):
/// - x moves to constant memory. Every thread of a warp reads the same x[k] at the same time,
///   which the constant cache serves as one broadcast. Constant memory is 64 KB per program, so
///   x goes in chunks of kChunk elements, one launch per chunk (the first applies beta, later
///   ones add to y).
/// - T: A is staged through shared memory in nb x nb tiles. The block loads a tile column by
///   column — consecutive threads read consecutive rows, coalesced — then each thread walks its
///   column of the tile in shared memory. This removes chapter 1's 32-sectors-per-request reads.
///   The tile is unpadded: the store tile[tx][c] puts a warp's 32 values in one bank (32-way
///   bank conflict); chapter 4 pads it.
/// - N: column-major A is already read coalesced by one thread per row, so only x moves.
/// Model: both variants move ~size(T)(mn + m + n) bytes from DRAM; T gains because requests drop
/// from 32 sectors to 4 per warp load.
/// Run: ./workbook run ch02 -- --op gemv      (GemvLaunch: block_x = threads (N) or tile width nb (T))
#include "gemv_common.cuh"

namespace wb::shared {
namespace {

// x lives here, one chunk at a time (24 KB per precision, well inside the 64 KB bank).
constexpr int kChunkFloat = 6144;
constexpr int kChunkDouble = 3072;
__constant__ float c_xf[kChunkFloat];
__constant__ double c_xd[kChunkDouble];

template <class T> __device__ __forceinline__ T cx(int k);
template <> __device__ __forceinline__ float cx<float>(int k) { return c_xf[k]; }
template <> __device__ __forceinline__ double cx<double>(int k) { return c_xd[k]; }

template <class T> constexpr int chunk_elems() { return sizeof(T) == 4 ? kChunkFloat : kChunkDouble; }
template <class T> const void* chunk_symbol();
template <> const void* chunk_symbol<float>() { return reinterpret_cast<const void*>(&c_xf); }
template <> const void* chunk_symbol<double>() { return reinterpret_cast<const void*>(&c_xd); }

/// y[i] (+)= alpha * sum_{k in chunk} A[i, k0+k] x[k0+k], x from constant memory.
//! [shared-gemv-n]
template <class T>
__global__ void gemv_n_kernel(int m, int k0, int klen, bool first, T alpha, const T* A, int lda, T beta, T* y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const T* a = A + i + static_cast<long long>(k0) * lda;
    T sum = 0;
    for (int k = 0; k < klen; ++k) sum += a[static_cast<long long>(k) * lda] * cx<T>(k);
    const T prev = first ? (beta == T(0) ? T(0) : beta * y[i]) : y[i];
    y[i] = alpha * sum + prev;
}
//! [shared-gemv-n]

/// y[j] (+)= alpha * sum_{k in chunk} A[k0+k, j] x[k0+k], A staged in nb x nb shared tiles.
//! [shared-gemv-t]
template <class T>
__global__ void gemv_t_kernel(int n, int k0, int klen, bool first, T alpha, const T* A, int lda, T beta, T* y) {
    extern __shared__ unsigned char smem_raw[];
    T* tile = reinterpret_cast<T*>(smem_raw);  // nb x nb, row r of the tile at tile[r*nb]
    const int nb = blockDim.x, tx = threadIdx.x;
    const int j0 = blockIdx.x * nb;
    T sum = 0;
    for (int r0 = 0; r0 < klen; r0 += nb) {
        // Load: for each column c of the tile, the block reads nb consecutive rows (coalesced).
        for (int c = 0; c < nb; ++c) {
            const int row = k0 + r0 + tx, col = j0 + c;
            tile[tx * nb + c] = (r0 + tx < klen && col < n) ? A[row + static_cast<long long>(col) * lda] : T(0);
        }
        __syncthreads();
        const int rows = min(nb, klen - r0);
        for (int r = 0; r < rows; ++r) sum += tile[r * nb + tx] * cx<T>(r0 + r);
        __syncthreads();
    }
    const int j = j0 + tx;
    if (j >= n) return;
    const T prev = first ? (beta == T(0) ? T(0) : beta * y[j]) : y[j];
    y[j] = alpha * sum + prev;
}
//! [shared-gemv-t]

}  // namespace

template <class T>
void gemv(const GemvArgs<T>& a, const GemvLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "shared::gemv";
    const int bx = l.block_x > 0 ? l.block_x : (a.op == Op::N ? 256 : 32);
    if (a.op == Op::N)
        detail::require_launch(bx % 32 == 0 && bx <= 1024, fn, "block_x", bx, "a multiple of 32, at most 1024");
    else
        detail::require_launch(bx == 16 || bx == 32 || bx == 64, fn, "block_x", bx, "16, 32 or 64 (tile width nb)");
    if (!detail::gemv_begin(a, fn, s)) return;
    const int k_total = a.len_x(), chunk = chunk_elems<T>();
    const unsigned grid = detail::grid_dim(detail::ceil_div(a.len_y(), bx), kMaxGridX, fn);
    const std::size_t smem = a.op == Op::T ? static_cast<std::size_t>(bx) * bx * sizeof(T) : 0;
    for (int k0 = 0; k0 < k_total; k0 += chunk) {
        const int klen = std::min(chunk, k_total - k0);
        WB_CUDA(cudaMemcpyToSymbolAsync(chunk_symbol<T>(), a.x + k0, klen * sizeof(T), 0,
                                        cudaMemcpyDeviceToDevice, s));
        if (a.op == Op::N)
            gemv_n_kernel<T><<<grid, bx, 0, s>>>(a.m, k0, klen, k0 == 0, a.alpha, a.A, a.lda, a.beta, a.y);
        else
            gemv_t_kernel<T><<<grid, bx, smem, s>>>(a.n, k0, klen, k0 == 0, a.alpha, a.A, a.lda, a.beta, a.y);
        WB_CHECK_LAUNCH();
    }
}

template void gemv<float>(const GemvArgs<float>&, const GemvLaunch&, cudaStream_t);
template void gemv<double>(const GemvArgs<double>&, const GemvLaunch&, cudaStream_t);

}  // namespace wb::shared
