// dmma.cu — chapter 0, the FP64 tensor cores' rate: the ceiling of a DGEMM that runs on them
// (declared in memory_lab.hpp).
//
// Every warp of a full grid issues long runs of independent mma.sync.m16n8k8.f64 on operands
// held in registers (no memory traffic in the loop), CHAINS accumulator fragments per warp so
// that consecutive instructions do not wait for each other: the rate the tensor cores sustain,
// the number the FP64 FMA microbenchmark (lab/fma.cu) is for the FMA lanes. One m16n8k8 is
// 16 x 8 x 8 multiply-adds, 2,048 flops. The result is checked: with every A element 1/8 and
// every B element 1/4 (exact in double) each accumulator ends at iters x 8 / 32 exactly.
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"
#include "mma_f64.cuh"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace wb::lab {

using namespace detail;

namespace {

constexpr int kMmaK = 8;

template <int CHAINS>
__global__ void dmma_kernel(int iters, double* out) {
    double d[CHAINS][4] = {};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    double a[kMmaK / 2], b[kMmaK / 4];
#pragma unroll
    for (int q = 0; q < kMmaK / 2; ++q) a[q] = 0.125;
#pragma unroll
    for (int q = 0; q < kMmaK / 4; ++q) b[q] = 0.25;
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) wb::tuned::mma_f64<kMmaK>(d[c], a, b);
#endif
    double s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

}  // namespace

bool fp64_tensor_cores(int device) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return major >= 9;
}

CeilingRow measure_dmma(int chains, int iters, const BenchOptions& opt) {
    if (chains != 4 && chains != 8)
        throw std::invalid_argument("measure_dmma: chains (" + std::to_string(chains) + ") must be 4 or 8");
    if (iters <= 0) throw std::invalid_argument("measure_dmma: iters (" + std::to_string(iters) + ") must be > 0");
    int device = 0;
    WB_CUDA(cudaGetDevice(&device));
    if (!fp64_tensor_cores(device))
        throw std::invalid_argument("measure_dmma: the device has no FP64 tensor cores of mma.m16n8k8 (compute "
                                    "capability 9.0 or later)");
    const int threads = 256;
    auto kernel = chains == 4 ? dmma_kernel<4> : dmma_kernel<8>;
    const int blocks = resident_blocks(kernel, threads, "measure_dmma");
    DeviceBuffer<double> out(static_cast<std::size_t>(blocks) * threads);
    out.fill_bytes(0xFF);
    BenchOptions o = opt;
    o.flush_l2 = false;  // no memory traffic to speak of
    const auto st = benchmark(
        [&](cudaStream_t s) {
            kernel<<<blocks, threads, 0, s>>>(iters, out.data());
            WB_CHECK_LAUNCH();
        },
        o);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<double> h = out.download();
    const double want = 4.0 * chains * (static_cast<double>(iters) * kMmaK / 32.0);
    bool ok = true;
    for (double v : h) ok = ok && v == want;

    CeilingRow r;
    r.what = "FP64 tensor cores";
    r.shape = shape_string(threads, blocks, std::to_string(chains) + " chains x " + std::to_string(iters) + " mma.m16n8k8");
    r.amount = 2.0 * 16 * 8 * kMmaK * chains * static_cast<double>(iters) * (blocks * threads / 32);
    r.ms = st.median_ms;
    r.rate = r.amount / (r.ms * 1e6);
    r.verified = ok;
    return r;
}

}  // namespace wb::lab
