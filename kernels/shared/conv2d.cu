/// \file shared/conv2d.cu
/// \brief Chapter 2 — convolution with the filter in constant memory and the image tile plus
///        its halo staged in shared memory.
///
/// What changes against chapter 1 (White, Listings 5.2-5.3):
/// - The filter goes to constant memory (every thread of a warp reads the same tap: the constant
///   cache broadcasts it, no load slot of the L1 used). Where it does not fit (FS > 89 in float,
///   FS > 63 in double: FS = 513) the kernel reads it from global memory through the read-only
///   path instead — the same broadcast, one L1 wavefront per tap.
/// - A block of 32 x BY threads computes a 32 x 32 tile of outputs, one output at a time per
///   thread (32 / BY of them, rows BY apart: no output shares a window row with the thread's
///   previous one at FS <= BY, and nothing is kept in registers between them). It stages the
///   input window the tile needs — (32 + FS - 1) x (32 + FS - 1) pixels, the halo included,
///   zeros outside the image — into shared memory with a 2-D loop (threadIdx.x along the row:
///   coalesced; no division per element), one barrier, then every tap reads shared memory. The
///   32 x 32 tile halves the halo's share against a 32 x 8 one (1.41 loads per output at FS = 7
///   against 2.08).
/// - FS = 3, 5, 7 (White's listings fix the filter size too) are template constants: both filter
///   loops unroll, each tap's shared address is an immediate offset and its filter value the
///   constant-bank operand of the FMA: per tap one shared load and one FMA, nothing else.
///   Other sizes run a generic loop: passes over chunks of at most 32 x 32 taps (windows of
///   (32 + 31) x (32 + 31) pixels, so every FS up to 1025 fits), the filter row unrolled over the
///   chunk width with a runtime bound, each tap loaded once (runtime index: an LDC) for the
///   thread's 32 / BY outputs.
/// Model: global loads per output (32 + FS - 1)^2 / 1024 (1.41 at FS = 7); one shared load per
///   FMA (conflict-free: a warp reads 32 consecutive words of one row), so the shared-memory
///   load rate (one wavefront per SM and clock, 32 FMAs) bounds it: about 16.7 TFLOP/s in float
///   on an H200, where chapter 1 pays two L1 loads (image and filter) and a bounds check per tap.
/// Run: ./workbook run ch02 -- --op conv2d       (Conv2dLaunch: block 32 x BY, BY = 8 or 16,
///                                                tile 32 x 32)
#include "conv2d_common.cuh"

