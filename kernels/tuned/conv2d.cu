/// \file tuned/conv2d.cu
/// \brief Chapter 5 — tuned convolution: register blocking in both directions, the small filter
///        sizes known at compile time (every loop unrolled, every tap a constant-bank operand of
///        its FMA), a generic blocked loop for the rest; tile shape as the step's tunable.
///
/// What changes against chapter 4 (White, Listing 5.5: index arithmetic hoisted, loops unrolled):
/// - A thread computes RX x RY outputs (4 x 4 floats, 2 x 2 doubles by default): each pixel
///   read from shared memory serves up to RY output rows (the vertical reuse chapter 4 lacks), so
///   shared reads per FMA fall from 1 / (RX W) to about (RY + FS - 1) / (RY FS RX W).
/// - FS = 3, 5, 7, 15 are template constants: the whole thread's work on a tile is one unrolled
///   block; the window rows the thread needs, (RY + FS - 1) rows of NV 16-byte vectors, are read
///   into registers while the previous rows' FMAs run, and every filter tap is a compile-time
///   index into constant memory, so the FMA takes it as an operand (a uniform register, two taps
///   per ULDC.64): no per-FMA filter load. The grid is persistent (the occupancy calculator's
///   blocks per SM times the SMs): a block loops over tiles and copies the next tile's window
///   into its second buffer with cp.async (16-byte copies, zeros outside the image) while it
///   computes the current one, so the staging's latency is hidden behind the block's own FMAs.
/// - FS <= 5 are memory-bound (FS = 5 in float: 6.25 flop per byte against a ridge of about 14):
///   the default launch (conv2d_default: chapter 6's derivation) streams them instead, with no shared
///   memory: a thread reads the 8 + FS - 1 rows its 8 x 4 outputs need with one 16-byte load each,
///   all in flight at once, and takes the halo from its neighbour lanes by shuffles.
/// - FS = 31, 63 (compile time) run the filter-row kernel: the tile's window staged once, then a
///   loop over the filter rows k; for each k a thread slides, for each of its RY = 4 output rows,
///   RX + W pixels of the window row through registers (one 16-byte shared read per W taps), and
///   every tap f(k, l) — a uniform register (ULDC) — serves RX x RY = 32 FMAs. Lanes read 16-byte
///   vectors RX elements apart, 4 along x and 8 rows along y, rows an odd number of vectors apart:
///   conflict-free. Tile 128 x 64 floats, two blocks per SM (one stages while the other computes).
/// - Other sizes run the blocked kernel (kernels/conv2d_common.cuh): per window row, the taps in
///   chunks of 8 whose pixels, read once as 16-byte vectors, serve the thread's RY output rows,
///   the chunk's taps read from the pass's copy of the filter in shared memory; in double chapter
///   4's generic window-strip kernel is a candidate beside it (generic_fits, conv2d_rules.cpp).
/// - Submatrix views (a base k elements past a 16-byte boundary, every row alike): the tiles start
///   k columns left of column 0 (conv2d_detail::origin_shift, as the tuned SYMV shifts its tile
///   origin, KBLAS §6.6), so the staged windows and the streamed rows stay whole 16-byte vectors
///   of memory; the k columns left of the image read as zeros and are never stored.
/// - Tunables (legal_launches): the thread's block RX x RY and with it the tile (16 RX) x (16 RY);
///   for FS <= 5 also the streaming shape (block 32 x 4, a thread SX x 8: tile 128 x 32 floats),
///   for FS = 31, 63 the filter-row shape (a thread 8 x 4 floats, 4 x 4 doubles). Each shape's
///   constraints are static_asserts of its struct (Fixed, Stream, Rows, Blocked).
/// Model, instructions per FMA from the SASS (sm_90, CUDA 13.0; float, 4 x 4):
///   FS = 7: per tile 784 FFMA, 30 LDS.128, about 30 ULDC, about 5 cp.async vectors of staging and
///   16 outputs stored as 4 STG.128: about 1.3 issued instructions per FMA (chapter 5 before the
///   double buffer: about 1.6, its staging an LDG, a division and four STS per vector).
///   FS = 15: 3600 FFMA, 90 LDS.128, about 115 ULDC, 6 staging vectors: about 1.1 per FMA (the
///   blocked kernel it replaces: one LDC per 4 FMAs plus the chunk predicates, about 1.6).
///   FS = 31, 63 (8 x 4 float, filter-row kernel): per filter row 992 (2016) FFMA, 40 (72) LDS.128,
///   31 (63) ULDC and 4 loop instructions: 1.08 (1.07) per FMA (the blocked kernel's inner loop:
///   about 2.0, one LDC per 4 FMAs plus the chunk predicates).
///   Other FS (the blocked kernel): a chunk of 8 taps per window row issues 128 FFMA, 3 LDS.128 of
///   pixels, 8 LDS.128 broadcasts of taps (2 per output row) and about 20 more: 159 in all, 1.24
///   per FMA (the kernel before: a register window slid tap by tap, about 3.1); with the window's
///   and the taps' staging per pass, about 1.7-2.0 per FMA at FS = 9 ... 21 (model/conv2d.cpp).
///   FS = 3 streamed: 10 LDG.128 and 20 SHFL for 288 FFMA per thread; the bytes bound it.
///   The image is read once plus the halo (1 + (FS - 1) / 64)^2 = 1.2 times at FS = 7.
/// Run: ./workbook run ch05 -- --op conv2d       (Conv2dLaunch: thread_x x thread_y, one of the
///                                                instantiated shapes)
#include "conv2d_common.cuh"
#include "conv2d_rules.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb::tuned {
namespace {

using conv2d_detail::Blocked;
using conv2d_detail::Vec16;
using conv2d_detail::cp_async_commit;
using conv2d_detail::cp_async_wait;

/// The compile-time-FS kernel's shape (its constraints checked here): 256 threads, a thread RX x RY
/// outputs, the tile (16 RX) x (16 RY). The window of a tile is WR rows of NVR 16-byte vectors
/// from image column x0 - HA (HA: the halo H rounded up to whole vectors, so that every vector
/// of the window is a vector of the image row: 16-byte copies where rows are aligned); a thread
/// reads NV vectors of each window row it needs, the first at its own column, and uses them from
/// element OFF = HA - H on.
template <class T, int FS, int RX, int RY>
struct Fixed {
    static constexpr int H = FS / 2, W = Vec16<T>::width, THREADS = 256;
    static constexpr int TX = 16 * RX, TY = 16 * RY, WR = TY + FS - 1;
    static constexpr int HA = (H + W - 1) / W * W, OFF = HA - H;
    static constexpr int NVR = (HA + TX + H + W - 1) / W;            // vectors of a window row
    static constexpr int NV = (OFF + RX + FS - 1 + W - 1) / W;       // vectors a thread reads per row
    static constexpr int S = ((TX - RX) / W + NV > NVR ? (TX - RX) / W + NV : NVR) * W;  // row stride
    static constexpr int BUF = WR * S;                                  // elements of one window
    static constexpr int SMEM = 2 * BUF * static_cast<int>(sizeof(T));  // two windows: double buffer
    static_assert(RX % W == 0, "a thread's outputs start on a 16-byte vector of the window row");
    static_assert(SMEM <= 227 * 1024, "both windows fit the shared memory of a block (dynamic, opted in)");
};

/// Starts the copy of tile (bx, by)'s window (shape F: Fixed or Rows) into `sb` (cp.async, not
/// waited for): conv2d_detail::stage_window_async from image element (by TY - H, bx TX - xs - HA).
/// xs: the column origin shift (conv2d_detail::origin_shift; 0 for an aligned image), so that the
/// window's vectors are 16-byte vectors of memory in a submatrix view too.
template <class F, class T>
__device__ __forceinline__ void stage_async(T* sb, const T* __restrict__ in, int pitch, int rows, int cols, int bx,
                                            int by, int xs, bool vec) {
    conv2d_detail::stage_window_async<T, F::WR, F::NVR, F::S, F::THREADS>(sb, in, pitch, rows, cols, by * F::TY - F::H,
                                                                          bx * F::TX - xs - F::HA, vec);
}

//! [tuned-conv2d]
/// FS known at compile time (3, 5, 7; FS <= 5 run it only when asked: the launch rule streams
/// them). A block loops over tiles (tile t + gridDim.x next), copying the next tile's window into
/// the second buffer with cp.async while it computes the current one: the staging's latency hides
/// behind the FMAs of the same block instead of stalling it at the barrier. Each output row is
/// stored as soon as its last tap is in, so that the stores leave a row at a time.
template <class T, int FS, int RX, int RY>
__global__ void __launch_bounds__(256)
fixed_conv2d_kernel(int rows, int cols, const T* __restrict__ in, int in_pitch, T* __restrict__ out, int out_pitch,
                    int tiles_x, int tiles, int xs, bool vec_in, bool vec_out) {
    using F = Fixed<T, FS, RX, RY>;
    constexpr int W = F::W, NV = F::NV, S = F::S;
    extern __shared__ __align__(16) unsigned char smem[];  // two windows of F::BUF elements
    T* const s0 = reinterpret_cast<T*>(smem);
    const auto buf = [&](int b) { return s0 + b * F::BUF; };  // stays a shared-memory address (LDS, not LD)
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int cx = ((warp % 2) * 8 + lane % 8) * RX, cy = ((warp / 2) * 4 + lane / 8) * RY;
    int t = blockIdx.x;
    if (t < tiles) stage_async<F>(buf(0), in, in_pitch, rows, cols, t % tiles_x, t / tiles_x, xs, vec_in);
    cp_async_commit();
    for (int b = 0; t < tiles; t += gridDim.x, b ^= 1) {
        const int tn = t + gridDim.x;
        if (tn < tiles) stage_async<F>(buf(b ^ 1), in, in_pitch, rows, cols, tn % tiles_x, tn / tiles_x, xs, vec_in);
        cp_async_commit();
        cp_async_wait<1>();  // this tile's window has landed (the next one may still be in flight)
        __syncthreads();
        T acc[RY][RX];
        conv2d_detail::zero_block(acc);
        const int r0 = (t / tiles_x) * F::TY + cy, c0 = (t % tiles_x) * F::TX - xs + cx;
#pragma unroll
        for (int y = 0; y < RY + FS - 1; ++y) {  // every window row the thread's outputs need
            T v[NV * W];
            const T* row = buf(b) + (cy + y) * S + cx;
            conv2d_detail::load_vectors<T, NV>(v, row);
#pragma unroll
            for (int i = 0; i < RY; ++i) {
                const int k = y - i;  // compile-time after unrolling
                if (k < 0 || k >= FS) continue;
#pragma unroll
                for (int l = 0; l < FS; ++l) {
                    const T f = conv2d_detail::cfilter<T>(k * FS + l);  // a constant-bank operand
#pragma unroll
                    for (int x = 0; x < RX; ++x) acc[i][x] += f * v[F::OFF + x + l];
                }
            }
            // Output row y - FS + 1 has all its taps: stored now, a row at a time, not the whole
            // block in one burst at the tile's end (on unaligned rows RX RY element stores that
            // filled the store queues: docs/notes/conv2d.md).
            const int done = y - (FS - 1);  // compile-time
            if (done >= 0) conv2d_detail::store_row_vec<T, RX>(acc[done], out, out_pitch, rows, cols, r0 + done, c0, vec_out);
        }
        __syncthreads();  // everybody is done with s[b] before the next trip refills it
    }
    cp_async_wait<0>();
}
//! [tuned-conv2d]

//! [tuned-conv2d-rows]
/// The filter-row kernel's shape, for the large filters known at compile time (FS = 31, 63): 256
/// threads, a thread RX x RY outputs (RX consecutive columns of RY rows 8 apart), the tile
/// (16 RX) x (16 RY). A warp is 4 lanes along x by 8 along y, the 8 warps 4 along x by 2 along y.
/// Window as Fixed's (WR rows of whole 16-byte vectors from image column x0 - HA); its row
/// stride S is an odd number of vectors, so that the 8 lanes of a quarter-warp (4 along x, RX
/// elements apart, and 2 rows apart by S) read 8 distinct 16-byte bank groups: no conflict.
template <class T, int FS, int RX, int RY>
struct Rows {
    static constexpr int H = FS / 2, W = Vec16<T>::width, THREADS = 256;
    static constexpr int TX = 16 * RX, TY = 16 * RY, WR = TY + FS - 1;
    static constexpr int HA = (H + W - 1) / W * W, OFF = HA - H;
    static constexpr int NVR = (HA + TX + H + W - 1) / W;  // vectors of a window row (staged)
    static constexpr int NG = (OFF + FS + W - 1) / W;      // groups of W taps per filter row
    static constexpr int NV = NG + RX / W;                 // vectors a thread reads per window row
    static constexpr int S0 = ((TX - RX) / W + NV > NVR ? (TX - RX) / W + NV : NVR) * W;
    static constexpr int S = (S0 / W) % 2 == 1 ? S0 : S0 + W;  // an odd number of vectors
    static constexpr int SMEM = WR * S * static_cast<int>(sizeof(T));
    static_assert(RX % W == 0 && RX * static_cast<int>(sizeof(T)) == 32,
                  "a lane's outputs are two 16-byte vectors: 4 lanes along x span 128 bytes");
    static_assert((S / W) % 2 == 1, "rows an odd number of vectors apart: conflict-free quarter-warps");
    static_assert(2 * (SMEM + 1024) <= 228 * 1024 || sizeof(T) == 8,
                  "two float blocks per SM (the __launch_bounds__ below)");
    static_assert(SMEM <= 227 * 1024, "the window fits a block's shared memory (dynamic, opted in)");
};

/// FS = 31, 63 (compile time): stage the tile's window once (cp.async), then loop over the FS
/// filter rows k. For each k a thread holds, for each of its RY output rows, RX + W pixels of
/// window row (its row + k) in registers and slides them W taps at a time: every tap f(k, l) —
/// one load from constant memory — serves RX x RY FMAs, and every 16-byte shared read serves
/// RX x W FMAs. The l loop is unrolled (taps beyond the filter skipped at compile time), the k
/// loop is not (its body is NG W RX RY FMAs: 1024 at FS = 31 in float).
template <class T, int FS, int RX, int RY>
__global__ void __launch_bounds__(256, 2)
rows_conv2d_kernel(int rows, int cols, const T* __restrict__ in, int in_pitch, T* __restrict__ out, int out_pitch,
                   int xs, bool vec_in, bool vec_out) {
    using F = Rows<T, FS, RX, RY>;
    using V = typename Vec16<T>::type;
    constexpr int W = F::W, S = F::S, G = RX / W + 1;  // G vectors of a row in registers
    extern __shared__ __align__(16) unsigned char smem[];
    T* const s = reinterpret_cast<T*>(smem);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int cx = ((warp % 4) * 4 + lane % 4) * RX;  // the thread's first column in the tile
    const int cy = (warp / 4) * 8 * RY + lane / 4;    // its first row; the others 8, 16, ... below
    stage_async<F>(s, in, in_pitch, rows, cols, blockIdx.x, blockIdx.y, xs, vec_in);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    T acc[RY][RX];
    conv2d_detail::zero_block(acc);
#pragma unroll 1
    for (int k = 0; k < FS; ++k) {
        const T* row = s + (cy + k) * S + cx;  // window row of output row i: row + 8 i S
        T v[RY][G * W];                        // row i's pixels g W .. g W + G W - 1
#pragma unroll
        for (int i = 0; i < RY; ++i)
#pragma unroll
            for (int g = 0; g < G; ++g)
                *reinterpret_cast<V*>(&v[i][g * W]) = *reinterpret_cast<const V*>(row + 8 * i * S + g * W);
#pragma unroll
        for (int g = 0; g < F::NG; ++g) {
#pragma unroll
            for (int j = 0; j < W; ++j) {
                const int l = g * W + j - F::OFF;  // the tap; compile-time after unrolling
                if (l < 0 || l >= FS) continue;
                const T f = conv2d_detail::cfilter<T>(k * FS + l);
#pragma unroll
                for (int i = 0; i < RY; ++i)
#pragma unroll
                    for (int x = 0; x < RX; ++x) acc[i][x] += f * v[i][j + x];
            }
            if (g + 1 < F::NG) {  // slide: one vector out, the next one in, for every row
#pragma unroll
                for (int i = 0; i < RY; ++i) {
#pragma unroll
                    for (int e = 0; e < (G - 1) * W; ++e) v[i][e] = v[i][e + W];
                    *reinterpret_cast<V*>(&v[i][(G - 1) * W]) =
                        *reinterpret_cast<const V*>(row + 8 * i * S + (g + G) * W);
                }
            }
        }
    }
    const int r0 = blockIdx.y * F::TY + cy, c0 = blockIdx.x * F::TX - xs + cx;
#pragma unroll
    for (int i = 0; i < RY; ++i) {
        T o[1][RX];  // output row i (row r0 + 8 i)
#pragma unroll
        for (int x = 0; x < RX; ++x) o[0][x] = acc[i][x];
        conv2d_detail::store_block_vec<T, RX, 1>(o, out, out_pitch, rows, cols, r0 + 8 * i, c0, vec_out);
    }
}
//! [tuned-conv2d-rows]

//! [tuned-conv2d-stream]
/// The streaming shape for FS <= 5 (the tuned step's launch rule picks it there): a warp is 32
/// lanes along a row, a block 4 warps stacked; a thread computes one 16-byte vector of outputs
/// (SX = 4 floats or 2 doubles) in each of SY = 8 consecutive rows. Tile (32 SX) x (4 SY).
template <class T>
struct Stream {
    static constexpr int SX = Vec16<T>::width, SY = 8, WARPS = 4;
    static constexpr int TX = 32 * SX, TY = WARPS * SY;
};

/// FS <= 5, no shared memory: each thread streams the NR = SY + FS - 1 input rows its outputs
/// need through registers, one 16-byte load per row, all issued before the first FMA (no branch
/// between them: NR x 16 bytes in flight per thread), and takes the H = FS / 2 pixels on each side
/// from its neighbour lanes' vectors by shuffles (lanes 0 and 31 read theirs from memory: an L1
/// hit, the neighbour warp loads the line). Every input row adds to the up to FS output rows
/// that use it, with the taps as constant-bank operands: per thread SY SX FS^2 FMAs for NR loads.
template <class T, int FS>
__global__ void __launch_bounds__(32 * Stream<T>::WARPS)
stream_conv2d_kernel(int rows, int cols, const T* __restrict__ in, int in_pitch, T* __restrict__ out, int out_pitch,
                     int xs, bool vec_in, bool vec_out) {
    using P = Stream<T>;
    using V = typename Vec16<T>::type;
    constexpr int H = FS / 2, SX = P::SX, SY = P::SY, NR = SY + FS - 1, HE = H > 0 ? H : 1;
    static_assert(H <= SX, "the halo comes from the neighbour lane's vector alone");
    static_assert(P::TX == 32 * SX && P::TY == P::WARPS * SY, "a warp spans a row of the tile, warps stack");
    const int lane = threadIdx.x;
    const int c0 = (blockIdx.x * 32 + lane) * SX - xs;  // xs: the column origin shift (stage_async)
    const int gy0 = blockIdx.y * P::TY + threadIdx.y * SY - H;  // the first input row
    const T* src = in + static_cast<long long>(gy0) * in_pitch + c0;
    T q[NR][SX];  // pixels (gy0 + t, c0 .. c0 + SX - 1)
    if (vec_in && c0 >= 0 && c0 + SX <= cols && gy0 >= 0 && gy0 + NR <= rows) {  // inside the image: 16-byte loads
#pragma unroll
        for (int t = 0; t < NR; ++t) {
            const V v = __ldg(reinterpret_cast<const V*>(src + static_cast<long long>(t) * in_pitch));
#pragma unroll
            for (int j = 0; j < SX; ++j) q[t][j] = reinterpret_cast<const T*>(&v)[j];
        }
    } else {  // at the image's edges (or rows not 16-byte aligned): element by element, zeros outside
#pragma unroll
        for (int t = 0; t < NR; ++t)
#pragma unroll
            for (int j = 0; j < SX; ++j)
                q[t][j] = gy0 + t >= 0 && gy0 + t < rows && c0 + j >= 0 && c0 + j < cols
                              ? __ldg(src + static_cast<long long>(t) * in_pitch + j)
                              : T(0);
    }
    T e[NR][HE];  // lane 0: pixels (gy0 + t, c0 - H ..); lane 31: (gy0 + t, c0 + SX ..)
    if (H > 0 && (lane == 0 || lane == 31)) {
        const int ex = lane == 0 ? c0 - H : c0 + SX;
#pragma unroll
        for (int t = 0; t < NR; ++t)
#pragma unroll
            for (int j = 0; j < H; ++j)
                e[t][j] = gy0 + t >= 0 && gy0 + t < rows && ex + j >= 0 && ex + j < cols
                              ? __ldg(src + static_cast<long long>(t) * in_pitch + ex - c0 + j)
                              : T(0);
    }
    T acc[SY][SX];
    conv2d_detail::zero_block(acc);
#pragma unroll
    for (int t = 0; t < NR; ++t) {
        T w[SX + 2 * H];  // pixels (gy0 + t, c0 - H .. c0 + SX + H - 1)
#pragma unroll
        for (int j = 0; j < SX; ++j) w[H + j] = q[t][j];
#pragma unroll
        for (int j = 0; j < H; ++j) {
            const T left = __shfl_up_sync(0xffffffffu, q[t][SX - H + j], 1);
            const T right = __shfl_down_sync(0xffffffffu, q[t][j], 1);
            w[j] = lane == 0 ? e[t][j] : left;
            w[H + SX + j] = lane == 31 ? e[t][j] : right;
        }
#pragma unroll
        for (int k = 0; k < FS; ++k) {
            const int i = t - k;  // the output row this input row meets with filter row k
            if (i < 0 || i >= SY) continue;
#pragma unroll
            for (int l = 0; l < FS; ++l) {
                const T f = conv2d_detail::cfilter<T>(k * FS + l);  // a constant-bank operand
#pragma unroll
                for (int x = 0; x < SX; ++x) acc[i][x] += f * w[x + l];
            }
        }
    }
    conv2d_detail::store_block_vec<T, SX, SY>(acc, out, out_pitch, rows, cols, gy0 + H, c0, vec_out);
}
//! [tuned-conv2d-stream]

/// Where the tiles start and which accesses are 16-byte vectors: in a submatrix view whose rows
/// all start xs elements past a 16-byte boundary, the tiles start xs columns left of column 0
/// (conv2d_detail::origin_shift), so the loads stay whole vectors; the stores too where the
/// output's rows start at the same offset.
struct Origin {
    int xs;  ///< columns the tiles start left of column 0 (0 for an aligned image)
    bool vec_in, vec_out;
};
template <class T>
Origin origin_of(const Conv2dArgs<T>& a) {
    const int k = conv2d_detail::origin_shift(a.in, a.in_pitch);
    const int xs = k > 0 ? k : 0;
    return {xs, k >= 0, conv2d_detail::origin_shift(a.out, a.out_pitch) == xs};  // out's rows start alike
}

template <class T, int FS>
void launch_stream(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    using P = Stream<T>;
    const Origin o = origin_of(a);
    const long long tiles_x = conv2d_detail::ceil_div(static_cast<long long>(a.cols) + o.xs, P::TX);
    const dim3 grid(conv2d_detail::grid_dim(tiles_x, kMaxGridX, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, P::TY), kMaxGridYZ, fn));
    conv2d_detail::upload_filter(a.filter, FS, s);
    stream_conv2d_kernel<T, FS><<<grid, dim3(32, P::WARPS), 0, s>>>(a.rows, a.cols, a.in, a.in_pitch, a.out,
                                                                   a.out_pitch, o.xs, o.vec_in, o.vec_out);
}

