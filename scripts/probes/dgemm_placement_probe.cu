// dgemm_placement_probe.cu — does the tuned DGEMM's speed at n = 8192 depend on where its
// operands lie in device memory?
//
// Session 23 measured the tuned DGEMM 8192^3 NN at one of two speeds from one process to the next
// (22.5-23.5 ms or 25.1 ms; cuBLAS steady at 22.1-22.5 ms), at the same SM clock (nvidia-smi,
// 50 ms samples: 1980 MHz in both). Within a process the speed held. This probe allocates several
// sets of A, B and C in one process and times the default launch of the tuned step and cuBLAS on
// each set, in turns: sets that differ within one process point at the operands' placement (the
// physical pages behind them, and so the L2 slices and memory channels their columns fall on);
// sets that agree point elsewhere. The same with the leading dimensions padded by 8 doubles
// (columns 64 KB + 64 B apart instead of exactly 64 KB).
//
// Before the timings, the default launch and cuBLAS run once each on one fresh 2049 x 2050 x 2051
// problem (leading dimensions + 3) and the largest difference between their C's is printed against
// the scale k max|a||b| (a changed copy of a kernel, WB_PROBE_VARIANT, is checked before timed).
//
// Build (repository root; a configured build folder, e.g. after ./workbook test):
//   cmake --build build --target dgemm_placement_probe      (scripts/probes/CMakeLists.txt)
// Run: ./build/bin/dgemm_placement_probe [n] [sets] [reps] [cool] [tc]    (default 8192 4 5 0)
//      cool: seconds of idle before each batch of timed calls. Back to back, a DGEMM of 8192^3
//      takes an H200 to its power limit (715 W, SW power cap, clock 1350-1980 MHz) and both kernels
//      slow by up to a fifth; a second of idle before each batch keeps every batch at the board's
//      state in the chapter (527 W at 1980 MHz, no cap), where only the operands differ.
#include "gemm.hpp"
#include "check.hpp"
#include "probe_timing.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace wb;

namespace {

__global__ void fill_kernel(double* p, std::size_t n, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
        std::uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 29;
        p[i] = (static_cast<double>(x >> 11) * 0x1.0p-53) * 1.75 - 0.875;  // in (-0.875, 0.875)
    }
}

struct Set {
    double *A = nullptr, *B = nullptr, *C = nullptr;
    int ld = 0;
};

Set make_set(int n, int ld, std::uint64_t seed) {
    Set s;
    s.ld = ld;
    const std::size_t elems = std::size_t(ld) * n;
    WB_CUDA(cudaMalloc(&s.A, elems * sizeof(double)));
    WB_CUDA(cudaMalloc(&s.B, elems * sizeof(double)));
    WB_CUDA(cudaMalloc(&s.C, elems * sizeof(double)));
    fill_kernel<<<1024, 256>>>(s.A, elems, seed);
    fill_kernel<<<1024, 256>>>(s.B, elems, seed + 1);
    fill_kernel<<<1024, 256>>>(s.C, elems, seed + 2);
    WB_CUDA(cudaDeviceSynchronize());
    return s;
}

GemmArgs<double> args_of(const Set& s, int n) {
    GemmArgs<double> a;
    a.op_a = Op::N; a.op_b = Op::N; a.m = n; a.n = n; a.k = n; a.alpha = 1.0; a.beta = 0.5;
    a.A = s.A; a.lda = s.ld; a.B = s.B; a.ldb = s.ld; a.C = s.C; a.ldc = s.ld;
    return a;
}

using Launcher = void (*)(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);

/// Median of `reps` calls after one warm-up, each after an L2 flush (probe_timing.cuh), milliseconds.
/// The tuned step's launch: its default, or (argument "tc") the tensor cores' 64 x 64 tile unsplit
/// given explicitly, which skips the default rule and the rates it measures on its first call (a
/// profile of the timed calls then starts at them).
GemmLaunch g_tuned_launch;

double median_ms(Launcher fn, const GemmArgs<double>& a, int reps) {
    static const Flush flush;
    const GemmLaunch l = fn == tuned::gemm<double> ? g_tuned_launch : GemmLaunch{};
    return 1e-3 * median_us([&] { fn(a, l, nullptr); }, flush, reps, 1);
}

