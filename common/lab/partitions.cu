// partitions.cu — chapter 0, partition camping (White §3.1, Listing 3.1, Table 3.1) and the
// leading-dimension test (declared in memory_lab.hpp; the partition model is model/memory.hpp).
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"

#include "model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wb::lab {

using namespace detail;

namespace {

/// White's Listing 3.1 on rows of 512 floats (8 "partitions" of 256 B). Block b belongs to
/// partition group p = floor(b parts / grid); the bpp blocks of a group read neighbouring rows,
/// 4 rows per step (256 threads: 64 floats x 4 rows), only floats [64p, 64p + 64) of each row.
/// A group cycles through `cycle` steps of rows (cycle x step <= rows), so every row belongs to
/// one block for good: an address comes back only after the whole cycle, never early because a
/// fast block caught up with rows a slow one had just read. The call starts `k0` steps into the
/// cycle (the host passes the steps all earlier calls made), so consecutive calls continue it.
/// Requires blockDim.x == 256 and 4 x (blocks per group) <= rows.
//! [partition_kernel]
__global__ void __launch_bounds__(256) partition_kernel(const float* __restrict__ a, long long rows, int v,
                                                        int parts, long long k0, double* partials) {
    const long long grid = gridDim.x, b = blockIdx.x;
    const long long p = b * parts / grid;
    const long long first = (p * grid + parts - 1) / parts;
    const long long next = ((p + 1) * grid + parts - 1) / parts;
    const long long bpp = next - first, q = b - first;
    const int sub = threadIdx.x & 63, r = threadIdx.x >> 6;
    const float* col = a + p * 64 + sub;
    const long long step = bpp * 4;
    const long long cycle = rows / step;  // steps before a block is back at its first row
    const long long wrap = cycle * step;  // the rows the group covers: a multiple of step
    long long row = q * 4 + r + (k0 % cycle) * step;
    float acc[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) acc[u] = 0;
    for (int j = 0; j < v; j += 8) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            acc[u] += __ldcs(col + row * 512);
            row += step;
            if (row >= wrap) row -= wrap;
        }
    }
    double s = 0;
#pragma unroll
    for (int u = 0; u < 8; ++u) s += acc[u];
    s = block_sum(s);
    if (threadIdx.x == 0) partials[b] = s;
}
//! [partition_kernel]

/// Column sums of a column-major m x n matrix (GEMV-T with x = 1): a block per column.
__global__ void colsum_kernel(const float* __restrict__ A, int m, int n, long long lda, double* colsums) {
    const int T = blockDim.x;
    for (long long col = blockIdx.x; col < n; col += gridDim.x) {
        const float* c = A + col * lda;
        float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
        int i = threadIdx.x;
        for (; i + 3 * T < m; i += 4 * T) {
            const float v0 = __ldg(c + i), v1 = __ldg(c + i + T), v2 = __ldg(c + i + 2 * T), v3 = __ldg(c + i + 3 * T);
            acc0 += v0;
            acc1 += v1;
            acc2 += v2;
            acc3 += v3;
        }
        for (; i < m; i += T) acc0 += __ldg(c + i);
        const double s = block_sum(static_cast<double>(acc0) + acc1 + static_cast<double>(acc2) + acc3);
        if (threadIdx.x == 0) colsums[col] = s;
    }
}

/// Bytes the grid of `blocks` x `threads` reads before any address of run_partition_camping()
/// comes back: the shortest cycle over the groups (partition_kernel) x the bytes of one step.
double partition_reuse_bytes(long long rows, long long blocks, int threads, int parts) {
    long long shortest = 0;
    for (long long p = 0; p < parts; ++p) {
        const long long first = (p * blocks + parts - 1) / parts, next = ((p + 1) * blocks + parts - 1) / parts;
        if (next == first) continue;  // a group without blocks
        const long long cycle = rows / (4 * (next - first));
        shortest = shortest == 0 ? cycle : std::min(shortest, cycle);
    }
    return static_cast<double>(shortest) * static_cast<double>(blocks) * threads * sizeof(float);
}

}  // namespace

std::vector<PartitionRow> predict_partition_camping(const DeviceProfile& dev, Scale s) {
    std::vector<PartitionRow> rows;
    for (int v : v_values(s))
        for (int p : white::kPartitions) {
            PartitionRow r;
            r.v = v;
            r.partitions = p;
            // A linear map of 256-byte partitions (t10): bandwidth scales with the partitions
            // used (White Table 3.1). Hashed channels (partitions == 0): no effect predicted.
            r.predicted_slowdown = dev.partitions > 0 ? model::partition_camping_slowdown(dev, std::min(p, dev.partitions)) /
                                                            model::partition_camping_slowdown(dev, std::min(8, dev.partitions))
                                                      : 1.0;
            rows.push_back(r);
        }
    return rows;
}

