// issue_cost_probe.cu — what does the host spend issuing each API call of a hybrid's GPU chunk?
//
// Since the calling thread issues a hybrid's GPU share (chapter 7), the CPU's share begins only once
// every chunk is issued. Chapter 7's calibration measures that issue per chunk (the path lines'
// "issued before the CPU's share"): 11 - 33 us per chunk on the H200 machine's host (docs/notes/
// split.md, session 38), several times what a launch or an asynchronous copy is usually said to
// cost. A chunk is a few calls: a copy of its band in (cudaMemcpy2DAsync: a band of rows of a
// column-major matrix is a strided copy, one "row" of the copy per matrix column), the kernel's
// cudaFuncSetAttribute and launch (the convolution also copies its filter to constant memory),
// the copy of its result out, an event. This probe times each kind of call alone on the host clock
// (the device synchronized before each, so that each finds an empty queue), the 2-D copies at
// several heights (does the issue grow with the copy's rows?), strided and contiguous; then the
// convolution's and GEMV's GPU sides in 1, 4 and 16 chunks on two streams, call for call as the
// hybrids issue them (the kernels replaced by an empty one), per chunk. Median and 90th
// percentile of the repetitions, microseconds; page-locked host memory. Kernel launches are
// checked with cudaGetLastError.
//
// Build and run (one GPU):
//   cmake --build build --target issue_cost_probe && build/bin/issue_cost_probe [repetitions]
#include "probe_timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

__global__ void empty_kernel(float* p) {
    if (p && threadIdx.x == 1u << 30) p[0] = 0;  // never true: a launch that does nothing
}

__constant__ float c_filter[81];

