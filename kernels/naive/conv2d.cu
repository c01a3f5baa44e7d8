/// \file naive/conv2d.cu
/// \brief Chapter 1 — convolution straight from global memory: one output per thread.
///
/// What this step is: thread (r, c) computes out(r, c) = sum_{k, l} filter(k, l) in(r + k - h,
/// c + l - h) (a cross-correlation, kernels/conv2d.hpp), reading the image and the filter from
/// global memory every time (White, Listing 5.1), with a bounds check per tap (zeros outside).
/// - threadIdx.x runs along the row, so a warp's 32 threads read 32 consecutive pixels of one row
///   for each tap: coalesced; the filter tap is the same address for the whole warp (a broadcast).
/// - The loop order is White's observation (§5.1.2): the inner loop runs along the filter's row
///   (l), the "row-major computation pattern", so consecutive taps of a thread touch consecutive
///   addresses that the L1 already holds; the column-major order (k inner) walks a new row per tap.
/// Model: 2 global loads per FMA (image and filter); DRAM sees each pixel about once (the L1 and
///   L2 serve the FS^2 reuse), so the L1 load rate, not DRAM, limits it: one L1 wavefront per FMA
///   instruction.
/// Run: ./workbook run ch01 -- --op conv2d       (Conv2dLaunch: block_x x block_y, default 32x8)
#include "conv2d_common.cuh"

namespace wb::naive {
namespace {

//! [naive-conv2d]
template <class T>
__global__ void conv2d_kernel(int rows, int cols, int fs, const T* __restrict__ in, int in_pitch,
                              const T* __restrict__ filter, T* __restrict__ out, int out_pitch) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;  // column (fastest across the warp)
    const int r = blockIdx.y * blockDim.y + threadIdx.y;  // row
    if (r >= rows || c >= cols) return;
    const int h = fs / 2;
    T sum = 0;
    for (int k = 0; k < fs; ++k) {      // filter row
        const int y = r + k - h;
        if (y < 0 || y >= rows) continue;  // zero outside the image
        for (int l = 0; l < fs; ++l) {  // filter column: the inner loop runs along the row
            const int x = c + l - h;
            if (x >= 0 && x < cols) sum += filter[k * fs + l] * in[static_cast<long long>(y) * in_pitch + x];
        }
    }
    out[static_cast<long long>(r) * out_pitch + c] = sum;
}
//! [naive-conv2d]

}  // namespace

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "naive::conv2d";
    const int bx = l.block_x > 0 ? l.block_x : 32, by = l.block_y > 0 ? l.block_y : 8;
    conv2d_detail::require_launch(bx >= 1 && bx <= 1024, fn, "block_x", bx, "in [1, 1024]");
    conv2d_detail::require_launch(by >= 1 && bx * by <= 1024, fn, "block_y", by, "in [1, 1024 / block_x]");
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    const dim3 block(bx, by);
    const dim3 grid(conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.cols, bx), kMaxGridX, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, by), kMaxGridYZ, fn));
    conv2d_kernel<T><<<grid, block, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out, a.out_pitch);
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::naive