/// Launch rule of the compile-time-FS kernel: a persistent grid, as many blocks as fit on the
/// GPU at once (the occupancy calculator's count per SM, times the SMs), never more than tiles.
template <class T, int FS, int RX, int RY>
void launch_fixed(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    using F = Fixed<T, FS, RX, RY>;
    auto kernel = fixed_conv2d_kernel<T, FS, RX, RY>;
    WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, F::SMEM));  // per device
    static const int per_sm = [&] {  // the same on every GPU of one kind; asked once
        int n = 0;
        WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, F::THREADS, F::SMEM));
        return n > 0 ? n : 1;
    }();
    const Origin o = origin_of(a);
    const long long tx = conv2d_detail::ceil_div(static_cast<long long>(a.cols) + o.xs, F::TX);
    const long long ty = conv2d_detail::ceil_div(a.rows, F::TY);
    const long long tiles = tx * ty;
    if (tiles > kMaxInt32) throw std::invalid_argument(std::string(fn) + ": image has more tiles than an int holds");
    const int blocks = static_cast<int>(std::min<long long>(tiles, 1LL * per_sm * conv2d_detail::sm_count()));
    conv2d_detail::upload_filter(a.filter, FS, s);
    kernel<<<blocks, F::THREADS, F::SMEM, s>>>(a.rows, a.cols, a.in, a.in_pitch, a.out, a.out_pitch, static_cast<int>(tx),
                                        static_cast<int>(tiles), o.xs, o.vec_in, o.vec_out);
}

