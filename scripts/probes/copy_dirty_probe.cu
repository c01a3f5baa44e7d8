// copy_dirty_probe.cu — does a copy between page-locked host memory and the GPU slow down when the
// host's cores have just written (or read) the same bytes?
//
// Chapter 7's rows time each size's CPU call and its hybrid in turn, on the same arrays: the CPU
// peer writes the whole output, then the hybrid's GPU share copies its part of the output back
// into those lines. At the start of a run the hybrid is timed on its own, call after call, and there
// the output's lines were last written by the copy engine. The rows' GEMM and convolution hybrids at
// the calibration's mid size land 20 - 40% above the same call timed at the start
// (docs/notes/split.md, sessions 31 - 37). If a DMA write into lines that sit dirty in the host's
// caches (or a DMA read of them) costs more than into lines the caches do not hold, the turn itself
// slows the hybrid's copies.
//
// Per size, in each round and in turn: a copy device to host and one host to device, each with the
// buffer as the copy engine left it, just after every host thread wrote all of it, and just after
// every host thread read all of it. Each copy is timed by CUDA events on its stream; the median of
// the rounds in GB/s, with the host's time of issue and sync beside it.
//
// Build and run (one GPU):
//   cmake --build build --target copy_dirty_probe && build/bin/copy_dirty_probe [rounds]
#include "probe_timing.cuh"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

/// Every host thread writes (or reads) its share of [p, p + bytes): what a CPU peer on all cores does.
volatile std::uint64_t g_sink = 0;
void touch(unsigned char* p, std::size_t bytes, bool write, int threads) {
    std::vector<std::thread> team;
    std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads), 0);
    const std::size_t per = (bytes / static_cast<std::size_t>(threads) + 63) / 64 * 64;
    for (int t = 0; t < threads; ++t)
        team.emplace_back([=, &sums] {
            const std::size_t b = std::min(bytes, per * static_cast<std::size_t>(t));
            const std::size_t e = std::min(bytes, b + per);
            if (write) {
                std::memset(p + b, t + 1, e - b);
            } else {
                std::uint64_t s = 0;
                for (std::size_t i = b; i < e; i += 64) s += p[i];
                sums[static_cast<std::size_t>(t)] = s;
            }
        });
    for (auto& th : team) th.join();
    for (auto s : sums) g_sink = g_sink + s;
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(5, std::atoi(argv[1])) : 21;
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const DeviceInfo dev = device_info();
    std::printf("copy_dirty_probe: %s, %d host threads, pinned host memory, median of %d rounds: GB/s by events "
                "(host us of issue + sync)\n",
                dev.prop.name, threads, rounds);
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    using Clock = std::chrono::steady_clock;
    const char* kinds[3] = {"as the copy engine left it", "after the host wrote it", "after the host read it"};
    for (std::size_t mib : {4, 16, 64, 512}) {
        const std::size_t bytes = mib << 20;
        unsigned char *h = nullptr, *d = nullptr;
        CHECK(cudaMallocHost(&h, bytes));
        CHECK(cudaMalloc(&d, bytes));
        touch(h, bytes, true, threads);
        CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
        std::vector<double> gbs[2][3], host_us[2][3];
        for (int r = 0; r < rounds; ++r)
            for (int dir = 0; dir < 2; ++dir)      // 0: device to host, 1: host to device
                for (int k = 0; k < 3; ++k) {
                    // the state: a copy of the same direction leaves the lines as the engine does
                    CHECK(cudaMemcpyAsync(dir ? d : h, dir ? h : d, bytes, dir ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s));
                    CHECK(cudaStreamSynchronize(s));
                    if (k > 0) touch(h, bytes, k == 1, threads);
                    const auto t0 = Clock::now();
                    CHECK(cudaEventRecord(e0, s));
                    CHECK(cudaMemcpyAsync(dir ? d : h, dir ? h : d, bytes, dir ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s));
                    CHECK(cudaEventRecord(e1, s));
                    CHECK(cudaStreamSynchronize(s));
                    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
                    float ms = 0;
                    CHECK(cudaEventElapsedTime(&ms, e0, e1));
                    gbs[dir][k].push_back(static_cast<double>(bytes) / (1e6 * ms));
                    host_us[dir][k].push_back(us);
                }
        for (int dir = 0; dir < 2; ++dir) {
            std::printf("  %4zu MiB %s:", mib, dir ? "host to device" : "device to host");
            for (int k = 0; k < 3; ++k)
                std::printf(" | %s %6.2f (%8.1f)", kinds[k], median_of(gbs[dir][k]), median_of(host_us[dir][k]));
            std::printf("\n");
        }
        std::fflush(stdout);
        CHECK(cudaFree(d));
        CHECK(cudaFreeHost(h));
    }
    return 0;
}
