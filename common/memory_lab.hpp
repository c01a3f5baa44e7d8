/// \file memory_lab.hpp
/// \brief Chapter 0's experiments on the machine, as reusable functions: the stream measurements
///        behind the ceilings (copy, read, FMA), coalescing, partition camping (White §3.1),
///        a leading-dimension test, shared-memory bank conflicts (White §3.2) and host transfers
///        (White §3.4). The chapter binary prints them; the gpu/perf tests assert on them.
///        Each experiment is its own file under common/lab/ (named in each section below);
///        lab/lab_internal.cuh holds what they share.
///
/// Every experiment has a prediction part (plain host arithmetic on a DeviceProfile, through
/// common/model.hpp, so it runs without a GPU) and a measuring part (needs a device). Rows carry
/// both; measured fields are NaN until measured. Every kernel sums what it reads into per-block
/// partial sums that the host checks against a closed form (`verified`), so the compiler cannot
/// drop the loads and a wrong index cannot pass unnoticed. Inputs follow one pattern,
/// element i = 1 + (i mod 8): small integers whose float sums are exact.
///
/// Sizes and repetitions come from a Scale: `full` for the chapter (>= 8x L2 working sets, every
/// size White used), `quick` for perf tests and smoke runs, `tiny` for the sanitizers (correctness
/// only: timings at that scale mean nothing).
#pragma once

#include "bench.hpp"
#include "ceilings.hpp"
#include "device_profile.hpp"
#include "transfer_model.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace wb::lab {

/// How big and how long an experiment runs.
enum class Scale {
    full,   ///< the chapter: working sets >= 8x L2, White's full tables, 4 KB..1 GB transfers
    quick,  ///< perf tests, --quick: fewer points, smaller (still > 4x L2) working sets
    tiny,   ///< sanitizer runs: a few MB, correctness only
};

/// "full", "quick" or "tiny".
const char* scale_name(Scale s);

/// Scale for a test or a chapter run: `tiny` when the environment sets WB_TEST_SMALL (what
/// tests/support/sanitize.sh does), else `quick` when quick, else `full`.
Scale scale_for(bool quick);

/// Benchmark options for one timed call at this scale: warm-up, a median of several calls;
/// the L2 is flushed between calls only when `working_set_bytes` < 4x the L2 (bigger sets
/// evict themselves). `expected_ms` (when known) lowers the repetition count of long calls.
BenchOptions bench_options(Scale s, std::size_t working_set_bytes, double expected_ms = 0);

/// Sum over i in [0, count) of 1 + ((start + i x stride) mod 8): what a kernel that reads
/// elements start, start + stride, ... of the pattern must find. count, start, stride >= 0.
double pattern_sum(long long start, long long count, long long stride);

/// Bytes each of `buffers` device buffers may have: `want`, reduced to fit the free device memory
/// (cudaMemGetInfo, keeping 512 MiB or 10% free), rounded down to 1 MiB. Throws
/// std::runtime_error naming `who` when even `at_least` bytes each do not fit.
std::size_t fit_device_bytes(const char* who, std::size_t want, std::size_t at_least, int buffers);

// ================================================================================================
// Ceilings: copy, read and FMA measurements (measured_ceilings() in ceilings.cu uses these).
// lab/streams.cu (scales, pattern, buffers, copy and read kernels, read floor), lab/fma.cu (FMA)
// ================================================================================================

/// One line of the ceilings table.
struct CeilingRow {
    std::string what;      ///< "memcpy D2D", "copy kernel 16 B", "read kernel", "FMA", "FP64 FMA"
    std::string shape;     ///< launch shape, e.g. "256 thr x 1056 blk, 4 loads"
    double amount = 0;     ///< bytes counted (read + write for copies) or flops
    double ms = 0;         ///< median time of one call
    double rate = 0;       ///< GB/s or GFLOP/s
    bool verified = false; ///< the result was checked against its closed form
};

/// Two device buffers of the same size for stream measurements; `src` holds the pattern.
class StreamBuffers {
public:
    /// `bytes` (a multiple of 16, > 0) each; throws std::invalid_argument otherwise.
    explicit StreamBuffers(std::size_t bytes);
    ~StreamBuffers();
    StreamBuffers(const StreamBuffers&) = delete;
    StreamBuffers& operator=(const StreamBuffers&) = delete;
    std::size_t bytes() const { return bytes_; }
    std::size_t floats() const { return bytes_ / sizeof(float); }
    float* src() { return src_; }
    float* dst() { return dst_; }
    /// Sum of every float of the buffer at `p` (one of the two) on the device, in double.
    double device_sum(const float* p);

private:
    std::size_t bytes_ = 0;
    float* src_ = nullptr;
    float* dst_ = nullptr;
    double* partials_ = nullptr;
};

