/// \file access/conv2d.cu
/// \brief Chapter 4 — convolution with the access pattern fixed: the pattern step's register
///        strips, read from padded, aligned shared rows as conflict-free 16-byte vectors, the
///        window staged with 16-byte copies that stay coalesced at the image edges.
///
/// What changes against chapter 3 (White, Listing 5.4: padding and aligned rows). The computation
/// pattern is chapter 3's: per filter row k and output row, a thread loads the strip of the window
/// row its RX outputs need into registers once and runs RX x FS FMAs on it (compile-time FS = 3,
/// 5, 7, every tap a constant-bank operand; a generic loop for the rest). What changes is how the
/// data moves:
/// - Strips of whole 16-byte vectors: RX = 8 floats (4 doubles), read with LDS.128 — at FS = 7 four
///   vector reads per 56 FMAs, where chapter 3 paid RX + FS - 1 = 11-13 scalar reads per 35-49.
///   Chapter 3 needed RX odd to dodge bank conflicts; a 16-byte read of a strip RX = 2 vectors
///   wide would conflict two-way in chapter 3's layout. Here a warp is 4 lanes along x by 8 along
///   y and the window's rows are padded to an odd number of vectors: the 8 lanes of a quarter-warp
///   (2 rows of 4 lanes, strips 2 vectors apart) hit the 8 distinct 16-byte bank groups.
/// - Aligned row starts: the window starts at the image column x0 - HA (the halo H rounded up to
///   whole vectors; the first OFF = HA - H columns are never used), so each row of the window is
///   whole 16-byte vectors of the image row and each row starts 16-byte aligned in shared memory.
///   The padding White adds to the image (Listing 5.4) moves into shared memory, where it costs no
///   DRAM bytes. The generic loop pads the filter on the left by OFF zero taps the same way.
/// - 16-byte staging: cp.async copies of whole vectors (zero-filled where the vector lies outside
///   the image: nothing is read), no registers, no division but by compile-time constants;
///   consecutive threads take consecutive vectors of a row, and the vector that straddles the
///   right edge is copied element by element by the same thread: the halo loads stay coalesced at
///   the edges. Rows that are not 16-byte aligned (pitch not a multiple of the vector, offset base
///   pointer) take element copies throughout. Outputs go out as 16-byte stores where aligned.
/// - Block order: White reorders blocks against partition camping on the T10 (8 partitions of
///   256 bytes). Hopper hashes addresses across its memory channels, so the launch keeps the
///   natural order (blockIdx.x along a row); chapter 0 measures that camping is gone.
/// What stays for chapter 5: vertical register reuse (a pixel serving several output rows) and the
/// double-buffered persistent staging. A block here stages one window, waits, computes: its
/// barrier is covered only by the other resident blocks.
/// Model: tile (16 RX) x 64 (128 x 64 floats), 256 threads, a thread RX outputs in each of 4 rows
///   16 apart. Instructions per FMA at FS = 7 (float) about 1 + 4 / 56 + taps + staging: SASS
///   counts in docs/notes/conv2d.md. Global loads per output
///   (64 + FS - 1)(128 + 2 HA) / 8192: 1.16 at FS = 7.
/// Run: ./workbook run ch04 -- --op conv2d       (Conv2dLaunch: thread 8 x 4 float, 4 x 4 double;
///                                                block 256; tile 128 x 64 float, 64 x 64 double)
#include "conv2d_common.cuh"