void row(const std::string& what, std::pair<double, double> us) {
    std::printf("  %-64s %9.2f %9.2f\n", what.c_str(), us.first, us.second);
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(11, std::atoi(argv[1])) : 201;
    const DeviceInfo dev = device_info();
    std::printf("issue_cost_probe: %s, host time of one issue (us), median and p90 of %d, page-locked host memory\n",
                dev.prop.name, reps);
    std::printf("  %-64s %9s %9s\n", "call", "median", "p90");
    cudaStream_t s[2];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync));
    // A host matrix of 16384 columns of 16 KiB (4096 floats) and device buffers as large.
    const std::size_t pitch = 16384, height_max = 16384, bytes = pitch * height_max;
    unsigned char *h = nullptr, *d = nullptr, *d2 = nullptr;
    CHECK(cudaMallocHost(&h, bytes));
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMalloc(&d2, bytes));
    std::memset(h, 1, bytes);
    float* df = reinterpret_cast<float*>(d2);

    row("cudaEventRecord", issue_us(reps, [&] { CHECK(cudaEventRecord(ev, s[0])); }));
    row("empty kernel launch (1 block of 128)", issue_us(reps, [&] {
            empty_kernel<<<1, 128, 0, s[0]>>>(df);
            CHECK(cudaGetLastError());
        }));
    row("empty kernel launch (1056 blocks of 256)", issue_us(reps, [&] {
            empty_kernel<<<1056, 256, 0, s[0]>>>(df);
            CHECK(cudaGetLastError());
        }));
    row("cudaFuncSetAttribute (max dynamic shared memory)", issue_us(reps, [&] {
            CHECK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
        }));
    row("cudaMemcpyToSymbolAsync, 81 floats device to constant", issue_us(reps, [&] {
            CHECK(cudaMemcpyToSymbolAsync(c_filter, df, 81 * sizeof(float), 0, cudaMemcpyDeviceToDevice, s[0]));
        }));
    for (std::size_t b : {std::size_t(64) << 10, std::size_t(4) << 20, std::size_t(64) << 20}) {
        row("cudaMemcpyAsync host to device, " + std::to_string(b >> 10) + " KiB",
            issue_us(reps, [&] { CHECK(cudaMemcpyAsync(d, h, b, cudaMemcpyHostToDevice, s[0])); }));
        row("cudaMemcpyAsync device to host, " + std::to_string(b >> 10) + " KiB",
            issue_us(reps, [&] { CHECK(cudaMemcpyAsync(h, d, b, cudaMemcpyDeviceToHost, s[0])); }));
    }
    // A band of a column-major matrix: width (the band's rows) x height (the matrix's columns),
    // the host pitch the matrix's column; the device side packed. And the same bytes contiguous.
    const std::size_t width = 2048;
    for (std::size_t height : {std::size_t(16), std::size_t(256), std::size_t(4096), height_max}) {
        const std::string shape = std::to_string(height) + " rows of " + std::to_string(width) + " B";
        row("cudaMemcpy2DAsync host to device, strided, " + shape, issue_us(reps, [&] {
                CHECK(cudaMemcpy2DAsync(d, width, h, pitch, width, height, cudaMemcpyHostToDevice, s[0]));
            }));
        row("cudaMemcpy2DAsync device to host, strided, " + shape, issue_us(reps, [&] {
                CHECK(cudaMemcpy2DAsync(h, pitch, d, width, width, height, cudaMemcpyDeviceToHost, s[0]));
            }));
        row("cudaMemcpy2DAsync host to device, contiguous, " + shape, issue_us(reps, [&] {
                CHECK(cudaMemcpy2DAsync(d, width, h, width, width, height, cudaMemcpyHostToDevice, s[0]));
            }));
    }
    // Two GPU sides as the hybrids issue them, per chunk (hybrid_conv2d.cpp, hybrid_gemv.cpp; their
    // kernels replaced by the empty one, launched on the same grid): the convolution's K bands of
    // rows, each copied in (contiguous), its kernel's attribute set, the filter copied to constant
    // memory, the kernel launched and the band copied out, after the filter's copy up front and its
    // event; GEMV's K pieces of a band of rows, each a strided copy of its columns, a wait on the
    // piece before, the launch and an event, y copied back once after the last, after x up front.
    cudaEvent_t whole, done[2];
    CHECK(cudaEventCreateWithFlags(&whole, cudaEventDisableTiming));
    for (auto& e : done) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (int k : {1, 4, 16}) {
        const std::size_t rows = height_max / static_cast<std::size_t>(k) / 4;  // a quarter of the image, in k bands
        const auto conv = issue_us(reps, [&] {
            CHECK(cudaMemcpyAsync(df, h, 81 * sizeof(float), cudaMemcpyHostToDevice, s[0]));
            CHECK(cudaEventRecord(whole, s[0]));
            CHECK(cudaStreamWaitEvent(s[1], whole, 0));
            for (int c = 0; c < k; ++c) {
                cudaStream_t st = s[c & 1];
                const std::size_t off = static_cast<std::size_t>(c) * rows * width;
                CHECK(cudaMemcpy2DAsync(d, width, h + off, width, width, rows, cudaMemcpyHostToDevice, st));
                CHECK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
                CHECK(cudaMemcpyToSymbolAsync(c_filter, df, 81 * sizeof(float), 0, cudaMemcpyDeviceToDevice, st));
                empty_kernel<<<1056, 256, 0, st>>>(df);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy2DAsync(h + off, width, d, width, width, rows, cudaMemcpyDeviceToHost, st));
            }
        });
        row("the hybrid convolution's side, " + std::to_string(k) + " bands of " + std::to_string(rows) +
                " rows of " + std::to_string(width) + " B, per band", {conv.first / k, conv.second / k});
        const std::size_t cols = height_max / static_cast<std::size_t>(k);  // each piece's columns of the band
        const auto gemv = issue_us(reps, [&] {
            CHECK(cudaMemcpyAsync(df, h, 4096 * sizeof(float), cudaMemcpyHostToDevice, s[0]));
            CHECK(cudaEventRecord(whole, s[0]));
            CHECK(cudaStreamWaitEvent(s[1], whole, 0));
            for (int c = 0; c < k; ++c) {
                const int b = c & 1;
                const std::size_t off = static_cast<std::size_t>(c) * cols * pitch;
                CHECK(cudaMemcpy2DAsync(d, width, h + off, pitch, width, cols, cudaMemcpyHostToDevice, s[b]));
                if (c > 0) CHECK(cudaStreamWaitEvent(s[b], done[1 - b], 0));
                empty_kernel<<<1056, 256, 0, s[b]>>>(df);
                CHECK(cudaGetLastError());
                CHECK(cudaEventRecord(done[b], s[b]));
                if (c == k - 1) CHECK(cudaMemcpyAsync(h, d2, width, cudaMemcpyDeviceToHost, s[b]));
            }
        });
        row("the hybrid GEMV's side, " + std::to_string(k) + " pieces of " + std::to_string(cols) + " columns of " +
                std::to_string(width) + " B (strided), per piece",
            {gemv.first / k, gemv.second / k});
    }
    CHECK(cudaEventDestroy(whole));
    for (auto& e : done) CHECK(cudaEventDestroy(e));
    CHECK(cudaEventDestroy(ev));
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    CHECK(cudaFree(d2));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