/// Bytes each stream buffer gets at this scale: max(1 GiB, 8x L2) for full, 256 MiB (at least
/// 4x L2) for quick, 8 MiB for tiny; reduced to fit free memory (two buffers).
std::size_t stream_buffer_bytes(Scale s);

/// cudaMemcpyAsync device to device of the whole buffer; read + write bytes counted.
CeilingRow measure_memcpy_d2d(StreamBuffers& buf, const BenchOptions& opt);
/// Grid-stride copy kernel with `access_bytes` (4, 8 or 16) per load/store, 4 in flight.
CeilingRow measure_copy_kernel(StreamBuffers& buf, int access_bytes, const BenchOptions& opt);
/// Read-only stream: 16-byte loads, `unroll` (2, 4 or 8) independent loads per thread and step,
/// `threads` per block (multiple of 32, <= 1024), exactly the resident blocks; reads bytes counted.
/// Throws std::runtime_error when the shape cannot launch (see read_kernel_fits()). `streaming`:
/// ld.global.cs loads instead of the read-only path; `bytes` (0: the whole buffer; else a multiple
/// of 16 within it): read only the first `bytes`.
CeilingRow measure_read_kernel(StreamBuffers& buf, int threads, int unroll, const BenchOptions& opt,
                               bool streaming = false, std::size_t bytes = 0);
/// The read floor of `bytes` (> 0; rounded up to 16): the fastest of a few read-kernel shapes,
/// each with cached and with streaming loads, over a buffer of that size, timed with `opt`
/// (flush included). No kernel that must read those bytes once can be much faster; the GEMV
/// chapters print it beside each size ("read A only").
CeilingRow measure_read_floor(std::size_t bytes, const BenchOptions& opt);
/// Whether a block of `threads` threads of the read kernel with `unroll` is resident on an SM of
/// the current device (cudaOccupancy... > 0). The kernel is compiled with __launch_bounds__(1024),
/// so every valid shape fits on every supported GPU; measure_ceilings() still skips a shape that
/// does not, instead of throwing. Same argument rules as measure_read_kernel().
bool read_kernel_fits(int threads, int unroll);
/// FMA throughput: `chains` (8 or 16) independent FMA chains per thread, `iters` (multiple of 4,
/// > 0) FMAs per chain, resident blocks of 256 threads; 2 flops per FMA. In float (row "FMA"), or
/// in double when `fp64` (row "FP64 FMA"). Verified against the same recurrence computed on the
/// host (std::fma rounds once, like the device's FMA).
CeilingRow measure_fma(int chains, int iters, const BenchOptions& opt, bool fp64 = false);

/// True where the device has FP64 tensor cores of mma.m16n8k8.f64 (compute capability 9.0 on).
bool fp64_tensor_cores(int device);
/// The FP64 tensor cores' rate (lab/dmma.cu): a full grid of warps issuing `chains` (4 or 8)
/// independent mma.sync.m16n8k8.f64 per round, `iters` rounds, operands in registers; the
/// result checked exactly. Throws std::invalid_argument on bad arguments or a device without them.
CeilingRow measure_dmma(int chains, int iters, const BenchOptions& opt);
/// The SM clock under a dense GEMM's sustained power (lab/gemm_clock.cu): the vendor's GEMM in
/// double (`fp64`) or float, n x n x n, back to back for about `load_ms`, then a one-warp kernel
/// reads clock64() against %globaltimer; the median of 3 rounds, in MHz (row "SM clock, DGEMM
/// load" / "SGEMM load"). Throws std::invalid_argument when n < 64 or load_ms <= 0.
CeilingRow measure_gemm_clock(bool fp64, int n = 4096, double load_ms = 100);

/// The whole ceilings measurement of the current device: theoretical bandwidth, memcpy, copy
/// kernels (4/8/16 B), read kernel over a few shapes (a shape that cannot launch on this device
/// is skipped, never thrown for), FP32 and FP64 peaks from the profile, FMA microbenchmarks in
/// float and double. Defined in ceilings.cu.
struct CeilingsMeasurement {
    Ceilings ceilings;
    std::vector<CeilingRow> rows;
    std::size_t buffer_bytes = 0;  ///< bytes of each stream buffer
    bool all_verified = false;
};
CeilingsMeasurement measure_ceilings(Scale s);

