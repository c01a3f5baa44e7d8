// device_profile.cpp — the GPUs the models know (declared in device_profile.hpp).
//
// Why a file of its own: the models (common/model/*) must run without a GPU ("predict before you
// measure"), so every number they need comes from a DeviceProfile, read from a live device here
// or taken from a named preset: `t10` (the dissertation's Tesla T10), `h100-sxm` and `h200`.
// Each preset value says where it comes from.
#include "device_profile.hpp"

#include "check.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace wb {

namespace {

/// Hopper DRAM latency used for Little's law, ns. Pointer-chasing microbenchmarks put an unloaded
/// HBM load on Hopper at roughly 500-600 ns; under a load that saturates the bus, queueing in the
/// memory system adds to that, and Little's law needs the *loaded* latency. 700 ns sits inside the
/// 600-800 ns range this implies; chapter 6 shows how the derived launch moves with it.
constexpr double kHopperLatencyNs = 700.0;

/// Hopper DRAM latency of an isolated load, ns: the middle of the 500-600 ns that pointer-chasing
/// microbenchmarks report for an unloaded HBM load on Hopper (above). A latency-bound kernel keeps
/// the bus far from saturated, so its dependent loads see about this, not the loaded figure.
/// scripts/probes/dram_latency.cu measures both on the card (a pointer chase after the harness's
/// flush, and the same under a saturating read stream). On an H200 it reads 355 ns idle, 448 ns
/// loaded and 147 ns for an L2 hit (docs/results/h200/dram-latency.txt): all three below these
/// estimates. The presets keep the estimates on purpose: with the measured figures the model's
/// re-prediction of the H200 ladders falls from 84% to 57% of GEMV's rows within 25% and from 85%
/// to 30% of SYMV's (scripts/model_accuracy.py --predict), i.e. in the walks the latency term
/// also stands for costs the model does not count yet (issue slots, address arithmetic, the
/// launch's ramp); docs/notes/gemv.md records the experiment.
constexpr double kHopperIdleLatencyNs = 550.0;

/// Hopper L2 hit latency, ns, averaged over the L2's two partitions: a hit in the SM's near half
/// takes about 260-280 cycles (microbenchmarks), one in the far half crosses between the halves
/// and takes longer; with addresses hashed over both, about 400 cycles at the 1980 MHz boost
/// clock. scripts/probes/dram_latency.cu measures it (the same chase over a buffer that fits in
/// the L2).
constexpr double kHopperL2LatencyNs = 200.0;

/// GH100's L2 lookups per ns over both partitions: Nsight Compute's peak for lts__t_tag_requests,
/// read off its percentage on an H200 (run 23, docs/notes/symv.md): the SYMV vector layout's
/// 8.64 M requests in 124.6 us at 43.0% of peak and the warp-rows layout's 21.25 M in 161.6 us at
/// 81.4% both give about 161 per ns. A hardware rate of the L2 (its slices' tag lookups
/// per clock), not a time of any launch. scripts/probes/l2_lookups.cu measured 134.7 one-sector
/// requests per ns from the SMs (run 31): it does not count each line's crossing between the two
/// partitions, which the model's request count includes, so it does not replace this figure.
constexpr double kHopperL2LookupsPerNs = 160.0;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// FP64 tensor-core FMAs per clock per SM by compute capability (mma.sync .f64): GA100 64 (19.5
/// TFLOP/s on an A100), GH100 128 (67 TFLOP/s on an H100 SXM; the probe scripts/probes/dmma_rate.cu
/// measured 66.5 on an H200), B200 64 (its FP64 tensor rate equals its FP64 lanes'); none elsewhere.
int fp64_mma_lanes(int major, int minor) {
    if (major == 8 && minor == 0) return 64;
    if (major == 9) return 128;
    if (major == 10 && minor == 0) return 64;
    return 0;
}

/// White's Tesla T10 (dissertation Ch. 2-3).
DeviceProfile t10() {
    DeviceProfile p;
    p.name = "Tesla T10 (preset)";
    p.card = "t10";
    p.sm_count = 30;                 // White §2.2: 30 SMs of 8 SPs
    p.max_blocks_per_sm = 8;         // White §3.3.2
    p.max_threads_per_sm = 1024;     // White §3.3.2
    p.max_threads_per_block = 512;   // White §2.5, Eq. 4.12
    p.regs_per_sm = 16384;           // White Eq. 3.7
    // White's Eq. 3.7 counts registers and shared memory without allocation granularity (compute
    // 1.3 really allocates 512-register and 512-byte units per block); the preset follows him so
    // the model reproduces his equations.
    p.reg_alloc_unit = 1;
    p.max_regs_per_thread = 124;     // compute capability 1.x limit
    p.smem_per_sm_bytes = 16384;     // White §2.2: 16 KB per SM
    p.smem_per_block_bytes = 16384;
    p.smem_alloc_unit = 1;
    p.warp_size = 32;
    p.transaction_threads = 16;      // White §3.3.1: accesses are issued per half-warp (HW)
    p.segment_bytes = 32;            // smallest transaction; 64- and 128-byte ones exist too
    p.partitions = 8;                // White §3.1, Fig. 3.1: 8 partitions of 256 B
    p.partition_bytes = 256;
    p.banks = 16;                    // White §3.2, Fig. 3.4
    p.l2_bytes = 0;                  // no L2 cache for global memory on the 200 series
    p.sm_clock_mhz = 1330;           // White §2.3: "240 cores, each with a clock speed of 1.33GHz"
    p.fp32_lanes_per_sm = 8;         // 8 SPs per SM
    // White §2.2 counts 8 SPs per SM; compute 1.3 adds one double-precision FMA unit per SM: 30 x 2
    // x 1.33 GHz = 79.8 GFLOP/s (NVIDIA quotes 78 for the 1.296 GHz Tesla C1060, the same chip).
    p.fp64_lanes_per_sm = 1;
    // White §3.5.2: 792 MHz memory clock, 512-bit bus, double data rate: 2 x 792e6 x 64 B =
    // 101.4 GB/s, which he quotes as "approximately 94GB/s" (GiB/s).
    p.bandwidth_gbs = 2.0 * 792e6 * (512 / 8) / 1e9;
    // White §4.5: "each global memory access takes approximately 400-800 clock cycles"; his
    // 12800-thread bound (Eq. 4.14) uses 400 cycles: 400 / 1.33 GHz = 301 ns.
    p.latency_ns = 400.0 / 1.33;
    p.idle_latency_ns = p.latency_ns;  // White uses one figure
    p.l2_latency_ns = 0;               // no L2 for global memory
    p.memory_bytes = 4.0 * kGiB;     // 4 GB of GDDR3 per T10 GPU (Tesla S1070 and C1060 datasheets)
    p.live = false;
    return p;
}

/// Hopper (GH100) values shared by H100 SXM and H200.
DeviceProfile hopper() {
    DeviceProfile p;
    p.sm_count = 132;
    p.max_blocks_per_sm = 32;
    p.max_threads_per_sm = 2048;
    p.max_threads_per_block = 1024;
    p.regs_per_sm = 65536;
    p.reg_alloc_unit = 256;              // registers per warp, allocated in 256-register units
    p.max_regs_per_thread = 255;
    p.smem_per_sm_bytes = 228 * 1024;    // 233472: the largest carveout
    p.smem_per_block_bytes = 227 * 1024; // 232448 with opt-in; 1 KB per block is reserved
    p.smem_alloc_unit = 128;
    p.warp_size = 32;
    p.transaction_threads = 32;
    p.segment_bytes = 32;                // 32-byte sectors
    p.partitions = 0;                    // addresses are hashed across memory channels
    p.partition_bytes = 0;
    p.banks = 32;
    p.sm_clock_mhz = 1980;               // boost clock
    p.fp32_lanes_per_sm = 128;
    p.fp64_lanes_per_sm = 64;            // GH100: 64 FP64 lanes per SM (H100 SXM: 34 TFLOP/s FP64)
    p.fp64_mma_lanes_per_sm = fp64_mma_lanes(9, 0);
    p.latency_ns = kHopperLatencyNs;
    p.idle_latency_ns = kHopperIdleLatencyNs;
    p.l2_latency_ns = kHopperL2LatencyNs;
    p.l2_lookups_per_ns = kHopperL2LookupsPerNs;
    // Chapter 0 on an H200 (docs/results/h200/ch00_memory_ceilings.csv): the copy kernel's 3917
    // GB/s of reads and writes against the read kernel's 4487.
    p.copy_over_read = 3917.0 / 4487.0;
    p.live = false;
    return p;
}

DeviceProfile h100_sxm() {
    DeviceProfile p = hopper();
    p.name = "H100 SXM5 (preset)";
    p.card = "h100-sxm";
    p.l2_bytes = 50LL * 1024 * 1024;     // 50 MB L2
    p.bandwidth_gbs = 3350;              // HBM3, datasheet
    // FP64 tensor cores (DMMA): 67 TFLOP/s on the datasheet, 132 SMs x 256 flops per clock at the
    // 1980 MHz boost clock = 66.9.
    p.fp64_tensor_gflops = 66900;
    p.memory_bytes = 80.0 * kGiB;        // datasheet "80 GB"; a live H100 reports 79.2 GiB in total
    return p;
}

DeviceProfile h200() {
    DeviceProfile p = hopper();
    p.name = "H200 (preset)";
    p.card = "h200";
    p.l2_bytes = 60LL * 1024 * 1024;     // 60 MB, as the reference H200 reports
    // HBM3e, datasheet 4.8 TB/s (the memory clock, 3201 MHz x 6016-bit bus x 2, gives 4814 GB/s).
    p.bandwidth_gbs = 4800;
    // FP64 tensor cores (DMMA): measured on an H200, 66.5 TFLOP/s (scripts/probes/dmma_rate.cu,
    // mma.sync .f64; the datasheet's 67).
    p.fp64_tensor_gflops = 66500;
    // The SM clock under the vendor's GEMM (chapter 0 on an H200, the ceilings table): an SGEMM
    // keeps the 1980 MHz boost clock, a DGEMM reaches the board's 700 W limit at 1710 MHz.
    p.sgemm_clock_mhz = 1980;
    p.dgemm_clock_mhz = 1710;
    // Datasheet "141 GB" (NVIDIA's GB of memory are GiB here: a live H200 reports 140.4 GiB in
    // total, about 139 GiB of it free).
    p.memory_bytes = 141.0 * kGiB;
    return p;
}

/// FP32 lanes per SM by compute capability (what cudaDeviceProp does not say).
int fp32_lanes(int major, int minor) {
    if (major == 1) return 8;
    if (major == 2) return minor == 0 ? 32 : 48;
    if (major == 3) return 192;
    if (major == 5) return 128;
    if (major == 6) return minor == 0 ? 64 : 128;
    if (major == 7) return 64;
    if (major == 8) return minor == 0 ? 64 : 128;
    return 128;  // 9.x, 10.x, 12.x
}

/// FP64 lanes per SM by compute capability (FP64 CUDA cores, not tensor cores): the full-rate
/// data-centre parts (1/2 of FP32) and the reduced rates of the others (1/24 to 1/64).
int fp64_lanes(int major, int minor) {
    if (major == 1) return minor >= 3 ? 1 : 0;        // one double unit per SM from compute 1.3
    if (major == 2) return minor == 0 ? 16 : 4;       // GF100 1/2, GF10x 1/12
    if (major == 3) return minor >= 5 ? 64 : 8;       // GK110/GK210 1/3, GK10x 1/24
    if (major == 5) return 4;                         // Maxwell 1/32
    if (major == 6) return minor == 0 ? 32 : 4;       // GP100 1/2, GP10x 1/32
    if (major == 7) return minor == 0 ? 32 : 2;       // GV100 1/2, Xavier and Turing 1/32
    if (major == 8) return minor == 0 ? 32 : 2;       // GA100 1/2, GA10x and AD10x 1/64
    if (major == 9) return 64;                        // GH100 1/2
    if (major == 10) return minor == 0 ? 64 : 2;      // B200 64; other Blackwell parts reduced
    return 2;                                         // 11.x, 12.x: consumer and embedded
}

int attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    WB_CUDA(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

}  // namespace

std::vector<std::string> device_preset_names() { return {"t10", "h100-sxm", "h200"}; }

std::string card_of_name(const std::string& device_name) {
    const auto has = [&](const char* s) { return device_name.find(s) != std::string::npos; };
    if (has("H200")) return "h200";
    if (has("H100") && (has("SXM") || has("HBM3"))) return "h100-sxm";
    return "";
}

DeviceProfile device_preset(const std::string& name) {
    if (name == "t10") return t10();
    if (name == "h100-sxm") return h100_sxm();
    if (name == "h200") return h200();
    std::string known;
    for (const auto& n : device_preset_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("device_preset: name (\"" + name + "\") must be one of: " + known);
}

DeviceProfile device_profile_from_device(int device) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        count = 0;
    }
    if (device < 0 || device >= count)
        throw std::invalid_argument("device_profile_from_device: device (" + std::to_string(device) +
                                    ") must be >= 0 and < the number of CUDA devices (" +
                                    std::to_string(count) + ")");
    cudaDeviceProp prop{};
    WB_CUDA(cudaGetDeviceProperties(&prop, device));