/// Launch rule of the filter-row kernel: one block per tile (a tile is 128 x 64 floats' worth
/// of FS^2 FMAs: at two blocks per SM one block's staging overlaps the other's FMAs).
template <class T, int FS, int RX, int RY>
void launch_rows(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    using F = Rows<T, FS, RX, RY>;
    auto kernel = rows_conv2d_kernel<T, FS, RX, RY>;
    WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, F::SMEM));
    const Origin o = origin_of(a);
    const long long tiles_x = conv2d_detail::ceil_div(static_cast<long long>(a.cols) + o.xs, F::TX);
    const dim3 grid(conv2d_detail::grid_dim(tiles_x, kMaxGridX, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, F::TY), kMaxGridYZ, fn));
    conv2d_detail::upload_filter(a.filter, FS, s);
    kernel<<<grid, F::THREADS, F::SMEM, s>>>(a.rows, a.cols, a.in, a.in_pitch, a.out, a.out_pitch, o.xs, o.vec_in,
                                             o.vec_out);
}

/// The filter-row shape: FS = 31, 63 (rows_fits).
template <class T>
void dispatch_rows(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    constexpr int RX = 32 / sizeof(T), RY = 4;  // float 8 x 4 (tile 128 x 64), double 4 x 4 (64 x 64)
    if (a.fs == 31) launch_rows<T, 31, RX, RY>(a, s, fn);
    else launch_rows<T, 63, RX, RY>(a, s, fn);
}