/// The rows behind measured_ceilings() (measured on first use, cached per device). ceilings.cu.
const std::vector<CeilingRow>& measured_ceiling_rows();

// ================================================================================================
// Coalescing: a warp reads 32 floats with a stride, or contiguous floats from a misaligned start
// lab/coalescing.cu
// ================================================================================================

struct CoalescingRow {
    int stride = 1;             ///< elements between neighbouring threads
    int offset = 0;             ///< elements the first thread is past a 256-byte boundary
    long long sectors = 0;      ///< predicted segments per warp request (model::warp_access)
    double efficiency = 0;      ///< predicted useful / moved bytes
    double predicted_gbs = 0;   ///< efficiency x the read ceiling (or the profile's bandwidth)
    double ms = NAN;            ///< measured time
    double useful_gbs = NAN;    ///< bytes the threads asked for / time
    /// Sectors the warp requests ask the L2 for (useful bytes / efficiency) / time. This is the
    /// traffic the per-request sector model counts; it can exceed the DRAM ceiling when the L2
    /// serves a sector twice (a misaligned request's extra sector is the next warp's first one).
    double moved_gbs = NAN;
    /// Distinct 32-byte sectors of the whole read (the least DRAM must deliver) / time. Below the
    /// read ceiling on a DRAM-bound row means DRAM moved more than the sectors touched (fetches
    /// of sector pairs); it never exceeds the ceiling unless something was served from cache.
    double footprint_gbs = NAN;
    bool verified = false;
};

/// Bytes of the distinct 32-byte sectors holding the floats offset + i x stride, i < count (offset
/// and the floats counted in elements from a 32-byte-aligned base): the least DRAM must deliver
/// for such a read, however the requests are formed. stride >= 1, else std::invalid_argument.
double distinct_sector_bytes(std::size_t offset, std::size_t count, int stride);

/// The L2 fetch granularity the driver reports for the current device (cudaLimitMaxL2FetchGranularity,
/// bytes: how much the L2 may fetch from DRAM per miss; a hint), or 0 when the limit is not supported.
int l2_fetch_granularity_bytes();

/// The strides and offsets at this scale: strides 1..32 (powers of two), then stride 1 with
/// offsets 1, 2, 4, 8, 16, 32 elements (fewer for quick and tiny).
std::vector<CoalescingRow> predict_coalescing(const DeviceProfile& dev, Scale s, double read_ceiling_gbs);
/// Measures every predicted row: a read-only kernel over a fixed footprint (512 MiB full) reading
/// every stride-th element, so the bytes moved stay the same while the useful bytes shrink.
std::vector<CoalescingRow> run_coalescing(const DeviceProfile& dev, Scale s, double read_ceiling_gbs);

// ================================================================================================
// Partition camping (White §3.1, Listing 3.1, Table 3.1) and a leading-dimension test
// lab/partitions.cu
// ================================================================================================

struct PartitionRow {
    int v = 0;                    ///< values each thread reads
    int partitions = 8;           ///< 256-byte columns (of a 2 KB row) the blocks are spread over
    double predicted_slowdown = 1;///< vs 8 partitions: 8/p on a linear map (t10), 1 when hashed
    double ms = NAN;
    double gbs = NAN;             ///< bytes read / time
    /// Bytes the whole grid reads between two reads of the same address (the smallest over the
    /// groups): every block cycles through rows of its own, and each call continues where the
    /// previous one stopped, so an address comes back only after this much other data. Far above
    /// the L2 (the full scale: about 2 GiB for one partition, 34x a 60 MB L2) the L2 cannot serve
    /// the rereads and `gbs` is DRAM bandwidth; NaN when not measured.
    double reuse_bytes = NAN;
    bool verified = false;
};

/// White's v values (512..16384; fewer for quick/tiny) x partitions {8, 4, 2, 1}.
std::vector<PartitionRow> predict_partition_camping(const DeviceProfile& dev, Scale s);
/// The experiment on this GPU: rows of 512 floats (2 KB = 8 partitions of 256 B, as on the T10);
/// the resident blocks of 256 threads are split into `partitions` groups, group p reads only
/// floats [64p, 64p + 64) of each row, the blocks of a group neighbouring rows (a warp reads 128
/// contiguous bytes), v rows per thread, streaming (evict-first) loads through a region of 16 GiB
/// (full; 2 GiB quick; less when memory is short). Each block cycles through rows of its own (the
/// rows a group covers are a multiple of its step), and every call starts where the previous one
/// stopped, so one column of one partition (2 GiB at full scale) passes between two reads of an
/// address: `reuse_bytes`. (A first version, with a 2 GiB region and rows that passed from block
/// to block at every wrap, measured one partition up to 25% above the DRAM ceiling at v = 16384:
/// the L2 had served part of the rereads.)
std::vector<PartitionRow> run_partition_camping(const DeviceProfile& dev, Scale s);

