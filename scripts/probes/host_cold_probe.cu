// host_cold_probe.cu — is a memory-bound CPU peer's time more repeatable when its operands start in
// DRAM (every cache line of them flushed before the call) than when they start where the previous
// call of it left them (warm: the chapter's rule for repeated calls)?
//
// Chapter 7's memory-bound rows (GEMV and SYMV, 16 MiB - 1 GiB) move by 15-40% between timings
// seconds apart (docs/notes/split.md, host_noise_probe), and those working sets sit around the
// host's last-level cache (300 MiB on the GPU machine, shared with whatever else the host runs):
// how much of a warm call's matrix is still cached depends on what else used that cache. If the
// spread comes from there, a call whose operands were flushed first reads them all from DRAM, and
// its time moves only with the DRAM rate. Three ways per call, each timed in the same rounds:
//   warm   the call once untimed, then the timed call (a repeated call's state);
//   flush  every cache line of the call's operands flushed (clflush, all threads, then a fence);
//   evict  a buffer of twice the LLC read by all threads (what a cold timing costs without
//          knowing the operands' addresses).
// Per call and way: each round's median of `calls` timings, the rounds' spread (slowest round's
// median over the fastest's), the median within-round spread (p90 - p10) / p50, and the rate.
// Rounds run a few seconds apart so that the host's drift shows as the rounds differing.
//
// Build and run (host only, x86-64; needs OpenBLAS):
//   cmake --build build --target host_cold_probe && build/bin/host_cold_probe [rounds] [calls]
#include "cpu_blas.hpp"
#include "host_timing.hpp"
#include "model/cpu.hpp"
#include "random.hpp"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double pct(const std::vector<double>& t, double p) { return wb::cpu::quantile(t, p); }

/// Runs f(i, n) on `threads` threads over [0, n) in contiguous pieces.
template <class F>
void parallel(std::size_t n, int threads, F f) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([=] { f(n * t / threads, n * (t + 1) / threads); });
    for (auto& th : pool) th.join();
}

struct Span {
    const void* p;
    std::size_t bytes;
};

void flush_lines(const std::vector<Span>& spans, int threads) {
    for (const Span& s : spans) {
        const char* c = static_cast<const char*>(s.p);
        parallel(s.bytes / 64 + 1, threads, [c, &s](std::size_t a, std::size_t b) {
            for (std::size_t i = a; i < b; ++i) _mm_clflush(c + std::min(i * 64, s.bytes - 1));
        });
    }
    _mm_mfence();
}

double evict(const std::vector<double>& buf, int threads) {
    std::vector<double> part(static_cast<std::size_t>(threads), 0.0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const std::size_t a = buf.size() * t / threads, b = buf.size() * (t + 1) / threads;
            double s = 0;
            for (std::size_t i = a; i < b; i += 8) s += buf[i];  // one load per 64-byte line
            part[static_cast<std::size_t>(t)] = s;
        });
    for (auto& th : pool) th.join();
    double s = 0;
    for (double v : part) s += v;
    return s;
}

struct Call {
    std::string name;
    double bytes;  ///< the bytes the call must read (the matrix or its triangle)
    std::vector<Span> operands;
    std::function<void()> run;
};

