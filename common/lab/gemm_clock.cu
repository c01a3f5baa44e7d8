// gemm_clock.cu — chapter 0, the SM clock under a dense GEMM's sustained power (declared in
// memory_lab.hpp).
//
// Why: the FMA and tensor-core microbenchmarks (lab/fma.cu, lab/dmma.cu) keep their operands in
// registers and draw a fraction of the card's power, so they run at the boost clock. A GEMM also
// moves its tiles through shared memory, the L2 and DRAM; on an H200 a DGEMM reaches the board's
// power limit and the driver lowers the SM clock (nvidia-smi reports the software power cap as the
// reason), while an SGEMM stays at the boost clock (docs/notes/gemm.md). Every SM-clock bound of
// the GEMM model (the lanes, the issue slots, the shared-memory wavefronts) scales with the clock
// the card holds under that load, so chapter 0 measures it, once per precision.
//
// How: the vendor's GEMM (cuBLAS, 4096^3, the precision's default math) runs back to back for
// about 100 ms, and a one-warp kernel queued right behind the last call reads clock64() and
// %globaltimer over 50 us of spinning: their ratio is the SM clock at the end of the load, before
// the power controller can react to the load's end. Three rounds, the median.
#include "memory_lab.hpp"

#include "bench.hpp"
#include "buffer.hpp"
#include "check.hpp"
#include "cublas_handle.hpp"
#include "lab/lab_internal.cuh"
#include "random.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::lab {

namespace {

constexpr long long kSpinNs = 50000;  // long against %globaltimer's update step (1 us at worst)

/// Lane 0 spins for spin_ns of %globaltimer and writes the SM cycles and nanoseconds it saw.
__global__ void clock_read_kernel(long long spin_ns, long long* out) {
    if (threadIdx.x != 0) return;
    unsigned long long g0 = 0, g = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    const long long c0 = clock64();
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    } while (static_cast<long long>(g - g0) < spin_ns);
    const long long c1 = clock64();
    out[0] = c1 - c0;
    out[1] = static_cast<long long>(g - g0);
}

template <class T>
cublasStatus_t gemm_call(cublasHandle_t h, int n, const T* a, const T* b, T* c) {
    const T one = 1, zero = 0;
    if constexpr (sizeof(T) == 8)
        return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
    else
        return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}

template <class T>
CeilingRow measure(int n, double load_ms) {
    const std::size_t count = static_cast<std::size_t>(n) * n;
    // Random operands, as a user's: a GEMM's power, and so the clock it leaves, depends on how
    // many bits its operands toggle (zeros would draw much less).
    DeviceBuffer<T> a(random_vector<T>(count, 101)), b(random_vector<T>(count, 202)), c(count);
    DeviceBuffer<long long> spans(2);
    cublasHandle_t h = cublas_handle();
    cudaStream_t stream = nullptr;
    WB_CUBLAS(cublasGetStream(h, &stream));
    auto gemm = [&] { WB_CUBLAS(gemm_call<T>(h, n, a.data(), b.data(), c.data())); };
    // One call timed after one untimed (the bench harness): how many make the load.
    BenchOptions once;
    once.warmup = 1;
    once.min_reps = once.max_reps = 1;
    once.flush_l2 = false;
    const double one_ms = benchmark([&](cudaStream_t) { gemm(); }, once, stream).median_ms;
    const int calls = std::max(4, static_cast<int>(load_ms / std::max(one_ms, 1e-3)));
    BenchOptions load = once;
    load.warmup = 0;
    std::vector<double> mhz;
    double loaded_ms = 0;
    for (int round = 0; round < 3; ++round) {
        // The load, and the clock read queued right behind its last call (50 us of the ~100 ms timed).
        loaded_ms = benchmark(
                        [&](cudaStream_t s) {
                            for (int i = 0; i < calls; ++i) gemm();
                            clock_read_kernel<<<1, 32, 0, s>>>(kSpinNs, spans.data());
                            WB_CHECK_LAUNCH();
                        },
                        load, stream)
                        .median_ms;
        const std::vector<long long> s = spans.download();
        if (s[1] > 0) mhz.push_back(1e3 * static_cast<double>(s[0]) / static_cast<double>(s[1]));
    }
    std::sort(mhz.begin(), mhz.end());
    CeilingRow r;
    r.what = sizeof(T) == 8 ? "SM clock, DGEMM load" : "SM clock, SGEMM load";
    r.shape = "cuBLAS " + std::to_string(n) + "^3 x " + std::to_string(calls) + " calls, 3 rounds";
    r.amount = 2.0 * n * n * static_cast<double>(n) * calls;
    r.ms = loaded_ms;
    r.rate = mhz.empty() ? 0 : mhz[mhz.size() / 2];
    r.verified = mhz.size() == 3 && r.rate > 0;
    return r;
}

}  // namespace

CeilingRow measure_gemm_clock(bool fp64, int n, double load_ms) {
    if (n < 64) throw std::invalid_argument("measure_gemm_clock: n (" + std::to_string(n) + ") must be >= 64");
    if (!(load_ms > 0))
        throw std::invalid_argument("measure_gemm_clock: load_ms (" + std::to_string(load_ms) + ") must be > 0");
    return fp64 ? measure<double>(n, load_ms) : measure<float>(n, load_ms);
}

}  // namespace wb::lab
