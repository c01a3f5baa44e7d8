/// \file conv2d_common.cuh
/// \brief Device-side pieces every convolution step shares: the launch guards and grid helpers,
///        the filter in constant memory (one copy per kernel file: constant memory belongs to a
///        module), the staging of an input window (tile plus halo) into shared memory, and the
///        host helpers of the FFT peer.
#pragma once

#include "conv2d.hpp"
#include "launch_checks.hpp"
#include "check.hpp"
#include "vec16.cuh"
#include "vector_offset.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wb::conv2d_detail {

using launch_checks::ceil_div;
using launch_checks::grid_dim;
using launch_checks::require_launch;
using launch_checks::sm_count;

/// Filter elements that fit the constant-memory copy: FS <= 89 in float (7921 of 7936), FS <= 63
/// in double (3969). Together 63,496 bytes of the 64 KB a module may have.
constexpr int kConstFloat = 7936;
constexpr int kConstDouble = 3969;
template <class T> constexpr int const_capacity() { return sizeof(T) == 4 ? kConstFloat : kConstDouble; }
/// True when the FS x FS filter of T fits the constant-memory copy.
template <class T> constexpr bool fits_constant(int fs) { return fs * fs <= const_capacity<T>(); }

/// Filter chunk the tiled steps stage per pass: windows of (tile + CHUNK - 1) per direction, so
/// that any FS (up to 1025) runs in ceil(FS / CHUNK)^2 passes with a bounded shared-memory tile.
constexpr int kChunk = 32;

// ------------------------------------------------------------------------------------------------
// The filter in constant memory. `static`: every kernel file that includes this header has its own
// copy in its own module (a kernel reads the constant bank of its module).
// ------------------------------------------------------------------------------------------------
static __constant__ float c_filter_f[kConstFloat];
static __constant__ double c_filter_d[kConstDouble];

template <class T> __device__ __forceinline__ T cfilter(int i);
template <> __device__ __forceinline__ float cfilter<float>(int i) { return c_filter_f[i]; }
template <> __device__ __forceinline__ double cfilter<double>(int i) { return c_filter_d[i]; }

/// Copies the filter (device memory) into this module's constant copy, on the stream.
/// Precondition: fits_constant<T>(fs). Stream-ordered: calls on one stream never race.
template <class T>
static void upload_filter(const T* filter, int fs, cudaStream_t s) {
    const std::size_t bytes = static_cast<std::size_t>(fs) * fs * sizeof(T);
    if (sizeof(T) == 4) WB_CUDA(cudaMemcpyToSymbolAsync(c_filter_f, filter, bytes, 0, cudaMemcpyDeviceToDevice, s));
    else WB_CUDA(cudaMemcpyToSymbolAsync(c_filter_d, filter, bytes, 0, cudaMemcpyDeviceToDevice, s));
}

/// filter(idx): from the constant copy (CONST) or from global memory through the read-only path
/// (the fallback for filters larger than the constant copy). Every thread of a warp reads the
/// same idx: one broadcast either way.
template <class T, bool CONST>
__device__ __forceinline__ T filter_at(const T* __restrict__ filter, int idx) {
    if constexpr (CONST) return cfilter<T>(idx);
    else return __ldg(filter + idx);
}

/// The shared step's staging (chapters 2 and 3): `wr` x `wc` pixels from image element (gy0, gx0)
/// (zeros outside) into `s` (row stride `stride`); thread (tx, ty) of a 32 x BY block copies
/// columns tx, tx + 32, ... of rows ty, ty + BY, ...: coalesced rows, no division per element.
template <class T, int BY>
__device__ __forceinline__ void stage_tile(T* s, int stride, int wr, int wc, const T* __restrict__ in, int pitch,
                                           int rows, int cols, int gy0, int gx0) {
    for (int r = threadIdx.y; r < wr; r += BY) {
        const int gy = gy0 + r;
        const bool row_in = gy >= 0 && gy < rows;
        const T* src = in + static_cast<long long>(gy) * pitch + gx0;
        for (int c = threadIdx.x; c < wc; c += 32) {
            const int gx = gx0 + c;
            s[r * stride + c] = row_in && gx >= 0 && gx < cols ? __ldg(src + c) : T(0);
        }
    }
}

/// What every launcher does first: validate (throws before anything touches the GPU); false
/// when the image is empty.
template <class T>
bool conv2d_begin(const Conv2dArgs<T>& a, const char* fn) {
    return validate_conv2d(a, fn);
}


