// ceilings.cu — the card's limits, measured once per process and device (declared in
// ceilings.hpp; the measurement itself, measure_ceilings(), is declared in memory_lab.hpp).
//
// What is measured, and why this way (architecture §5, chapter 0):
//  - theoretical bandwidth: 2 x memory clock x bus width / 8, from DeviceInfo;
//  - copy: cudaMemcpy device-to-device and grid-stride copy kernels with 4-, 8- and 16-byte
//    accesses over two buffers of max(1 GiB, 8x L2) each (smaller when memory is short), read +
//    written bytes counted; copy_kernel_gbs is the best kernel, copy_gbs the best of all;
//  - read: a read-only stream kernel (16-byte loads, 2-8 independent loads in flight per thread,
//    partial sums reduced once per block) over a few block shapes (a shape that cannot launch
//    on this device is skipped, never thrown for); the best is read_gbs, the ceiling every
//    GEMV/SYMV "% of ceiling" divides by;
//  - fp32_peak_gflops: SMs x FP32 lanes per SM (by compute capability, DeviceProfile) x 2 x clock;
//  - fp32_fma_gflops: the best of 8 and 16 independent FMA chains per thread;
//  - fp64_peak_gflops and fp64_fma_gflops: the same in double (FP64 lanes per SM by compute
//    capability; the FP64 tensor cores, which cuBLAS DGEMM uses on Hopper, are not counted);
//  - fp64_tensor_gflops: the FP64 tensor cores (mma.m16n8k8.f64 in registers, 4 and 8
//    independent accumulators per warp; lab/dmma.cu), where the device has them (sm_90 on): the
//    ceiling of a DGEMM that runs on them (fp64_gemm_gflops());
//  - sgemm_clock_mhz, dgemm_clock_mhz: the SM clock under the vendor's GEMM, 100 ms back to back
//    (lab/gemm_clock.cu): where a GEMM's power reaches the board's limit the clock falls below the
//    boost clock the microbenchmarks run at, and the GEMM ceilings scale with it.
// Every measurement checks its own result (see common/lab/). The whole takes well under 3 s.
// Under the sanitizers (WB_TEST_SMALL set) the measurement runs at the tiny scale: the numbers
// are then meaningless, but nothing waits minutes for them.
#include "ceilings.hpp"

#include "check.hpp"
#include "device.hpp"
#include "device_profile.hpp"
#include "memory_lab.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace wb {

namespace lab {

CeilingsMeasurement measure_ceilings(Scale s) {
    int device = 0;
    WB_CUDA(cudaGetDevice(&device));
    const DeviceInfo info = query_device(device);
    const DeviceProfile prof = device_profile_from_device(device);

    CeilingsMeasurement out;
    Ceilings& c = out.ceilings;
    c.theoretical_gbs = info.theoretical_bandwidth_gbs();
    c.fp32_peak_gflops = prof.fp32_peak_gflops();
    c.fp64_peak_gflops = prof.fp64_peak_gflops();
    c.sm_clock_mhz = prof.sm_clock_mhz;

    {
        StreamBuffers buf(stream_buffer_bytes(s));
        out.buffer_bytes = buf.bytes();
        const BenchOptions opt = bench_options(s, 2 * buf.bytes());

        out.rows.push_back(measure_memcpy_d2d(buf, opt));
        c.copy_memcpy_gbs = out.rows.back().rate;
        for (int access : {4, 8, 16}) {
            out.rows.push_back(measure_copy_kernel(buf, access, opt));
            c.copy_kernel_gbs = std::max(c.copy_kernel_gbs, out.rows.back().rate);
        }
        c.copy_gbs = std::max(c.copy_memcpy_gbs, c.copy_kernel_gbs);

        const BenchOptions ropt = bench_options(s, buf.bytes());
        const std::pair<int, int> shapes[] = {{128, 8}, {256, 4}, {256, 8}, {512, 4}, {1024, 2}};
        for (const auto& [threads, unroll] : shapes) {
            if (!read_kernel_fits(threads, unroll)) continue;  // cannot launch here: not a ceiling
            out.rows.push_back(measure_read_kernel(buf, threads, unroll, ropt));
            c.read_gbs = std::max(c.read_gbs, out.rows.back().rate);
        }
    }

    const int iters = s == Scale::tiny ? 256 : 16384;
    for (int chains : {8, 16}) {
        out.rows.push_back(measure_fma(chains, iters, bench_options(s, 0)));
        c.fp32_fma_gflops = std::max(c.fp32_fma_gflops, out.rows.back().rate);
    }
    // Parts with a reduced FP64 rate (1/24 to 1/64 of FP32) run fewer iterations, so the double
    // chains take about as long as the float ones.
    const bool slow_fp64 = 8 * prof.fp64_lanes_per_sm < prof.fp32_lanes_per_sm;
    const int iters64 = slow_fp64 ? std::max(4, iters / 16) : iters;
    for (int chains : {8, 16}) {
        out.rows.push_back(measure_fma(chains, iters64, bench_options(s, 0), true));
        c.fp64_fma_gflops = std::max(c.fp64_fma_gflops, out.rows.back().rate);
    }
    if (fp64_tensor_cores(device))
        for (int chains : {4, 8}) {
            out.rows.push_back(measure_dmma(chains, s == Scale::tiny ? 64 : 4096, bench_options(s, 0)));
            c.fp64_tensor_gflops = std::max(c.fp64_tensor_gflops, out.rows.back().rate);
        }
    if (s != Scale::tiny)  // the sanitizers' scale: no 100 ms loads (the shares stay 1)
        for (bool fp64 : {false, true}) {
            out.rows.push_back(measure_gemm_clock(fp64));
            (fp64 ? c.dgemm_clock_mhz : c.sgemm_clock_mhz) = out.rows.back().rate;
        }

    out.all_verified = std::all_of(out.rows.begin(), out.rows.end(), [](const CeilingRow& r) { return r.verified; });
    return out;
}

namespace {

/// The measurement of each device, made on first use. Entries are never removed, so references
/// handed out stay valid for the life of the process.
const CeilingsMeasurement& cached_measurement() {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<CeilingsMeasurement>> cache;
    int device = 0;
    WB_CUDA(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(device);
    if (it == cache.end())
        it = cache.emplace(device, std::make_unique<CeilingsMeasurement>(measure_ceilings(scale_for(false)))).first;
    return *it->second;
}

}  // namespace

const std::vector<CeilingRow>& measured_ceiling_rows() { return cached_measurement().rows; }

}  // namespace lab

const Ceilings& measured_ceilings() { return lab::cached_measurement().ceilings; }

}  // namespace wb
