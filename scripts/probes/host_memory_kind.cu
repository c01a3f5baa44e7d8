// host_memory_kind.cu — does a CPU peer run at the same rate on page-locked host memory as on
// ordinary memory?
//
// Chapter 7's rows work on page-locked host arrays (cudaMallocHost: the hybrid's copies then
// overlap its kernels), while its CPU peer classes were first calibrated on ordinary arrays
// (std::vector). The large memory-bound rows (GEMV and SYMV from 64 MiB on) ran 0.6-0.75x the rate
// their calibration predicted. This probe times the same calls on both kinds of memory, all of them
// in turn (cpu::time_interleaved, the rule the chapter's rows are timed by): OpenBLAS's GEMV
// (column-major, op N) and SYMV (lower) at n = 8192 and 16384 in float and 4096 in double, each on an ordinary and a page-locked copy of the same values. It prints each call's
// median batch, its fastest and slowest, and the page-locked median over the ordinary one.
// Discussed in docs/notes/split.md.
//
// Build and run (needs a GPU for cudaMallocHost, and OpenBLAS):
//   cmake --build build --target host_memory_kind && build/bin/host_memory_kind
#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "device.hpp"
#include "host_timing.hpp"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

/// One matrix and its vectors on one kind of memory.
template <class T>
struct Operands {
    std::vector<T> plain;
    std::unique_ptr<wb::PinnedBuffer<T>> pinned;
    T* A = nullptr;
    T* x = nullptr;
    T* y = nullptr;
    Operands(int n, bool page_locked) {
        const std::size_t un = static_cast<std::size_t>(n), count = un * un + 2 * un;
        if (page_locked) {
            pinned = std::make_unique<wb::PinnedBuffer<T>>(count);
            A = pinned->data();
        } else {
            plain.resize(count);
            A = plain.data();
        }
        // the values of chapter 7's rows: in [0.5, 1), never zero
        for (std::size_t i = 0; i < count; ++i) A[i] = static_cast<T>(0.5 + static_cast<double>((i * 2654435761u) % 1021) / 2048.0);
        x = A + un * un;
        y = x + un;
    }
};

struct Named {
    std::string name;
    std::function<void()> call;
};

template <class T>
void add(std::vector<Named>& calls, std::vector<std::shared_ptr<void>>& keep, int n, const char* type) {
    for (bool locked : {false, true}) {
        auto o = std::make_shared<Operands<T>>(n, locked);
        keep.push_back(o);
        const std::string tag = std::string(type) + " n = " + std::to_string(n) + (locked ? " page-locked" : " ordinary");
        const wb::GemvArgs<T> g{wb::Op::N, n, n, T(1), o->A, n, o->x, T(0), o->y};
        calls.push_back({"gemv " + tag, [g] { wb::cpu::gemv(g); }});
        const wb::SymvArgs<T> s{wb::Uplo::Lower, n, T(1), o->A, n, o->x, 1, T(0), o->y, 1};
        calls.push_back({"symv " + tag, [s] { wb::cpu::symv(s); }});
    }
}

}  // namespace

int main() {
    if (!wb::cpu::have_cblas() || !wb::has_cuda_device()) {
        std::printf("needs CBLAS and a CUDA device (page-locked memory): nothing to time\n");
        return 0;
    }
    std::vector<Named> named;
    std::vector<std::shared_ptr<void>> keep;
    for (int n : {8192, 16384}) add<float>(named, keep, n, "float");
    add<double>(named, keep, 4096, "double");
    std::vector<std::function<void()>> calls;
    for (const auto& c : named) calls.push_back(c.call);
    wb::cpu::TimingPlan plan;
    plan.min_batches = 7;
    plan.max_s = 0.15;  // 12 calls in turn: at most 1.8 s of rounds
    wb::cpu::settle_threads();
    const auto t = wb::cpu::time_interleaved(calls, plan);
    std::printf("%-36s %10s %10s %10s %s\n", "call", "median ms", "min ms", "max ms", "page-locked / ordinary");
    for (std::size_t i = 0; i < named.size(); ++i) {
        std::printf("%-36s %10.4f %10.4f %10.4f", named[i].name.c_str(), t[i].ms, t[i].stats.min, t[i].stats.max);
        if (i % 4 >= 2) std::printf(" %6.3f", t[i].ms / t[i - 2].ms);  // after gemv, symv ordinary come the page-locked
        std::printf("\n");
    }
    return 0;
}
