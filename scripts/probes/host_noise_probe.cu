// host_noise_probe.cu — how much does one CPU peer call's time move from call to call on this host,
// and is the spread the process's own (its thread count, a thread that spins beside the team) or
// the machine's (time the hypervisor gives other guests: the "steal" column of /proc/stat)?
//
// Chapter 7's CPU rows spread 20-100% between their fastest and slowest batch (min to max over the
// median), as wide as the CPU model's misses (docs/notes/split.md). This probe times single calls
// of OpenBLAS, one at a time, in blocks of one configuration each, and prints per block the 10th,
// 50th and 90th percentile and the slowest call, with the share of the block's CPU time that
// /proc/stat counted as steal and as other processes' (user + system beyond ours is not separable:
// the machine runs nothing else, so it is printed as one figure). Configurations:
//   - sgemm 1024^3 (compute-bound, 2.1 GFLOP, in the LLC), dgemv and sgemv at n = 4096 (64 and
//     128 MiB, memory-bound), dsymv 4096;
//   - OpenBLAS threads = cores, cores - 1, cores / 2;
//   - threads = cores with one extra thread spinning (what a GPU worker that spins on a
//     synchronize does beside the team).
// Every block runs twice (A B C ... A B C), so that a drift over the probe shows as the two
// rounds differing rather than as a configuration's effect.
//
// Build and run (host only; needs OpenBLAS):
//   cmake --build build --target host_noise_probe && build/bin/host_noise_probe [calls per block]
#include "cpu_peers.hpp"
#include "cpu_blas.hpp"
#include "host_timing.hpp"
#include "random.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" void openblas_set_num_threads(int);

namespace {

using Clock = std::chrono::steady_clock;

/// The machine's CPU time so far (/proc/stat's first line, in ticks): busy (user .. softirq),
/// idle (idle + iowait) and steal.
struct Ticks {
    long long busy = 0, idle = 0, steal = 0;
};
Ticks read_ticks() {
    std::ifstream f("/proc/stat");
    std::string cpu;
    long long v[10] = {};
    f >> cpu;
    for (auto& x : v) f >> x;
    Ticks t;
    t.busy = v[0] + v[1] + v[2] + v[5] + v[6];
    t.idle = v[3] + v[4];
    t.steal = v[7];
    return t;
}

double pct(const std::vector<double>& t, double p) { return wb::cpu::quantile(t, p); }

struct Block {
    std::string name;
    int threads;
    bool spinner;
    std::function<void()> call;
};

void run_block(const Block& b, int calls, int round) {
    openblas_set_num_threads(b.threads);
    std::atomic<bool> stop{false};
    std::thread spin;
    if (b.spinner)
        spin = std::thread([&] {
            volatile unsigned long long k = 0;
            while (!stop.load(std::memory_order_relaxed)) ++k;
        });
    for (int i = 0; i < 3; ++i) b.call();  // warm-up: the pool at this size, the pages touched
    std::vector<double> t;
    t.reserve(static_cast<std::size_t>(calls));
    const Ticks a = read_ticks();
    for (int i = 0; i < calls; ++i) {
        const auto t0 = Clock::now();
        b.call();
        t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    const Ticks z = read_ticks();
    if (b.spinner) {
        stop = true;
        spin.join();
    }
    const double all = static_cast<double>((z.busy - a.busy) + (z.idle - a.idle) + (z.steal - a.steal));
    const double p50 = pct(t, 0.5);
    std::printf("  %-26s round %d threads %2d%s  p10 %8.4f  p50 %8.4f  p90 %8.4f  max %8.4f ms"
                "  (p90-p10)/p50 %5.2f  max/p50 %5.2f  steal %5.1f%%  idle %5.1f%%\n",
                b.name.c_str(), round, b.threads, b.spinner ? "+spin" : "     ", pct(t, 0.1), p50, pct(t, 0.9),
                pct(t, 1.0), (pct(t, 0.9) - pct(t, 0.1)) / p50, pct(t, 1.0) / p50,
                all > 0 ? 100.0 * static_cast<double>(z.steal - a.steal) / all : 0.0,
                all > 0 ? 100.0 * static_cast<double>(z.idle - a.idle) / all : 0.0);
    std::fflush(stdout);
}


}  // namespace

int main(int argc, char** argv) {
    const int calls = argc > 1 ? std::max(10, std::atoi(argv[1])) : 100;
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    std::printf("host_noise_probe: %d cores, %d calls per block\n", cores, calls);
    using wb::Op;
    using wb::Uplo;
    const int g = 1024, v = 4096;
    auto A = wb::random_vector<float>(std::size_t(g) * g, 1), B = wb::random_vector<float>(std::size_t(g) * g, 2),
         C = wb::random_vector<float>(std::size_t(g) * g, 3);
    auto M = wb::random_vector<float>(std::size_t(v) * v, 4), x = wb::random_vector<float>(v, 5), y = wb::random_vector<float>(v, 6);
    auto Md = wb::random_vector<double>(std::size_t(v) * v, 7), xd = wb::random_vector<double>(v, 8),
         yd = wb::random_vector<double>(v, 9);
    const std::function<void()> sgemm = [&] { wb::cpu::blas::gemm(Op::N, Op::N, g, g, g, 1.f, A.data(), g, B.data(), g, 0.f, C.data(), g); };
    const std::function<void()> sgemv = [&] { wb::cpu::blas::gemv(Op::N, v, v, 1.f, M.data(), v, x.data(), 0.f, y.data()); };
    const std::function<void()> dgemv = [&] { wb::cpu::blas::gemv(Op::N, v, v, 1.0, Md.data(), v, xd.data(), 0.0, yd.data()); };
    const std::function<void()> dsymv = [&] { wb::cpu::blas::symv(Uplo::Lower, v, 1.0, Md.data(), v, xd.data(), 0.0, yd.data()); };
    std::vector<Block> blocks;
    for (auto [name, f] : {std::pair{"sgemm 1024", sgemm}, std::pair{"sgemv 4096 (64 MiB)", sgemv},
                           std::pair{"dgemv 4096 (128 MiB)", dgemv}, std::pair{"dsymv 4096 (128 MiB)", dsymv}}) {
        for (int t : {cores, cores - 1, cores / 2}) blocks.push_back({name, t, false, f});
        blocks.push_back({name, cores, true, f});
    }
    for (int round = 1; round <= 2; ++round)
        for (const auto& b : blocks) run_block(b, calls, round);
    return 0;
}
