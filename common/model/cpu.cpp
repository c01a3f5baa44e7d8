// model/cpu.cpp — the CPU model (model/cpu.hpp): the host's bandwidth and FMA rate measured by two
// small multithreaded loops, and each op's roofline time from its useful work.
#include "model/cpu.hpp"

#include "roofline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wb::model {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Runs body(t) on `threads` threads at once; returns the wall time in seconds.
template <class F>
double timed_parallel(int threads, F body) {
    std::vector<std::thread> pool;
    const auto t0 = Clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back(body, t);
    for (auto& th : pool) th.join();
    return seconds_since(t0);
}

/// Independent FMA chains (kChains accumulators, which the compiler packs into vector registers),
/// `iters` steps: 2 x kChains x iters flops. The chains' results are returned so nothing is
/// optimized away. Compiled for the widest FMA the host has (target_clones picks at run time).
constexpr int kChains = 128;  // 8 AVX-512 registers of floats, 16 of doubles: enough to cover the FMA latency
template <class T>
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2,fma", "default")))
#endif
T fma_chains(long long iters, T seed) {
    T acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = seed + static_cast<T>(c) * T(1e-3);
    const T a = T(0.999999), b = T(1e-7);
    for (long long i = 0; i < iters; ++i)
        for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;
    T s = 0;
    for (int c = 0; c < kChains; ++c) s += acc[c];
    return s;
}

template <class T>
double measure_fma_gflops(int threads, int repeats) {
    // About 20 ms per pass at a few GFLOP/s per thread; the best pass counts.
    const long long iters = 1LL << 18;
    double best = 0;
    std::vector<T> sink(static_cast<std::size_t>(threads));
    for (int r = 0; r < repeats; ++r) {
        const double s = timed_parallel(threads, [&](int t) { sink[static_cast<std::size_t>(t)] = fma_chains<T>(iters, T(1) + T(t)); });
        best = std::max(best, 2.0 * kChains * static_cast<double>(iters) * threads / s / 1e9);
    }
    volatile T keep = sink[0];
    (void)keep;
    return best;
}

