// memory_lab.cu — chapter 0's experiments (declared in memory_lab.hpp): the stream kernels behind
// the ceilings, coalescing, partition camping (White §3.1, Listing 3.1), a leading-dimension test,
// bank conflicts (White §3.2, Listing 3.2) and host transfers (White §3.4).
//
// Conventions of every kernel here:
//  - inputs hold the pattern element i = 1 + (i mod 8) (fill_pattern), so every sum a kernel
//    forms is a small integer, exact in float, and the host checks it against pattern_sum();
//  - each thread keeps several independent loads in flight (unrolled, separate accumulators) and
//    the block reduces its partial sums once, in double, writing one value per block: the loads
//    cannot be dropped by the compiler and cost nothing extra;
//  - grids are exactly the blocks that are resident at once (cudaOccupancy...), so "all blocks
//    run at the same time" holds where an experiment depends on it (partitions, lda).
// The timed region is one kernel (or one cudaMemcpyAsync) between CUDA events (wb::benchmark).
#include "memory_lab.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

namespace wb::lab {

// ================================================================================================
// Device helpers and kernels
// ================================================================================================
namespace {

/// Sum of `v` over the block, valid in thread 0. blockDim.x must be a multiple of 32. Safe to
/// call repeatedly (it synchronizes before reusing its shared scratch).
__device__ double block_sum(double v) {
    __shared__ double warp_sums[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    double total = 0;
    if (warp == 0) {
        total = lane < static_cast<int>(blockDim.x >> 5) ? warp_sums[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
    }
    return total;
}

__global__ void fill_pattern_kernel(float* a, std::size_t n) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        a[i] = static_cast<float>(1 + (i & 7));
}

/// Read-only stream of float4: U independent loads per thread and step, grid-stride, each folded
/// into its own float accumulator (v.x + v.y) + (v.z + v.w). __launch_bounds__(1024) caps the
/// registers at 64 a thread so that every U fits a block of 1024 threads (U = 8 with four float4
/// accumulators needed 80 registers and did not launch at 1024); one float per load keeps U = 8
/// near 32 registers without spilling. STREAM picks ld.global.cs (evict-first) over the read-only
/// path: after a write flush the L2 is full of dirty lines, and which loads evict fewer of them
/// depends on the size (scripts/probes/load_policy.cu); the read floor takes the better.
//! [read_kernel]
template <int U, bool STREAM = false>
__global__ void __launch_bounds__(1024) read_kernel(const float4* __restrict__ a, std::size_t n4, double* partials) {
    const std::size_t T = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    float acc[U];
#pragma unroll
    for (int k = 0; k < U; ++k) acc[k] = 0.f;
    for (; i + (U - 1) * T < n4; i += U * T) {
        float4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) v[k] = STREAM ? __ldcs(a + i + k * T) : __ldg(a + i + k * T);
#pragma unroll
        for (int k = 0; k < U; ++k) acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    for (; i < n4; i += T) {
        const float4 v = STREAM ? __ldcs(a + i) : __ldg(a + i);
        acc[0] += (v.x + v.y) + (v.z + v.w);
    }
    double s = 0;
#pragma unroll
    for (int k = 0; k < U; ++k) s += acc[k];
    s = block_sum(s);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
//! [read_kernel]

/// Copy of `n` elements of V (4, 8 or 16 bytes): 4 loads in flight, then 4 stores.
template <class V>
__global__ void copy_kernel(const V* __restrict__ src, V* __restrict__ dst, std::size_t n) {
    constexpr int U = 4;
    const std::size_t T = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * T < n; i += U * T) {
        V v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) v[k] = src[i + k * T];
#pragma unroll
        for (int k = 0; k < U; ++k) dst[i + k * T] = v[k];
    }
    for (; i < n; i += T) dst[i] = src[i];
}

/// The starting value of chain c of thread tid (small integers: exact on host and device).
__host__ __device__ inline float fma_start(int tid, int c) { return static_cast<float>((tid & 1023) + c); }

/// CHAINS independent recurrences x = fma(x, m, a), `iters` steps each (a multiple of 4).
template <int CHAINS>
__global__ void fma_kernel(float* out, int iters, float m, float a) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) x[c] = fma_start(tid, c);
    for (int it = 0; it < iters; it += 4) {
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) x[c] = fmaf(x[c], m, a);
    }
    float s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += x[c];
    out[tid] = s;
}

/// Reads elements offset + i * stride for i < count: 4 loads in flight per thread.
//! [strided_read_kernel]
__global__ void strided_read_kernel(const float* __restrict__ a, std::size_t count, int stride,
                                    std::size_t offset, double* partials) {
    const std::size_t T = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const std::size_t s = static_cast<std::size_t>(stride);
    const float* base = a + offset;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    for (; i + 3 * T < count; i += 4 * T) {
        const float v0 = __ldg(base + i * s);
        const float v1 = __ldg(base + (i + T) * s);
        const float v2 = __ldg(base + (i + 2 * T) * s);
        const float v3 = __ldg(base + (i + 3 * T) * s);
        acc0 += v0;
        acc1 += v1;
        acc2 += v2;
        acc3 += v3;
    }
    for (; i < count; i += T) acc0 += __ldg(base + i * s);
    const double t = block_sum(static_cast<double>(acc0) + acc1 + static_cast<double>(acc2) + acc3);
    if (threadIdx.x == 0) partials[blockIdx.x] = t;
}
//! [strided_read_kernel]

