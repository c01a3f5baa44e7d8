// coalescing.cu — chapter 0, coalescing: a warp reads floats with a stride, or contiguous floats
// from a misaligned start (declared in memory_lab.hpp; the sector model is model/memory.hpp).
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"

#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wb::lab {

using namespace detail;

namespace {

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

}  // namespace wb::lab
