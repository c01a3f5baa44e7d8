// streams.cu — chapter 0, the stream measurements behind the ceilings (declared in
// memory_lab.hpp): scales and benchmark options, the input pattern, device-memory fitting, stream
// buffers, memcpy and copy kernels, the read kernel and the read floor. The FMA microbenchmark is
// lab/fma.cu; measure_ceilings() (ceilings.cu) puts them together. Kernel conventions:
// lab/lab_internal.cuh.
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"

#include "device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace wb::lab {

using namespace detail;

namespace {

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

}  // namespace

namespace detail {

void fill_pattern(float* a, std::size_t n) {
    if (n == 0) return;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<std::size_t>((n + threads - 1) / threads, 65536));
    fill_pattern_kernel<<<blocks, threads>>>(a, n);
    WB_CHECK_LAUNCH();
    WB_CUDA(cudaDeviceSynchronize());
}

}  // namespace detail

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

}  // namespace wb::lab