// ------------------------------------------------------------------------------------------------
// The register-blocked kernel of chapter 5 (kernels/tuned/conv2d.cu: its generic path for filter
// sizes not known at compile time), and the 16-byte staging chapters 4 and 5 share.
// ------------------------------------------------------------------------------------------------

/// 16-byte vector of T (vec16.cuh).
using detail::Vec16;

/// Filter rows and columns one pass of the blocked kernel stages.
constexpr int kChunkY = 16;

/// The blocked kernel's shape: 256 threads; a warp is 8 lanes along x by 4 along y, the 8 warps
/// 2 along x by 4 along y; a thread computes RX x RY outputs (RX consecutive columns of RY
/// consecutive rows). The block's tile is (16 RX) x (16 RY).
template <class T, int RX_, int RY_>
struct Blocked {
    static constexpr int RX = RX_, RY = RY_;
    static constexpr int W = Vec16<T>::width;      // elements per 16-byte shared-memory read
    static constexpr int THREADS = 256;
    static constexpr int TX = 16 * RX, TY = 16 * RY;
    static constexpr int WR = TY + kChunkY - 1;    // window rows of one pass
    // Window columns, rounded up to whole 16-byte vectors, plus one vector that the last
    // group read may touch (never used): rows start 16-byte aligned.
    static constexpr int S = ((TX + kChunk - 1 + W - 1) / W + 1) * W;
    static constexpr int TAPS = kChunkY * kChunk + W;  // a pass's taps in shared memory, plus a vector
    static constexpr int SMEM = (WR * S + TAPS) * static_cast<int>(sizeof(T));
    static_assert(RX % W == 0, "a thread's outputs are whole 16-byte vectors of the window row");
    static_assert(SMEM <= 48 * 1024, "the window and the pass's taps fit static shared memory");
};

/// Stages one pass's window (`wr` x `wc` pixels from image element (gy0, gx0), zeros outside)
/// with 16-byte global loads where the whole vector lies in the image and `vec` (the base pointer
/// 16-byte aligned and the pitch a multiple of the vector width: uniform, decided at launch): each
/// row is read from the aligned column at or before gx0, consecutive threads take consecutive vectors (coalesced also
/// at the image edges, where single elements are read instead), and the elements are stored one
/// by one at their window column (the window itself need not be aligned in the image).
template <class T>
__device__ __forceinline__ void stage_window_vec(T* s, int stride, int wr, int wc, const T* __restrict__ in, int pitch,
                                                 int rows, int cols, int gy0, int gx0, int tid, int nthreads,
                                                 bool vec) {
    constexpr int W = Vec16<T>::width;
    using V = typename Vec16<T>::type;
    const int ax = gx0 >= 0 ? gx0 - gx0 % W : -((-gx0 + W - 1) / W) * W;  // floor to a multiple of W
    const int nv = (gx0 + wc - ax + W - 1) / W;                            // vectors per row
#pragma unroll 4  // several 16-byte loads in flight per thread before their stores
    for (int e = tid; e < wr * nv; e += nthreads) {
        const int r = e / nv, v = e - r * nv;
        const int gy = gy0 + r, gx = ax + v * W;
        T val[W];
        const bool row_in = gy >= 0 && gy < rows;
        const T* src = in + static_cast<long long>(gy) * pitch + gx;
        if (vec && row_in && gx >= 0 && gx + W <= cols) {
            const V q = __ldg(reinterpret_cast<const V*>(src));
            const T* pq = reinterpret_cast<const T*>(&q);
#pragma unroll
            for (int j = 0; j < W; ++j) val[j] = pq[j];
        } else {
#pragma unroll
            for (int j = 0; j < W; ++j) val[j] = row_in && gx + j >= 0 && gx + j < cols ? __ldg(src + j) : T(0);
        }
#pragma unroll
        for (int j = 0; j < W; ++j) {
            const int c = gx + j - gx0;
            if (c >= 0 && c < wc) s[r * stride + c] = val[j];
        }
    }
}

/// cp.async: a 16-byte (or element-sized) copy from global to shared memory that does not pass
/// through registers and does not block the thread; `valid` false writes zeros instead (the
/// source size 0: nothing is read, `src` need only be a valid address).
template <int BYTES>
__device__ __forceinline__ void cp_async_zfill(void* dst, const void* src, bool valid) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    const int n = valid ? BYTES : 0;
    if constexpr (BYTES == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(n));
    else asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src), "n"(BYTES), "r"(n));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

