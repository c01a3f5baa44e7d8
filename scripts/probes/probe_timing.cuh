// probe_timing.cuh — what the stand-alone probes of scripts/probes share: a checked CUDA call,
// the workbook's L2 flush (a memset of 2 x L2, optionally read back so the lines left behind are
// clean; common/bench.cu is the harness's own version), a median of event-timed calls and the
// host's time to issue a call.
// Header-only so that each probe still builds with one nvcc command and no CMake.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

// The current device's name, SM count and L2 size.
struct DeviceInfo {
    cudaDeviceProp prop{};
    int sms = 0, l2_bytes = 0;
};
inline DeviceInfo device_info() {
    DeviceInfo d;
    int dev = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&d.prop, dev));
    CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaDeviceGetAttribute(&d.l2_bytes, cudaDevAttrL2CacheSize, dev));
    return d;
}

// Ordinary (L2-allocating) loads of every 16 bytes; the XOR keeps the loads alive.
__global__ void read_back_kernel(const uint4* buf, size_t n16, unsigned* sink) {
    unsigned acc = 0;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) {
        const uint4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

// The flush of the current device: write 2 x L2; with read_back, read it back too.
struct Flush {
    void* buf = nullptr;
    size_t bytes = 0;
    unsigned* sink = nullptr;
    int blocks = 0;
    bool read_back = false;
    Flush() {
        int dev = 0, sms = 0, l2 = 0;
        CHECK(cudaGetDevice(&dev));
        CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        bytes = 2 * static_cast<size_t>(l2);
        blocks = 4 * sms;
        CHECK(cudaMalloc(&buf, bytes));
        CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    }
    void operator()() const {
        CHECK(cudaMemsetAsync(buf, 0x5a, bytes));
        if (read_back) read_back_kernel<<<blocks, 512>>>(static_cast<const uint4*>(buf), bytes / 16, sink);
    }
};

// The median of `v` (the upper one of an even count); v non-empty.
inline double median_of(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// Median in microseconds of `reps` calls of launch() between CUDA events, each after flush(),
// the first `warm` calls discarded.
template <class F>
double median_us(F&& launch, const Flush& flush, int reps, int warm = 3) {
    cudaEvent_t b, e;
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventCreate(&e));
    std::vector<double> t;
    for (int r = 0; r < reps + warm; ++r) {
        flush();
        CHECK(cudaEventRecord(b));
        launch();
        CHECK(cudaEventRecord(e));
        CHECK(cudaEventSynchronize(e));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, b, e));
        if (r >= warm) t.push_back(1000.0 * ms);
    }
    CHECK(cudaEventDestroy(b));
    CHECK(cudaEventDestroy(e));
    return median_of(t);
}

// The host time (us) of issuing `call` once, the device synchronized first (every stream's queue
// empty), over `reps` repetitions after one call that pays what only the first pays: {median, 90th
// percentile}.
template <class F>
std::pair<double, double> issue_us(int reps, F&& call) {
    using Clock = std::chrono::steady_clock;
    std::vector<double> t;
    t.reserve(static_cast<size_t>(reps));
    call();
    CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        CHECK(cudaDeviceSynchronize());
        const auto t0 = Clock::now();
        call();
        t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    CHECK(cudaDeviceSynchronize());
    std::sort(t.begin(), t.end());
    return {t[t.size() / 2], t[t.size() * 9 / 10]};
}
