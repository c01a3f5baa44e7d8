/// \file pattern/conv2d.cu
/// \brief Chapter 3 — convolution with several outputs per thread along a row, the loaded
///        window reused from registers (the computation pattern of White §5.1.2).
///
/// What changes against chapter 2 (same block of 32 x 8 threads, same 2-D staging of the tile
/// plus its halo, same compile-time FS = 3, 5, 7 and generic loop for the rest):
/// - A thread computes RX consecutive outputs of a row (RX = 5 or 7 in float, 3 in double) in
///   each of 4 rows 8 apart: the block's tile is (32 RX) x 32. For each filter row k it loads
///   the RX + FS - 1 pixels its RX outputs need into registers once and runs the RX x FS FMAs on
///   them: at FS = 7, RX = 5 11 shared loads per 35 FMAs, where chapter 2 paid one per FMA.
/// - RX is odd on purpose: a warp's 32 lanes read pixels RX words apart, and with RX odd those
///   are 32 different banks (RX = 4 or 8 would be a 4- or 8-way bank conflict that eats the
///   saving; chapter 4 removes the constraint with 16-byte reads). In double (8-byte words) the
///   16 lanes of a half-warp hit 16 distinct bank pairs for the same reason.
/// - FS = 3, 5, 7: every loop unrolled, the window's shared addresses immediate offsets, each tap
///   a constant-bank operand of its FFMA. Other FS: passes over chunks of 16 filter rows x 32
///   filter columns (every FS up to 1025 fits the window), the chunk's row unrolled over its 32
///   columns (runtime bound as a predicate): per filter row RX + 31 shared loads, per tap one
///   filter load (constant memory, or global where the filter does not fit) for RX FMAs.
/// Model: instructions per FMA about 1 + (RX + FS - 1) / (RX FS) + staging; SASS (sm_90, CUDA
///   13.0, float FS = 7, RX = 5): see docs/notes/conv2d.md. Global loads per output
///   (32 + FS - 1)(32 RX + FS - 1) / (1024 RX): 1.23 at FS = 7, RX = 5.
/// Run: ./workbook run ch03 -- --op conv2d       (Conv2dLaunch: thread_x = RX, 5 or 7 in float,
///                                                3 in double; block 32 x 8, tile (32 RX) x 32)
#include "conv2d_common.cuh"