struct LdaRow {
    long long m = 0, n = 0, lda = 0;  ///< column-major m x n matrix with leading dimension lda
    int partitions_touched = 0;       ///< predicted partitions the resident blocks start on (t10)
    double predicted_slowdown = 1;    ///< vs all partitions (1 when addresses are hashed)
    double ms = NAN;
    double gbs = NAN;                 ///< m n 4 bytes / time
    bool verified = false;
};

/// Power-of-two m = lda against lda = m + 32 (and m + 1, an unaligned one), n chosen so the
/// matrix is about 512 MiB (less for quick/tiny).
std::vector<LdaRow> predict_lda(const DeviceProfile& dev, Scale s);
/// Column sums (GEMV-T with x = 1): one block of 256 threads per column, all blocks starting at
/// row 0 at once, the access pattern White's Fig. 4.11a shows camping on partition 0.
std::vector<LdaRow> run_lda(const DeviceProfile& dev, Scale s);

// ================================================================================================
// Shared-memory bank conflicts (White §3.2, Listing 3.2, Table 3.2) and the +1 padding fix
// lab/banks.cu
// ================================================================================================

struct BankRow {
    int v = 0;                   ///< values each thread reads from shared memory
    int banks = 32;              ///< distinct banks one request touches
    bool padded = false;         ///< the 1-bank pattern on a tile padded by one column
    int ways = 1;                ///< predicted conflict ways (model::bank_conflict_ways)
    double ms = NAN;
    double smem_gbs = NAN;       ///< shared-memory bytes read / time
    double slowdown = NAN;       ///< time / time of the conflict-free row of the same v
    bool verified = false;
};

/// White's v values x banks {request width ... 1} (32..1 today, 16..1 on the t10), plus the
/// padded row.
std::vector<BankRow> predict_bank_conflicts(const DeviceProfile& dev, Scale s);
/// A 64 x 64 (or 64 x 65 padded) float tile in shared memory; thread `lane` reads row lane + u,
/// column (lane & (banks - 1)) + u for u = 0..31 and again, v reads in all (volatile loads, so
/// every read is issued): banks distinct banks per warp, 32 / banks ways.
std::vector<BankRow> run_bank_conflicts(const DeviceProfile& dev, Scale s);

// ================================================================================================
// Host <-> device transfers (White §3.4, Eq. 3.14-3.15)
// lab/transfers.cu
// ================================================================================================

struct TransferRow {
    bool pinned = false;     ///< page-locked (cudaMallocHost) or pageable (new[]) host memory
    bool h2d = true;         ///< host to device, or device to host
    double bytes = 0;
    double ms = NAN;
    double gbs = NAN;
    double t10_ms = 0;       ///< White's T10 model (pageable and pinned alike: he fitted one)
};

/// 4 KB .. 1 GB (full) or 4 KB .. 64 MB (quick) in powers of two, 4 KB, 64 KB, 1 MB (tiny).
std::vector<double> transfer_sizes(Scale s);
/// Passes run_transfers() makes over every (kind, size): 3 (full, quick) or 1 (tiny).
int transfer_passes(Scale s);
/// "pinned H2D", "pageable D2H", ...
std::string transfer_kind(bool pinned, bool h2d);
/// Rows for every kind x size, predictions only.
std::vector<TransferRow> predict_transfers(Scale s);
/// cudaMemcpyAsync between a device buffer and pinned or pageable host memory, timed with events:
/// transfer_passes() passes over all rows, each a median of several copies (wb::benchmark); a
/// row's `ms` is the median of its passes (copies expected to take > 50 ms: first pass only).
std::vector<TransferRow> run_transfers(Scale s);
/// White's model fitted to the measured rows of one kind (TransferModel::fit with defaults).
TransferModel fit_transfers(const std::vector<TransferRow>& rows, bool pinned, bool h2d);