/// One instantiated block shape: FS = 3, 5, 7, 15 at compile time unless `blocked` (the launch's
/// kernel class), the blocked kernel otherwise.
template <class T, int RX, int RY>
void dispatch(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn, bool blocked) {
    if (blocked) {
        conv2d_detail::launch_blocked<T, RX, RY>(a, s, fn);
        return;
    }
    // The cases are model::tuned_conv2d_fixed_fs's sizes (the rules and the model read that list).
    switch (a.fs) {
    case 3: launch_fixed<T, 3, RX, RY>(a, s, fn); break;
    case 5: launch_fixed<T, 5, RX, RY>(a, s, fn); break;
    case 7: launch_fixed<T, 7, RX, RY>(a, s, fn); break;
    case 15: launch_fixed<T, 15, RX, RY>(a, s, fn); break;
    default: conv2d_detail::launch_blocked<T, RX, RY>(a, s, fn); break;
    }
}

/// The streaming shape: FS = 1, 3, 5 (stream_fits).
template <class T>
void dispatch_stream(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    switch (a.fs) {
    case 1: launch_stream<T, 1>(a, s, fn); break;
    case 3: launch_stream<T, 3>(a, s, fn); break;
    default: launch_stream<T, 5>(a, s, fn); break;
    }
}

}  // namespace