std::vector<PartitionRow> run_partition_camping(const DeviceProfile& dev, Scale s) {
    std::vector<PartitionRow> rows = predict_partition_camping(dev, s);
    const std::size_t want = s == Scale::full ? 16 * kGiB : s == Scale::quick ? 2 * kGiB : 8 * kMiB;
    const std::size_t region = fit_device_bytes("run_partition_camping", want, s == Scale::tiny ? 2 * kMiB : 256 * kMiB, 1);
    const long long row_floats = 512;
    const long long nrows = static_cast<long long>(region / (row_floats * sizeof(float)));
    DeviceBuffer<float> a(static_cast<std::size_t>(nrows * row_floats));
    fill_pattern(a.data(), a.size());
    const int threads = 256;
    int blocks = resident_blocks(partition_kernel, threads, "run_partition_camping");
    if (s == Scale::tiny) blocks = std::min(blocks, 64);
    // A group's step (4 rows per block; all blocks in one group at most) must fit in the region.
    if (4LL * blocks > nrows)
        throw std::runtime_error("run_partition_camping: region of " + std::to_string(nrows) +
                                 " rows too small for " + std::to_string(blocks) + " blocks");
    DeviceBuffer<double> partials(static_cast<std::size_t>(blocks));
    for (auto& r : rows) {
        const double bytes = 4.0 * threads * static_cast<double>(blocks) * r.v;
        partials.fill_bytes(0xFF);
        long long k0 = 0;  // steps made by the earlier calls: each call continues the cycle
        const auto st = benchmark(
            [&](cudaStream_t strm) {
                partition_kernel<<<blocks, threads, 0, strm>>>(a.data(), nrows, r.v, r.partitions, k0, partials.data());
                WB_CHECK_LAUNCH();
                k0 += r.v;
            },
            bench_options(s, region));
        WB_CUDA(cudaDeviceSynchronize());
        r.ms = st.median_ms;
        r.gbs = bytes / (r.ms * 1e6);
        r.reuse_bytes = partition_reuse_bytes(nrows, blocks, threads, r.partitions);
        // Every step of every thread reads 1 + (sub mod 8) (rows and groups start at multiples of 8).
        const double want_sum = static_cast<double>(blocks) * r.v * 4.0 * pattern_sum(0, 64, 1);
        r.verified = same_sum(host_sum(partials, static_cast<std::size_t>(blocks)), want_sum);
    }
    return rows;
}

std::vector<LdaRow> predict_lda(const DeviceProfile& dev, Scale s) {
    std::vector<long long> ms;
    std::size_t foot = 0;
    switch (s) {
    case Scale::full: ms = {4096, 16384}, foot = 512 * kMiB; break;
    case Scale::quick: ms = {8192}, foot = 256 * kMiB; break;
    case Scale::tiny: ms = {256}, foot = 256 * 1024; break;
    }
    const int threads = 256;
    const long long active = std::max(1, dev.max_threads_per_sm / threads) * static_cast<long long>(dev.sm_count);
    std::vector<LdaRow> rows;
    for (long long m : ms)
        for (long long lda : {m, m + 32, m + 1}) {
            LdaRow r;
            r.m = m;
            r.lda = lda;
            r.n = static_cast<long long>(foot / (4 * static_cast<std::size_t>(m)));
            if (dev.partitions > 0 && dev.partition_bytes > 0) {
                // The resident blocks all start their column at row 0, each reading 256 floats.
                std::vector<long long> starts;
                for (long long j = 0; j < std::min(active, r.n); ++j) starts.push_back(j * lda * 4);
                r.partitions_touched = model::partitions_touched(dev, starts, 4LL * threads);
                r.predicted_slowdown = model::partition_camping_slowdown(dev, r.partitions_touched);
            } else {
                r.partitions_touched = 0;  // hashed: no linear partition map
                r.predicted_slowdown = 1.0;
            }
            rows.push_back(r);
        }
    return rows;
}

std::vector<LdaRow> run_lda(const DeviceProfile& dev, Scale s) {
    std::vector<LdaRow> rows = predict_lda(dev, s);
    std::size_t most = 0;
    for (const auto& r : rows) most = std::max(most, static_cast<std::size_t>(r.lda * r.n) * sizeof(float));
    const std::size_t most_mib = (most + kMiB - 1) / kMiB * kMiB;
    fit_device_bytes("run_lda", most_mib, most_mib, 1);  // throws when it does not fit
    DeviceBuffer<float> A(most / sizeof(float));
    fill_pattern(A.data(), A.size());
    const int threads = 256;
    for (auto& r : rows) {
        DeviceBuffer<double> sums(static_cast<std::size_t>(r.n));
        sums.fill_bytes(0xFF);
        const int blocks = static_cast<int>(r.n);
        const auto st = benchmark(
            [&](cudaStream_t strm) {
                colsum_kernel<<<blocks, threads, 0, strm>>>(A.data(), static_cast<int>(r.m), static_cast<int>(r.n), r.lda,
                                                           sums.data());
                WB_CHECK_LAUNCH();
            },
            bench_options(s, static_cast<std::size_t>(r.lda * r.n) * sizeof(float)));
        WB_CUDA(cudaDeviceSynchronize());
        r.ms = st.median_ms;
        r.gbs = 4.0 * static_cast<double>(r.m) * static_cast<double>(r.n) / (r.ms * 1e6);
        const std::vector<double> h = sums.download();
        bool ok = true;
        for (long long j = 0; j < r.n && ok; ++j)
            ok = same_sum(h[static_cast<std::size_t>(j)], pattern_sum(j * r.lda, r.m, 1));
        r.verified = ok;
    }
    return rows;
}

}  // namespace wb::lab
