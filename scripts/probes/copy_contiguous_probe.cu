// copy_contiguous_probe.cu — does a 2-D copy whose pitches equal its width cost more than one
// contiguous copy of the same bytes?
//
// Chapter 7's hybrids move every block of a matrix with cudaMemcpy2DAsync (hybrid_common.hpp's
// copy_2d), also where the block is contiguous: the whole column-major matrix with lda = n, as the
// all-GPU call through the hybrid's path copies it (rows = n columns of width n e). Its link model
// is fitted to 1-D copies. The all-GPU GEMV and SYMV rows of 128 - 512 KiB (n = 256 float, 128 -
// 256 double) land above their model in most runs (docs/notes/split.md, session 36). If the
// copy engine takes a 2-D copy row by row even when it is contiguous, those rows pay a cost per
// column that the model does not have.
//
// Per total size and row width: host (pinned) to device, then device to host, each way as one 1-D
// cudaMemcpyAsync and as one cudaMemcpy2DAsync of `rows` rows of `width` bytes with both pitches =
// width; the time is the host's (issue and cudaStreamSynchronize, as the chapter's all-GPU call
// waits), the kinds timed in turn call by call (the host's fixed-cost levels, which last seconds,
// fall on both alike), the median of `reps` rounds, us.
//
// Build and run (one GPU):
//   cmake --build build --target copy_contiguous_probe && build/bin/copy_contiguous_probe [reps]
#include "probe_timing.cuh"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(5, std::atoi(argv[1])) : 201;
    const std::size_t max_bytes = 4u << 20;
    unsigned char *h = nullptr, *d = nullptr;
    CHECK(cudaMallocHost(&h, max_bytes));
    CHECK(cudaMalloc(&d, max_bytes));
    for (std::size_t i = 0; i < max_bytes; ++i) h[i] = static_cast<unsigned char>(i);
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    using Clock = std::chrono::steady_clock;
    const DeviceInfo dev = device_info();
    std::printf("copy_contiguous_probe: %s, pinned host memory, host time of issue + sync, median of %d rounds (us)\n",
                dev.prop.name, reps);
    std::printf("%-6s %10s %8s %7s %10s %10s %8s\n", "way", "bytes", "width", "rows", "1-D", "2-D", "2-D/1-D");
    struct Shape {
        std::size_t bytes, width;
    };
    const std::vector<Shape> shapes{{16 << 10, 256},  {64 << 10, 256},  {64 << 10, 512},  {128 << 10, 1024},
                                    {256 << 10, 1024}, {256 << 10, 2048}, {512 << 10, 2048}, {1 << 20, 4096},
                                    {4 << 20, 4096},   {4 << 20, 16384}};
    for (const cudaMemcpyKind kind : {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost}) {
        for (const Shape& sh : shapes) {
            const std::size_t rows = sh.bytes / sh.width;
            void* dst = kind == cudaMemcpyHostToDevice ? static_cast<void*>(d) : static_cast<void*>(h);
            const void* src = kind == cudaMemcpyHostToDevice ? static_cast<const void*>(h) : static_cast<const void*>(d);
            auto one = [&] { CHECK(cudaMemcpyAsync(dst, src, sh.bytes, kind, s)); };
            auto two = [&] { CHECK(cudaMemcpy2DAsync(dst, sh.width, src, sh.width, sh.width, rows, kind, s)); };
            std::vector<double> t1, t2;
            for (int r = 0; r < reps + 3; ++r) {
                for (int k = 0; k < 2; ++k) {
                    const auto b = Clock::now();
                    if (k == 0) one();
                    else two();
                    CHECK(cudaStreamSynchronize(s));
                    const double us = std::chrono::duration<double, std::micro>(Clock::now() - b).count();
                    if (r >= 3) (k == 0 ? t1 : t2).push_back(us);
                }
            }
            const double m1 = median_of(t1), m2 = median_of(t2);
            std::printf("%-6s %10zu %8zu %7zu %10.2f %10.2f %8.3f\n", kind == cudaMemcpyHostToDevice ? "up" : "down",
                        sh.bytes, sh.width, rows, m1, m2, m2 / m1);
        }
    }
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
