// host_pages_probe.cu — does the host read its buffers faster, and more repeatably, from 2 MiB
// pages than from 4 KiB ones?
//
// Chapter 7's host read rate falls from its cache level to its DRAM level between 16 and 32 MiB in
// every run (docs/notes/split.md), far below the 300 MiB LLC that sysfs declares, and it moves
// 1.4 - 2.7x between runs. The workbook's host buffers (std::vector, cudaMallocHost) sit on 4 KiB
// pages: THP is "madvise" on these machines, so a buffer gets 2 MiB pages only if it asks. With
// 4 KiB pages, each of 16 threads reading its share of a set beyond a few MiB misses the TLB once
// a page, and in a virtual machine every such miss walks two page tables (the guest's and the
// hypervisor's). If that walk, and not the cache, sets the knee, 2 MiB pages move it up and may
// steady the rate. Four kinds of buffer, timed in turn call by call in every round:
//   4k      ordinary memory, madvise(MADV_NOHUGEPAGE)
//   huge    ordinary memory, madvise(MADV_HUGEPAGE) before the first touch
//   pinned  cudaMallocHost (what the chapter's pinned rows use)
//   pin2m   the huge kind, then cudaHostRegister'ed (page-locked 2 MiB pages, if the driver keeps them)
// Calls: all threads reading the buffer (sets of 16 MiB - 1 GiB, 1 GiB per timing: model::read_gbs,
// the chapter's own read) and OpenBLAS's GEMV and SYMV on it (warm: each timed call follows an
// untimed one, the chapter's rule). Per call and kind: the
// median over all timings, the rate, and the rounds' spread (the slowest round's median over the
// fastest's); the rounds run seconds apart so that the host's drift shows between them.
//
// Build and run (x86-64 host, OpenBLAS; the pinned kinds need a GPU driver, else they are skipped):
//   cmake --build build --target host_pages_probe && build/bin/host_pages_probe [rounds] [calls]
#include "cpu_blas.hpp"
#include "host_timing.hpp"
#include "model/cpu.hpp"

#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMiB = std::size_t(1) << 20;

/// Runs f(t) on `threads` threads.
template <class F>
void on_threads(int threads, F f) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([=] { f(t); });
    for (auto& th : pool) th.join();
}

