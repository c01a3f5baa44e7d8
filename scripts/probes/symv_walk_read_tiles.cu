// symv_walk_read_tiles.cu — the walk of symv_walk_read.cu with 16-byte loads only, tiles of TH = 64,
// 128 or 256 rows x 64 columns, Y = 1 ... 16 blocks per block column, and a flat read of the same
// number of bytes (a contiguous buffer, grid-stride, .cs loads): how much the tile walk itself costs
// against streaming the bytes. Same flush as symv_walk_read.cu; median of 11 calls.
// Build and run (from the repository root; no library needed):
//   nvcc -O3 -arch=sm_90 scripts/probes/symv_walk_read_tiles.cu -o build-main/symv_walk_read_tiles && \
//     ./build-main/symv_walk_read_tiles
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
__device__ __forceinline__ float4 ldf4(const float* p) { float4 v; asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }

template <int TH, int B>
__global__ void __launch_bounds__(256) vector_walk(const float* A, int n, int lda, int Y, float* out) {
    constexpr int TPC = TH / 4, CG = 256 / TPC, CPT = 64 / CG;  // threads per column, column groups, columns per thread
    const int nrt = n / TH, J = blockIdx.x / Y, yb = blockIdx.x % Y;
    const int t = threadIdx.x;
    const int r4 = (t % TPC) * 4, cg = t / TPC;
    const float* Ac = A + (long long)(J * 64 + cg * CPT) * lda + r4;
    float4 buf[B][CPT];
    float s = 0;
    int I = ((J + 1) * 64) / TH + yb;
    #pragma unroll
    for (int b = 0; b < B - 1; ++b) if (I + b * Y < nrt) {
        #pragma unroll
        for (int k = 0; k < CPT; ++k) buf[b][k] = ldf4(Ac + (I + b * Y) * TH + (long long)k * lda);
    }
    for (; I < nrt; I += B * Y) {
        #pragma unroll
        for (int b = 0; b < B; ++b) {
            const int In = I + (b + B - 1) * Y;
            if (In < nrt) {
                #pragma unroll
                for (int k = 0; k < CPT; ++k) buf[(b + B - 1) % B][k] = ldf4(Ac + In * TH + (long long)k * lda);
            }
            if (I + b * Y < nrt) {
                #pragma unroll
                for (int k = 0; k < CPT; ++k) s += (buf[b][k].x + buf[b][k].y + buf[b][k].z + buf[b][k].w) * 1.0001f;
            }
        }
    }
    if (s == 1.2345f) out[0] = s;
}
__global__ void flat_read(const float4* A, size_t m, float* out) {
    float s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x) { float4 v = __ldcs(A + i); s += v.x + v.y + v.z + v.w; }
    if (s == 1.2345f) out[0] = s;
}
__global__ void flush_k(float* f, size_t m) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x) f[i] += 1.f; }

int main() {
    float *A, *out, *fl; size_t fm = 64 << 20;
    const int nmax = 32768;
    CK(cudaMalloc(&A, (size_t)nmax * nmax * 4)); CK(cudaMemset(A, 0, (size_t)nmax * nmax * 4));
    CK(cudaMalloc(&out, 4)); CK(cudaMalloc(&fl, fm * 4)); CK(cudaMemset(fl, 0, fm * 4));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int n : {8192, 16384, 32768}) {
        const double bytes = 4.0 * n * (n + 1) / 2;
        auto time = [&](const char* name, int Y, auto launch) {
            std::vector<float> v;
            for (int r = 0; r < 11; ++r) {
                flush_k<<<528, 256>>>(fl, fm);
                cudaEventRecord(e0); launch(); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
                float ms; cudaEventElapsedTime(&ms, e0, e1); v.push_back(ms);
            }
            std::sort(v.begin(), v.end());
            printf("n=%6d %-16s Y=%2d %8.1f us %7.1f GB/s\n", n, name, Y, v[5] * 1e3, bytes / v[5] / 1e6);
        };
        time("flat read", 0, [&] { flat_read<<<132 * 8, 256>>>((const float4*)A, (size_t)(bytes / 16), out); });
        for (int Y : {1, 2, 4, 8, 16}) {
            const int g64 = (n / 64) * Y;
            time("TH=64 B=3", Y, [&] { vector_walk<64, 3><<<g64, 256>>>(A, n, n, Y, out); });
            time("TH=128 B=2", Y, [&] { vector_walk<128, 2><<<g64, 256>>>(A, n, n, Y, out); });
            time("TH=256 B=2", Y, [&] { vector_walk<256, 2><<<g64, 256>>>(A, n, n, Y, out); });
        }
    }
    CK(cudaGetLastError());
    return 0;
}