/// White's Listing 3.1 on rows of 512 floats (8 "partitions" of 256 B). Block b belongs to
/// partition group p = floor(b parts / grid); the bpp blocks of a group read neighbouring rows,
/// 4 rows per step (256 threads: 64 floats x 4 rows), only floats [64p, 64p + 64) of each row.
/// A group cycles through `cycle` steps of rows (cycle x step <= rows), so every row belongs to
/// one block for good: an address comes back only after the whole cycle, never early because a
/// fast block caught up with rows a slow one had just read. The call starts `k0` steps into the
/// cycle (the host passes the steps all earlier calls made), so consecutive calls continue it.
/// Requires blockDim.x == 256 and 4 x (blocks per group) <= rows.
//! [partition_kernel]
__global__ void __launch_bounds__(256) partition_kernel(const float* __restrict__ a, long long rows, int v,
                                                        int parts, long long k0, double* partials) {
    const long long grid = gridDim.x, b = blockIdx.x;
    const long long p = b * parts / grid;
    const long long first = (p * grid + parts - 1) / parts;
    const long long next = ((p + 1) * grid + parts - 1) / parts;
    const long long bpp = next - first, q = b - first;
    const int sub = threadIdx.x & 63, r = threadIdx.x >> 6;
    const float* col = a + p * 64 + sub;
    const long long step = bpp * 4;
    const long long cycle = rows / step;  // steps before a block is back at its first row
    const long long wrap = cycle * step;  // the rows the group covers: a multiple of step
    long long row = q * 4 + r + (k0 % cycle) * step;
    float acc[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) acc[u] = 0;
    for (int j = 0; j < v; j += 8) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            acc[u] += __ldcs(col + row * 512);
            row += step;
            if (row >= wrap) row -= wrap;
        }
    }
    double s = 0;
#pragma unroll
    for (int u = 0; u < 8; ++u) s += acc[u];
    s = block_sum(s);
    if (threadIdx.x == 0) partials[b] = s;
}
//! [partition_kernel]

/// Column sums of a column-major m x n matrix (GEMV-T with x = 1): a block per column.
__global__ void colsum_kernel(const float* __restrict__ A, int m, int n, long long lda, double* colsums) {
    const int T = blockDim.x;
    for (long long col = blockIdx.x; col < n; col += gridDim.x) {
        const float* c = A + col * lda;
        float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
        int i = threadIdx.x;
        for (; i + 3 * T < m; i += 4 * T) {
            const float v0 = __ldg(c + i), v1 = __ldg(c + i + T), v2 = __ldg(c + i + 2 * T), v3 = __ldg(c + i + 3 * T);
            acc0 += v0;
            acc1 += v1;
            acc2 += v2;
            acc3 += v3;
        }
        for (; i < m; i += T) acc0 += __ldg(c + i);
        const double s = block_sum(static_cast<double>(acc0) + acc1 + static_cast<double>(acc2) + acc3);
        if (threadIdx.x == 0) colsums[col] = s;
    }
}

constexpr int kTileRows = 64, kTileCols = 64;

/// White's Listing 3.2, rebuilt so that only shared memory is timed: a 64 x PITCH tile loaded
/// once; thread `lane` then reads words (lane + u) PITCH + (lane & mask) + u, u = 0..31, v/32
/// times, through a volatile pointer (every read is issued; none is hoisted). With PITCH 64 the
/// bank of that word is ((lane & mask) + u) mod 32: mask + 1 banks, 32 / (mask + 1) ways. With
/// PITCH 65 and mask 0 it is (lane + 2u) mod 32: conflict-free — the +1 padding fix.
//! [bank_kernel]
template <int PITCH>
__global__ void __launch_bounds__(256) bank_kernel(const float* __restrict__ src, int v, int mask, double* partials) {
    __shared__ float tile[kTileRows * PITCH];
    for (int i = threadIdx.x; i < kTileRows * PITCH; i += blockDim.x) {
        const int r = i / PITCH, c = i % PITCH;
        tile[i] = c < kTileCols ? src[r * kTileCols + c] : 0.0f;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    volatile const float* base = tile + lane * PITCH + (lane & mask);
    float acc0 = 0, acc1 = 0;
    for (int j = 0; j < v; j += 32) {
#pragma unroll
        for (int u = 0; u < 32; u += 2) {
            acc0 += base[u * (PITCH + 1)];
            acc1 += base[(u + 1) * (PITCH + 1)];
        }
    }
    const double s = block_sum(static_cast<double>(acc0) + acc1);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
//! [bank_kernel]

// ------------------------------------------------------------------------------------------------
// Host helpers
// ------------------------------------------------------------------------------------------------

int current_device() {
    int d = 0;
    WB_CUDA(cudaGetDevice(&d));
    return d;
}

int device_attribute(cudaDeviceAttr attr) {
    int v = 0;
    WB_CUDA(cudaDeviceGetAttribute(&v, attr, current_device()));
    return v;
}

/// Blocks of `threads` threads that are resident at once on the whole device.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, const char* what) {
    int per_sm = 0;
    WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    if (per_sm < 1)
        throw std::runtime_error(std::string(what) + ": a block of " + std::to_string(threads) +
                                 " threads does not fit on an SM");
    return per_sm * device_attribute(cudaDevAttrMultiProcessorCount);
}

void fill_pattern(float* a, std::size_t n) {
    if (n == 0) return;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<std::size_t>((n + threads - 1) / threads, 65536));
    fill_pattern_kernel<<<blocks, threads>>>(a, n);
    WB_CHECK_LAUNCH();
    WB_CUDA(cudaDeviceSynchronize());
}

