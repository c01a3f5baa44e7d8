// banks.cu — chapter 0, shared-memory bank conflicts (White §3.2, Listing 3.2, Table 3.2) and the
// +1 padding fix (declared in memory_lab.hpp; the bank model is model/memory.hpp).
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"

#include "model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wb::lab {

using namespace detail;

namespace {

constexpr int kTileRows = 64, kTileCols = 64;

/// White's Listing 3.2, rebuilt so that only shared memory is timed: a 64 x PITCH tile loaded
/// once; thread `lane` then reads words (lane + u) PITCH + (lane & mask) + u, u = 0..31, v/32
/// times, through a volatile pointer (every read is issued; none is hoisted). With PITCH 64 the
/// bank of that word is ((lane & mask) + u) mod 32: mask + 1 banks, 32 / (mask + 1) ways. With
/// PITCH 65 and mask 0 it is (lane + 2u) mod 32: conflict-free — the +1 padding fix.
//! [bank_kernel]
template <int PITCH>
__global__ void __launch_bounds__(256) bank_kernel(const float* __restrict__ src, int v, int mask, double* partials) {
    __shared__ float tile[kTileRows * PITCH];
    for (int i = threadIdx.x; i < kTileRows * PITCH; i += blockDim.x) {
        const int r = i / PITCH, c = i % PITCH;
        tile[i] = c < kTileCols ? src[r * kTileCols + c] : 0.0f;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    volatile const float* base = tile + lane * PITCH + (lane & mask);
    float acc0 = 0, acc1 = 0;
    for (int j = 0; j < v; j += 32) {
#pragma unroll
        for (int u = 0; u < 32; u += 2) {
            acc0 += base[u * (PITCH + 1)];
            acc1 += base[(u + 1) * (PITCH + 1)];
        }
    }
    const double s = block_sum(static_cast<double>(acc0) + acc1);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
//! [bank_kernel]

}  // namespace

std::vector<BankRow> predict_bank_conflicts(const DeviceProfile& dev, Scale s) {
    const int width = std::min(dev.banks, dev.transaction_threads);  // threads of one request
    std::vector<BankRow> rows;
    auto ways_of = [&](int pitch, int mask) {
        std::vector<long long> words;
        for (int lane = 0; lane < width; ++lane) words.push_back(static_cast<long long>(lane) * pitch + (lane & mask));
        return model::bank_conflict_ways(dev, words);
    };
    for (int v : v_values(s)) {
        for (int banks = width; banks >= 1; banks /= 2) {
            BankRow r;
            r.v = v;
            r.banks = banks;
            r.ways = ways_of(kTileCols, banks - 1);
            rows.push_back(r);
        }
        BankRow p;
        p.v = v;
        p.banks = 1;
        p.padded = true;
        p.ways = ways_of(kTileCols + 1, 0);
        rows.push_back(p);
    }
    return rows;
}

std::vector<BankRow> run_bank_conflicts(const DeviceProfile& dev, Scale s) {
    std::vector<BankRow> rows = predict_bank_conflicts(dev, s);
    DeviceBuffer<float> src(static_cast<std::size_t>(kTileRows) * kTileCols);
    fill_pattern(src.data(), src.size());
    const int threads = 256;
    const int blocks_plain = resident_blocks(bank_kernel<kTileCols>, threads, "run_bank_conflicts");
    const int blocks_padded = resident_blocks(bank_kernel<kTileCols + 1>, threads, "run_bank_conflicts");
    // The same grid for both, so the rows differ only in the bank pattern.
    int blocks = std::min(blocks_plain, blocks_padded);
    if (s == Scale::tiny) blocks = std::min(blocks, 16);
    DeviceBuffer<double> partials(static_cast<std::size_t>(blocks));
    for (auto& r : rows) {
        if (r.banks > 32 || (r.banks & (r.banks - 1)) != 0)
            throw std::logic_error("run_bank_conflicts: banks (" + std::to_string(r.banks) + ") must be a power of two <= 32");
        const int mask = r.banks - 1;
        partials.fill_bytes(0xFF);
        const auto st = benchmark(
            [&](cudaStream_t strm) {
                if (r.padded) bank_kernel<kTileCols + 1><<<blocks, threads, 0, strm>>>(src.data(), r.v, mask, partials.data());
                else bank_kernel<kTileCols><<<blocks, threads, 0, strm>>>(src.data(), r.v, mask, partials.data());
                WB_CHECK_LAUNCH();
            },
            [&] {
                BenchOptions o = bench_options(s, src.bytes());
                o.flush_l2 = false;  // shared memory is what is timed
                return o;
            }());
        WB_CUDA(cudaDeviceSynchronize());
        r.ms = st.median_ms;
        r.smem_gbs = 4.0 * threads * static_cast<double>(blocks) * r.v / (r.ms * 1e6);
        // Thread reads column (lane & mask) + u of rows whose start is a multiple of 8 floats:
        // per 32 reads, sum over u of 1 + (((lane & mask) + u) mod 8) = 144.
        const double want = static_cast<double>(blocks) * threads * (r.v / 32) * pattern_sum(0, 32, 1);
        r.verified = same_sum(host_sum(partials, static_cast<std::size_t>(blocks)), want);
    }
    // Slowdown against the conflict-free row (banks = request width, unpadded) of the same v.
    const int width = std::min(dev.banks, dev.transaction_threads);
    for (auto& r : rows)
        for (const auto& base : rows)
            if (base.v == r.v && !base.padded && base.banks == width) r.slowdown = r.ms / base.ms;
    return rows;
}

}  // namespace wb::lab