/// Starts the copy (cp.async, not waited for) of a window of WR rows of NVR 16-byte vectors from
/// image element (gy0, gx0), gx0 a multiple of the vector width W, into `s` (row stride S
/// elements; zeros outside the image) — chapters 4 and 5. Consecutive threads take consecutive
/// vectors of a row, so the loads stay coalesced at the image edges too: 16-byte copies where `vec`
/// (rows 16-byte aligned) and the vector lies wholly inside or wholly outside the image (zeros,
/// nothing read), element copies for the vector that straddles the right edge (or all of them
/// where rows are not aligned). Divisions only by the compile-time NVR. A window wholly inside the
/// image takes a lean path without bounds (about 13 issued instructions per vector against about 45).
template <class T, int WR, int NVR, int S, int THREADS>
__device__ __forceinline__ void stage_window_async(T* s, const T* __restrict__ in, int pitch, int rows, int cols,
                                                   int gy0, int gx0, bool vec) {
    constexpr int W = Vec16<T>::width;
    if (vec && gy0 >= 0 && gy0 + WR <= rows && gx0 >= 0 && gx0 + NVR * W <= cols) {
        // The whole window lies in the image (uniform: most tiles of a large image): no bounds,
        // no zero fill, the loop unrolled (its trip count a compile-time constant, the last trip
        // predicated): a division by the constant NVR, two addresses and the copy per vector.
        const T* base = in + static_cast<long long>(gy0) * pitch + gx0;
#pragma unroll
        for (int i = 0; i < (WR * NVR + THREADS - 1) / THREADS; ++i) {
            const int e = threadIdx.x + i * THREADS;
            if ((i + 1) * THREADS <= WR * NVR || e < WR * NVR) {
                const int r = e / NVR, v = e - r * NVR;
                cp_async_zfill<16>(s + r * S + v * W, base + static_cast<long long>(r) * pitch + v * W, true);
            }
        }
        return;
    }
    for (int e = threadIdx.x; e < WR * NVR; e += THREADS) {
        const int r = e / NVR, v = e - r * NVR;
        const int gy = gy0 + r, gx = gx0 + v * W;  // gx: a multiple of W
        const bool row_in = gy >= 0 && gy < rows;
        const T* src = in + static_cast<long long>(gy) * pitch + gx;
        T* dst = s + r * S + v * W;
        // A vector wholly inside the image, or wholly outside it (zeros): one 16-byte copy. gx is
        // a multiple of W where rows are aligned; with a shifted column origin (origin_shift) a
        // vector may straddle column 0, and takes the element copies like one straddling cols.
        const bool ok = row_in && gx >= 0 && gx + W <= cols;
        if (vec && (ok || !row_in || gx + W <= 0 || gx >= cols)) {
            cp_async_zfill<16>(dst, ok ? src : in, ok);
        } else {
#pragma unroll
            for (int j = 0; j < W; ++j) {
                const bool ok = row_in && gx + j >= 0 && gx + j < cols;
                cp_async_zfill<sizeof(T)>(dst + j, ok ? src + j : in, ok);
            }
        }
    }
}

/// Loads N 16-byte vectors of a window row from `w` (16-byte aligned) into v.
template <class T, int N>
__device__ __forceinline__ void load_vectors(T* v, const T* w) {
    using V = typename Vec16<T>::type;
    constexpr int W = Vec16<T>::width;
#pragma unroll
    for (int g = 0; g < N; ++g) *reinterpret_cast<V*>(v + g * W) = *reinterpret_cast<const V*>(w + g * W);
}

/// Sets a thread's block of accumulators to zero.
template <class T, int R, int C>
__device__ __forceinline__ void zero_block(T (&acc)[R][C]) {
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
        for (int x = 0; x < C; ++x) acc[i][x] = 0;
}

/// Writes a thread's RX x RY outputs, the first at image element (r0, c0), skipping those
/// outside the image.
template <class T, int RX, int RY>
__device__ __forceinline__ void store_block(const T (&acc)[RY][RX], T* __restrict__ out, int out_pitch, int rows,
                                            int cols, int r0, int c0) {
#pragma unroll
    for (int i = 0; i < RY; ++i) {
        if (r0 + i >= rows) break;
#pragma unroll
        for (int x = 0; x < RX; ++x)
            if (c0 + x >= 0 && c0 + x < cols) out[static_cast<long long>(r0 + i) * out_pitch + c0 + x] = acc[i][x];
    }
}