double measure_read_gbs(int threads, int buffer_mib, int repeats) {
    const std::size_t n = static_cast<std::size_t>(buffer_mib) * (1u << 20) / sizeof(double);
    std::vector<double> buf(n);
    const std::size_t share = (n + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
    // First touch by the thread that will read each share (the pages land on its memory node).
    timed_parallel(threads, [&](int t) {
        const std::size_t lo = std::min(n, share * static_cast<std::size_t>(t)), hi = std::min(n, lo + share);
        for (std::size_t i = lo; i < hi; ++i) buf[i] = 1.0 + static_cast<double>(i & 7);
    });
    std::vector<double> sums(static_cast<std::size_t>(threads));
    double best = 0;
    for (int r = 0; r < repeats; ++r) {
        const double s = timed_parallel(threads, [&](int t) {
            const std::size_t lo = std::min(n, share * static_cast<std::size_t>(t)), hi = std::min(n, lo + share);
            double a0 = 0, a1 = 0, a2 = 0, a3 = 0;  // four sums: the loop is bound by loads, not adds
            std::size_t i = lo;
            for (; i + 4 <= hi; i += 4) {
                a0 += buf[i];
                a1 += buf[i + 1];
                a2 += buf[i + 2];
                a3 += buf[i + 3];
            }
            for (; i < hi; ++i) a0 += buf[i];
            sums[static_cast<std::size_t>(t)] = a0 + a1 + a2 + a3;
        });
        best = std::max(best, static_cast<double>(n * sizeof(double)) / s / 1e9);
    }
    volatile double keep = sums[0];
    (void)keep;
    return best;
}

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

CpuMachine cpu_machine(const std::string& name, int threads, double bandwidth_gbs, double fp32_gflops,
                       double fp64_gflops) {
    if (threads < 1) throw std::invalid_argument("cpu_machine: threads (" + std::to_string(threads) + ") must be >= 1");
    for (auto [what, v] : {std::pair<const char*, double>{"bandwidth_gbs", bandwidth_gbs}, {"fp32_gflops", fp32_gflops},
                           {"fp64_gflops", fp64_gflops}})
        if (!(v > 0) || !std::isfinite(v))
            throw std::invalid_argument(std::string("cpu_machine: ") + what + " (" + num(v) + ") must be finite and > 0");
    return CpuMachine{name, threads, bandwidth_gbs, fp32_gflops, fp64_gflops};
}

CpuMachine measure_cpu_machine(int threads, int buffer_mib, int repeats) {
    if (threads < 0) throw std::invalid_argument("measure_cpu_machine: threads (" + std::to_string(threads) + ") must be >= 0");
    if (buffer_mib < 1)
        throw std::invalid_argument("measure_cpu_machine: buffer_mib (" + std::to_string(buffer_mib) + ") must be >= 1");
    if (repeats < 1) throw std::invalid_argument("measure_cpu_machine: repeats (" + std::to_string(repeats) + ") must be >= 1");
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const double bw = measure_read_gbs(threads, buffer_mib, repeats);
    const double f32 = measure_fma_gflops<float>(threads, repeats);
    const double f64 = measure_fma_gflops<double>(threads, repeats);
    return cpu_machine("measured (" + std::to_string(threads) + " threads)", threads, bw, f32, f64);
}

CpuWork cpu_work_gemv(bool trans, long long m, long long n, std::size_t elem, bool beta_nonzero) {
    return {roofline::gemv_bytes(trans, m, n, elem, beta_nonzero), roofline::gemv_flops(m, n)};
}
CpuWork cpu_work_gemm(long long m, long long n, long long k, std::size_t elem, bool beta_nonzero) {
    const double e = static_cast<double>(elem);
    const double c = static_cast<double>(m) * static_cast<double>(n) * (beta_nonzero ? 2.0 : 1.0);
    return {e * (static_cast<double>(m) * k + static_cast<double>(k) * n + c), roofline::gemm_flops(m, n, k)};
}
CpuWork cpu_work_symv(long long n, std::size_t elem) {
    return {roofline::symv_bytes(n, elem), 2.0 * static_cast<double>(n) * static_cast<double>(n)};
}
CpuWork cpu_work_conv2d(long long rows, long long cols, int fs, std::size_t elem) {
    return {roofline::conv_bytes(rows, cols, fs, elem), roofline::conv_flops(rows, cols, fs)};
}
CpuWork cpu_work_cg_iteration(long long n, std::size_t elem) {
    CpuWork w = cpu_work_symv(n, elem);
    w.bytes += 10.0 * static_cast<double>(n) * static_cast<double>(elem);
    w.flops += 10.0 * static_cast<double>(n);
    return w;
}

double predict_cpu_ms(const CpuMachine& cpu, const CpuWork& w, std::size_t elem_bytes) {
    if (!(cpu.bandwidth_gbs > 0) || !(cpu.gflops(elem_bytes) > 0))
        throw std::invalid_argument("predict_cpu_ms: the machine '" + cpu.name + "' has no bandwidth or FMA rate");
    if (!(w.bytes >= 0) || !(w.flops >= 0)) throw std::invalid_argument("predict_cpu_ms: bytes and flops must be >= 0");
    return std::max(w.bytes / (cpu.bandwidth_gbs * 1e6), w.flops / (cpu.gflops(elem_bytes) * 1e6));
}

std::string to_string(const CpuMachine& cpu) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "host: %d threads, %.1f GB/s, %.0f GFLOP/s float, %.0f double (%s)", cpu.threads,
                  cpu.bandwidth_gbs, cpu.fp32_gflops, cpu.fp64_gflops, cpu.name.c_str());
    return buf;
}

}  // namespace wb::model