double host_sum(const DeviceBuffer<double>& d, std::size_t n) {
    std::vector<double> h(n);
    if (n > 0) WB_CUDA(cudaMemcpy(h.data(), d.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
    double s = 0;
    for (double x : h) s += x;
    return s;
}

bool same_sum(double got, double want) { return std::abs(got - want) <= 1e-9 * std::max(1.0, std::abs(want)); }

std::string shape_string(int threads, int blocks, const std::string& extra) {
    return std::to_string(threads) + " thr x " + std::to_string(blocks) + " blk" + (extra.empty() ? "" : ", " + extra);
}

std::size_t l2_bytes() { return static_cast<std::size_t>(device_attribute(cudaDevAttrL2CacheSize)); }

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

std::vector<int> v_values(Scale s) {
    switch (s) {
    case Scale::full: return {512, 1024, 2048, 4096, 8192, 16384};
    case Scale::quick: return {1024, 4096};
    case Scale::tiny: return {64};
    }
    return {};
}

}  // namespace

// ================================================================================================
// Scales, options, helpers
// ================================================================================================

const char* scale_name(Scale s) {
    switch (s) {
    case Scale::full: return "full";
    case Scale::quick: return "quick";
    case Scale::tiny: return "tiny";
    }
    return "?";
}

Scale scale_for(bool quick) {
    const char* small = std::getenv("WB_TEST_SMALL");
    if (small && *small && std::strcmp(small, "0") != 0) return Scale::tiny;
    return quick ? Scale::quick : Scale::full;
}

BenchOptions bench_options(Scale s, std::size_t working_set_bytes, double expected_ms) {
    BenchOptions o;
    switch (s) {
    case Scale::full:
        o.warmup = 2, o.min_reps = 7, o.max_reps = 25, o.target_rse = 0.01, o.max_seconds = 1.0;
        break;
    case Scale::quick:
        o.warmup = 1, o.min_reps = 5, o.max_reps = 11, o.target_rse = 0.02, o.max_seconds = 0.4;
        break;
    case Scale::tiny:
        o.warmup = 1, o.min_reps = 2, o.max_reps = 2, o.target_rse = 1.0, o.max_seconds = 0.01;
        break;
    }
    if (expected_ms > 100 && s != Scale::tiny) o.warmup = 1, o.min_reps = 3, o.max_reps = 5;
    o.working_set_bytes = working_set_bytes;
    o.flush_l2 = working_set_bytes < 4 * l2_bytes();
    return o;
}

double pattern_sum(long long start, long long count, long long stride) {
    if (start < 0 || count < 0 || stride < 0)
        throw std::invalid_argument("pattern_sum: start (" + std::to_string(start) + "), count (" +
                                    std::to_string(count) + ") and stride (" + std::to_string(stride) +
                                    ") must be >= 0");
    // (start + i stride) mod 8 repeats with period 8 in i.
    double period = 0, head = 0;
    const long long rem = count % 8;
    for (long long i = 0; i < 8; ++i) {
        const double v = 1.0 + static_cast<double>(((start % 8) + (i % 8) * (stride % 8)) % 8);
        period += v;
        if (i < rem) head += v;
    }
    return static_cast<double>(count / 8) * period + head;
}

std::size_t fit_device_bytes(const char* who, std::size_t want, std::size_t at_least, int buffers) {
    if (buffers < 1) throw std::invalid_argument(std::string("fit_device_bytes: buffers (") + std::to_string(buffers) + ") must be >= 1");
    std::size_t free_b = 0, total_b = 0;
    WB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t keep = std::max<std::size_t>(512 * kMiB, total_b / 10);
    const std::size_t usable = free_b > keep ? free_b - keep : 0;
    std::size_t each = std::min(want, usable / static_cast<std::size_t>(buffers));
    each = each / kMiB * kMiB;
    if (each < at_least || each == 0)
        throw std::runtime_error(std::string(who) + ": needs " + std::to_string(buffers) + " x " +
                                 format_bytes(static_cast<double>(at_least)) + " of device memory, " +
                                 format_bytes(static_cast<double>(free_b)) + " free");
    return each;
}

// ================================================================================================
// Stream buffers and the ceiling measurements
// ================================================================================================

StreamBuffers::StreamBuffers(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0 || bytes % 16 != 0)
        throw std::invalid_argument("StreamBuffers: bytes (" + std::to_string(bytes) + ") must be a positive multiple of 16");
    try {
        WB_CUDA(cudaMalloc(reinterpret_cast<void**>(&src_), bytes_));
        WB_CUDA(cudaMalloc(reinterpret_cast<void**>(&dst_), bytes_));
        WB_CUDA(cudaMalloc(reinterpret_cast<void**>(&partials_), 65536 * sizeof(double)));
        fill_pattern(src_, floats());
        WB_CUDA(cudaMemset(dst_, 0, bytes_));
    } catch (...) {
        if (src_) cudaFree(src_);
        if (dst_) cudaFree(dst_);
        if (partials_) cudaFree(partials_);
        throw;
    }
}

StreamBuffers::~StreamBuffers() {
    if (src_) cudaFree(src_);
    if (dst_) cudaFree(dst_);
    if (partials_) cudaFree(partials_);
}

