// read_floor.cu — how long does *any* kernel take to read N bytes right after the L2 flush?
//
// The GEMV ladder's small sizes (n = 1024-4096) end level with cuBLAS, and Nsight Compute puts a
// fixed cost of 5-5.5 us inside both kernels (docs/notes/gemv.md). This probe
// measures the floor directly, with the workbook's timing method (cudaMemsetAsync of 2 x L2
// before every call, outside the CUDA events; median of 25 calls after 3 warm-ups): an empty
// kernel, and a pure read stream of the bytes of an n x n double matrix (16-byte streaming
// loads, 4 independent loads in flight per thread, every SM busy, one value written per
// block). A GEMV cannot read the same bytes faster than this kernel does.
//
// Build and run on a GPU machine (no CMake needed):
//   nvcc -O3 -std=c++17 -arch=native scripts/probes/read_floor.cu -o read_floor && ./read_floor
#include "probe_timing.cuh"

__global__ void empty_kernel() {}

// Every thread reads 4 float4 per step (independent loads), grid-stride over the buffer.
__global__ void __launch_bounds__(512) read_kernel(const float4* __restrict__ a, long long n4, float* out) {
    float s = 0.f;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 v0 = __ldcs(a + i), v1 = __ldcs(a + i + stride), v2 = __ldcs(a + i + 2 * stride),
                     v3 = __ldcs(a + i + 3 * stride);
        s += (v0.x + v1.x) + (v2.x + v3.x) + (v0.w + v1.w) + (v2.w + v3.w);
    }
    for (; i < n4; i += stride) s += __ldcs(a + i).x;
    __shared__ float red[512];
    red[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (unsigned k = 0; k < blockDim.x; ++k) t += red[k];
        out[blockIdx.x] = t;  // keeps the loads alive
    }
}

int main() {
    int dev = 0, sms = 0, l2 = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, dev));
    Flush flush;
    const int sizes[] = {1024, 2048, 4096, 8192, 16384};
    const size_t max_bytes = sizeof(double) * 16384ull * 16384ull;
    float4* a = nullptr;
    float* out = nullptr;
    CHECK(cudaMalloc(&a, max_bytes));
    CHECK(cudaMemset(a, 0x3c, max_bytes));
    const int blocks = sms * 4;
    CHECK(cudaMalloc(&out, blocks * sizeof(float)));
    std::printf("read floor after the L2 flush on %s (%d SMs, L2 %d MB); median of 25, CUDA events\n", prop.name, sms,
                l2 >> 20);
    std::printf("flush 'write': memset of 2 x L2 (the L2 is left full of dirty lines);\n"
                "flush 'write+read': the same memset, then the buffer read back (clean lines)\n");
    for (bool rb : {false, true}) {
        flush.read_back = rb;
        std::printf("flush %s: empty kernel %.2f us\n", rb ? "write+read" : "write",
                    median_us([] { empty_kernel<<<1, 32>>>(); }, flush, 25));
    }
    std::printf("%6s %10s %14s %10s %14s %10s\n", "n", "MB", "us(write)", "GB/s", "us(write+read)", "GB/s");
    for (int n : sizes) {
        const size_t bytes = sizeof(double) * static_cast<size_t>(n) * n;
        const long long n4 = static_cast<long long>(bytes / sizeof(float4));
        double us[2];
        for (int rb = 0; rb < 2; ++rb) {
            flush.read_back = rb != 0;
            us[rb] = median_us([&] { read_kernel<<<blocks, 512>>>(a, n4, out); }, flush, 25);
        }
        std::printf("%6d %10.2f %14.2f %10.1f %14.2f %10.1f\n", n, bytes / 1e6, us[0], bytes / us[0] / 1e3, us[1],
                    bytes / us[1] / 1e3);
    }
    CHECK(cudaGetLastError());
    return 0;
}
