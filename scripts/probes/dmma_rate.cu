// dmma_rate.cu — the FP64 tensor cores' rate, measured (issue 38, item 2: the ceiling the DGEMM
// model needs beside chapter 0's FMA microbenchmark).
//
// What it times: every warp of a full grid issues a long run of independent
// mma.sync.aligned.m16n8k{4,8,16}.row.col.f64 on values held in registers (no memory traffic in
// the loop), with CHAINS accumulator fragments per warp so that consecutive mmas do not wait for
// each other. One m16n8kK mma is 16 x 8 x K multiply-adds: 2 x 128 K flops. The same run times
// the FP64 FMA rate the same way (independent fma chains per thread), so the ratio of the two
// is measured in one run, on one card. The results are checked: every accumulator must hold the
// value the arithmetic gives (the inputs are exact in double).
//
// The latencies the tensor-core DGEMM's model lacks (docs/notes/gemm.md, "What the tensor-core
// kernel issues, counted"): one dependent chain of mmas per warp at 1, 2 and 3 warps per
// scheduler (cycles per mma: the chain's latency where the pipe is not yet full), and a dependent
// chain of 64-bit shared-memory loads (a pointer walk in shared memory: cycles per LDS), both
// timed with clock64() inside the kernel.
//
// The SM clock under load: the same m16n8k8 run, launched back to back for about 2 s, with lane 0
// of each block's first warp reading clock64() and %globaltimer at its start and end; their ratio
// is the clock the SMs ran at (MHz) while the tensor cores were busy, printed for the first and
// the last launches beside the rate. A rate that falls with the clock is power, not the pipe.
//
// Build and run on a GPU machine:
//   cmake --build build --target dmma_rate && build/bin/dmma_rate
//   (or: nvcc -O3 -std=c++17 -arch=sm_90 scripts/probes/dmma_rate.cu -o dmma_rate && ./dmma_rate)
#include "probe_timing.cuh"
#include "../../common/mma_f64.cuh"  // the DGEMM's own mma wrapper

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

constexpr int kIters = 4096;  // mma rounds per warp (each round: CHAINS independent mmas)

/// Every A and B element 1/8 and 1/4 (exact), C starting at 0: after `iters` rounds each element
/// of each accumulator holds iters x K / 32 exactly, which the host checks. With `spans`, thread 0
/// of each block also writes the SM cycles and the nanoseconds (%globaltimer) its loop took: their
/// ratio is the SM clock while the tensor cores were busy.
template <int K, int CHAINS>
__global__ void dmma_kernel(int iters, double* out, long long* spans) {
    double a[K / 2], b[K / 4], d[CHAINS][4];
#pragma unroll
    for (int q = 0; q < K / 2; ++q) a[q] = 0.125;
#pragma unroll
    for (int q = 0; q < K / 4; ++q) b[q] = 0.25;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) d[c][e] = 0;
    unsigned long long g0 = 0, g1 = 0;
    long long c0 = 0;
    if (spans) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
        c0 = clock64();
    }
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) wb::tuned::mma_f64<K>(d[c], a, b);
    if (spans && threadIdx.x == 0) {
        const long long c1 = clock64();
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
        spans[2 * blockIdx.x] = c1 - c0;
        spans[2 * blockIdx.x + 1] = static_cast<long long>(g1 - g0);
    }
    double s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/// The FP64 FMA lanes the same way: CHAINS independent v = v x m + 0.25 per thread (m = 1 at run