double StreamBuffers::device_sum(const float* p) {
    if (p != src_ && p != dst_) throw std::invalid_argument("StreamBuffers::device_sum: p must be src() or dst()");
    const int threads = 256;
    const int blocks = std::min(resident_blocks(read_kernel<4>, threads, "device_sum"), 65536);
    read_kernel<4><<<blocks, threads>>>(reinterpret_cast<const float4*>(p), bytes_ / 16, partials_);
    WB_CHECK_LAUNCH();
    std::vector<double> h(static_cast<std::size_t>(blocks));
    WB_CUDA(cudaMemcpy(h.data(), partials_, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double s = 0;
    for (double x : h) s += x;
    return s;
}

std::size_t stream_buffer_bytes(Scale s) {
    const std::size_t l2 = l2_bytes();
    switch (s) {
    case Scale::full: return fit_device_bytes("stream_buffer_bytes", std::max(kGiB, 8 * l2), 64 * kMiB, 2);
    case Scale::quick: return fit_device_bytes("stream_buffer_bytes", std::max(256 * kMiB, 4 * l2), 64 * kMiB, 2);
    case Scale::tiny: return fit_device_bytes("stream_buffer_bytes", 8 * kMiB, 1 * kMiB, 2);
    }
    return 0;
}

CeilingRow measure_memcpy_d2d(StreamBuffers& buf, const BenchOptions& opt) {
    WB_CUDA(cudaMemset(buf.dst(), 0, buf.bytes()));
    const auto st = benchmark(
        [&](cudaStream_t s) { WB_CUDA(cudaMemcpyAsync(buf.dst(), buf.src(), buf.bytes(), cudaMemcpyDeviceToDevice, s)); },
        opt);
    WB_CUDA(cudaDeviceSynchronize());
    CeilingRow r;
    r.what = "memcpy D2D";
    r.shape = format_bytes(static_cast<double>(buf.bytes()));
    r.amount = 2.0 * static_cast<double>(buf.bytes());
    r.ms = st.median_ms;
    r.rate = r.amount / (r.ms * 1e6);
    r.verified = same_sum(buf.device_sum(buf.dst()), pattern_sum(0, static_cast<long long>(buf.floats()), 1));
    return r;
}

CeilingRow measure_copy_kernel(StreamBuffers& buf, int access_bytes, const BenchOptions& opt) {
    if (access_bytes != 4 && access_bytes != 8 && access_bytes != 16)
        throw std::invalid_argument("measure_copy_kernel: access_bytes (" + std::to_string(access_bytes) +
                                    ") must be 4, 8 or 16");
    WB_CUDA(cudaMemset(buf.dst(), 0, buf.bytes()));
    const int threads = 256;
    const std::size_t n = buf.bytes() / static_cast<std::size_t>(access_bytes);
    int blocks = 0;
    std::function<void(cudaStream_t)> fn;
    if (access_bytes == 4) {
        blocks = resident_blocks(copy_kernel<float>, threads, "measure_copy_kernel");
        fn = [&, blocks](cudaStream_t s) {
            copy_kernel<float><<<blocks, threads, 0, s>>>(buf.src(), buf.dst(), n);
            WB_CHECK_LAUNCH();
        };
    } else if (access_bytes == 8) {
        blocks = resident_blocks(copy_kernel<float2>, threads, "measure_copy_kernel");
        fn = [&, blocks](cudaStream_t s) {
            copy_kernel<float2><<<blocks, threads, 0, s>>>(reinterpret_cast<const float2*>(buf.src()),
                                                           reinterpret_cast<float2*>(buf.dst()), n);
            WB_CHECK_LAUNCH();
        };
    } else {
        blocks = resident_blocks(copy_kernel<float4>, threads, "measure_copy_kernel");
        fn = [&, blocks](cudaStream_t s) {
            copy_kernel<float4><<<blocks, threads, 0, s>>>(reinterpret_cast<const float4*>(buf.src()),
                                                           reinterpret_cast<float4*>(buf.dst()), n);
            WB_CHECK_LAUNCH();
        };
    }
    const auto st = benchmark(fn, opt);
    WB_CUDA(cudaDeviceSynchronize());
    CeilingRow r;
    r.what = "copy kernel " + std::to_string(access_bytes) + " B";
    r.shape = shape_string(threads, blocks, "4 in flight");
    r.amount = 2.0 * static_cast<double>(buf.bytes());
    r.ms = st.median_ms;
    r.rate = r.amount / (r.ms * 1e6);
    r.verified = same_sum(buf.device_sum(buf.dst()), pattern_sum(0, static_cast<long long>(buf.floats()), 1));
    return r;
}

namespace {
void check_read_shape(const char* who, int threads, int unroll) {
    if (threads < 32 || threads > 1024 || threads % 32 != 0)
        throw std::invalid_argument(std::string(who) + ": threads (" + std::to_string(threads) +
                                    ") must be a multiple of 32 in [32, 1024]");
    if (unroll != 2 && unroll != 4 && unroll != 8)
        throw std::invalid_argument(std::string(who) + ": unroll (" + std::to_string(unroll) + ") must be 2, 4 or 8");
}
}  // namespace

bool read_kernel_fits(int threads, int unroll) {
    check_read_shape("read_kernel_fits", threads, unroll);
    int per_sm = 0;
    if (unroll == 2) WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel<2>, threads, 0));
    else if (unroll == 4) WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel<4>, threads, 0));
    else WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel<8>, threads, 0));
    return per_sm > 0;
}

CeilingRow measure_read_kernel(StreamBuffers& buf, int threads, int unroll, const BenchOptions& opt, bool streaming,
                               std::size_t bytes) {
    check_read_shape("measure_read_kernel", threads, unroll);
    if (bytes == 0) bytes = buf.bytes();
    if (bytes % 16 != 0 || bytes > buf.bytes())
        throw std::invalid_argument("measure_read_kernel: bytes (" + std::to_string(bytes) +
                                    ") must be a multiple of 16 and <= the buffer's " + std::to_string(buf.bytes()));
    const std::size_t n4 = bytes / 16;
    int blocks = 0;
    DeviceBuffer<double> partials;
    std::function<void(cudaStream_t)> fn;
    auto setup = [&](auto kernel) {
        blocks = resident_blocks(kernel, threads, "measure_read_kernel");
        partials = DeviceBuffer<double>(static_cast<std::size_t>(blocks));
        fn = [&, kernel, blocks](cudaStream_t s) {
            kernel<<<blocks, threads, 0, s>>>(reinterpret_cast<const float4*>(buf.src()), n4, partials.data());
            WB_CHECK_LAUNCH();
        };
    };
    if (streaming) {
        if (unroll == 2) setup(read_kernel<2, true>);
        else if (unroll == 4) setup(read_kernel<4, true>);
        else setup(read_kernel<8, true>);
    } else {
        if (unroll == 2) setup(read_kernel<2>);
        else if (unroll == 4) setup(read_kernel<4>);
        else setup(read_kernel<8>);
    }
    partials.fill_bytes(0xFF);  // NaN: an unwritten partial fails the check
    const auto st = benchmark(fn, opt);
    WB_CUDA(cudaDeviceSynchronize());
    CeilingRow r;
    r.what = streaming ? "read kernel (streaming loads)" : "read kernel";
    r.shape = shape_string(threads, blocks, std::to_string(unroll) + " x 16 B in flight");
    r.amount = static_cast<double>(bytes);
    r.ms = st.median_ms;
    r.rate = r.amount / (r.ms * 1e6);
    r.verified = same_sum(host_sum(partials, static_cast<std::size_t>(blocks)),
                          pattern_sum(0, static_cast<long long>(bytes / sizeof(float)), 1));
    return r;
}