/// One row of a thread's outputs, RX elements from image element (r, c0), nothing where the row
/// lies below the image: 16-byte stores where `vec` (out 16-byte aligned, out_pitch a multiple of
/// the vector width) and the RX columns lie in the image, element stores of the columns inside it
/// otherwise (c0 < 0: a tile left of column 0, origin_shift).
template <class T, int RX>
__device__ __forceinline__ void store_row_vec(const T (&a)[RX], T* __restrict__ out, int out_pitch, int rows, int cols,
                                              int r, int c0, bool vec) {
    constexpr int W = Vec16<T>::width;
    static_assert(RX % W == 0, "the thread's columns are whole 16-byte vectors");
    if (r >= rows) return;
    T* const o = out + static_cast<long long>(r) * out_pitch + c0;
    if (vec && c0 >= 0 && c0 + RX <= cols) {
#pragma unroll
        for (int g = 0; g < RX / W; ++g) {
            typename Vec16<T>::type q;
#pragma unroll
            for (int j = 0; j < W; ++j) reinterpret_cast<T*>(&q)[j] = a[g * W + j];
            *reinterpret_cast<decltype(q)*>(o + g * W) = q;
        }
        return;
    }
#pragma unroll
    for (int x = 0; x < RX; ++x)
        if (c0 + x >= 0 && c0 + x < cols) o[x] = a[x];
}

/// A thread's RY x RX outputs from image element (r0, c0), row by row as store_row_vec stores one.
template <class T, int RX, int RY>
__device__ __forceinline__ void store_block_vec(const T (&acc)[RY][RX], T* __restrict__ out, int out_pitch, int rows,
                                                int cols, int r0, int c0, bool vec) {
#pragma unroll
    for (int i = 0; i < RY; ++i) store_row_vec<T, RX>(acc[i], out, out_pitch, rows, cols, r0 + i, c0, vec);
}

//! [blocked-conv2d]
/// CW taps (a chunk of a pass's columns, its size known at compile time) against window row y of
/// the pass, for all RY output rows: the row's RX + CW - 1 pixels are read once as whole 16-byte
/// vectors (the last vector's extra elements unused) and serve every output row i whose filter row
/// k = y - i lies in the pass (a test uniform across the block); for each such row its CW filter
/// values, read as 16-byte vectors from the pass's copy of the filter in shared memory (`fw`: the
/// chunk's first tap of filter row 0, rows kChunk apart), and RX CW FMAs on registers.
template <class T, int RX, int RY, int CW>
__device__ __forceinline__ void blocked_chunk(T (&acc)[RY][RX], const T* fw, int y, int kc, const T* row) {
    constexpr int W = Vec16<T>::width, NV = (RX + CW - 1 + W - 1) / W, NF = (CW + W - 1) / W;
    T b[NV * W];
    load_vectors<T, NV>(b, row);
#pragma unroll
    for (int i = 0; i < RY; ++i) {
        const int k = y - i;  // the filter row of output row i
        if (k < 0 || k >= kc) continue;
        T f[NF * W];  // the chunk's taps of filter row k: a broadcast read, every lane the same vectors
        load_vectors<T, NF>(f, fw + k * kChunk);
#pragma unroll
        for (int t = 0; t < CW; ++t)
#pragma unroll
            for (int x = 0; x < RX; ++x) acc[i][x] += f[t] * b[t + x];
    }
}

