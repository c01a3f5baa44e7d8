// fma.cu — chapter 0, the FMA microbenchmark behind the FP32 and FP64 ceilings (declared in
// memory_lab.hpp).
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
template <class T>
__host__ __device__ inline T fma_start(int tid, int c) { return static_cast<T>((tid & 1023) + c); }

/// One rounding of x m + a: fmaf in float, fma in double.
__device__ inline float fma1(float x, float m, float a) { return fmaf(x, m, a); }
__device__ inline double fma1(double x, double m, double a) { return fma(x, m, a); }

/// CHAINS independent recurrences x = fma(x, m, a), `iters` steps each (a multiple of 4), in T.
template <class T, int CHAINS>
__global__ void fma_kernel(T* out, int iters, T m, T a) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    T x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) x[c] = fma_start<T>(tid, c);
    for (int it = 0; it < iters; it += 4) {
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int c = 0; c < CHAINS; ++c) x[c] = fma1(x[c], m, a);
    }
    T s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += x[c];
    out[tid] = s;
}

/// measure_fma() in T (validated arguments).
template <class T>
CeilingRow measure_fma_t(int chains, int iters, const BenchOptions& opt) {
    const int threads = 256;
    const T m = static_cast<T>(0.9990234375);  // 1 - 2^-10: the recurrence converges to a / (1 - m) = 512
    const T a = static_cast<T>(0.5);
    int blocks = 0;
    std::function<void(cudaStream_t)> fn;
    DeviceBuffer<T> out;
    auto setup = [&](auto kernel) {
        blocks = resident_blocks(kernel, threads, "measure_fma");
        out = DeviceBuffer<T>(static_cast<std::size_t>(blocks) * threads);
        fn = [&, kernel, blocks](cudaStream_t s) {
            kernel<<<blocks, threads, 0, s>>>(out.data(), iters, m, a);
            WB_CHECK_LAUNCH();
        };
    };
    if (chains == 8) setup(fma_kernel<T, 8>);
    else setup(fma_kernel<T, 16>);
    out.fill_bytes(0xFF);
    BenchOptions o = opt;
    o.flush_l2 = false;  // no memory traffic to speak of
    const auto st = benchmark(fn, o);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<T> h = out.download();

    // The host runs the same recurrence for a few threads: std::fma rounds once, like the
    // device's FMA, and the chains are summed in the same order.
    const T tol = sizeof(T) == 4 ? static_cast<T>(1e-5) : static_cast<T>(1e-12);
    bool ok = true;
    for (int tid : {0, 1, 777, blocks * threads - 1}) {
        if (tid >= blocks * threads) continue;
        T x[16];
        for (int c = 0; c < chains; ++c) x[c] = fma_start<T>(tid, c);
        for (int it = 0; it < iters; ++it)
            for (int c = 0; c < chains; ++c) x[c] = std::fma(x[c], m, a);
        T s = 0;
        for (int c = 0; c < chains; ++c) s += x[c];
        const T got = h[static_cast<std::size_t>(tid)];
        if (!(std::abs(got - s) <= tol * std::abs(s))) ok = false;
    }
    CeilingRow r;
    r.what = sizeof(T) == 4 ? "FMA" : "FP64 FMA";
    r.shape = shape_string(threads, blocks, std::to_string(chains) + " chains x " + std::to_string(iters));
    r.amount = 2.0 * chains * static_cast<double>(iters) * blocks * threads;
    r.ms = st.median_ms;
    r.rate = r.amount / (r.ms * 1e6);
    r.verified = ok;
    return r;
}

}  // namespace

CeilingRow measure_fma(int chains, int iters, const BenchOptions& opt, bool fp64) {
    if (chains != 8 && chains != 16)
        throw std::invalid_argument("measure_fma: chains (" + std::to_string(chains) + ") must be 8 or 16");
    if (iters <= 0 || iters % 4 != 0)
        throw std::invalid_argument("measure_fma: iters (" + std::to_string(iters) + ") must be a positive multiple of 4");
    return fp64 ? measure_fma_t<double>(chains, iters, opt) : measure_fma_t<float>(chains, iters, opt);
}

}  // namespace wb::lab