CeilingRow measure_read_floor(std::size_t bytes, const BenchOptions& opt) {
    if (bytes == 0) throw std::invalid_argument("measure_read_floor: bytes (0) must be > 0");
    StreamBuffers buf((bytes + 15) / 16 * 16);
    CeilingRow best;
    for (bool streaming : {false, true})
        for (const auto& [threads, unroll] : {std::pair<int, int>{512, 4}, {1024, 2}, {256, 8}}) {
            if (!read_kernel_fits(threads, unroll)) continue;
            const CeilingRow r = measure_read_kernel(buf, threads, unroll, opt, streaming, buf.bytes());
            if (!r.verified)
                throw std::runtime_error("measure_read_floor: the read kernel's sum is wrong (" + r.shape + ")");
            if (best.ms == 0 || r.ms < best.ms) best = r;
        }
    if (best.ms == 0) throw std::runtime_error("measure_read_floor: no read kernel shape fits this device");
    return best;
}

CeilingRow measure_fma(int chains, int iters, const BenchOptions& opt) {
    if (chains != 8 && chains != 16)
        throw std::invalid_argument("measure_fma: chains (" + std::to_string(chains) + ") must be 8 or 16");
    if (iters <= 0 || iters % 4 != 0)
        throw std::invalid_argument("measure_fma: iters (" + std::to_string(iters) + ") must be a positive multiple of 4");
    const int threads = 256;
    const float m = 0.9990234375f;  // 1 - 2^-10: the recurrence converges to a / (1 - m) = 512
    const float a = 0.5f;
    int blocks = 0;
    std::function<void(cudaStream_t)> fn;
    DeviceBuffer<float> out;
    auto setup = [&](auto kernel) {
        blocks = resident_blocks(kernel, threads, "measure_fma");
        out = DeviceBuffer<float>(static_cast<std::size_t>(blocks) * threads);
        fn = [&, kernel, blocks](cudaStream_t s) {
            kernel<<<blocks, threads, 0, s>>>(out.data(), iters, m, a);
            WB_CHECK_LAUNCH();
        };
    };
    if (chains == 8) setup(fma_kernel<8>);
    else setup(fma_kernel<16>);
    out.fill_bytes(0xFF);
    BenchOptions o = opt;
    o.flush_l2 = false;  // no memory traffic to speak of
    const auto st = benchmark(fn, o);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<float> h = out.download();

    // The host runs the same recurrence for a few threads: fmaf is exact (one rounding) on both.
    bool ok = true;
    for (int tid : {0, 1, 777, blocks * threads - 1}) {
        if (tid >= blocks * threads) continue;
        float x[16];
        for (int c = 0; c < chains; ++c) x[c] = fma_start(tid, c);
        for (int it = 0; it < iters; ++it)
            for (int c = 0; c < chains; ++c) x[c] = std::fma(x[c], m, a);
        float s = 0;
        for (int c = 0; c < chains; ++c) s += x[c];
        const float got = h[static_cast<std::size_t>(tid)];
        if (!(std::abs(got - s) <= 1e-5f * std::abs(s))) ok = false;
    }
    CeilingRow r;
    r.what = "FMA";
    r.shape = shape_string(threads, blocks, std::to_string(chains) + " chains x " + std::to_string(iters));
    r.amount = 2.0 * chains * static_cast<double>(iters) * blocks * threads;
    r.ms = st.median_ms;
    r.rate = r.amount / (r.ms * 1e6);
    r.verified = ok;
    return r;
}

// ================================================================================================
// Coalescing
// ================================================================================================

namespace {
std::size_t coalescing_footprint(Scale s) {
    switch (s) {
    case Scale::full: return std::max(512 * kMiB, 8 * l2_bytes());
    case Scale::quick: return std::max(256 * kMiB, 4 * l2_bytes());
    case Scale::tiny: return 4 * kMiB;
    }
    return 0;
}
}  // namespace

double distinct_sector_bytes(std::size_t offset, std::size_t count, int stride) {
    if (stride < 1)
        throw std::invalid_argument("distinct_sector_bytes: stride (" + std::to_string(stride) + ") must be >= 1");
    if (count == 0) return 0;
    // A float never straddles a sector; neighbours 32 B or more apart sit in different sectors,
    // closer ones leave no sector between the first and the last untouched.
    constexpr std::size_t kSector = 32;
    const std::size_t s = static_cast<std::size_t>(stride);
    if (4 * s >= kSector) return static_cast<double>(count * kSector);
    const std::size_t first = 4 * offset / kSector, last = 4 * (offset + (count - 1) * s) / kSector;
    return static_cast<double>((last - first + 1) * kSector);
}

int l2_fetch_granularity_bytes() {
    std::size_t v = 0;
    if (cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity) != cudaSuccess) {
        (void)cudaGetLastError();  // unsupported here: clear it, report 0
        return 0;
    }
    return static_cast<int>(v);
}

std::vector<CoalescingRow> predict_coalescing(const DeviceProfile& dev, Scale s, double read_ceiling_gbs) {
    std::vector<int> strides, offsets;
    switch (s) {
    case Scale::full: strides = {1, 2, 4, 8, 16, 32}, offsets = {1, 2, 4, 8, 16, 32}; break;
    case Scale::quick: strides = {1, 2, 4, 8, 16, 32}, offsets = {1, 8}; break;
    case Scale::tiny: strides = {1, 32}, offsets = {1}; break;
    }
    const double ceiling = read_ceiling_gbs > 0 ? read_ceiling_gbs : dev.bandwidth_gbs;
    std::vector<CoalescingRow> rows;
    auto add = [&](int stride, int offset) {
        CoalescingRow r;
        r.stride = stride;
        r.offset = offset;
        const auto w = model::warp_access(dev, 4LL * offset, stride, 4, dev.warp_size);
        r.sectors = w.transactions;
        r.efficiency = w.efficiency;
        r.predicted_gbs = ceiling * w.efficiency;
        rows.push_back(r);
    };
    for (int st : strides) add(st, 0);
    for (int off : offsets) add(1, off);
    return rows;
}