/// Each thread: RX x RY outputs. Per pass (a window of the filter's rows k0 ... k0 + kc - 1 and
/// columns l0 ... l0 + lc - 1) and per window row y the thread's outputs need (RY + kc - 1 of
/// them), the row's taps in chunks of 8, then one of 4 and one of 1-3 (every chunk's size known at
/// compile time, every chunk starting on a 16-byte vector of the window row): a chunk's pixels are
/// read once for the RY output rows (a quarter-warp's 8 lanes along x, RX elements apart) and its
/// FMAs take every operand from a register. The chunk of 8 issues about 1.25 instructions per FMA
/// in float (4 x 4) and 1.6 in double (4 x 2) (sm_90 SASS), where a register window slid tap by
/// tap, with a filter load, index arithmetic and a filter-row check per tap and output row, took
/// 3-6 (docs/notes/conv2d.md).
template <class T, int RX, int RY, bool CONST>
__global__ void __launch_bounds__(256)
blocked_conv2d_kernel(int rows, int cols, int fs, const T* __restrict__ in, int in_pitch,
                      const T* __restrict__ filter, T* __restrict__ out, int out_pitch, bool vec) {
    using B = Blocked<T, RX, RY>;
    constexpr int S = B::S;
    __shared__ __align__(16) T s[B::WR * S];
    // The pass's kc x lc taps, rows kChunk apart (plus a vector a last chunk's read may touch):
    // read from shared memory, where a warp's same-address loads are one broadcast, not from the
    // constant cache, whose uniform path misses once a filter's rows outgrow it (FS >= 17).
    __shared__ __align__(16) T taps[B::TAPS];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int lx = (warp % 2) * 8 + lane % 8, ly = (warp / 2) * 4 + lane / 8;  // thread in the 16 x 16 grid
    const int cx = lx * RX, cy = ly * RY;  // first output of the thread, inside the tile
    const int x0 = blockIdx.x * B::TX, y0 = blockIdx.y * B::TY;
    const int h = fs / 2;
    T acc[RY][RX];
    zero_block(acc);
    for (int k0 = 0; k0 < fs; k0 += kChunkY)
        for (int l0 = 0; l0 < fs; l0 += kChunk) {
            const int kc = min(kChunkY, fs - k0), lc = min(kChunk, fs - l0);
            __syncthreads();
            stage_window_vec<T>(s, S, B::TY + kc - 1, B::TX + lc - 1, in, in_pitch, rows, cols, y0 - h + k0,
                                x0 - h + l0, tid, B::THREADS, vec);
            for (int e = tid; e < kChunkY * kChunk; e += B::THREADS) {
                const int k = e / kChunk, l = e % kChunk;
                taps[e] = k < kc && l < lc ? filter_at<T, CONST>(filter, (k0 + k) * fs + l0 + l) : T(0);
            }
            __syncthreads();
            for (int y = 0; y < RY + kc - 1; ++y) {
                const T* wrow = s + (cy + y) * S + cx;
                int c = 0;  // a multiple of 4 at every chunk's start: its vectors are aligned
                for (; c + 8 <= lc; c += 8) blocked_chunk<T, RX, RY, 8>(acc, taps + c, y, kc, wrow + c);
                if (c + 4 <= lc) {
                    blocked_chunk<T, RX, RY, 4>(acc, taps + c, y, kc, wrow + c);
                    c += 4;
                }
                switch (lc - c) {  // the last 1 ... 3 taps
                case 3: blocked_chunk<T, RX, RY, 3>(acc, taps + c, y, kc, wrow + c); break;
                case 2: blocked_chunk<T, RX, RY, 2>(acc, taps + c, y, kc, wrow + c); break;
                case 1: blocked_chunk<T, RX, RY, 1>(acc, taps + c, y, kc, wrow + c); break;
                default: break;
                }
            }
        }
    store_block<T, RX, RY>(acc, out, out_pitch, rows, cols, y0 + cy, x0 + cx);
}
//! [blocked-conv2d]

/// Where every row of an image starts within a 16-byte vector (detail::vector_offset): 0 where
/// rows are 16-byte aligned, k where all start k elements past a boundary (a submatrix view: the
/// tuned kernels then start their tiles k columns left of column 0), -1 where rows differ.
template <class T>
int origin_shift(const T* p, int pitch) {
    return detail::vector_offset(p, pitch);
}

/// True when 16-byte vector loads of the image are legal from column 0: base pointer 16-byte
/// aligned and every row start aligned (pitch a multiple of the vector width).
template <class T>
bool aligned16(const T* p, int pitch) {
    return origin_shift(p, pitch) == 0;
}

/// Launches the blocked kernel with the filter in constant memory where it fits.
template <class T, int RX, int RY>
void launch_blocked(const Conv2dArgs<T>& a, cudaStream_t s, const char* fn) {
    using B = Blocked<T, RX, RY>;
    const dim3 grid(grid_dim(ceil_div(a.cols, B::TX), kMaxGridX, fn), grid_dim(ceil_div(a.rows, B::TY), kMaxGridYZ, fn));
    const bool cst = fits_constant<T>(a.fs), vec = aligned16(a.in, a.in_pitch);
    if (cst) upload_filter(a.filter, a.fs, s);
    auto kernel = cst ? blocked_conv2d_kernel<T, RX, RY, true> : blocked_conv2d_kernel<T, RX, RY, false>;
    kernel<<<grid, B::THREADS, 0, s>>>(a.rows, a.cols, a.fs, a.in, a.in_pitch, a.filter, a.out, a.out_pitch, vec);
}

}  // namespace wb::conv2d_detail
