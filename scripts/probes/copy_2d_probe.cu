// copy_2d_probe.cu — how fast does the copy engine move a band of rows of a column-major matrix?
//
// Chapter 7's hybrid GEMV and SYMV give the GPU a band of rows of A (column-major, lda = n): each
// chunk is one cudaMemcpy2DAsync of `width` bytes from each of the n columns, `pitch` = n * e apart.
// The chapter's link model is fitted to contiguous copies, and its pipeline factor is measured on
// the all-GPU call, whose "band" is the whole column (contiguous). If a narrow band moves slower
// than the same bytes in one piece, the hybrid's GPU side at large n is slower than its model by
// that factor. Per pitch and width: pinned host memory to device (and back), the band's bytes over
// the copy's time (events, the median of `reps`: probe_timing.cuh's median_us), beside one
// contiguous copy of as many bytes, and three other ways to move the same band: split over 2 and
// 4 streams (the copy engines at once),
// gathered by a kernel from mapped host memory (zero-copy), and copied from THP-backed memory
// registered with cudaHostRegister (2 MiB pages).
//
// Build and run (one GPU):
//   cmake --build build --target copy_2d_probe && build/bin/copy_2d_probe [reps]
#include "probe_timing.cuh"

#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

/// The band [width bytes of each of `cols` columns, `pitch` apart] gathered by the SMs from mapped
/// host memory (zero-copy): one block per column, 16-byte loads.
__global__ void gather(const uint4* __restrict__ h, std::size_t pitch16, std::size_t width16, uint4* __restrict__ d) {
    const std::size_t col = blockIdx.x;
    for (std::size_t i = threadIdx.x; i < width16; i += blockDim.x) d[col * width16 + i] = h[col * pitch16 + i];
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(3, std::atoi(argv[1])) : 9;
    const std::size_t columns = 16384, max_pitch = 64 << 10;  // a float matrix of n = 16384
    unsigned char *h = nullptr, *d = nullptr;
    CHECK(cudaMallocHost(&h, columns * 2 * max_pitch));  // up to a double matrix of n = 16384
    CHECK(cudaMalloc(&d, columns * 2 * max_pitch));
    for (std::size_t i = 0; i < columns * 2 * max_pitch; i += 4096) h[i] = static_cast<unsigned char>(i);
    cudaStream_t const s = 0;  // the legacy default stream, where median_us records its events
    cudaStream_t sx[4];
    for (auto& x : sx) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    cudaEvent_t fork, join[4];
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (auto& j : join) CHECK(cudaEventCreateWithFlags(&j, cudaEventDisableTiming));
    // probe_timing.cuh's median of event-timed calls (its L2 flush before each: a device memset,
    // outside the events), in ms.
    const Flush flush;
    auto ms = [&](auto&& f) { return median_us(f, flush, reps, 1) / 1e3; };
    // The same band in `k` 2-D copies of columns on k streams at once (the copy engines in parallel).
    auto split_copy = [&](const unsigned char* src, std::size_t pitch, std::size_t width, int k) {
        CHECK(cudaEventRecord(fork, s));
        for (int i = 0; i < k; ++i) {
            const std::size_t c0 = columns * i / k, c1 = columns * (i + 1) / k;
            CHECK(cudaStreamWaitEvent(sx[i], fork, 0));
            CHECK(cudaMemcpy2DAsync(d + c0 * width, width, src + c0 * pitch, pitch, width, c1 - c0, cudaMemcpyHostToDevice, sx[i]));
            CHECK(cudaEventRecord(join[i], sx[i]));
            CHECK(cudaStreamWaitEvent(s, join[i], 0));
        }
    };
    // THP-backed memory, page-locked by cudaHostRegister (2 MiB pages where the kernel gave them).
    const std::size_t total = columns * 2 * max_pitch;
    auto* h2m = static_cast<unsigned char*>(mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    madvise(h2m, total, MADV_HUGEPAGE);
    for (std::size_t i = 0; i < total; i += 4096) h2m[i] = 1;
    CHECK(cudaHostRegister(h2m, total, cudaHostRegisterMapped));
    unsigned char* h2m_dev = nullptr;
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&h2m_dev), h2m, 0));
    std::printf("copy_2d_probe: %zu columns, pinned host memory, median of %d copies (GB/s of the band's bytes)\n",
                columns, reps);
    std::printf("%8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "pitch", "width", "MiB", "2D up", "1D up", "2D down",
                "2 str", "4 str", "0-copy", "2M 2D");
    for (std::size_t pitch : {std::size_t(16) << 10, std::size_t(32) << 10, max_pitch, 2 * max_pitch})
        for (std::size_t width = 1024; width <= pitch; width *= 2) {
            const std::size_t bytes = width * columns;
            const double up2 = ms([&] {
                CHECK(cudaMemcpy2DAsync(d, width, h, pitch, width, columns, cudaMemcpyHostToDevice, s));
            });
            const double up1 = ms([&] {
                CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
            });
            const double down2 = ms([&] {
                CHECK(cudaMemcpy2DAsync(h, pitch, d, width, width, columns, cudaMemcpyDeviceToHost, s));
            });
            const double two = ms([&] { split_copy(h, pitch, width, 2); });
            const double four = ms([&] { split_copy(h, pitch, width, 4); });
            const double zero = ms([&] {
                gather<<<static_cast<unsigned>(columns), 256, 0, s>>>(reinterpret_cast<const uint4*>(h2m_dev), pitch / 16,
                                                                        width / 16, reinterpret_cast<uint4*>(d));
                CHECK(cudaGetLastError());
            });
            const double huge = ms([&] {
                CHECK(cudaMemcpy2DAsync(d, width, h2m, pitch, width, columns, cudaMemcpyHostToDevice, s));
            });
            auto gbs = [&](double ms) { return static_cast<double>(bytes) / ms * 1e-6; };
            std::printf("%8zu %8zu %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n", pitch, width, bytes / 1048576.0,
                        gbs(up2), gbs(up1), gbs(down2), gbs(two), gbs(four), gbs(zero), gbs(huge));
        }
    CHECK(cudaHostUnregister(h2m));
    munmap(h2m, total);
    for (auto& x : sx) CHECK(cudaStreamDestroy(x));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