std::vector<CoalescingRow> run_coalescing(const DeviceProfile& dev, Scale s, double read_ceiling_gbs) {
    std::vector<CoalescingRow> rows = predict_coalescing(dev, s, read_ceiling_gbs);
    const std::size_t foot = fit_device_bytes("run_coalescing", coalescing_footprint(s), 4 * kMiB, 1);
    const std::size_t max_offset = 64;  // elements; offsets beyond the footprint's end
    DeviceBuffer<float> a(foot / sizeof(float) + max_offset);
    fill_pattern(a.data(), a.size());
    const int threads = 256;
    const int blocks = resident_blocks(strided_read_kernel, threads, "run_coalescing");
    DeviceBuffer<double> partials(static_cast<std::size_t>(blocks));
    const std::size_t foot_elems = foot / sizeof(float);
    for (auto& r : rows) {
        const std::size_t count = foot_elems / static_cast<std::size_t>(r.stride);
        const std::size_t offset = static_cast<std::size_t>(r.offset);
        partials.fill_bytes(0xFF);
        const auto st = benchmark(
            [&](cudaStream_t strm) {
                strided_read_kernel<<<blocks, threads, 0, strm>>>(a.data(), count, r.stride, offset, partials.data());
                WB_CHECK_LAUNCH();
            },
            bench_options(s, foot));
        WB_CUDA(cudaDeviceSynchronize());
        const double useful = 4.0 * static_cast<double>(count);
        r.ms = st.median_ms;
        r.useful_gbs = useful / (r.ms * 1e6);
        r.moved_gbs = r.efficiency > 0 ? r.useful_gbs / r.efficiency : NAN;
        r.footprint_gbs = distinct_sector_bytes(offset, count, r.stride) / (r.ms * 1e6);
        r.verified = same_sum(host_sum(partials, static_cast<std::size_t>(blocks)),
                           pattern_sum(static_cast<long long>(offset), static_cast<long long>(count), r.stride));
    }
    return rows;
}

// ================================================================================================
// Partition camping and leading dimensions
// ================================================================================================

std::vector<PartitionRow> predict_partition_camping(const DeviceProfile& dev, Scale s) {
    std::vector<PartitionRow> rows;
    for (int v : v_values(s))
        for (int p : white::kPartitions) {
            PartitionRow r;
            r.v = v;
            r.partitions = p;
            // A linear map of 256-byte partitions (t10): bandwidth scales with the partitions
            // used (White Table 3.1). Hashed channels (partitions == 0): no effect predicted.
            r.predicted_slowdown = dev.partitions > 0 ? model::partition_camping_slowdown(dev, std::min(p, dev.partitions)) /
                                                            model::partition_camping_slowdown(dev, std::min(8, dev.partitions))
                                                      : 1.0;
            rows.push_back(r);
        }
    return rows;
}

namespace {
/// Bytes the grid of `blocks` x `threads` reads before any address of run_partition_camping()
/// comes back: the shortest cycle over the groups (partition_kernel) x the bytes of one step.
double partition_reuse_bytes(long long rows, long long blocks, int threads, int parts) {
    long long shortest = 0;
    for (long long p = 0; p < parts; ++p) {
        const long long first = (p * blocks + parts - 1) / parts, next = ((p + 1) * blocks + parts - 1) / parts;
        if (next == first) continue;  // a group without blocks
        const long long cycle = rows / (4 * (next - first));
        shortest = shortest == 0 ? cycle : std::min(shortest, cycle);
    }
    return static_cast<double>(shortest) * static_cast<double>(blocks) * threads * sizeof(float);
}
}  // namespace

std::vector<PartitionRow> run_partition_camping(const DeviceProfile& dev, Scale s) {
    std::vector<PartitionRow> rows = predict_partition_camping(dev, s);
    const std::size_t want = s == Scale::full ? 16 * kGiB : s == Scale::quick ? 2 * kGiB : 8 * kMiB;
    const std::size_t region = fit_device_bytes("run_partition_camping", want, s == Scale::tiny ? 2 * kMiB : 256 * kMiB, 1);
    const long long row_floats = 512;
    const long long nrows = static_cast<long long>(region / (row_floats * sizeof(float)));
    DeviceBuffer<float> a(static_cast<std::size_t>(nrows * row_floats));
    fill_pattern(a.data(), a.size());
    const int threads = 256;
    int blocks = resident_blocks(partition_kernel, threads, "run_partition_camping");
    if (s == Scale::tiny) blocks = std::min(blocks, 64);
    // A group's step (4 rows per block; all blocks in one group at most) must fit in the region.
    if (4LL * blocks > nrows)
        throw std::runtime_error("run_partition_camping: region of " + std::to_string(nrows) +
                                 " rows too small for " + std::to_string(blocks) + " blocks");
    DeviceBuffer<double> partials(static_cast<std::size_t>(blocks));
    for (auto& r : rows) {
        const double bytes = 4.0 * threads * static_cast<double>(blocks) * r.v;
        partials.fill_bytes(0xFF);
        long long k0 = 0;  // steps made by the earlier calls: each call continues the cycle
        const auto st = benchmark(
            [&](cudaStream_t strm) {
                partition_kernel<<<blocks, threads, 0, strm>>>(a.data(), nrows, r.v, r.partitions, k0, partials.data());
                WB_CHECK_LAUNCH();
                k0 += r.v;
            },
            bench_options(s, region));
        WB_CUDA(cudaDeviceSynchronize());
        r.ms = st.median_ms;
        r.gbs = bytes / (r.ms * 1e6);
        r.reuse_bytes = partition_reuse_bytes(nrows, blocks, threads, r.partitions);
        // Every step of every thread reads 1 + (sub mod 8) (rows and groups start at multiples of 8).
        const double want_sum = static_cast<double>(blocks) * r.v * 4.0 * pattern_sum(0, 64, 1);
        r.verified = same_sum(host_sum(partials, static_cast<std::size_t>(blocks)), want_sum);
    }
    return rows;
}