namespace wb::shared {
namespace {

using conv2d_detail::kChunk;
constexpr int kTile = 32;  // the block's tile: 32 x 32 outputs

using conv2d_detail::stage_tile;  // the 2-D staging loop, shared with chapter 3

//! [shared-conv2d]
/// FS known at compile time (3, 5, 7): the filter in constant memory.
template <class T, int FS, int BY>
__global__ void __launch_bounds__(32 * BY)
fixed_kernel(int rows, int cols, const T* __restrict__ in, int in_pitch, T* __restrict__ out, int out_pitch) {
    constexpr int H = FS / 2, WC = kTile + FS - 1;
    __shared__ T s[WC * WC];  // the tile plus its halo
    const int x0 = blockIdx.x * kTile, y0 = blockIdx.y * kTile;
    stage_tile<T, BY>(s, WC, WC, WC, in, in_pitch, rows, cols, y0 - H, x0 - H);
    __syncthreads();
    const int c = x0 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < kTile / BY; ++j) {  // the thread's outputs, one after the other
        const int ty = threadIdx.y + j * BY;
        const T* w = s + ty * WC + threadIdx.x;  // the output's window starts here
        T sum = 0;
#pragma unroll
        for (int k = 0; k < FS; ++k)
#pragma unroll
            for (int l = 0; l < FS; ++l) sum += conv2d_detail::cfilter<T>(k * FS + l) * w[k * WC + l];
        if (y0 + ty < rows && c < cols) out[static_cast<long long>(y0 + ty) * out_pitch + c] = sum;
    }
}

/// Any FS: passes over chunks of at most 32 x 32 taps; the filter from constant memory (CONST)
/// or, where it does not fit, from global memory.
template <class T, int BY, bool CONST>
__global__ void __launch_bounds__(32 * BY)
generic_kernel(int rows, int cols, int fs, const T* __restrict__ in, int in_pitch, const T* __restrict__ filter,
               T* __restrict__ out, int out_pitch) {
    constexpr int WC = kTile + kChunk - 1, OY = kTile / BY;
    __shared__ T s[WC * WC];  // the input window of one pass: tile + halo of up to 31 pixels
    const int x0 = blockIdx.x * kTile, y0 = blockIdx.y * kTile;
    const int h = fs / 2;
    T sum[OY];
#pragma unroll
    for (int j = 0; j < OY; ++j) sum[j] = 0;
    for (int k0 = 0; k0 < fs; k0 += kChunk)        // passes over chunks of filter rows
        for (int l0 = 0; l0 < fs; l0 += kChunk) {  // ... and of filter columns
            const int kc = min(kChunk, fs - k0), lc = min(kChunk, fs - l0);
            __syncthreads();  // nobody still reads the previous pass's window
            stage_tile<T, BY>(s, WC, kTile + kc - 1, kTile + lc - 1, in, in_pitch, rows, cols, y0 - h + k0, x0 - h + l0);
            __syncthreads();  // the window is in shared memory
            for (int k = 0; k < kc; ++k) {
                const T* w = s + (threadIdx.y + k) * WC + threadIdx.x;  // window row k of the first output
                const int f0 = (k0 + k) * fs + l0;                       // the pass's first tap of filter row k0 + k
                // Along the row (White's row-major pattern), unrolled over the chunk width: the
                // loop's counter and branch leave the inner loop, the bound stays a predicate.
#pragma unroll
                for (int l = 0; l < kChunk; ++l) {
                    if (l < lc) {
                        const T f = conv2d_detail::filter_at<T, CONST>(filter, f0 + l);
#pragma unroll
                        for (int j = 0; j < OY; ++j) sum[j] += f * w[j * BY * WC + l];
                    }
                }
            }
        }
    const int c = x0 + threadIdx.x;
#pragma unroll
    for (int j = 0; j < OY; ++j) {
        const int r = y0 + threadIdx.y + j * BY;
        if (r < rows && c < cols) out[static_cast<long long>(r) * out_pitch + c] = sum[j];
    }
}
//! [shared-conv2d]

template <class T, int BY>
void launch(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    static_assert(kTile % BY == 0, "the block's rows divide the tile's");
    const dim3 block(32, BY);
    const dim3 grid(conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.cols, kTile), kMaxGridX, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, kTile), kMaxGridYZ, fn));
    const auto args = [&](auto kernel) {
        kernel<<<grid, block, 0, s>>>(a.rows, a.cols, a.in, a.in_pitch, a.out, a.out_pitch);
    };
    if (conv2d_detail::fits_constant<T>(a.fs)) conv2d_detail::upload_filter(a.filter, a.fs, s);
    switch (a.fs) {
    case 3: args(fixed_kernel<T, 3, BY>); return;
    case 5: args(fixed_kernel<T, 5, BY>); return;
    case 7: args(fixed_kernel<T, 7, BY>); return;
    default: break;
    }
    auto kernel = conv2d_detail::fits_constant<T>(a.fs) ? generic_kernel<T, BY, true> : generic_kernel<T, BY, false>;
    kernel<<<grid, block, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out, a.out_pitch);
}

}  // namespace

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "shared::conv2d";
    const int by = l.block_y > 0 ? l.block_y : 8;
    conv2d_detail::require_launch(l.block_x == 0 || l.block_x == 32, fn, "block_x", l.block_x, "32 or 0");
    conv2d_detail::require_launch(by == 8 || by == 16, fn, "block_y", by, "8 or 16 (the instantiated blocks)");
    conv2d_detail::require_launch(l.tile_x == 0 || l.tile_x == kTile, fn, "tile_x", l.tile_x, "32 or 0");
    conv2d_detail::require_launch(l.tile_y == 0 || l.tile_y == kTile, fn, "tile_y", l.tile_y, "32 or 0");
    conv2d_detail::require_launch(l.thread_x <= 1, fn, "thread_x", l.thread_x, "1 or 0 (one column per thread)");
    conv2d_detail::require_launch(l.thread_y == 0 || l.thread_y == kTile / by, fn, "thread_y", l.thread_y,
                                  "32 / block_y or 0 (the outputs a thread computes, one after the other)");
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    if (by == 8) launch<T, 8>(a, s, fn);
    else launch<T, 16>(a, s, fn);
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::shared
