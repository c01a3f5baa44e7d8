// copy_2d_probe.cu — how fast does the copy engine move a band of rows of a column-major matrix?
//
// Chapter 7's hybrid GEMV and SYMV give the GPU a band of rows of A (column-major, lda = n): each
// chunk is one cudaMemcpy2DAsync of `width` bytes from each of the n columns, `pitch` = n * e apart.
// The chapter's link model is fitted to contiguous copies, and its pipeline factor is measured on
// the all-GPU call, whose "band" is the whole column (contiguous). If a narrow band moves slower
// than the same bytes in one piece, the hybrid's GPU side at large n is slower than its model by
// that factor. Per pitch and width: pinned host memory to device (and back), the band's bytes over
// the copy's time (events, the median of `reps`), beside one contiguous copy of as many bytes, and
// three other ways to move the same band: split over 2 and 4 streams (the copy engines at once),
// gathered by a kernel from mapped host memory (zero-copy), and copied from THP-backed memory
// registered with cudaHostRegister (2 MiB pages).
//
// Build and run (one GPU):
//   cmake --build build --target copy_2d_probe && build/bin/copy_2d_probe [reps]
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                        \
            std::exit(1);                                                                         \
        }                                                                                         \
    } while (0)

namespace {

/// The median time (ms) of `reps` runs of f on stream s.
template <class F>
double median_ms(int reps, cudaStream_t s, F f) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    f();  // once untimed
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a, s));
        f();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

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
    CK(cudaMallocHost(&h, columns * 2 * max_pitch));  // up to a double matrix of n = 16384
    CK(cudaMalloc(&d, columns * 2 * max_pitch));
    for (std::size_t i = 0; i < columns * 2 * max_pitch; i += 4096) h[i] = static_cast<unsigned char>(i);
    cudaStream_t s, sx[4];
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (auto& x : sx) CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    cudaEvent_t fork, join[4];
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (auto& j : join) CK(cudaEventCreateWithFlags(&j, cudaEventDisableTiming));
    // The same band in `k` 2-D copies of columns on k streams at once (the copy engines in parallel).
    auto split_copy = [&](const unsigned char* src, std::size_t pitch, std::size_t width, int k) {
        CK(cudaEventRecord(fork, s));
        for (int i = 0; i < k; ++i) {
            const std::size_t c0 = columns * i / k, c1 = columns * (i + 1) / k;
            CK(cudaStreamWaitEvent(sx[i], fork, 0));
            CK(cudaMemcpy2DAsync(d + c0 * width, width, src + c0 * pitch, pitch, width, c1 - c0, cudaMemcpyHostToDevice, sx[i]));
            CK(cudaEventRecord(join[i], sx[i]));
            CK(cudaStreamWaitEvent(s, join[i], 0));
        }
    };
    // THP-backed memory, page-locked by cudaHostRegister (2 MiB pages where the kernel gave them).
    const std::size_t total = columns * 2 * max_pitch;
    auto* h2m = static_cast<unsigned char*>(mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    madvise(h2m, total, MADV_HUGEPAGE);
    for (std::size_t i = 0; i < total; i += 4096) h2m[i] = 1;
    CK(cudaHostRegister(h2m, total, cudaHostRegisterMapped));
    unsigned char* h2m_dev = nullptr;
    CK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&h2m_dev), h2m, 0));
    std::printf("copy_2d_probe: %zu columns, pinned host memory, median of %d copies (GB/s of the band's bytes)\n",
                columns, reps);
    std::printf("%8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "pitch", "width", "MiB", "2D up", "1D up", "2D down",
                "2 str", "4 str", "0-copy", "2M 2D");
    for (std::size_t pitch : {std::size_t(16) << 10, std::size_t(32) << 10, max_pitch, 2 * max_pitch})
        for (std::size_t width = 1024; width <= pitch; width *= 2) {
            const std::size_t bytes = width * columns;
            const double up2 = median_ms(reps, s, [&] {
                CK(cudaMemcpy2DAsync(d, width, h, pitch, width, columns, cudaMemcpyHostToDevice, s));
            });
            const double up1 = median_ms(reps, s, [&] {
                CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
            });
            const double down2 = median_ms(reps, s, [&] {
                CK(cudaMemcpy2DAsync(h, pitch, d, width, width, columns, cudaMemcpyDeviceToHost, s));
            });
            const double two = median_ms(reps, s, [&] { split_copy(h, pitch, width, 2); });
            const double four = median_ms(reps, s, [&] { split_copy(h, pitch, width, 4); });
            const double zero = median_ms(reps, s, [&] {
                gather<<<static_cast<unsigned>(columns), 256, 0, s>>>(reinterpret_cast<const uint4*>(h2m_dev), pitch / 16,
                                                                        width / 16, reinterpret_cast<uint4*>(d));
                CK(cudaGetLastError());
            });
            const double huge = median_ms(reps, s, [&] {
                CK(cudaMemcpy2DAsync(d, width, h2m, pitch, width, columns, cudaMemcpyHostToDevice, s));
            });
            auto gbs = [&](double ms) { return static_cast<double>(bytes) / ms * 1e-6; };
            std::printf("%8zu %8zu %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n", pitch, width, bytes / 1048576.0,
                        gbs(up2), gbs(up1), gbs(down2), gbs(two), gbs(four), gbs(zero), gbs(huge));
        }
    CK(cudaHostUnregister(h2m));
    munmap(h2m, total);
    for (auto& x : sx) CK(cudaStreamDestroy(x));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    return 0;
}