std::vector<LdaRow> predict_lda(const DeviceProfile& dev, Scale s) {
    std::vector<long long> ms;
    std::size_t foot = 0;
    switch (s) {
    case Scale::full: ms = {4096, 16384}, foot = 512 * kMiB; break;
    case Scale::quick: ms = {8192}, foot = 256 * kMiB; break;
    case Scale::tiny: ms = {256}, foot = 256 * 1024; break;
    }
    const int threads = 256;
    const long long active = std::max(1, dev.max_threads_per_sm / threads) * static_cast<long long>(dev.sm_count);
    std::vector<LdaRow> rows;
    for (long long m : ms)
        for (long long lda : {m, m + 32, m + 1}) {
            LdaRow r;
            r.m = m;
            r.lda = lda;
            r.n = static_cast<long long>(foot / (4 * static_cast<std::size_t>(m)));
            if (dev.partitions > 0 && dev.partition_bytes > 0) {
                // The resident blocks all start their column at row 0, each reading 256 floats.
                std::vector<long long> starts;
                for (long long j = 0; j < std::min(active, r.n); ++j) starts.push_back(j * lda * 4);
                r.partitions_touched = model::partitions_touched(dev, starts, 4LL * threads);
                r.predicted_slowdown = model::partition_camping_slowdown(dev, r.partitions_touched);
            } else {
                r.partitions_touched = 0;  // hashed: no linear partition map
                r.predicted_slowdown = 1.0;
            }
            rows.push_back(r);
        }
    return rows;
}

std::vector<LdaRow> run_lda(const DeviceProfile& dev, Scale s) {
    std::vector<LdaRow> rows = predict_lda(dev, s);
    std::size_t most = 0;
    for (const auto& r : rows) most = std::max(most, static_cast<std::size_t>(r.lda * r.n) * sizeof(float));
    const std::size_t most_mib = (most + kMiB - 1) / kMiB * kMiB;
    fit_device_bytes("run_lda", most_mib, most_mib, 1);  // throws when it does not fit
    DeviceBuffer<float> A(most / sizeof(float));
    fill_pattern(A.data(), A.size());
    const int threads = 256;
    for (auto& r : rows) {
        DeviceBuffer<double> sums(static_cast<std::size_t>(r.n));
        sums.fill_bytes(0xFF);
        const int blocks = static_cast<int>(r.n);
        const auto st = benchmark(
            [&](cudaStream_t strm) {
                colsum_kernel<<<blocks, threads, 0, strm>>>(A.data(), static_cast<int>(r.m), static_cast<int>(r.n), r.lda,
                                                           sums.data());
                WB_CHECK_LAUNCH();
            },
            bench_options(s, static_cast<std::size_t>(r.lda * r.n) * sizeof(float)));
        WB_CUDA(cudaDeviceSynchronize());
        r.ms = st.median_ms;
        r.gbs = 4.0 * static_cast<double>(r.m) * static_cast<double>(r.n) / (r.ms * 1e6);
        const std::vector<double> h = sums.download();
        bool ok = true;
        for (long long j = 0; j < r.n && ok; ++j)
            ok = same_sum(h[static_cast<std::size_t>(j)], pattern_sum(j * r.lda, r.m, 1));
        r.verified = ok;
    }
    return rows;
}

// ================================================================================================
// Bank conflicts
// ================================================================================================

std::vector<BankRow> predict_bank_conflicts(const DeviceProfile& dev, Scale s) {
    const int width = std::min(dev.banks, dev.transaction_threads);  // threads of one request
    std::vector<BankRow> rows;
    auto ways_of = [&](int pitch, int mask) {
        std::vector<long long> words;
        for (int lane = 0; lane < width; ++lane) words.push_back(static_cast<long long>(lane) * pitch + (lane & mask));
        return model::bank_conflict_ways(dev, words);
    };
    for (int v : v_values(s)) {
        for (int banks = width; banks >= 1; banks /= 2) {
            BankRow r;
            r.v = v;
            r.banks = banks;
            r.ways = ways_of(kTileCols, banks - 1);
            rows.push_back(r);
        }
        BankRow p;
        p.v = v;
        p.banks = 1;
        p.padded = true;
        p.ways = ways_of(kTileCols + 1, 0);
        rows.push_back(p);
    }
    return rows;
}

std::vector<BankRow> run_bank_conflicts(const DeviceProfile& dev, Scale s) {
    std::vector<BankRow> rows = predict_bank_conflicts(dev, s);
    DeviceBuffer<float> src(static_cast<std::size_t>(kTileRows) * kTileCols);
    fill_pattern(src.data(), src.size());
    const int threads = 256;
    const int blocks_plain = resident_blocks(bank_kernel<kTileCols>, threads, "run_bank_conflicts");
    const int blocks_padded = resident_blocks(bank_kernel<kTileCols + 1>, threads, "run_bank_conflicts");
    // The same grid for both, so the rows differ only in the bank pattern.
    int blocks = std::min(blocks_plain, blocks_padded);
    if (s == Scale::tiny) blocks = std::min(blocks, 16);
    DeviceBuffer<double> partials(static_cast<std::size_t>(blocks));
    for (auto& r : rows) {
        if (r.banks > 32 || (r.banks & (r.banks - 1)) != 0)
            throw std::logic_error("run_bank_conflicts: banks (" + std::to_string(r.banks) + ") must be a power of two <= 32");
        const int mask = r.banks - 1;
        partials.fill_bytes(0xFF);
        const auto st = benchmark(
            [&](cudaStream_t strm) {
                if (r.padded) bank_kernel<kTileCols + 1><<<blocks, threads, 0, strm>>>(src.data(), r.v, mask, partials.data());
                else bank_kernel<kTileCols><<<blocks, threads, 0, strm>>>(src.data(), r.v, mask, partials.data());
                WB_CHECK_LAUNCH();
            },
            [&] {
                BenchOptions o = bench_options(s, src.bytes());
                o.flush_l2 = false;  // shared memory is what is timed
                return o;
            }());
        WB_CUDA(cudaDeviceSynchronize());
        r.ms = st.median_ms;
        r.smem_gbs = 4.0 * threads * static_cast<double>(blocks) * r.v / (r.ms * 1e6);
        // Thread reads column (lane & mask) + u of rows whose start is a multiple of 8 floats:
        // per 32 reads, sum over u of 1 + (((lane & mask) + u) mod 8) = 144.
        const double want = static_cast<double>(blocks) * threads * (r.v / 32) * pattern_sum(0, 32, 1);
        r.verified = same_sum(host_sum(partials, static_cast<std::size_t>(blocks)), want);
    }
    // Slowdown against the conflict-free row (banks = request width, unpadded) of the same v.
    const int width = std::min(dev.banks, dev.transaction_threads);
    for (auto& r : rows)
        for (const auto& base : rows)
            if (base.v == r.v && !base.padded && base.banks == width) r.slowdown = r.ms / base.ms;
    return rows;
}