/// The instantiated shapes of T for filter size fs (the ladder's legal_launches; the default
/// launch, conv2d_default, derives which), the special kernel's first: for FS <= 5 the streaming shape (32 x 4 threads, a 16-byte vector of 8 rows
/// each: tile 128 x 32 floats, 64 x 32 doubles); for FS = 31, 63 the filter-row kernel (a thread
/// 8 x 4 floats or 4 x 4 doubles: tile 128 x 64 or 64 x 64); for the sizes no kernel here knows
/// at compile time, in double, the same shape runs chapter 4's generic kernel (generic_fits); for FS = 7, 15,
/// and as alternatives for all of those, the shared-window blocks: float 4 x 4 (tile 64 x 64) and 4 x 2 (64 x 32); double 2 x 2 (32 x 32)
/// and 4 x 2 (64 x 32). Where the blocks know FS at compile time (FS = 3, 5, 7, 15), the same shapes
/// once more with the blocked kernel (`blocked`): the kernel class is a tunable the sweep weighs too.
template <class T>
std::vector<Conv2dLaunch> conv2d_configs(int fs) {
    std::vector<Conv2dLaunch> v;
    if (stream_fits(fs)) v.push_back(stream_shape(Stream<T>::SX, Stream<T>::SY, Stream<T>::WARPS));
    if (rows_fits(fs) || generic_fits(fs, sizeof(T))) v.push_back(block_shape(static_cast<int>(32 / sizeof(T)), 4));
    const std::pair<int, int> shapes[] = {sizeof(T) == 4 ? std::pair{4, 4} : std::pair{2, 2}, {4, 2}};
    for (const auto& [rx, ry] : shapes) v.push_back(block_shape(rx, ry));
    if (compiled_fits(fs))
        for (const auto& [rx, ry] : shapes) v.push_back(block_shape(rx, ry, true));
    return v;
}

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::conv2d";
    const auto cfgs = conv2d_configs<T>(a.fs);
    const int pick = conv2d_pick_config(cfgs, l, fn);  // throws unless l names one of them
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    const bool special = stream_fits(a.fs) || rows_fits(a.fs) || generic_fits(a.fs, sizeof(T));
    const Conv2dLaunch& c = cfgs[pick];
    if (pick == 0 && special && stream_fits(a.fs)) dispatch_stream<T>(a, s, fn);
    else if (pick == 0 && special && rows_fits(a.fs)) dispatch_rows<T>(a, s, fn);
    else if (pick == 0 && special) {
        access::conv2d<T>(a, Conv2dLaunch{}, s);  // chapter 4's generic kernel, same tile shape
        return;
    } else {
        constexpr int kWide = sizeof(T) == 4 ? 4 : 2;  // the first block shape: float 4 x 4, double 2 x 2
        if (c.thread_x == kWide && c.thread_y == kWide) dispatch<T, kWide, kWide>(a, s, fn, c.blocked != 0);
        else dispatch<T, 4, 2>(a, s, fn, c.blocked != 0);
    }
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);
template std::vector<Conv2dLaunch> conv2d_configs<float>(int);
template std::vector<Conv2dLaunch> conv2d_configs<double>(int);

}  // namespace wb::tuned