namespace wb::access {
namespace {

using conv2d_detail::cp_async_commit;
using conv2d_detail::cp_async_wait;
using conv2d_detail::load_vectors;
using conv2d_detail::Vec16;

constexpr int THREADS = 256;  // 8 warps: 4 along x by 2 along y, each 4 lanes along x by 8 along y
constexpr int OY = 4;         // a thread's rows, 16 apart
constexpr int kGroup = 8;     // taps per trip of the generic kernel's row loop

/// A block's tile and window. The window holds WR rows of NVR 16-byte vectors from image column
/// x0 - HA; a thread reads NV vectors of a row, the first at its own first column cx; the row
/// stride S is an odd number of vectors.
template <class T, int WR_, int WIN, int NEED>
struct Shape {
    static constexpr int W = Vec16<T>::width, RX = 2 * W, TX = 16 * RX, TY = 16 * OY, WR = WR_;
    static constexpr int NV = (NEED + W - 1) / W;  // vectors a thread reads per row
    static constexpr int NVR = (WIN + W - 1) / W > (TX - RX) / W + NV ? (WIN + W - 1) / W : (TX - RX) / W + NV;
    static constexpr int S = (NVR | 1) * W;  // row stride, elements: an odd number of vectors
    static_assert((S / W) % 2 == 1, "rows an odd number of vectors apart: a quarter-warp's LDS.128 conflict-free");
    static_assert(WR * S * sizeof(T) <= 48 * 1024, "the window fits static shared memory");
};

/// FS known at compile time: the window (TY + FS - 1) x (HA + TX + H), a thread's strip from
/// element OFF + cx on.
template <class T, int FS>
struct FixedShape {
    static constexpr int W = Vec16<T>::width, RX = 2 * W, H = FS / 2, HA = (H + W - 1) / W * W, OFF = HA - H;
    using S = Shape<T, 16 * OY + FS - 1, HA + 16 * RX + H, OFF + RX + FS - 1>;
};

/// The generic kernel's pass: CY filter rows by CX filter columns (128 bytes of taps per row).
template <class T>
struct GenericShape {
    static constexpr int W = Vec16<T>::width, RX = 2 * W, CY = 8, CX = 128 / static_cast<int>(sizeof(T));
    using S = Shape<T, 16 * OY + CY - 1, 16 * RX + CX - 1, RX + CX>;
    static_assert(CX % kGroup == 0 && kGroup % W == 0, "trips of whole vectors fill the pass");
};

/// The thread's place: first output column cx and first row cy inside the tile.
__device__ __forceinline__ int2 thread_origin(int rx) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return make_int2(((warp % 4) * 4 + lane % 4) * rx, (warp / 4) * 8 + lane / 4);
}

/// Writes a thread's OY x RX outputs (rows 16 apart) from image element (r0, c0): 16-byte stores
/// where `vec` (out 16-byte aligned, out_pitch a multiple of the vector) and the strip lies in the
/// image, element stores otherwise.
template <class T, int RX>
__device__ __forceinline__ void store_strips(const T (&acc)[OY][RX], T* __restrict__ out, int out_pitch, int rows,
                                             int cols, int r0, int c0, bool vec) {
    using V = typename Vec16<T>::type;
    constexpr int W = Vec16<T>::width;
#pragma unroll
    for (int j = 0; j < OY; ++j) {
        const int r = r0 + 16 * j;
        if (r >= rows) break;
        T* o = out + static_cast<long long>(r) * out_pitch + c0;
        if (vec && c0 + RX <= cols) {
#pragma unroll
            for (int g = 0; g < RX / W; ++g) {
                V q;
#pragma unroll
                for (int e = 0; e < W; ++e) reinterpret_cast<T*>(&q)[e] = acc[j][g * W + e];
                *reinterpret_cast<V*>(o + g * W) = q;
            }
        } else {
#pragma unroll
            for (int x = 0; x < RX; ++x)
                if (c0 + x < cols) o[x] = acc[j][x];
        }
    }
}

//! [access-conv2d]
/// FS known at compile time (3, 5, 7): the filter in constant memory, every tap an FFMA operand;
/// per filter row and output row NV LDS.128 (4 at FS = 7 in float) for RX x FS FMAs.
template <class T, int FS>
__global__ void __launch_bounds__(THREADS, FS == 3 ? 2 : 3)  // FS = 3 at 85 registers spills
fixed_kernel(int rows, int cols, const T* __restrict__ in, int in_pitch, T* __restrict__ out, int out_pitch,
             bool vec_in, bool vec_out) {
    using F = FixedShape<T, FS>;
    using Sh = typename F::S;
    constexpr int RX = Sh::RX, S = Sh::S, W = Sh::W;
    __shared__ __align__(16) T s[Sh::WR * S];  // the tile plus its halo, rows padded and aligned
    const int x0 = blockIdx.x * Sh::TX, y0 = blockIdx.y * Sh::TY;
    conv2d_detail::stage_window_async<T, Sh::WR, Sh::NVR, S, THREADS>(s, in, in_pitch, rows, cols, y0 - F::H,
                                                                      x0 - F::HA, vec_in);
    cp_async_commit();
    const int2 o = thread_origin(RX);
    T acc[OY][RX];
    conv2d_detail::zero_block(acc);
    cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int k = 0; k < FS; ++k)  // filter row k: its taps stay in uniform registers for all rows
#pragma unroll
        for (int j = 0; j < OY; ++j) {
            T v[Sh::NV * W];  // the strip: window row (cy + 16 j + k) from column cx, in registers
            load_vectors<T, Sh::NV>(v, s + (o.y + 16 * j + k) * S + o.x);
#pragma unroll
            for (int l = 0; l < FS; ++l) {
                const T f = conv2d_detail::cfilter<T>(k * FS + l);  // a constant-bank operand
#pragma unroll
                for (int x = 0; x < RX; ++x) acc[j][x] += f * v[F::OFF + x + l];
            }
        }
    store_strips<T, RX>(acc, out, out_pitch, rows, cols, y0 + o.y, x0 + o.x, vec_out);
}

