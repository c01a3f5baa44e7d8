// load_policy.cu — which load instruction streams a matrix past a *dirty* L2 most cheaply?
//
// The workbook's flush (architecture §5) writes a buffer of twice the L2 before every timed call, so
// the timed kernel meets an L2 full of dirty lines, as it would after any kernel that wrote its
// output. Every line the kernel brings in must evict one; a dirty victim costs a DRAM write.
// scripts/probes/flush_compare.sh measured the bill: a plain read of 537 MB takes 138 us after
// the write flush and 124 us after a write-then-read flush (clean lines). This probe times one
// read stream (the bytes of an n x n double matrix, 16-byte loads, 4 in flight per thread, all
// SMs busy) with each PTX load variant that hints the L1/L2 policy, after each flush, so that
// the GEMV of chapter 5 can use the variant that evicts the fewest dirty lines.
//
// Build and run on a GPU machine (no CMake needed):
//   nvcc -O3 -std=c++17 -arch=native scripts/probes/load_policy.cu -o load_policy && ./load_policy
#include "probe_timing.cuh"

#include <utility>

enum Policy { kDefault, kNc, kCs, kEvictFirst, kNcEvictFirst, kNoAllocEvictFirst, kPolicyEvictFirst, kNc256B, kCs256B,
              kLu, kNcEvictFirst256B, kCount };
static const char* kNames[kCount] = {"ld.global",
                                     "ld.global.nc (__ldg)",
                                     "ld.global.cs (__ldcs)",
                                     "ld.global.L1::no_allocate",
                                     "ld.global.nc.L1::no_allocate",
                                     "ld.global.nc.L1::no_allocate.L2::cache_hint (evict_first 1.0)",
                                     "ld.global.nc.L2::cache_hint (createpolicy evict_first 1.0)",
                                     "ld.global.nc.L2::256B",
                                     "ld.global.cs.L2::256B",
                                     "ld.global.lu",
                                     "ld.global.nc.L2::cache_hint.L2::256B (evict_first 1.0)"};

template <int P>
__device__ __forceinline__ float4 load(const float4* p, unsigned long long pol) {
    float4 v;
    if constexpr (P == kDefault)
        asm volatile("ld.global.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (P == kNc)
        asm volatile("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (P == kCs)
        asm volatile("ld.global.cs.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (P == kEvictFirst)
        asm volatile("ld.global.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (P == kNcEvictFirst)
        asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (P == kNoAllocEvictFirst)
        asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    else if constexpr (P == kPolicyEvictFirst)
        asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    else if constexpr (P == kNc256B)
        asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (P == kCs256B)
        asm volatile("ld.global.cs.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if constexpr (P == kLu)
        asm volatile("ld.global.lu.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else
        asm volatile("ld.global.nc.L2::cache_hint.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    return v;
}

template <int P>
__global__ void __launch_bounds__(512) read_kernel(const float4* __restrict__ a, long long n4, float* out) {
    unsigned long long pol = 0;
    if constexpr (P == kPolicyEvictFirst || P == kNoAllocEvictFirst || P == kNcEvictFirst256B)
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    float s = 0.f;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 v0 = load<P>(a + i, pol), v1 = load<P>(a + i + stride, pol), v2 = load<P>(a + i + 2 * stride, pol),
                     v3 = load<P>(a + i + 3 * stride, pol);
        s += (v0.x + v1.x) + (v2.x + v3.x) + (v0.w + v1.w) + (v2.w + v3.w);
    }
    for (; i < n4; i += stride) s += load<P>(a + i, pol).x;
    __shared__ float red[512];
    red[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (unsigned k = 0; k < blockDim.x; ++k) t += red[k];
        out[blockIdx.x] = t;
    }
}

template <int P>
void run_policy(const float4* a, float* out, int blocks, const Flush& flush, bool read_back, const int* sizes, int ns) {
    Flush f = flush;
    f.read_back = read_back;
    std::printf("%-58s %-10s", kNames[P], read_back ? "write+read" : "write");
    for (int k = 0; k < ns; ++k) {
        const size_t bytes = sizeof(double) * static_cast<size_t>(sizes[k]) * sizes[k];
        const long long n4 = static_cast<long long>(bytes / sizeof(float4));
        const double us = median_us([&] { read_kernel<P><<<blocks, 512>>>(a, n4, out); }, f, 21);
        std::printf(" %9.2f", us);
    }
    std::printf("\n");
    CHECK(cudaGetLastError());
}

template <int... P>
void run_all(std::integer_sequence<int, P...>, const float4* a, float* out, int blocks, const Flush& f, bool rb,
             const int* sizes, int ns) {
    (run_policy<P>(a, out, blocks, f, rb, sizes, ns), ...);
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
    const int ns = 5;
    const size_t max_bytes = sizeof(double) * 16384ull * 16384ull;
    float4* a = nullptr;
    float* out = nullptr;
    CHECK(cudaMalloc(&a, max_bytes));
    CHECK(cudaMemset(a, 0x3c, max_bytes));
    const int blocks = sms * 4;
    CHECK(cudaMalloc(&out, blocks * sizeof(float)));
    std::printf("read stream of n x n doubles after the L2 flush, %s (%d SMs, L2 %d MB); median of 21, us\n", prop.name,
                sms, l2 >> 20);
    std::printf("%-58s %-10s", "load", "flush");
    for (int k = 0; k < ns; ++k) std::printf(" %9d", sizes[k]);
    std::printf("\n");
    for (bool rb : {false, true}) run_all(std::make_integer_sequence<int, kCount>{}, a, out, blocks, flush, rb, sizes, ns);
    return 0;
}
