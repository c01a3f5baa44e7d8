// symv_columns_probe.cu — the balanced hybrid SYMV's CPU kernel (cpu::symv_columns, one read of each
// stored element, OpenMP bands) beside OpenBLAS's SYMV on the same matrix: is ours as fast per
// byte? The balanced call's CPU pieces run ours, while the model prices a CPU share at OpenBLAS's
// class (chapter 7's notes, session 45).
//
// For each precision and n: OpenBLAS's ?symv (Lower, y = A x), ours over all columns, and ours
// over one piece of the columns (the middle eighth: its diagonal block and the block below), all
// timed in turn (cpu::time_interleaved, the two whole-matrix calls trading places every other
// round). Prints the median call (ms) and the stored triangle's bytes over it (GB/s).
//
// Build and run (host only; needs OpenBLAS):
//   cmake --build build --target symv_columns_probe && build/bin/symv_columns_probe [n ...]
#include "cpu_peers.hpp"
#include "host_timing.hpp"
#include "random.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

template <class T>
void run(int n) {
    const std::size_t un = static_cast<std::size_t>(n);
    const auto A = wb::random_vector<T>(un * un, 1);
    const auto x = wb::random_vector<T>(un, 2);
    std::vector<T> y1(un), y2(un), y3(un);
    const wb::SymvArgs<T> a{wb::Uplo::Lower, n, T(1), A.data(), n, x.data(), 1, T(0), y1.data(), 1};
    const int c0 = n / 2 - n / 16, c1 = n / 2 + n / 16;
    const std::vector<std::function<void()>> calls{
        [&] { wb::cpu::symv(a); },
        [&] { wb::cpu::symv_columns(wb::Uplo::Lower, n, T(1), A.data(), n, x.data(), y2.data(), 0, n); },
        [&] { wb::cpu::symv_columns(wb::Uplo::Lower, n, T(1), A.data(), n, x.data(), y3.data(), c0, c1); }};
    wb::cpu::settle_threads();
    const auto t = wb::cpu::time_interleaved(calls, wb::cpu::TimingPlan{}, 0.05, nullptr, {{0, 1}});
    const double whole = 0.5 * static_cast<double>(un) * (un + 1) * sizeof(T);
    const double piece = (static_cast<double>(c1 - c0) * (n - c0) - 0.5 * (c1 - c0) * (c1 - c0 - 1)) * sizeof(T);
    std::printf("%-6s n %6d  openblas %9.4f ms %6.1f GB/s | ours %9.4f ms %6.1f GB/s (x%.2f) | ours, a piece of %d columns %8.4f ms %6.1f GB/s\n",
                sizeof(T) == 4 ? "float" : "double", n, t[0].ms, whole / t[0].ms / 1e6, t[1].ms, whole / t[1].ms / 1e6,
                t[1].ms / t[0].ms, c1 - c0, t[2].ms, piece / t[2].ms / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes{1024, 2048, 4096, 8192, 16384};
    if (argc > 1) {
        sizes.clear();
        for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
    }
    std::printf("symv_columns_probe: %d threads\n", wb::cpu::threads());
    for (int n : sizes) run<float>(n);
    for (int n : sizes) run<double>(n);
    return 0;
}
