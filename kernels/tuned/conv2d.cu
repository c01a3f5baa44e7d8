/// \file tuned/conv2d.cu
/// \brief Chapter 5 — tuned convolution: register blocking in both directions, the small filter
///        sizes known at compile time (every loop unrolled, every tap a constant-bank operand of
///        its FMA), a generic blocked loop for the rest; tile shape as the step's tunable.
///
/// What changes against chapter 4 (White, Listing 5.5: index arithmetic hoisted, loops unrolled):
/// - A thread computes RX x RY outputs (4 x 4 floats, 2 x 2 doubles by default): each pixel
///   read from shared memory serves up to RY output rows (the vertical reuse chapter 4 lacks), so
///   shared reads per FMA fall from 1 / (RX W) to about (RY + FS - 1) / (RY FS RX W).
/// - FS = 3, 5, 7 are template constants: the whole thread's work is one unrolled block; the
///   window rows the thread needs, (RY + FS - 1) rows of ceil((RX + FS - 1) / W) vectors, are
///   read into registers while the previous rows' FMAs run (the unrolled code lets the compiler
///   hoist the reads: the prefetch), and every filter tap is a compile-time index into constant
///   memory, so the FMA takes it as its constant-bank operand: no filter load instruction at all.
///   One pass stages the whole window (FS <= 7 needs no chunks).
/// - Other sizes run chapter 4's blocked kernel with RY > 1 (kernels/conv2d_common.cuh): the filter
///   loaded per tap and output row, shared by RX outputs.
/// - Tunables (legal_launches): the thread's block RX x RY and with it the tile (16 RX) x (16 RY).
/// Model (float, 4 x 4, FS = 7): per thread 10 rows x 3 vectors = 30 shared reads for 784 FMAs;
///   the FMA issue rate limits (about 95% of issued instructions are FMAs); the image is read once
///   plus the halo (1 + (FS - 1) / 64)^2 = 1.2 times.
/// Run: ./workbook run ch05 -- --op conv2d       (Conv2dLaunch: thread_x x thread_y, one of the
///                                                instantiated blocks; block 256)
#include "conv2d_common.cuh"

#include <string>
#include <utility>
#include <vector>

namespace wb::tuned {
namespace {

using conv2d_detail::Blocked;
using conv2d_detail::Vec16;

//! [tuned-conv2d]
template <class T, int FS, int RX, int RY>
__global__ void __launch_bounds__(256)
fixed_conv2d_kernel(int rows, int cols, const T* __restrict__ in, int in_pitch, T* __restrict__ out, int out_pitch,
                    bool vec) {
    using V = typename Vec16<T>::type;
    constexpr int H = FS / 2, W = Vec16<T>::width;
    constexpr int TX = 16 * RX, TY = 16 * RY, WR = TY + FS - 1, WC = TX + FS - 1;
    constexpr int NV = (RX + FS - 1 + W - 1) / W;         // vectors of a window row one thread needs
    constexpr int S = ((TX - RX + NV * W > WC ? TX - RX + NV * W : WC) + W - 1) / W * W;  // aligned rows
    static_assert(WR * S * sizeof(T) <= 48 * 1024, "the window fits static shared memory");
    __shared__ __align__(16) T s[WR * S];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int cx = ((warp % 2) * 8 + lane % 8) * RX, cy = ((warp / 2) * 4 + lane / 8) * RY;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    conv2d_detail::stage_window_vec<T>(s, S, WR, WC, in, in_pitch, rows, cols, y0 - H, x0 - H, tid, 256, vec);
    __syncthreads();
    T acc[RY][RX];
#pragma unroll
    for (int i = 0; i < RY; ++i)
#pragma unroll
        for (int x = 0; x < RX; ++x) acc[i][x] = 0;
#pragma unroll
    for (int y = 0; y < RY + FS - 1; ++y) {  // every window row the thread's outputs need
        T v[NV * W];
        const T* row = s + (cy + y) * S + cx;
#pragma unroll
        for (int g = 0; g < NV; ++g) *reinterpret_cast<V*>(&v[g * W]) = *reinterpret_cast<const V*>(row + g * W);
#pragma unroll
        for (int i = 0; i < RY; ++i) {
            const int k = y - i;  // compile-time after unrolling
            if (k < 0 || k >= FS) continue;
#pragma unroll
            for (int l = 0; l < FS; ++l) {
                const T f = conv2d_detail::cfilter<T>(k * FS + l);  // a constant-bank operand
#pragma unroll
                for (int x = 0; x < RX; ++x) acc[i][x] += f * v[x + l];
            }
        }
    }
    conv2d_detail::store_block<T, RX, RY>(acc, out, out_pitch, rows, cols, y0 + cy, x0 + cx);
}
//! [tuned-conv2d]

template <class T, int FS, int RX, int RY>
void launch_fixed(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    const dim3 grid(conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.cols, 16 * RX), 2147483647LL, fn),
                    conv2d_detail::grid_dim(conv2d_detail::ceil_div(a.rows, 16 * RY), 65535, fn));
    conv2d_detail::upload_filter(a.filter, FS, s);
    fixed_conv2d_kernel<T, FS, RX, RY><<<grid, 256, 0, s>>>(a.rows, a.cols, a.in, a.in_pitch, a.out, a.out_pitch,
                                                            conv2d_detail::aligned16(a.in, a.in_pitch));
}