/// time, so that the compiler cannot turn the FMA into an add).
template <int CHAINS>
__global__ void fma_kernel(int iters, double m, double* out) {
    double v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = 0;
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) v[c] = fma(v[c], m, 0.25);
    double s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += v[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/// One chain of dependent mmas per warp, timed in SM cycles by lane 0 of each warp.
template <int K>
__global__ void dmma_chain_kernel(int iters, double* out, long long* cycles) {
    double a[K / 2], b[K / 4], d[4] = {0, 0, 0, 0};
#pragma unroll
    for (int q = 0; q < K / 2; ++q) a[q] = 0.125;
#pragma unroll
    for (int q = 0; q < K / 4; ++q) b[q] = 0.25;
    __syncwarp();
    const long long t0 = clock64();
    for (int i = 0; i < iters; ++i) wb::tuned::mma_f64<K>(d, a, b);
    const long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = d[0] + d[1] + d[2] + d[3];
    if (threadIdx.x % 32 == 0) cycles[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = t1 - t0;
}

/// A dependent walk of 64-bit shared-memory loads (each load's value is the next index), one warp
/// per block, every lane on its own bank pair: cycles per LDS.64 of a chain.
__global__ void lds_chain_kernel(int iters, long long* cycles, double* out) {
    __shared__ long long next[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) next[i] = (i + 32) % 1024;
    __syncthreads();
    long long j = threadIdx.x;
    const long long t0 = clock64();
    for (int i = 0; i < iters; ++i) j = next[j];
    const long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<double>(j);
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

/// The median over warps of cycles per step of a chain.
double median_cycles(const long long* d_cycles, int n, int steps) {
    std::vector<long long> h(static_cast<size_t>(n));
    CHECK(cudaMemcpy(h.data(), d_cycles, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    std::sort(h.begin(), h.end());
    return static_cast<double>(h[h.size() / 2]) / steps;
}

template <int K>
void report_mma_chain(int sms, int warps_per_scheduler, double* d_out, long long* d_cycles) {
    const int warps = 4 * warps_per_scheduler;  // 4 schedulers per SM, one block per SM
    dmma_chain_kernel<K><<<sms, warps * 32>>>(kIters, d_out, d_cycles);  // warm-up
    dmma_chain_kernel<K><<<sms, warps * 32>>>(kIters, d_out, d_cycles);
    CHECK(cudaDeviceSynchronize());
    std::printf("  mma.m16n8k%-2d 1 chain, %d warp(s) per scheduler: %6.1f cycles per mma\n", K, warps_per_scheduler,
                median_cycles(d_cycles, sms * warps, kIters));
}

void report_lds_chain(int sms, double* d_out, long long* d_cycles) {
    lds_chain_kernel<<<sms, 32>>>(kIters, d_cycles, d_out);
    lds_chain_kernel<<<sms, 32>>>(kIters, d_cycles, d_out);
    CHECK(cudaDeviceSynchronize());
    std::printf("  LDS.64 dependent chain, 1 warp per SM:          %6.1f cycles per load\n",
                median_cycles(d_cycles, sms, kIters));
}

struct Result {
    double tflops;
    bool ok;
};

template <class Launch>
Result run(Launch launch, double flops, double expect, double* d_out, int threads, const Flush& flush) {
    const double us = median_us(launch, flush, 9);
    std::vector<double> h(static_cast<size_t>(threads));
    CHECK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (double v : h) ok = ok && v == expect;
    return {flops / us * 1e-6, ok};
}

template <int K, int CHAINS>
void report_mma(int blocks, int warps, double* d_out, const Flush& flush) {
    const int threads = blocks * warps * 32;
    const double flops = 2.0 * 16 * 8 * K * CHAINS * static_cast<double>(kIters) * blocks * warps;
    // Each lane's 4 accumulators x CHAINS, each iters x K / 32 (A 1/8 times B 1/4, K terms).
    const double expect = 4.0 * CHAINS * kIters * K / 32.0;
    const Result r = run([&] { dmma_kernel<K, CHAINS><<<blocks, warps * 32>>>(kIters, d_out, nullptr); },
                         flops, expect, d_out, threads, flush);
    std::printf("  mma.m16n8k%-2d %d chains  %8.1f TFLOP/s  %s\n", K, CHAINS, r.tflops, r.ok ? "checked" : "WRONG");
}

template <int CHAINS>
void report_fma(int blocks, int threads_per_block, double* d_out, const Flush& flush) {
    const int threads = blocks * threads_per_block;
    const double flops = 2.0 * CHAINS * static_cast<double>(kIters) * threads;
    const double expect = CHAINS * 0.25 * kIters;
    const Result r = run([&] { fma_kernel<CHAINS><<<blocks, threads_per_block>>>(kIters, 1.0, d_out); },
                         flops, expect, d_out, threads, flush);
    std::printf("  fma           %d chains  %8.1f TFLOP/s  %s\n", CHAINS, r.tflops, r.ok ? "checked" : "WRONG");
}

/// Back-to-back launches of dmma_kernel<8, 4> with its spans for about `seconds`: rate and SM clock (median
/// over blocks of cycles / ns) of the first and the last launch.
void report_sustained(int blocks, int warps, double* d_out, double seconds) {
    long long* d_spans = nullptr;
    CHECK(cudaMalloc(&d_spans, static_cast<size_t>(blocks) * 2 * sizeof(long long)));
    const double flops = 2.0 * 16 * 8 * 8 * 4 * static_cast<double>(kIters) * blocks * warps;
    auto clock_mhz = [&] {
        std::vector<long long> h(static_cast<size_t>(blocks) * 2);
        CHECK(cudaMemcpy(h.data(), d_spans, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        std::vector<double> r;
        for (int b = 0; b < blocks; ++b) r.push_back(1e3 * static_cast<double>(h[2 * b]) / static_cast<double>(h[2 * b + 1]));
        std::sort(r.begin(), r.end());
        return r[r.size() / 2];
    };
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    auto one = [&](double* mhz) {
        CHECK(cudaEventRecord(e0));
        dmma_kernel<8, 4><<<blocks, warps * 32>>>(kIters, d_out, d_spans);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        *mhz = clock_mhz();
        return flops / ms * 1e-9;
    };
    double mhz_first = 0, mhz_last = 0;
    const double first = one(&mhz_first);
    // the rest back to back, no host wait between them, then one more timed launch
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaEventRecord(t0));
    int n = 0;
    float spent = 0;
    while (spent < seconds * 1e3) {
        for (int i = 0; i < 20; ++i) dmma_kernel<8, 4><<<blocks, warps * 32>>>(kIters, d_out, d_spans);
        n += 20;
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        CHECK(cudaEventElapsedTime(&spent, t0, t1));
    }
    const double last = one(&mhz_last);
    std::printf("  mma.m16n8k8  4 chains sustained (%d launches, %.0f ms): first %.1f TFLOP/s at %.0f MHz, "
                "last %.1f TFLOP/s at %.0f MHz\n", n + 2, spent, first, mhz_first, last, mhz_last);
    for (cudaEvent_t e : {e0, e1, t0, t1}) CHECK(cudaEventDestroy(e));
    CHECK(cudaFree(d_spans));
}

}  // namespace

int main() {
    int dev = 0, sms = 0, major = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, dev));
    if (major < 8) {
        std::printf("%s: compute capability %d.x has no FP64 mma.sync (sm_80+)\n", prop.name, major);
        return 0;
    }
    const int blocks = 4 * sms, warps = 8;  // 4 blocks of 8 warps per SM: every sub-partition busy
    double* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, static_cast<size_t>(blocks) * warps * 32 * sizeof(double)));
    const Flush flush;  // nothing here reads memory in the loop; the flush only keeps the probes' timing alike
    std::printf("%s, %d SMs: FP64 rates, %d blocks x %d warps, %d rounds\n", prop.name, sms, blocks, warps, kIters);
    report_mma<4, 4>(blocks, warps, d_out, flush);
    report_mma<8, 4>(blocks, warps, d_out, flush);
    report_mma<8, 8>(blocks, warps, d_out, flush);
    if (major >= 9) report_mma<16, 4>(blocks, warps, d_out, flush);  // m16n8k16.f64: sm_90
    report_fma<8>(blocks, warps * 32, d_out, flush);
    report_fma<16>(blocks, warps * 32, d_out, flush);
    report_sustained(blocks, warps, d_out, 2.0);
    long long* d_cycles = nullptr;
    CHECK(cudaMalloc(&d_cycles, static_cast<size_t>(sms) * 12 * sizeof(long long)));
    std::printf("latencies (SM cycles, clock64 in the kernel):\n");
    for (int w = 1; w <= 3; ++w) report_mma_chain<8>(sms, w, d_out, d_cycles);
    report_lds_chain(sms, d_out, d_cycles);
    CHECK(cudaFree(d_cycles));
    CHECK(cudaFree(d_out));
    return 0;
}