namespace wb::pattern {
namespace {

using conv2d_detail::kChunk;
constexpr int BY = 8;              // thread rows per block
constexpr int kTileY = 32;         // the tile's rows: each thread takes kTileY / BY of them
constexpr int OY = kTileY / BY;    // a thread's rows, BY apart
constexpr int kChunkY = 16;        // filter rows per pass of the generic kernel
constexpr int kGroup = 8;          // taps per trip of the generic kernel's row loop

/// The tile of a thread's RX: (32 RX) x 32 outputs; checked at compile time for each kernel.
template <class T, int RX, int FS_ROWS, int FS_COLS>
struct Window {
    static constexpr int TX = 32 * RX, WR = kTileY + FS_ROWS - 1, WC = TX + FS_COLS - 1;
    static_assert(RX % 2 == 1, "lanes RX words apart: RX odd keeps a warp's reads conflict-free");
    static_assert(WR * WC * sizeof(T) <= 48 * 1024, "the window fits static shared memory");
};

//! [pattern-conv2d]
/// FS known at compile time (3, 5, 7): the filter in constant memory, every tap an FFMA operand.
template <class T, int FS, int RX>
__global__ void __launch_bounds__(32 * BY)
fixed_kernel(int rows, int cols, const T* __restrict__ in, int in_pitch, T* __restrict__ out, int out_pitch) {
    using Wn = Window<T, RX, FS, FS>;
    constexpr int H = FS / 2, WC = Wn::WC;
    __shared__ T s[Wn::WR * WC];  // the tile plus its halo
    const int x0 = blockIdx.x * Wn::TX, y0 = blockIdx.y * kTileY;
    conv2d_detail::stage_tile<T, BY>(s, WC, Wn::WR, WC, in, in_pitch, rows, cols, y0 - H, x0 - H);
    __syncthreads();
    const int c0 = x0 + threadIdx.x * RX;  // the thread's first column
    T acc[OY][RX];  // the thread's rows threadIdx.y + 8 j, RX outputs each
    conv2d_detail::zero_block(acc);
#pragma unroll
    for (int k = 0; k < FS; ++k)  // filter row k: its FS taps stay in uniform registers for all rows
#pragma unroll
        for (int j = 0; j < OY; ++j) {
            const T* w = s + (threadIdx.y + j * BY + k) * WC + threadIdx.x * RX;
            T v[RX + FS - 1];  // the pixels of this window row that the RX outputs need
#pragma unroll
            for (int m = 0; m < RX + FS - 1; ++m) v[m] = w[m];
#pragma unroll
            for (int l = 0; l < FS; ++l) {
                const T f = conv2d_detail::cfilter<T>(k * FS + l);  // a constant-bank operand
#pragma unroll
                for (int x = 0; x < RX; ++x) acc[j][x] += f * v[x + l];  // reused from registers
            }
        }
#pragma unroll
    for (int j = 0; j < OY; ++j) {
        const int r = y0 + threadIdx.y + j * BY;
        if (r >= rows) break;
        T* o = out + static_cast<long long>(r) * out_pitch + c0;
#pragma unroll
        for (int x = 0; x < RX; ++x)
            if (c0 + x < cols) o[x] = acc[j][x];
    }
}

/// Any FS: passes over chunks of at most 16 x 32 taps; the filter from constant memory (CONST)
/// or, where it does not fit, from global memory.
template <class T, int RX, bool CONST>
__global__ void __launch_bounds__(32 * BY)
generic_kernel(int rows, int cols, int fs, const T* __restrict__ in, int in_pitch, const T* __restrict__ filter,
               T* __restrict__ out, int out_pitch) {
    // One column more than the chunk's taps need: the last trip's kGroup loads may read it.
    using Wn = Window<T, RX, kChunkY, kChunk + 1>;
    static_assert(kChunk % kGroup == 0, "the chunk's row is whole trips of kGroup taps");
    constexpr int WC = Wn::WC;
    __shared__ T s[Wn::WR * WC];
    const int x0 = blockIdx.x * Wn::TX, y0 = blockIdx.y * kTileY;
    const int h = fs / 2;
    T acc[OY][RX];
    conv2d_detail::zero_block(acc);
    for (int k0 = 0; k0 < fs; k0 += kChunkY)
        for (int l0 = 0; l0 < fs; l0 += kChunk) {
            const int kc = min(kChunkY, fs - k0), lc = min(kChunk, fs - l0);
            __syncthreads();  // nobody still reads the previous pass's window
            conv2d_detail::stage_tile<T, BY>(s, WC, kTileY + kc - 1, Wn::TX + lc - 1, in, in_pitch, rows, cols,
                                             y0 - h + k0, x0 - h + l0);
            __syncthreads();
#pragma unroll
            for (int j = 0; j < OY; ++j)
                for (int k = 0; k < kc; ++k) {
                    const T* w = s + (threadIdx.y + j * BY + k) * WC + threadIdx.x * RX;
                    const int f0 = (k0 + k) * fs + l0;
                    T v[RX + kGroup];  // the window: pixels l .. l + RX + kGroup - 1 of the row
#pragma unroll
                    for (int m = 0; m < RX; ++m) v[m] = w[m];
                    for (int l = 0; l < lc; l += kGroup) {  // kGroup taps per trip
#pragma unroll
                        for (int m = 0; m < kGroup; ++m) v[RX + m] = w[l + RX + m];  // inside the window
                        const int n = lc - l;  // taps left in the chunk
#pragma unroll
                        for (int t = 0; t < kGroup; ++t) {
                            if (t < n) {
                                const T f = conv2d_detail::filter_at<T, CONST>(filter, f0 + l + t);
#pragma unroll
                                for (int x = 0; x < RX; ++x) acc[j][x] += f * v[t + x];
                            }
                        }
#pragma unroll
                        for (int m = 0; m < RX; ++m) v[m] = v[kGroup + m];  // slide kGroup pixels on
                    }
                }
        }
    const int c0 = x0 + threadIdx.x * RX;
#pragma unroll
    for (int j = 0; j < OY; ++j) {
        const int r = y0 + threadIdx.y + j * BY;
        if (r >= rows) break;
#pragma unroll
        for (int x = 0; x < RX; ++x)
            if (c0 + x < cols) out[static_cast<long long>(r) * out_pitch + c0 + x] = acc[j][x];
    }
}
//! [pattern-conv2d]

template <class T, int RX>
void launch(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    const dim3 block(32, BY);
    const dim3 grid(conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.cols, 32 * RX), kMaxGridX, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, kTileY), kMaxGridYZ, fn));
    const bool cst = conv2d_detail::fits_constant<T>(a.fs);
    if (cst) conv2d_detail::upload_filter(a.filter, a.fs, s);
    const auto fixed = [&](auto kernel) {
        kernel<<<grid, block, 0, s>>>(a.rows, a.cols, a.in, a.in_pitch, a.out, a.out_pitch);
    };
    switch (a.fs) {
    case 3: fixed(fixed_kernel<T, 3, RX>); return;
    case 5: fixed(fixed_kernel<T, 5, RX>); return;
    case 7: fixed(fixed_kernel<T, 7, RX>); return;
    default: break;
    }
    auto kernel = cst ? generic_kernel<T, RX, true> : generic_kernel<T, RX, false>;
    kernel<<<grid, block, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out, a.out_pitch);
}

}  // namespace

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "pattern::conv2d";
    constexpr bool is_float = sizeof(T) == 4;
    const int rx = l.thread_x > 0 ? l.thread_x : (is_float ? 5 : 3);
    const bool ok_rx = is_float ? (rx == 5 || rx == 7) : rx == 3;
    conv2d_detail::require_launch(ok_rx, fn, "thread_x", rx,
                                  is_float ? "5 or 7 (the instantiated strips)" : "3 (the instantiated strip)");
    conv2d_detail::require_launch(l.thread_y == 0 || l.thread_y == OY, fn, "thread_y", l.thread_y,
                                  "4 or 0 (the rows a thread computes, 8 apart)");
    conv2d_detail::require_launch(l.block_x == 0 || l.block_x == 32, fn, "block_x", l.block_x, "32 or 0");
    conv2d_detail::require_launch(l.block_y == 0 || l.block_y == BY, fn, "block_y", l.block_y, "8 or 0");
    conv2d_detail::require_launch(l.tile_x == 0 || l.tile_x == 32 * rx, fn, "tile_x", l.tile_x, "32 thread_x or 0");
    conv2d_detail::require_launch(l.tile_y == 0 || l.tile_y == kTileY, fn, "tile_y", l.tile_y, "32 or 0");
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    if constexpr (is_float) {
        if (rx == 7) launch<T, 7>(a, s, fn);
        else launch<T, 5>(a, s, fn);
    } else {
        launch<T, 3>(a, s, fn);
    }
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::pattern
