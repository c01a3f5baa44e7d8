/// \file shared/conv2d.cu
/// \brief Chapter 2 — convolution with the filter in constant memory and the image tile plus
///        its halo staged in shared memory.
///
/// What changes against chapter 1 (White, Listings 5.2-5.3):
/// - The filter goes to constant memory (every thread of a warp reads the same tap: the constant
///   cache broadcasts it, no load slot of the L1 used). Where it does not fit (FS > 89 in float,
///   FS > 63 in double: FS = 513) the kernel reads it from global memory through the read-only
///   path instead — the same broadcast, one L1 wavefront per tap.
/// - A block of 32 x BY threads computes a 32 x BY tile of outputs. It stages the input window
///   the tile needs — (BY + FS - 1) x (32 + FS - 1) pixels, the halo included, zeros outside the
///   image — into shared memory with coalesced loads (consecutive threads, consecutive columns),
///   one barrier, then every tap reads shared memory. Filters larger than the chunk (32) run in
///   ceil(FS / 32)^2 passes of at most 32 x 32 taps, each with its window, so shared memory stays
///   (BY + 31) x 63 elements for every FS (FS = 513 included).
/// Model: global loads per output fall from 2 FS^2 to (BY + FS - 1)(32 + FS - 1) / (32 BY) (1.9 at
///   FS = 7, BY = 8); shared-memory loads: one per FMA (conflict-free: a warp reads 32
///   consecutive words of one row), so the shared-memory load rate (one wavefront per FMA
///   instruction) limits it, as it limits chapter 1 through the L1 — the gain comes from the
///   bounds checks and the filter loads leaving the inner loop.
/// Run: ./workbook run ch02 -- --op conv2d       (Conv2dLaunch: block 32 x BY, BY = 8 or 16)
#include "conv2d_common.cuh"

namespace wb::shared {
namespace {

using conv2d_detail::kChunk;

//! [shared-conv2d]
template <class T, int BY, bool CONST>
__global__ void __launch_bounds__(32 * BY)
conv2d_kernel(int rows, int cols, int fs, const T* __restrict__ in, int in_pitch, const T* __restrict__ filter,
              T* __restrict__ out, int out_pitch) {
    constexpr int TX = 32, WR = BY + kChunk - 1, WC = TX + kChunk - 1;
    __shared__ T s[WR * WC];  // the input window of one pass: tile + halo of up to 31 pixels
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * BY;
    const int h = fs / 2;
    T sum = 0;
    for (int k0 = 0; k0 < fs; k0 += kChunk)        // passes over chunks of filter rows
        for (int l0 = 0; l0 < fs; l0 += kChunk) {  // ... and of filter columns
            const int kc = min(kChunk, fs - k0), lc = min(kChunk, fs - l0);
            __syncthreads();  // nobody still reads the previous pass's window
            conv2d_detail::stage_window(s, WC, BY + kc - 1, TX + lc - 1, in, in_pitch, rows, cols, y0 - h + k0,
                                        x0 - h + l0, tid, 32 * BY);
            __syncthreads();  // the window is in shared memory
            for (int k = 0; k < kc; ++k) {
                const T* srow = s + (ty + k) * WC + tx;  // this thread's window row k
                const int f0 = (k0 + k) * fs + l0;       // the pass's first tap of filter row k0 + k
                // Along the row (White's row-major pattern), four taps per trip: the loop's own
                // instructions (counter, compare, branch, index) were most of the inner loop
                // in the first H200 run (4.4 TFLOP/s against naive's 3.8 at FS = 7).
#pragma unroll 4
                for (int l = 0; l < lc; ++l) sum += conv2d_detail::filter_at<T, CONST>(filter, f0 + l) * srow[l];
            }
        }
    const int r = y0 + ty, c = x0 + tx;
    if (r < rows && c < cols) out[static_cast<long long>(r) * out_pitch + c] = sum;
}
//! [shared-conv2d]

template <class T, int BY>
void launch(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    const dim3 block(32, BY);
    const dim3 grid(conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.cols, 32), 2147483647LL, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, BY), 65535, fn));
    if (conv2d_detail::fits_constant<T>(a.fs)) {
        conv2d_detail::upload_filter(a.filter, a.fs, s);
        conv2d_kernel<T, BY, true><<<grid, block, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out,
                                                          a.out_pitch);
    } else {
        conv2d_kernel<T, BY, false><<<grid, block, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out,
                                                           a.out_pitch);
    }
}

}  // namespace

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "shared::conv2d";
    const int by = l.block_y > 0 ? l.block_y : 8;
    conv2d_detail::require_launch(l.block_x == 0 || l.block_x == 32, fn, "block_x", l.block_x, "32 or 0");
    conv2d_detail::require_launch(by == 8 || by == 16, fn, "block_y", by, "8 or 16 (the instantiated tiles)");
    conv2d_detail::require_launch(l.tile_x == 0 || l.tile_x == 32, fn, "tile_x", l.tile_x, "32 (block_x) or 0");
    conv2d_detail::require_launch(l.tile_y == 0 || l.tile_y == by, fn, "tile_y", l.tile_y, "block_y or 0");
    conv2d_detail::require_launch(l.thread_x <= 1 && l.thread_y <= 1, fn, "thread_x", l.thread_x,
                                  "1 or 0 (one output per thread)");
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    if (by == 8) launch<T, 8>(a, s, fn);
    else launch<T, 16>(a, s, fn);
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::shared