// ================================================================================================
// Transfers
// ================================================================================================

std::vector<double> transfer_sizes(Scale s) {
    std::vector<double> sizes;
    switch (s) {
    case Scale::full:
        for (int k = 0; k <= 18; ++k) sizes.push_back(4096.0 * std::pow(2.0, k));
        break;
    case Scale::quick:  // every octave: the fit needs >= 3 points in each of up to 3 segments
        for (int k = 0; k <= 14; ++k) sizes.push_back(4096.0 * std::pow(2.0, k));
        break;
    case Scale::tiny: sizes = {4096.0, 65536.0, 1048576.0}; break;
    }
    return sizes;
}

std::string transfer_kind(bool pinned, bool h2d) {
    return std::string(pinned ? "pinned " : "pageable ") + (h2d ? "H2D" : "D2H");
}

std::vector<TransferRow> predict_transfers(Scale s) {
    std::vector<TransferRow> rows;
    const TransferModel h2d = white::t10_transfer_model(true), d2h = white::t10_transfer_model(false);
    for (bool pinned : {false, true})
        for (bool dir : {true, false})
            for (double b : transfer_sizes(s)) {
                TransferRow r;
                r.pinned = pinned;
                r.h2d = dir;
                r.bytes = b;
                r.t10_ms = (dir ? h2d : d2h).predict(b);
                rows.push_back(r);
            }
    return rows;
}

int transfer_passes(Scale s) { return s == Scale::tiny ? 1 : 3; }

std::vector<TransferRow> run_transfers(Scale s) {
    std::vector<TransferRow> rows = predict_transfers(s);
    double biggest = 0;
    for (const auto& r : rows) biggest = std::max(biggest, r.bytes);
    const std::size_t want = (static_cast<std::size_t>(biggest) + kMiB - 1) / kMiB * kMiB;
    const std::size_t dev_bytes = fit_device_bytes("run_transfers", want, std::min(want, 4 * kMiB), 1);
    DeviceBuffer<unsigned char> d(dev_bytes);
    d.fill_bytes(0x3c);
    PinnedBuffer<unsigned char> pinned(dev_bytes);
    std::memset(pinned.data(), 0x5a, dev_bytes);
    std::unique_ptr<unsigned char[]> pageable(new unsigned char[dev_bytes]);
    std::memset(pageable.get(), 0xa5, dev_bytes);  // touch every page before timing
    // Several passes over every (kind, size), each a median of several copies; a row's time is the
    // median of its passes. Host-side noise (the CPU copy of pageable transfers, clocks, other
    // processes) comes in bursts: spreading a row's copies over passes keeps one burst from
    // setting a point, which the piecewise fit would then chase. Long copies (> 50 ms expected)
    // average over themselves and run in the first pass only.
    std::vector<std::vector<double>> medians(rows.size());
    for (int pass = 0; pass < transfer_passes(s); ++pass)
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const TransferRow& r = rows[i];
            if (r.bytes > static_cast<double>(dev_bytes)) continue;  // left NaN: did not fit
            const double expected_ms = r.bytes / 5e6;  // about 5 GB/s: only to trim repetitions
            if (pass > 0 && expected_ms > 50) continue;
            const std::size_t n = static_cast<std::size_t>(r.bytes);
            unsigned char* host = r.pinned ? pinned.data() : pageable.get();
            BenchOptions o = bench_options(s, n, expected_ms);
            o.flush_l2 = false;
            const auto st = benchmark(
                [&](cudaStream_t strm) {
                    if (r.h2d) WB_CUDA(cudaMemcpyAsync(d.data(), host, n, cudaMemcpyHostToDevice, strm));
                    else WB_CUDA(cudaMemcpyAsync(host, d.data(), n, cudaMemcpyDeviceToHost, strm));
                },
                o);
            WB_CUDA(cudaDeviceSynchronize());
            medians[i].push_back(st.median_ms);
        }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::vector<double>& m = medians[i];
        if (m.empty()) continue;
        std::sort(m.begin(), m.end());
        const std::size_t h = m.size() / 2;
        rows[i].ms = m.size() % 2 == 1 ? m[h] : 0.5 * (m[h - 1] + m[h]);
        rows[i].gbs = rows[i].bytes / (rows[i].ms * 1e6);
    }
    return rows;
}

TransferModel fit_transfers(const std::vector<TransferRow>& rows, bool pinned, bool h2d) {
    std::vector<TransferPoint> pts;
    for (const auto& r : rows)
        if (r.pinned == pinned && r.h2d == h2d && std::isfinite(r.ms) && r.ms > 0) pts.push_back({r.bytes, r.ms});
    return TransferModel::fit(pts);
}

// ================================================================================================
// White's T10 transfer model
// ================================================================================================

TransferModel white::t10_transfer_model(bool h2d) {
    const double KB = 1024, MB = 1024 * 1024, per_GB = 1e-9, inf = std::numeric_limits<double>::infinity();
    if (h2d)
        return TransferModel(3.5, {{0, 256 * KB, 525 * per_GB, 0.014, 0},
                                   {256 * KB, MB, 3.2 * per_GB, 0.061, 0},
                                   {MB, inf, 3.2 * per_GB, 0.19, 0}});
    return TransferModel(3.1, {{0, MB, 210 * per_GB, 0.02, 0}, {MB, inf, 6.9 * per_GB, 0.21, 0}});
}

}  // namespace wb::lab