/// Any FS: passes over CY x CX taps of the filter padded on the left by OFF zero columns (so that
/// every pass's window starts on a vector of the image row); the filter from constant memory
/// (CONST) or, where it does not fit, from global memory. Per trip of 8 taps kGroup / W LDS.128,
/// one filter load per tap for RX FMAs.
template <class T, bool CONST>
__global__ void __launch_bounds__(THREADS, 3)
generic_kernel(int rows, int cols, int fs, const T* __restrict__ in, int in_pitch, const T* __restrict__ filter,
               T* __restrict__ out, int out_pitch, bool vec_in, bool vec_out) {
    using G = GenericShape<T>;
    using Sh = typename G::S;
    constexpr int RX = Sh::RX, S = Sh::S, W = Sh::W;
    __shared__ __align__(16) T s[Sh::WR * S];
    const int x0 = blockIdx.x * Sh::TX, y0 = blockIdx.y * Sh::TY;
    const int h = fs / 2, ha = (h + W - 1) / W * W, off = ha - h;  // tap l of the padded row: filter column l - off
    const int2 o = thread_origin(RX);
    T acc[OY][RX];
    conv2d_detail::zero_block(acc);
    for (int k0 = 0; k0 < fs; k0 += G::CY)
        for (int l0 = 0; l0 < fs + off; l0 += G::CX) {
            const int kc = min(G::CY, fs - k0);
            __syncthreads();  // nobody still reads the previous pass's window
            conv2d_detail::stage_window_async<T, Sh::WR, Sh::NVR, S, THREADS>(s, in, in_pitch, rows, cols, y0 - h + k0,
                                                                              x0 - ha + l0, vec_in);
            cp_async_commit();
            cp_async_wait<0>();
            __syncthreads();
#pragma unroll
            for (int j = 0; j < OY; ++j)
                for (int k = 0; k < kc; ++k) {
                    const T* w = s + (o.y + 16 * j + k) * S + o.x;
                    const int fr = (k0 + k) * fs - off + l0;  // + t: filter index of padded tap l0 + t
                    T v[RX + kGroup];  // the strip: window columns lt .. lt + RX + kGroup - 1
                    load_vectors<T, RX / W>(v, w);
#pragma unroll
                    for (int lt = 0; lt < G::CX; lt += kGroup) {
                        if (l0 + lt - off >= fs) break;  // the rest of the pass lies beyond the filter
                        load_vectors<T, kGroup / W>(v + RX, w + lt + RX);
#pragma unroll
                        for (int t = 0; t < kGroup; ++t) {
                            const int l = l0 + lt + t - off;  // the filter column
                            if (l >= 0 && l < fs) {
                                const T f = conv2d_detail::filter_at<T, CONST>(filter, fr + lt + t);
#pragma unroll
                                for (int x = 0; x < RX; ++x) acc[j][x] += f * v[t + x];
                            }
                        }
#pragma unroll
                        for (int m = 0; m < RX; ++m) v[m] = v[kGroup + m];  // slide kGroup pixels on
                    }
                }
        }
    store_strips<T, RX>(acc, out, out_pitch, rows, cols, y0 + o.y, x0 + o.x, vec_out);
}
//! [access-conv2d]

template <class T>
void launch(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    using Sh = typename GenericShape<T>::S;  // every shape has the same tile
    const dim3 grid(conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.cols, Sh::TX), kMaxGridX, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, Sh::TY), kMaxGridYZ, fn));
    const bool cst = conv2d_detail::fits_constant<T>(a.fs);
    const bool vec_in = conv2d_detail::aligned16(a.in, a.in_pitch), vec_out = conv2d_detail::aligned16(a.out, a.out_pitch);
    if (cst) conv2d_detail::upload_filter(a.filter, a.fs, s);
    const auto fixed = [&](auto kernel) {
        kernel<<<grid, THREADS, 0, s>>>(a.rows, a.cols, a.in, a.in_pitch, a.out, a.out_pitch, vec_in, vec_out);
    };
    switch (a.fs) {
    case 3: fixed(fixed_kernel<T, 3>); return;
    case 5: fixed(fixed_kernel<T, 5>); return;
    case 7: fixed(fixed_kernel<T, 7>); return;
    default: break;
    }
    auto kernel = cst ? generic_kernel<T, true> : generic_kernel<T, false>;
    kernel<<<grid, THREADS, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out, a.out_pitch, vec_in,
                                    vec_out);
}

}  // namespace

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "access::conv2d";
    using Sh = typename GenericShape<T>::S;
    constexpr bool is_float = sizeof(T) == 4;
    conv2d_detail::require_launch(l.thread_x == 0 || l.thread_x == Sh::RX, fn, "thread_x", l.thread_x,
                                  is_float ? "8 or 0 (two 16-byte vectors)" : "4 or 0 (two 16-byte vectors)");
    conv2d_detail::require_launch(l.thread_y == 0 || l.thread_y == OY, fn, "thread_y", l.thread_y,
                                  "4 or 0 (the rows a thread computes, 16 apart)");
    conv2d_detail::require_launch(l.block_x == 0 || l.block_x == THREADS, fn, "block_x", l.block_x, "256 or 0");
    conv2d_detail::require_launch(l.block_y <= 1, fn, "block_y", l.block_y, "1 or 0");
    conv2d_detail::require_launch(l.tile_x == 0 || l.tile_x == Sh::TX, fn, "tile_x", l.tile_x,
                                  is_float ? "128 or 0" : "64 or 0");
    conv2d_detail::require_launch(l.tile_y == 0 || l.tile_y == Sh::TY, fn, "tile_y", l.tile_y, "64 or 0");
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    launch<T>(a, s, fn);
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);

}  // namespace wb::access