// ================================================================================================
// Launches, graph nodes and host round trips (the fixed costs of an iterative algorithm: CG)
// lab/overheads.cu
// ================================================================================================

struct OverheadTimes {
    double launch_us = NAN;       ///< per kernel, launched back to back into one stream (a chain of
                                  ///< dependent kernels: what each later kernel waits for)
    double launch_sync_us = NAN;  ///< one launch and a stream synchronization, each time
    double graph_node_us = NAN;   ///< per kernel of a replayed CUDA graph of kGraphNodes kernels
    double round_trip_us = NAN;   ///< a kernel, a 4-byte copy to pinned host memory and a stream
                                  ///< synchronization: a scalar brought to the host
    int reps = 0;                 ///< repetitions of each
    bool verified = false;        ///< every kernel ran (a counter the kernels increment)
};

/// Kernels per graph in measure_overheads().
constexpr int kGraphNodes = 8;

/// Repetitions measure_overheads() makes of each (20000 full, 2000 quick, 200 tiny).
int overhead_reps(Scale s);

/// Times each overhead on the current device with the host clock, median of 5 batches of `reps`
/// (one-thread kernels that increment a device counter; nothing else runs).
OverheadTimes measure_overheads(int reps);

// ================================================================================================
// White's published T10 figures (dissertation Tables 3.1, 3.2, §3.4); t10_transfer_model: lab/transfers.cu
// ================================================================================================

namespace white {
inline constexpr int kV[6] = {512, 1024, 2048, 4096, 8192, 16384};  ///< rows of Tables 3.1, 3.2
inline constexpr int kPartitions[4] = {8, 4, 2, 1};
/// Table 3.1(a), ms, and 3.1(b), GB/s: rows kV, columns kPartitions.
inline constexpr double kTable31Ms[6][4] = {{0.4, 0.9, 1.7, 3.4},   {0.9, 1.7, 3.4, 6.7},
                                            {1.7, 3.4, 6.8, 13.5},  {3.3, 6.8, 13.5, 26.9},
                                            {6.8, 13.4, 26.5, 53.8}, {13.7, 26.5, 52.3, 107.5}};
inline constexpr double kTable31Gbs[6][4] = {{69.4, 34.4, 17.2, 8.7}, {68.4, 34.6, 17.2, 8.7},
                                             {69.9, 34.5, 17.2, 8.7}, {71.7, 34.4, 17.4, 8.7},
                                             {69.6, 35.1, 17.7, 8.7}, {68.5, 35.4, 17.9, 8.7}};
inline constexpr int kBanks[5] = {16, 8, 4, 2, 1};
/// Table 3.2(a), ms, and 3.2(b), GB/s: rows kV, columns kBanks.
inline constexpr double kTable32Ms[6][5] = {{0.5, 0.5, 0.6, 0.9, 1.5},    {0.9, 1.0, 1.3, 1.8, 2.9},
                                            {1.7, 1.9, 2.5, 3.6, 5.8},    {3.4, 3.8, 5.0, 7.2, 11.5},
                                            {6.6, 7.6, 9.9, 14.3, 23.0},  {12.9, 15.1, 19.6, 28.5, 46.0}};
inline constexpr double kTable32Gbs[6][5] = {{65.1, 58.6, 45.8, 31.8, 19.9}, {66.6, 60.4, 46.5, 32.2, 20.1},
                                             {67.7, 61.4, 47.1, 32.6, 20.2}, {69.1, 61.7, 47.3, 32.7, 20.3},
                                             {71.2, 61.9, 47.6, 32.8, 20.4}, {72.4, 62.1, 47.7, 32.9, 20.4}};
/// §3.4.1-3.4.2: maximum and average percent error of White's transfer fits on the T10.
inline constexpr double kH2DMaxErrPct = 5.0, kH2DAvgErrPct = 1.0;
inline constexpr double kD2HMaxErrPct = 8.9, kD2HAvgErrPct = 1.4;
/// White's fitted T10 model (§3.4.1: Tx 3.5 GB/s; c0 525 / 3.2 / 3.2 ms/GB and c1 0.014 /
/// 0.061 / 0.19 ms below 256 KB / up to 1 MB / above; §3.4.2: Tx 3.1 GB/s; c0 210 / 6.9 ms/GB,
/// c1 0.02 / 0.21 ms below / above 1 MB). GB = 1e9 bytes; KB, MB = 1024, 1024^2 bytes.
TransferModel t10_transfer_model(bool h2d);
}  // namespace white

}  // namespace wb::lab