    DeviceProfile p;
    p.name = prop.name;
    p.card = card_of_name(p.name);
    p.sm_count = prop.multiProcessorCount;
    p.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    p.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    p.max_threads_per_block = prop.maxThreadsPerBlock;
    p.regs_per_sm = prop.regsPerMultiprocessor;
    p.reg_alloc_unit = 256;              // per warp, every architecture since Kepler
    p.max_regs_per_thread = prop.major >= 3 && !(prop.major == 3 && prop.minor == 0) ? 255 : 63;
    p.smem_per_sm_bytes = static_cast<int>(prop.sharedMemPerMultiprocessor);
    // The most one block may have (opt-in); the per-block reservation is the difference to the
    // SM's total, which occupancy() charges every block. Keep that identity exact.
    const long long optin = static_cast<long long>(prop.sharedMemPerBlockOptin);
    const long long reserved = static_cast<long long>(prop.reservedSharedMemPerBlock);
    p.smem_per_block_bytes = static_cast<int>(optin > 0 ? optin : prop.sharedMemPerBlock);
    if (reserved > 0 && p.smem_per_block_bytes + reserved > p.smem_per_sm_bytes)
        p.smem_per_block_bytes = static_cast<int>(p.smem_per_sm_bytes - reserved);
    p.smem_alloc_unit = prop.major >= 8 ? 128 : 256;
    p.warp_size = prop.warpSize;
    p.transaction_threads = prop.warpSize;
    p.segment_bytes = 32;
    p.partitions = 0;
    p.partition_bytes = 0;
    p.banks = 32;
    p.l2_bytes = prop.l2CacheSize;
    // CUDA 13 removed cudaDeviceProp::clockRate and ::memoryClockRate: use the attributes (kHz).
    p.sm_clock_mhz = attribute(cudaDevAttrClockRate, device) / 1000.0;
    const double mem_khz = attribute(cudaDevAttrMemoryClockRate, device);
    const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    p.bandwidth_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    p.fp32_lanes_per_sm = fp32_lanes(prop.major, prop.minor);
    p.fp64_lanes_per_sm = fp64_lanes(prop.major, prop.minor);
    p.fp64_mma_lanes_per_sm = fp64_mma_lanes(prop.major, prop.minor);
    p.latency_ns = kHopperLatencyNs;     // not queryable; the Hopper figure (see above)
    p.idle_latency_ns = kHopperIdleLatencyNs;
    p.l2_latency_ns = kHopperL2LatencyNs;
    p.l2_lookups_per_ns = prop.major == 9 ? kHopperL2LookupsPerNs : 0;  // measured on GH100 only
    p.copy_over_read = 3917.0 / 4487.0;  // the H200's (a chapter that measures its ceilings sets its own)
    p.fp64_tensor_gflops = p.fp64_mma_peak_gflops();  // the tensor cores' FMAs per clock (fp64_mma_lanes)
    p.memory_bytes = static_cast<double>(prop.totalGlobalMem);
    p.live = true;
    return p;
}

}  // namespace wb