/// One instantiated block shape: FS = 3, 5, 7 at compile time, the blocked kernel otherwise.
template <class T, int RX, int RY>
void dispatch(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    switch (a.fs) {
    case 3: launch_fixed<T, 3, RX, RY>(a, s, fn); break;
    case 5: launch_fixed<T, 5, RX, RY>(a, s, fn); break;
    case 7: launch_fixed<T, 7, RX, RY>(a, s, fn); break;
    default: conv2d_detail::launch_blocked<T, RX, RY>(a, s, fn); break;
    }
}

Conv2dLaunch block_shape(int rx, int ry) {
    Conv2dLaunch l;
    l.block_x = 256;
    l.block_y = 1;
    l.thread_x = rx;
    l.thread_y = ry;
    l.tile_x = 16 * rx;
    l.tile_y = 16 * ry;
    return l;
}

/// True when every field the caller set (nonzero) equals the configuration's.
bool matches(const Conv2dLaunch& want, const Conv2dLaunch& cfg) {
    auto eq = [](int w, int c) { return w == 0 || w == c; };
    return eq(want.block_x, cfg.block_x) && eq(want.block_y, cfg.block_y) && eq(want.tile_x, cfg.tile_x) &&
           eq(want.tile_y, cfg.tile_y) && eq(want.thread_x, cfg.thread_x) && eq(want.thread_y, cfg.thread_y);
}

}  // namespace

/// The instantiated block shapes of T (the ladder's legal_launches), the default first:
/// float 4 x 4 (tile 64 x 64) and 4 x 2 (64 x 32); double 2 x 2 (32 x 32) and 4 x 2 (64 x 32).
template <class T>
std::vector<Conv2dLaunch> conv2d_configs() {
    if (sizeof(T) == 4) return {block_shape(4, 4), block_shape(4, 2)};
    return {block_shape(2, 2), block_shape(4, 2)};
}

template <class T>
void conv2d(const Conv2dArgs<T>& a, const Conv2dLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::conv2d";
    const auto cfgs = conv2d_configs<T>();
    int pick = -1;
    for (std::size_t c = 0; c < cfgs.size() && pick < 0; ++c)
        if (matches(l, cfgs[c])) pick = static_cast<int>(c);
    if (pick < 0) {
        std::string rule = "the value of one of the instantiated configurations (";
        for (const auto& c : cfgs) rule += (rule.back() == '(' ? "" : " | ") + c.str();
        rule += ")";
        const std::pair<const char*, int Conv2dLaunch::*> fields[] = {
            {"thread_x", &Conv2dLaunch::thread_x}, {"thread_y", &Conv2dLaunch::thread_y},
            {"tile_x", &Conv2dLaunch::tile_x},     {"tile_y", &Conv2dLaunch::tile_y},
            {"block_x", &Conv2dLaunch::block_x},   {"block_y", &Conv2dLaunch::block_y}};
        Conv2dLaunch partial;
        for (const auto& [name, field] : fields) {
            partial.*field = l.*field;
            bool ok = false;
            for (const auto& c : cfgs) ok = ok || matches(partial, c);
            conv2d_detail::require_launch(ok, fn, name, l.*field, rule);
        }
        throw std::invalid_argument(std::string(fn) + ": launch (" + l.str() +
                                    ") must be one configuration, not fields of several: " + rule);
    }
    if (!conv2d_detail::conv2d_begin(a, fn)) return;
    if constexpr (sizeof(T) == 4) {
        if (pick == 0) dispatch<T, 4, 4>(a, s, fn);
        else dispatch<T, 4, 2>(a, s, fn);
    } else {
        if (pick == 0) dispatch<T, 2, 2>(a, s, fn);
        else dispatch<T, 4, 2>(a, s, fn);
    }
    WB_CHECK_LAUNCH();
}

template void conv2d<float>(const Conv2dArgs<float>&, const Conv2dLaunch&, cudaStream_t);
template void conv2d<double>(const Conv2dArgs<double>&, const Conv2dLaunch&, cudaStream_t);
template std::vector<Conv2dLaunch> conv2d_configs<float>();
template std::vector<Conv2dLaunch> conv2d_configs<double>();

}  // namespace wb::tuned