/// One host buffer of one kind, first touched by the threads that read it.
class Buffer {
public:
    Buffer(std::size_t bytes, const std::string& kind, int threads) : kind_(kind) {
        if (kind == "pinned") {
            if (cudaMallocHost(&p_, bytes) != cudaSuccess) throw std::runtime_error("cudaMallocHost");
        } else {
            mapped_ = (bytes + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
            p_ = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p_ == MAP_FAILED) throw std::runtime_error("mmap");
            madvise(p_, mapped_, kind == "4k" ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
        }
        auto* c = static_cast<unsigned char*>(p_);
        on_threads(threads, [=](int t) {
            const std::size_t a = bytes * t / threads, b = bytes * (t + 1) / threads;
            for (std::size_t i = a; i < b; i += 4096) c[i] = 1;  // the first touch
        });
        on_threads(threads, [=](int t) {  // seeded values (small: sums stay finite)
            const std::size_t a = bytes / 4 * t / threads, b = bytes / 4 * (t + 1) / threads;
            auto* f = static_cast<float*>(p_);
            for (std::size_t i = a; i < b; ++i) f[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f;
        });
        if (kind == "pin2m" && cudaHostRegister(p_, mapped_, cudaHostRegisterDefault) != cudaSuccess)
            throw std::runtime_error("cudaHostRegister");
        registered_ = kind == "pin2m";
    }
    ~Buffer() {
        if (kind_ == "pinned") cudaFreeHost(p_);
        else {
            if (registered_) cudaHostUnregister(p_);
            munmap(p_, mapped_);
        }
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    template <class T>
    T* as() const { return static_cast<T*>(p_); }

private:
    void* p_ = nullptr;
    std::size_t mapped_ = 0;
    std::string kind_;
    bool registered_ = false;
};

struct Call {
    std::string name;
    double bytes;  ///< the bytes the call reads
    std::function<void(const Buffer&)> run;
};

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(2, std::atoi(argv[1])) : 5;
    const int calls = argc > 2 ? std::max(3, std::atoi(argv[2])) : 7;
    const int threads = static_cast<int>(std::thread::hardware_concurrency());
    int devices = 0;
    const bool gpu = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
    std::vector<std::string> kinds = {"4k", "huge"};
    if (gpu) kinds.insert(kinds.end(), {"pinned", "pin2m"});
    auto sysfs = [](const char* path) {
        char buf[128] = "?";
        if (FILE* f = std::fopen(path, "r")) {
            if (!std::fgets(buf, sizeof buf, f)) std::strcpy(buf, "?");
            std::fclose(f);
        }
        buf[std::strcspn(buf, "\n")] = 0;
        return std::string(buf);
    };
    std::printf("host_pages_probe: %d threads, %d rounds of %d calls per kind; THP enabled: %s; defrag: %s\n", threads,
                rounds, calls, sysfs("/sys/kernel/mm/transparent_hugepage/enabled").c_str(),
                sysfs("/sys/kernel/mm/transparent_hugepage/defrag").c_str());

    std::vector<Call> list;
    for (std::size_t mib : {16, 64, 256, 1024}) {
        const int passes = static_cast<int>(std::max<std::size_t>(1, 1024 / mib));  // 1 GiB read per timing
        list.push_back({"read " + std::to_string(mib) + " MiB", double(passes * mib * kMiB),
                        [mib, passes, threads](const Buffer& b) {  // model::read_gbs: the chapter's own read
                            wb::model::read_gbs(b.as<double>(), mib * kMiB / sizeof(double), threads, passes, 1);
                        }});
    }
    for (int n : {4096, 8192, 16384}) {
        const std::size_t N = static_cast<std::size_t>(n);
        list.push_back({"sgemv " + std::to_string(n), 4.0 * N * N, [n, N](const Buffer& b) {
                            float* A = b.as<float>();
                            wb::cpu::blas::gemv(wb::Op::N, n, n, 1.0f, A, n, A + N * N, 0.0f, A + N * N + N);
                        }});
        list.push_back({"ssymv " + std::to_string(n), 2.0 * N * N, [n, N](const Buffer& b) {
                            float* A = b.as<float>();
                            wb::cpu::blas::symv(wb::Uplo::Lower, n, 1.0f, A, n, A + N * N, 0.0f, A + N * N + N);
                        }});
    }
    for (int n : {4096, 8192}) {
        const std::size_t N = static_cast<std::size_t>(n);
        list.push_back({"dgemv " + std::to_string(n), 8.0 * N * N, [n, N](const Buffer& b) {
                            double* A = b.as<double>();
                            wb::cpu::blas::gemv(wb::Op::N, n, n, 1.0, A, n, A + N * N, 0.0, A + N * N + N);
                        }});
    }
    // The DMA engines reading each kind (a pageable kind goes through the driver's staging).
    void* dev = nullptr;
    if (gpu && cudaMalloc(&dev, 256 * kMiB) == cudaSuccess)
        list.push_back({"copy up 256 MiB", double(256 * kMiB), [dev](const Buffer& b) {
                            if (cudaMemcpy(dev, b.as<void>(), 256 * kMiB, cudaMemcpyHostToDevice) != cudaSuccess)
                                throw std::runtime_error("cudaMemcpy");
                        }});
    // One buffer per kind, large enough for every call (1 GiB + the vectors).
    const std::size_t need = std::size_t(16384) * 16384 * 4 + 4 * 16384 * 8;
    std::vector<std::unique_ptr<Buffer>> buf;
    for (const auto& k : kinds) {
        const auto t0 = Clock::now();
        buf.push_back(std::make_unique<Buffer>(need, k, threads));
        std::printf("  %-6s buffer: %.0f MiB set up in %.0f ms\n", k.c_str(), double(need) / kMiB,
                    std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    if (FILE* f = std::fopen("/proc/self/smaps_rollup", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f))
            if (std::strstr(line, "AnonHugePages")) std::printf("  this process: %s", line);
        std::fclose(f);
    }

    // t[call][kind][round]
    std::vector<std::vector<std::vector<std::vector<double>>>> t(
        list.size(), std::vector<std::vector<std::vector<double>>>(kinds.size(), std::vector<std::vector<double>>(rounds)));
    for (int r = 0; r < rounds; ++r) {
        if (r > 0) std::this_thread::sleep_for(std::chrono::seconds(2));
        for (std::size_t i = 0; i < list.size(); ++i)
            for (int k = 0; k < calls; ++k)
                for (std::size_t w = 0; w < kinds.size(); ++w) {  // the kinds in turn, call by call
                    list[i].run(*buf[w]);
                    const auto t0 = Clock::now();
                    list[i].run(*buf[w]);
                    t[i][w][r].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
                }
    }
    std::printf("%-16s %-7s %9s %9s %8s   round medians (ms)\n", "call", "kind", "median", "GB/s", "rounds");
    for (std::size_t i = 0; i < list.size(); ++i)
        for (std::size_t w = 0; w < kinds.size(); ++w) {
            std::vector<double> med, all;
            for (int r = 0; r < rounds; ++r) {
                med.push_back(wb::cpu::quantile(t[i][w][r], 0.5));
                all.insert(all.end(), t[i][w][r].begin(), t[i][w][r].end());
            }
            const double m = wb::cpu::quantile(all, 0.5);
            std::printf("%-16s %-7s %9.4f %9.1f %8.3f  ", list[i].name.c_str(), kinds[w].c_str(), m,
                        list[i].bytes / m * 1e-6,
                        *std::max_element(med.begin(), med.end()) / *std::min_element(med.begin(), med.end()));
            for (double v : med) std::printf(" %.4f", v);
            std::printf("\n");
        }
    std::printf("(rounds: the slowest round's median over the fastest's)\n");
    return 0;
}
