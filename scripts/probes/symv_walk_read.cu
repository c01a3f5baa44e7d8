// symv_walk_read.cu — the tuned SYMV's walk over the lower triangle with no arithmetic to speak of
// and no barrier: 64 x 64 tiles, block (J, yb) of Y = 8 per block column, tiles I = J+1+yb, +Y, ...,
// B register buffers, a sum per thread that keeps the loads: scalar loads (a thread is a tile row,
// 16 loads per tile, as the tuned SYMV) against 16-byte loads (a thread holds 4 rows x 4 columns).
// The floor of that walk: what the tuned kernel's loads alone cost, at n = 8192, 16384, 32768.
// Its own flush (a 256 MB buffer incremented: the L2 left full of dirty lines, as after the
// workbook's write flush), median of 15 calls.
// Build and run (from the repository root; no library needed):
//   nvcc -O3 -arch=sm_90 scripts/probes/symv_walk_read.cu -o build-main/symv_walk_read && ./build-main/symv_walk_read
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

__device__ __forceinline__ float ldf(const float* p) { float v; asm volatile("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }
__device__ __forceinline__ float4 ldf4(const float* p) { float4 v; asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }

template <int B>  // B register buffers
__global__ void __launch_bounds__(256, 3) scalar_walk(const float* A, int n, int lda, int Y, float* out) {
    const int nt = n / 64, J = blockIdx.x / Y, yb = blockIdx.x % Y;
    const int tx = threadIdx.x, ty = threadIdx.y;  // 64 x 4
    const float* Ac = A + (long long)(J * 64 + ty * 16) * lda + tx;
    float buf[B][16], s = 0;
    int I = J + 1 + yb;
    #pragma unroll
    for (int b = 0; b < B - 1; ++b) if (I + b * Y < nt) {
        #pragma unroll
        for (int k = 0; k < 16; ++k) buf[b][k] = ldf(Ac + (I + b * Y) * 64 + (long long)k * lda);
    }
    for (; I < nt; I += B * Y) {
        #pragma unroll
        for (int b = 0; b < B; ++b) {
            const int In = I + (b + B - 1) * Y;
            if (In < nt) {
                #pragma unroll
                for (int k = 0; k < 16; ++k) buf[(b + B - 1) % B][k] = ldf(Ac + In * 64 + (long long)k * lda);
            }
            if (I + b * Y < nt) {
                #pragma unroll
                for (int k = 0; k < 16; ++k) s += buf[b][k] * 1.0001f;
            }
        }
    }
    if (s == 1.2345f) out[0] = s;
}

template <int B>
__global__ void __launch_bounds__(256, 3) vector_walk(const float* A, int n, int lda, int Y, float* out) {
    const int nt = n / 64, J = blockIdx.x / Y, yb = blockIdx.x % Y;
    const int t = threadIdx.x + 64 * threadIdx.y;
    const int r4 = (t % 16) * 4, cg = t / 16;  // rows r4..r4+3, columns cg*4 .. cg*4+3
    const float* Ac = A + (long long)(J * 64 + cg * 4) * lda + r4;
    float4 buf[B][4];
    float s = 0;
    int I = J + 1 + yb;
    #pragma unroll
    for (int b = 0; b < B - 1; ++b) if (I + b * Y < nt) {
        #pragma unroll
        for (int k = 0; k < 4; ++k) buf[b][k] = ldf4(Ac + (I + b * Y) * 64 + (long long)k * lda);
    }
    for (; I < nt; I += B * Y) {
        #pragma unroll
        for (int b = 0; b < B; ++b) {
            const int In = I + (b + B - 1) * Y;
            if (In < nt) {
                #pragma unroll
                for (int k = 0; k < 4; ++k) buf[(b + B - 1) % B][k] = ldf4(Ac + In * 64 + (long long)k * lda);
            }
            if (I + b * Y < nt) {
                #pragma unroll
                for (int k = 0; k < 4; ++k) s += (buf[b][k].x + buf[b][k].y + buf[b][k].z + buf[b][k].w) * 1.0001f;
            }
        }
    }
    if (s == 1.2345f) out[0] = s;
}

__global__ void flush_k(float* f, size_t m) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x) f[i] += 1.f; }

int main() {
    float *A, *out, *fl; size_t fm = 64 << 20;  // 256 MB flush
    const int nmax = 32768;
    CK(cudaMalloc(&A, (size_t)nmax * nmax * 4)); CK(cudaMemset(A, 0, (size_t)nmax * nmax * 4));
    CK(cudaMalloc(&out, 4)); CK(cudaMalloc(&fl, fm * 4)); CK(cudaMemset(fl, 0, fm * 4));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (int n : {8192, 16384, 32768}) {
        const int nt = n / 64; const double bytes = 4.0 * n * (n + 1) / 2;
        auto time = [&](const char* name, auto launch) {
            std::vector<float> v;
            for (int r = 0; r < 15; ++r) {
                flush_k<<<528, 256>>>(fl, fm);
                cudaEventRecord(e0); launch(); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
                float ms; cudaEventElapsedTime(&ms, e0, e1); v.push_back(ms);
            }
            std::sort(v.begin(), v.end());
            printf("n=%6d %-14s %8.1f us %7.1f GB/s\n", n, name, v[7] * 1e3, bytes / v[7] / 1e6);
        };
        for (int Y : {8}) {
            const int g = nt * Y;
            time("scalar B=2", [&] { scalar_walk<2><<<g, dim3(64, 4)>>>(A, n, n, Y, out); });
            time("scalar B=3", [&] { scalar_walk<3><<<g, dim3(64, 4)>>>(A, n, n, Y, out); });
            time("vector B=2", [&] { vector_walk<2><<<g, dim3(64, 4)>>>(A, n, n, Y, out); });
            time("vector B=3", [&] { vector_walk<3><<<g, dim3(64, 4)>>>(A, n, n, Y, out); });
            time("vector B=4", [&] { vector_walk<4><<<g, dim3(64, 4)>>>(A, n, n, Y, out); });
        }
    }
    CK(cudaGetLastError());
    return 0;
}