/// The default launch against cuBLAS on one odd problem: max |C_tuned - C_cublas| / (k max|a||b|).
double check_against_cublas() {
    const int m = 2049, n = 2050, k = 2051, ld = 2054;
    Set s = make_set(k > n ? k : n, ld, 77);  // A ld x k, B ld x n, C ld x n all fit in ld x max(k, n)
    const std::size_t elems = std::size_t(ld) * (k > n ? k : n);
    double* c0 = nullptr;
    WB_CUDA(cudaMalloc(&c0, elems * sizeof(double)));
    WB_CUDA(cudaMemcpy(c0, s.C, elems * sizeof(double), cudaMemcpyDeviceToDevice));
    GemmArgs<double> a;
    a.op_a = Op::N; a.op_b = Op::N; a.m = m; a.n = n; a.k = k; a.alpha = 1.0; a.beta = 0.5;
    a.A = s.A; a.lda = ld; a.B = s.B; a.ldb = ld; a.C = s.C; a.ldc = ld;
    tuned::gemm<double>(a, g_tuned_launch, nullptr);
    std::vector<double> t(elems), c(elems);
    WB_CUDA(cudaMemcpy(t.data(), s.C, elems * sizeof(double), cudaMemcpyDeviceToHost));
    WB_CUDA(cudaMemcpy(s.C, c0, elems * sizeof(double), cudaMemcpyDeviceToDevice));
    peer::gemm<double>(a, {}, nullptr);
    WB_CUDA(cudaMemcpy(c.data(), s.C, elems * sizeof(double), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            const double d = std::abs(t[i + std::size_t(j) * ld] - c[i + std::size_t(j) * ld]);
            worst = std::isnan(d) ? INFINITY : std::max(worst, d);
        }
    cudaFree(c0);
    cudaFree(s.A);
    cudaFree(s.B);
    cudaFree(s.C);
    return worst / (k * 0.875 * 0.875);
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 8192;
    const int sets = argc > 2 ? std::atoi(argv[2]) : 4;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
    const double cool = argc > 4 ? std::atof(argv[4]) : 0.0;
    if (argc > 5 && std::string(argv[5]) == "tc") {
        g_tuned_launch.math = 2;
        g_tuned_launch.split_k = 1;
    }
    if (n < 1 || sets < 1 || reps < 1 || !(cool >= 0 && cool <= 60)) {
        std::fprintf(stderr, "usage: dgemm_placement_probe [n >= 1] [sets >= 1] [reps >= 1] [cool 0 ... 60 s]\n");
        return 2;
    }
    std::printf("check 2049 x 2050 x 2051 (ld 2054) against cuBLAS: max |difference| / (k max|a||b|) = %.2e\n",
                check_against_cublas());
    const double flops = 2.0 * n * double(n) * n;
    for (int pad : {0, 8}) {
        std::vector<Set> all;
        for (int s = 0; s < sets; ++s) all.push_back(make_set(n, n + pad, 1000 + 7 * s));
        for (int round = 0; round < 2; ++round)
            for (int s = 0; s < sets; ++s) {
                const auto a = args_of(all[s], n);
                const auto idle = std::chrono::duration<double>(cool);
                std::this_thread::sleep_for(idle);
                const double tt = median_ms(tuned::gemm<double>, a, reps);
                std::this_thread::sleep_for(idle);
                const double tc = median_ms(peer::gemm<double>, a, reps);
                std::printf("n %d ld %d set %d (A %p B %p) round %d: tuned %.3f ms (%.0f GFLOP/s)  cuBLAS %.3f ms  ratio %.3f\n",
                            n, n + pad, s, static_cast<void*>(all[s].A), static_cast<void*>(all[s].B), round, tt,
                            flops / tt / 1e6, tc, tc / tt);
            }
        for (auto& s : all) {
            cudaFree(s.A);
            cudaFree(s.B);
            cudaFree(s.C);
        }
    }
    return 0;
}