/// A GEMV (or SYMV, the lower triangle) on a fresh seeded n x n matrix and vectors of T, which
/// `keep` holds.
template <class T>
Call blas2_call(int n, bool symv, unsigned& seed, std::vector<std::shared_ptr<void>>& keep) {
    const std::size_t un = static_cast<std::size_t>(n);
    auto vec = [&](std::size_t count) {
        auto v = std::make_shared<std::vector<T>>(wb::random_vector<T>(count, seed++));
        keep.push_back(v);
        return v->data();
    };
    T *A = vec(un * un), *x = vec(un), *y = vec(un);
    const double mat = static_cast<double>(sizeof(T)) * n * n;
    Call c{std::string(sizeof(T) == 4 ? "s" : "d") + (symv ? "symv " : "gemv ") + std::to_string(n),
           symv ? mat / 2 : mat, {{A, std::size_t(mat)}, {x, sizeof(T) * un}, {y, sizeof(T) * un}}, {}};
    if (symv)
        c.run = [=] { wb::cpu::blas::symv(wb::Uplo::Lower, n, T(1), A, n, x, T(0), y); };
    else
        c.run = [=] { wb::cpu::blas::gemv(wb::Op::N, n, n, T(1), A, n, x, T(0), y); };
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(2, std::atoi(argv[1])) : 6;
    const int calls = argc > 2 ? std::max(3, std::atoi(argv[2])) : 7;
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    const auto llc = static_cast<std::size_t>(wb::model::host_llc().bytes);  // the chapter's LLC (sysfs)
    std::printf("host_cold_probe: %d cores, LLC %.0f MiB, %d rounds of %d calls per way\n", cores,
                static_cast<double>(llc) / (1 << 20), rounds, calls);
    std::vector<double> evict_buf(std::max<std::size_t>(2 * llc, std::size_t(512) << 20) / sizeof(double), 1.0);
    double sink = 0;

    std::vector<std::shared_ptr<void>> keep;
    std::vector<Call> list;
    unsigned seed = 11;
    for (int n : {2048, 4096, 8192, 16384}) list.push_back(blas2_call<float>(n, false, seed, keep));
    list.push_back(blas2_call<float>(8192, true, seed, keep));
    for (int n : {2048, 4096, 8192}) list.push_back(blas2_call<double>(n, false, seed, keep));
    for (int n : {4096, 8192}) list.push_back(blas2_call<double>(n, true, seed, keep));

    const char* ways[3] = {"warm", "flush", "evict"};
    // t[call][way][round] = the round's timings (ms)
    std::vector<std::vector<std::vector<std::vector<double>>>> t(
        list.size(), std::vector<std::vector<std::vector<double>>>(3, std::vector<std::vector<double>>(rounds)));
    for (auto& c : list) c.run();  // first touch, the pool started
    for (int r = 0; r < rounds; ++r) {
        if (r > 0) std::this_thread::sleep_for(std::chrono::seconds(3));
        for (std::size_t i = 0; i < list.size(); ++i)
            for (int k = 0; k < calls; ++k)
                for (int w = 0; w < 3; ++w) {  // the ways in turn, call by call
                    if (w == 0) list[i].run();
                    if (w == 1) flush_lines(list[i].operands, cores);
                    if (w == 2) sink += evict(evict_buf, cores);
                    const auto t0 = Clock::now();
                    list[i].run();
                    t[i][w][r].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
                }
    }
    std::printf("%-12s %-6s %9s %9s %9s %12s %10s   round medians (ms)\n", "call", "way", "median", "GB/s",
                "rounds", "spread", "MiB");
    for (std::size_t i = 0; i < list.size(); ++i)
        for (int w = 0; w < 3; ++w) {
            std::vector<double> med, spread, all;
            for (int r = 0; r < rounds; ++r) {
                const double m = pct(t[i][w][r], 0.5);
                med.push_back(m);
                spread.push_back((pct(t[i][w][r], 0.9) - pct(t[i][w][r], 0.1)) / m);
                all.insert(all.end(), t[i][w][r].begin(), t[i][w][r].end());
            }
            const double m = pct(all, 0.5);
            std::printf("%-12s %-6s %9.4f %9.1f %9.3f %12.3f %10.0f  ", list[i].name.c_str(), ways[w], m,
                        list[i].bytes / m * 1e-6, *std::max_element(med.begin(), med.end()) / *std::min_element(med.begin(), med.end()),
                        pct(spread, 0.5), list[i].bytes / (1 << 20));
            for (double v : med) std::printf(" %.4f", v);
            std::printf("\n");
        }
    std::printf("(rounds: the slowest round's median over the fastest's; spread: the median round's (p90 - p10) / p50; sink %g)\n",
                sink);
    return 0;
}
