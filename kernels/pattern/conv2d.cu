/// \file pattern/conv2d.cu
/// \brief Chapter 3 — convolution with several outputs per thread along a row, the loaded
///        window reused from registers (the computation pattern of White §5.1.2).
///
/// What changes against chapter 2: a thread computes RX consecutive outputs of one row (RX = 4
/// or 8), so a block of 32 x 8 threads computes a (32 RX) x 8 tile. For each filter row the
/// thread keeps a window of RX input pixels in registers and slides it along the row: each tap
/// costs one shared-memory load (the pixel entering the window) and one filter load for RX FMAs,
/// where chapter 2 paid one shared load per FMA. Filter rows are staged 16 at a time and filter
/// columns 32 at a time (windows of (8 + 15) x (32 RX + 31) pixels), so every FS fits.
/// Model: global loads per output (8 + FS - 1)(32 RX + FS - 1) / (256 RX) (1.8 at FS = 7,
///   RX = 4); shared loads per FMA 1 / RX. But a warp's 32 threads now read addresses RX words
///   apart: an RX-way bank conflict (4 wavefronts per load for RX = 4 in float), so the
///   shared-memory wavefronts per FMA stay at about one — chapter 4 removes the conflict. What
///   this step gains is issue slots: no per-tap bounds checks, one filter load per RX FMAs.
/// Run: ./workbook run ch03 -- --op conv2d       (Conv2dLaunch: thread_x = RX, 4 or 8 in float,
///                                                4 in double; block 32 x 8)
#include "conv2d_common.cuh"

namespace wb::pattern {
namespace {

using conv2d_detail::kChunk;
constexpr int kChunkY = 16;  // filter rows per pass
constexpr int BY = 8;        // thread rows per block

//! [pattern-conv2d]
template <class T, int RX, bool CONST>
__global__ void __launch_bounds__(32 * BY)
conv2d_kernel(int rows, int cols, int fs, const T* __restrict__ in, int in_pitch, const T* __restrict__ filter,
              T* __restrict__ out, int out_pitch) {
    constexpr int TX = 32 * RX, WR = BY + kChunkY - 1, WC = TX + kChunk - 1;
    __shared__ T s[WR * WC];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * BY;
    const int h = fs / 2;
    T acc[RX];
#pragma unroll
    for (int x = 0; x < RX; ++x) acc[x] = 0;
    for (int k0 = 0; k0 < fs; k0 += kChunkY)
        for (int l0 = 0; l0 < fs; l0 += kChunk) {
            const int kc = min(kChunkY, fs - k0), lc = min(kChunk, fs - l0);
            __syncthreads();
            conv2d_detail::stage_window(s, WC, BY + kc - 1, TX + lc - 1, in, in_pitch, rows, cols, y0 - h + k0,
                                        x0 - h + l0, tid, 32 * BY);
            __syncthreads();
            for (int k = 0; k < kc; ++k) {
                const T* row = s + (ty + k) * WC + tx * RX;  // this thread's RX outputs start here
                T v[RX];                                     // the window: row[l .. l + RX - 1]
#pragma unroll
                for (int x = 0; x < RX; ++x) v[x] = row[x];
                for (int l = 0; l < lc; ++l) {
                    const T f = conv2d_detail::filter_at<T, CONST>(filter, (k0 + k) * fs + l0 + l);
#pragma unroll
                    for (int x = 0; x < RX; ++x) acc[x] += f * v[x];
                    if (l + 1 < lc) {  // slide: one pixel enters the window
#pragma unroll
                        for (int x = 0; x + 1 < RX; ++x) v[x] = v[x + 1];
                        v[RX - 1] = row[l + RX];
                    }
                }
            }
        }
    const int r = y0 + ty;
    if (r >= rows) return;
#pragma unroll
    for (int x = 0; x < RX; ++x) {
        const int c = x0 + tx * RX + x;
        if (c < cols) out[static_cast<long long>(r) * out_pitch + c] = acc[x];
    }
}
//! [pattern-conv2d]

template <class T, int RX>
void launch(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    const dim3 block(32, BY);
    const dim3 grid(conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.cols, 32 * RX), 2147483647LL, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, BY), 65535, fn));
    if (conv2d_detail::fits_constant<T>(a.fs)) {
        conv2d_detail::upload_filter(a.filter, a.fs, s);
        conv2d_kernel<T, RX, true><<<grid, block, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out,
                                                          a.out_pitch);
    } else {
        conv2d_kernel<T, RX, false><<<grid, block, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out,
                                                           a.out_pitch);
    }
}

}  // namespace

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "pattern::conv2d";
    const int rx = l.thread_x > 0 ? l.thread_x : 4;
    const bool ok_rx = sizeof(T) == 4 ? (rx == 4 || rx == 8) : rx == 4;
    conv2d_detail::require_launch(ok_rx, fn, "thread_x", rx,
                                  sizeof(T) == 4 ? "4 or 8 (the instantiated strips)" : "4 (the instantiated strip)");
    conv2d_detail::require_launch(l.thread_y <= 1, fn, "thread_y", l.thread_y, "1 or 0");
    conv2d_detail::require_launch(l.block_x == 0 || l.block_x == 32, fn, "block_x", l.block_x, "32 or 0");
    conv2d_detail::require_launch(l.block_y == 0 || l.block_y == BY, fn, "block_y", l.block_y, "8 or 0");
    conv2d_detail::require_launch(l.tile_x == 0 || l.tile_x == 32 * rx, fn, "tile_x", l.tile_x, "32 thread_x or 0");
    conv2d_detail::require_launch(l.tile_y == 0 || l.tile_y == BY, fn, "tile_y", l.tile_y, "8 or 0");
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    if constexpr (sizeof(T) == 4) {
        if (rx == 8) launch<T, 8>(a, s, fn);
        else launch<T, 4>(a, s, fn);
    } else {
        launch<T, 4>(a, s, fn);
    }
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::pattern
