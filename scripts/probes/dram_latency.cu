// dram_latency.cu — the load latencies the models use (issue 40, item 3): DeviceProfile's
// idle_latency_ns (a DRAM load on an otherwise idle memory system: what a latency-bound walk waits
// per round trip), l2_latency_ns (an L2 hit) and latency_ns (a DRAM load while the bus is
// saturated: what Little's law needs to keep in flight). The presets carry estimates
// (common/device_profile.cpp); this probe measures them on the card.
//
// What it times: one thread chases a chain of pointers (each load's address is the value the
// previous one returned, so no two are in flight), visited in a random order and far apart
// (64 KB + 64 B in the 1 GB chain, 4 KB + 64 B in the 8 MB one) so that neither the L1 nor a
// neighbouring line serves them. The DRAM chain has more slots than a walk has loads (16,000
// against 4096), so no load of a walk revisits a line: its first version spaced 2 MB apart had
// 512 slots, went round them 8 times, and read 7 loads in 8 from the L2 (177 ns "idle" on an
// H200).
//   - DRAM idle: a chain over 1 GB, after the workbook's L2 flush (every load misses the L2);
//   - L2 hit: a chain over 8 MB, walked once to bring it into the L2, then timed (the L1 is
//     bypassed with ld.global.cg);
//   - DRAM loaded: the same 1 GB chain while the other SMs stream a read of 2 GB (the read kernel
//     of chapter 0's shape: 256 threads x 4 16-byte loads in flight per SM).
// Each figure is the median over 5 runs of 4096 dependent loads: ns per load at the SM clock the
// run reports.
//
// Build and run on a GPU machine (about 2 s):
//   cmake --build build --target dram_latency && build/bin/dram_latency
//   (or: nvcc -O3 -std=c++17 -arch=sm_90 scripts/probes/dram_latency.cu -o dram_latency && ./dram_latency)
#include "probe_timing.cuh"

#include <cstdint>
#include <random>

namespace {

constexpr int kChain = 4096;  // dependent loads per timed walk

/// One thread follows the chain from `start` for `steps` loads (ld.global.cg: the L1 is not
/// used); the sum of the visited offsets keeps the loads alive.
__global__ void chase(const unsigned long long* buf, unsigned long long start, int steps, unsigned long long* out,
                      long long* cycles) {
    unsigned long long p = start, sum = 0;
    const long long t0 = clock64();
    for (int i = 0; i < steps; ++i) {
        unsigned long long next;
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(buf + p));
        sum += next;
        p = next;
    }
    const long long t1 = clock64();
    out[0] = sum + p;
    cycles[0] = t1 - t0;
}

/// A streaming read over `n16` 16-byte words by every thread of the grid, `passes` times: the
/// bus's load while the chase runs (its blocks leave the chase's SM alone: it runs first).
__global__ void stream(const uint4* buf, size_t n16, int passes, unsigned* sink) {
    unsigned acc = 0;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (int r = 0; r < passes; ++r)
        for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) {
            const uint4 v = buf[i];
            acc ^= v.x ^ v.y ^ v.z ^ v.w;
        }
    if (acc == 0x9e3779b9u) *sink = acc;
}

/// A random cyclic chain over `slots` slots `stride` bytes apart: slot i holds the element index
/// of the next slot.
std::vector<unsigned long long> make_chain(size_t bytes, size_t stride, std::mt19937_64& rng, size_t& first) {
    const size_t per = stride / sizeof(unsigned long long), slots = bytes / stride;
    std::vector<size_t> order(slots);
    for (size_t i = 0; i < slots; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<unsigned long long> host(bytes / sizeof(unsigned long long), 0);
    for (size_t i = 0; i < slots; ++i) host[order[i] * per] = order[(i + 1) % slots] * per;
    first = order[0] * per;
    return host;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main() {
    int dev = 0, clock_khz = 0, sms = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const double ghz = clock_khz / 1e6;
    std::mt19937_64 rng(20261128);
    Flush flush;
    unsigned long long* out = nullptr;
    long long* cycles = nullptr;
    CHECK(cudaMalloc(&out, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&cycles, sizeof(long long)));

    // DRAM: 1 GB, slots 64 KB + 64 B apart (a new L2 set every load; more slots than a walk's loads).
    const size_t big = size_t(1) << 30, far = (size_t(64) << 10) + 64;
    if (big / far < static_cast<size_t>(kChain)) {
        std::fprintf(stderr, "dram_latency: the 1 GB chain has %zu slots, fewer than a walk's %d loads\n", big / far, kChain);
        return 1;
    }
    size_t first_big = 0;
    const auto chain_big = make_chain(big, far, rng, first_big);
    unsigned long long* d_big = nullptr;
    CHECK(cudaMalloc(&d_big, big));
    CHECK(cudaMemcpy(d_big, chain_big.data(), big, cudaMemcpyHostToDevice));
    // L2: 8 MB, slots 4 KB + 64 B apart.
    const size_t small = size_t(8) << 20, near = 4096 + 64;
    size_t first_small = 0;
    const auto chain_small = make_chain(small, near, rng, first_small);
    unsigned long long* d_small = nullptr;
    CHECK(cudaMalloc(&d_small, small));
    CHECK(cudaMemcpy(d_small, chain_small.data(), small, cudaMemcpyHostToDevice));
    // The streaming load: 2 GB read by every SM but the chase's.
    const size_t stream_bytes = size_t(2) << 30;
    uint4* d_stream = nullptr;
    unsigned* sink = nullptr;
    CHECK(cudaMalloc(&d_stream, stream_bytes));
    CHECK(cudaMemset(d_stream, 1, stream_bytes));
    CHECK(cudaMalloc(&sink, sizeof(unsigned)));
    cudaStream_t s_chase, s_load;
    CHECK(cudaStreamCreateWithFlags(&s_chase, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s_load, cudaStreamNonBlocking));

    auto walk_ns = [&](const unsigned long long* buf, size_t first, cudaStream_t s) {
        chase<<<1, 1, 0, s>>>(buf, first, kChain, out, cycles);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(s));
        long long c = 0;
        CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
        return static_cast<double>(c) / kChain / ghz;
    };
    std::vector<double> idle, l2, loaded;
    for (int r = 0; r < 5; ++r) {
        flush();
        CHECK(cudaDeviceSynchronize());
        idle.push_back(walk_ns(d_big, first_big, s_chase));
        (void)walk_ns(d_small, first_small, s_chase);  // bring the 8 MB chain into the L2
        l2.push_back(walk_ns(d_small, first_small, s_chase));
        flush();
        CHECK(cudaDeviceSynchronize());
        chase<<<1, 1, 0, s_chase>>>(d_big, first_big, kChain, out, cycles);  // on an SM of its own
        stream<<<4 * (sms - 1), 256, 0, s_load>>>(d_stream, stream_bytes / 16, 8, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        long long c = 0;
        CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
        loaded.push_back(static_cast<double>(c) / kChain / ghz);
    }
    std::printf("dram_latency: %d SMs, SM clock %.0f MHz, %d dependent loads per walk, median of 5\n", sms,
                clock_khz / 1e3, kChain);
    std::printf("DRAM, idle (1 GB chain after the L2 flush)    %7.1f ns   DeviceProfile::idle_latency_ns\n", median(idle));
    std::printf("L2 hit (8 MB chain, second walk)             %7.1f ns   DeviceProfile::l2_latency_ns\n", median(l2));
    std::printf("DRAM under a saturating read stream          %7.1f ns   DeviceProfile::latency_ns\n", median(loaded));
    return 0;
}
