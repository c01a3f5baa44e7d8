// l2_lookups.cu — how many requests per second does the L2 look up, whatever their size?
//
// The models' L2 request bound (DeviceProfile::l2_lookups_per_ns, model/kernel_time.hpp) holds a
// kernel of small requests (a 32-byte sector each, as the tuned SYMV's warp-rows layout makes) to
// the rate at which the L2's slices look up their tags. The presets carry Hopper's figure as read
// off Nsight Compute's percentage of peak (docs/notes/symv.md); this probe measures it on the card.
//
// What it times: every warp of a full grid reads a buffer that fits in the L2 (a quarter of it,
// read once untimed so that it is resident; ld.global.cg: no L1), 4 independent loads in flight
// per thread, in three shapes whose bytes per request differ:
//   - line:   a warp's 32 lanes read 32 adjacent 4-byte words: one 128-byte request per load;
//   - sparse: lane l reads the first word of sector l of 32 consecutive sectors (8 lines): 8
//             requests of 4 sectors per load instruction, 4 bytes of each sector used;
//   - spread: lane l reads a word of line l of 32 lines 4 KB apart: 32 requests of one sector.
// For each: requests per ns (one request per line a load instruction touches) and the bytes per
// ns the L2 delivered (sectors x 32). Where spread's requests per ns stay near line's and
// sparse's while its bytes per ns are a quarter of theirs, that rate is the lookups' limit.
// The median over 7 timed runs of each (CUDA events; no flush: the data must stay in the L2).
//
// Build and run on a GPU machine (about 1 s):
//   cmake --build build --target l2_lookups && build/bin/l2_lookups
//   (or: nvcc -O3 -std=c++17 -arch=sm_90 scripts/probes/l2_lookups.cu -o l2_lookups && ./l2_lookups)
#include "probe_timing.cuh"

#include <cstdint>

namespace {

enum Shape { kLine = 0, kSparse = 1, kSpread = 2 };

/// Word offset (in 4-byte words) a lane reads in load `k` of its warp's walk, for each shape. A
/// warp walks its own region of the buffer (`words` words, a power of two), so the grid covers it.
__device__ __forceinline__ unsigned long long offset(int shape, unsigned long long base, int lane) {
    if (shape == kLine) return base * 32 + lane;          // 32 adjacent words: one line
    if (shape == kSparse) return base * 256 + lane * 8;   // 32 sectors of 8 words: 8 lines
    return base * 32 + static_cast<unsigned long long>(lane) * 1024;  // 32 lines 4 KB apart
}

__global__ void __launch_bounds__(256) lookups_kernel(const unsigned* __restrict__ buf, unsigned long long mask,
                                                      int shape, int iters, unsigned* sink) {
    const int lane = threadIdx.x % 32;
    const unsigned long long warp = (static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const unsigned long long warps = static_cast<unsigned long long>(gridDim.x) * blockDim.x / 32;
    unsigned acc = 0;
    for (int it = 0; it < iters; it += 4) {
        unsigned v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const unsigned long long base = warp + (static_cast<unsigned long long>(it + u)) * warps;
            v[u] = __ldcg(buf + (offset(shape, base, lane) & mask));
        }
        acc ^= v[0] ^ v[1] ^ v[2] ^ v[3];
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads alive
}

}  // namespace

int main() {
    const DeviceInfo d = device_info();
    const int sms = d.sms, l2 = d.l2_bytes;
    const cudaDeviceProp& prop = d.prop;
    // A power-of-two buffer of at most a quarter of the L2.
    unsigned long long words = 1;
    while (words * 2 * sizeof(unsigned) <= static_cast<unsigned long long>(l2) / 4) words *= 2;
    unsigned* buf = nullptr;
    unsigned* sink = nullptr;
    CHECK(cudaMalloc(&buf, words * sizeof(unsigned)));
    CHECK(cudaMemset(buf, 0x3c, words * sizeof(unsigned)));
    CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    const int blocks = sms * 8, iters = 256;
    const double warps = blocks * 256.0 / 32;
    std::printf("L2 lookups on %s (%d SMs, L2 %d MB, buffer %.1f MB resident), %d blocks x 256 threads, %d loads "
                "per thread; median of 7\n",
                prop.name, sms, l2 >> 20, words * 4 / 1e6, blocks, iters);
    std::printf("%-8s %12s %14s %16s %14s\n", "shape", "us", "requests/ns", "sectors/request", "bytes/ns");
    const char* names[] = {"line", "sparse", "spread"};
    const double requests_per_load[] = {1, 8, 32};   // lines a warp's load instruction touches
    const double sectors_per_request[] = {4, 4, 1};  // sectors each request moves
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    for (int shape : {kLine, kSparse, kSpread}) {
        lookups_kernel<<<blocks, 256>>>(buf, words - 1, shape, iters, sink);  // resident, warm
        std::vector<double> us;
        for (int r = 0; r < 7; ++r) {
            CHECK(cudaEventRecord(t0));
            lookups_kernel<<<blocks, 256>>>(buf, words - 1, shape, iters, sink);
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, t0, t1));
            us.push_back(ms * 1e3);
        }
        std::sort(us.begin(), us.end());
        const double t = us[us.size() / 2];
        const double requests = warps * iters * requests_per_load[shape];
        std::printf("%-8s %12.2f %14.1f %16.0f %14.1f\n", names[shape], t, requests / (t * 1e3),
                    sectors_per_request[shape], requests * sectors_per_request[shape] * 32 / (t * 1e3));
    }
    CHECK(cudaGetLastError());
    return 0;
}
