// fma.cu — chapter 0, the FMA microbenchmark behind the FP32 ceiling (declared in memory_lab.hpp).
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

namespace wb::lab {

using namespace detail;

namespace {

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

}  // namespace

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

}  // namespace wb::lab
