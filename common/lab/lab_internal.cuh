/// \file lab/lab_internal.cuh
/// \brief What chapter 0's experiment files (common/lab/*.cu) share: the block reduction every
///        kernel ends with, the input pattern, resident-grid sizing and the result checks.
///        Internal to common/lab (the public header is common/memory_lab.hpp); CUDA sources only.
///
/// Conventions of every kernel of the experiments:
///  - inputs hold the pattern element i = 1 + (i mod 8) (fill_pattern), so every sum a kernel
///    forms is a small integer, exact in float, and the host checks it against pattern_sum();
///  - each thread keeps several independent loads in flight (unrolled, separate accumulators) and
///    the block reduces its partial sums once, in double, writing one value per block: the loads
///    cannot be dropped by the compiler and cost nothing extra;
///  - grids are exactly the blocks that are resident at once (cudaOccupancy...), so "all blocks
///    run at the same time" holds where an experiment depends on it (partitions, lda).
/// The timed region is one kernel (or one cudaMemcpyAsync) between CUDA events (wb::benchmark).
#pragma once

#include "buffer.hpp"
#include "check.hpp"
#include "memory_lab.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::lab::detail {


/// Sum of `v` over the block, valid in thread 0. blockDim.x must be a multiple of 32. Safe to
/// call repeatedly (it synchronizes before reusing its shared scratch).
__device__ inline double block_sum(double v) {
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

inline int current_device() {
    int d = 0;
    WB_CUDA(cudaGetDevice(&d));
    return d;
}

inline int device_attribute(cudaDeviceAttr attr) {
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

/// Fills a[0, n) with the pattern 1 + (i mod 8) and waits for it (defined in lab/streams.cu).
void fill_pattern(float* a, std::size_t n);

/// Sum of the first n values of a device buffer, on the host.
inline double host_sum(const DeviceBuffer<double>& d, std::size_t n) {
    std::vector<double> h(n);
    if (n > 0) WB_CUDA(cudaMemcpy(h.data(), d.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
    double s = 0;
    for (double x : h) s += x;
    return s;
}

/// Whether a device sum equals its closed form (both are small integers: exact in double).
inline bool same_sum(double got, double want) { return std::abs(got - want) <= 1e-9 * std::max(1.0, std::abs(want)); }

/// "256 thr x 1056 blk, extra".
inline std::string shape_string(int threads, int blocks, const std::string& extra) {
    return std::to_string(threads) + " thr x " + std::to_string(blocks) + " blk" + (extra.empty() ? "" : ", " + extra);
}

/// L2 bytes of the current device.
inline std::size_t l2_bytes() { return static_cast<std::size_t>(device_attribute(cudaDevAttrL2CacheSize)); }

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

/// White's v values (Tables 3.1, 3.2) at this scale.
inline std::vector<int> v_values(Scale s) {
    switch (s) {
    case Scale::full: return {512, 1024, 2048, 4096, 8192, 16384};
    case Scale::quick: return {1024, 4096};
    case Scale::tiny: return {64};
    }
    return {};
}

}  // namespace wb::lab::detail
