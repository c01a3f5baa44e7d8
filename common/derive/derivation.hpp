/// \file derive/derivation.hpp
/// \brief Chapter 6: launch parameters derived from the machine, not read off a sweep. Each rule is
///        one host function whose inputs are a DeviceProfile (a live GPU or a preset), the shape
///        and the precision; each returns the value it sets and one line naming the rule and the
///        metric that bound it, so the chapter prints the derivation, not only its result.
///
/// The rules, in the order of White's Step 5 (dissertation §4.5), generalized to today's GPUs:
///  1. Saturate the memory bus: Little's law, bytes in flight = bandwidth x latency (on the `t10`
///     preset White's Eq. 4.14, 12800 active threads) -> threads, blocks, loads per thread.
///  2. Maximize shared-memory (and register) reuse: the widest tile that fits.
///  3. Minimize shared memory per block (more resident blocks).
///  4. Maximize the memory partitions touched (the `t10` preset only: today's GPUs hash addresses).
///  5. Minimize fragmented blocks: the tail wave, and KBLAS's blocks per row Y against it.
/// Occupancy (resident blocks per SM with register and shared-memory granularity) is the metric
/// rules 1, 3 and 5 read. Plain host arithmetic: unit-tested without a GPU (tests/cpu/test_derive.cpp).
#pragma once

#include "device_profile.hpp"

#include <string>
#include <vector>

namespace wb::derive {

/// One derived launch parameter: its value, the rule that set it and the metric that bound it.
struct Derived {
    std::string parameter;  ///< "block_x", "Y", "tile_m", ...
    long long value = 0;
    std::string rule;       ///< "Little's law (rule 1)", "waves (rule 5, KBLAS Y)", ...
    std::string metric;     ///< the numbers that bound it: "Y = 3: 0.33 waves of 264 slots without it, 1.00 with it"
    bool sets_launch = true;  ///< false for a metric the rules derive on the way (bytes in flight,
                              ///< blocks per SM, partitions touched): printed, not part of the launch
};

/// A whole derivation: the parameters in the order the rules set them.
struct Derivation {
    std::string op;       ///< "gemv", ...
    std::string shape;    ///< "N 4096 x 4096 float"
    std::vector<Derived> params;
    /// The derivation's estimate of the derived launch's time, seconds, where it makes one (GEMM's
    /// tiles: the busiest SM's main loop or the bytes, plus a split's second pass); 0 otherwise.
    double seconds = 0;
    /// The value of `parameter`; throws std::invalid_argument naming it when absent.
    long long value(const std::string& parameter) const;
    /// "block_x=8 block_y=32 U=2 Y=1": every parameter that sets the launch, in order.
    std::string launch() const;
};

/// The profile the tuned steps' default launches are derived for: the current CUDA device's, read
/// once per device, or without a GPU the `h200` preset (the card the workbook's results come
/// from), so that predict-only runs pick as they would there. `*live` (when not null): whether a
/// device was read. Thread-safe.
const DeviceProfile& default_profile(bool* live = nullptr);

// ------------------------------------------------------------------------------------------------
// The op-independent rules
// ------------------------------------------------------------------------------------------------

/// Rule 1, Little's law: bytes in flight each SM must keep to saturate DRAM, bandwidth x latency /
/// SMs (GB/s x ns = bytes). On the `t10` preset 101.4 GB/s x 301 ns / 30 = 1.0 KB; on the `h200`
/// preset 4800 GB/s x 700 ns / 132 = 25.5 KB.
Derived bytes_in_flight_per_sm(const DeviceProfile& dev);

/// Rule 1 in threads: the active threads the bus needs. With partitions (the `t10` preset) White's
/// Eq. 4.14: latency in cycles / 8 cycles per warp request per partition x partitions x warp size
/// (400 / 8 x 8 x 32 = 12800); without (today's GPUs) Little's law over `bytes_per_thread` each
/// thread keeps in flight. Throws std::invalid_argument on bytes_per_thread < 1.
Derived active_threads_needed(const DeviceProfile& dev, int bytes_per_thread);

/// Rule 1 per thread: the smallest power of two of loads of `load_bytes` each of
/// `resident_threads_per_sm` threads keeps in flight so that the SM holds `margin` x Little's law,
/// at most `max_loads` (the register budget). Throws std::invalid_argument on arguments < 1.
Derived loads_per_thread(const DeviceProfile& dev, int resident_threads_per_sm, int load_bytes, int max_loads,
                         double margin = 1.0);

/// Occupancy (White Eq. 3.7 with allocation granularity): resident blocks per SM, and the resource
/// that limits them.
Derived blocks_per_sm(const DeviceProfile& dev, int threads_per_block, int regs_per_thread, int smem_per_block);

/// Rule 5, the wave tail (KBLAS's Y, TOMS §4.3.4, §9.2): with `tiles` independent blocks and
/// `blocks_per_sm` resident per SM, split each tile's reduction over Y blocks so the grid fills one
/// wave and never starts a second, partial one: Y = floor(slots / tiles) where tiles < slots, else 1;
/// at most `max_y` (each block keeps a minimum of work). Named `parameter` (Y, split_k).
Derived wave_split(const DeviceProfile& dev, long long tiles, int blocks_per_sm, long long max_y,
                   const std::string& parameter = "Y");

// ------------------------------------------------------------------------------------------------
// The ops' derivations (one file each: derive/OP.cpp)
// ------------------------------------------------------------------------------------------------

/// GEMV y = alpha op(A) x + beta y, A m x n with 16-byte aligned columns. On the `t10` preset with
/// op T (White's row-major Mv) and square n a power of two >= 512: White's procedure (§4.5.1,
/// Eq. 4.24); otherwise the tuned kernel's parameters: block_x (coalescing), U or C (rule 1), Y (rule 5).
/// `vector_loads`: A's columns start 16-byte aligned, so N reads 16 bytes per load (false: one
/// element per load; the caller knows A's leading dimension and address, tuned_gemv_loads).
/// N: block_x from coalescing widened by the waves, U from Little's law with the kernel's
/// register bound, block_y and Y from the waves (one block per SM, or two, KBLAS's Y).
/// T: `vector_loads` false means the columns (or x) are not 16-byte aligned, so each column's head
/// is peeled (one more, partial, vector per column). T's kernels by the column's vectors v: L < 32
/// lanes per column where v < 32 (no lane past the column), else warps of 32 lanes, Q of them
/// splitting the rows (each a step of its own), C from Little's law (8 for short walks), Y
/// from Little's law per SM and the waves, and the looping kernel where one-tile blocks would
/// turn over many times, each mostly empty (rule 5). `white` false: the tuned kernels' derivation
/// even where White's procedure applies (chapter 5's default: tuned::gemv runs the tuned kernels).
/// Chapter 5's default launch is this derivation (gemv_rules.hpp: tuned_gemv_default).
Derivation derive_gemv(const DeviceProfile& dev, bool trans, long long m, long long n, int elem_bytes,
                       bool vector_loads = true, bool white = true);

/// Registers per thread of the tuned GEMV's T kernel with C columns per block: two steps of C
/// 16-byte loads of A and one of x (4 registers each, the double buffer), 32 for the rest. Its
/// occupancy bounds the resident blocks that rules 1 and 5 count (the tuned step's legal list
/// reads it too, so that its "one wave" Y is the derivation's).
int gemv_t_registers(int columns);

/// A GEMM kernel the derivation may pick: a block computes tile_m x tile_n of C, a thread
/// thread_m x thread_n of it (the tensor-core kernel: a warp, its mma fragments), over `stages`
/// shared-memory stages of depth tile_k.
struct GemmTile {
    int tile_m = 0, tile_n = 0, tile_k = 0, thread_m = 0, thread_n = 0, stages = 2;
    int min_blocks = 1;        ///< blocks per SM the kernel is compiled for (__launch_bounds__): the
                               ///< compiler keeps its registers within regs_per_sm / (min_blocks x threads)
    int blocks_per_sm = 0;     ///< resident blocks read from the compiled kernel (a live device's
                               ///< occupancy API); 0: from the register and shared-memory estimate
    bool tensor_core = false;  ///< the FP64 tensor-core kernel (mma.sync .f64): thread_m x thread_n
                               ///< is its warp tile, whose fragments no two lanes load twice
    int max_split = 0;         ///< the most slices of k the kernel takes (1: none; 0: the call's limit)
    /// The kernel's main-loop rate with op(A) = A^T (read transposed through registers) over its
    /// rate with op(A) = A, measured on the device the call runs on (tuned::gemm_kernel_rates);
    /// 1: no difference.
    double transposed_a_rate = 1;
    /// Its rate with op(B) = B^T (NT: no operand through the transposing path) over op(B) = B,
    /// op(A) = A, measured likewise; 0: not measured (1).
    double op_nt_rate = 0;
    /// Its rate with op(A) = A^T and op(B) = B^T (TT) over NN, measured likewise; 0: not measured
    /// (transposed_a_rate).
    double op_tt_rate = 0;
    /// Its rate with element copies (columns not 16-byte aligned) over its 16-byte copies', measured
    /// likewise; 0: not measured, the element copies' issue slots counted instead.
    double element_rate = 0;
    /// Its rate with op(A) = A^T, op(B) = B and element copies over NN with 16-byte copies, measured
    /// likewise; 0: not measured (transposed_a_rate x element_rate). NT and TT likewise.
    double tn_element_rate = 0;
    double nt_element_rate = 0;
    double tt_element_rate = 0;
    /// An FMA tile's main loop as measured over as counted: what these counts derive for its
    /// kernel's timed call (NN, 16-byte copies, whole rounds of resident blocks, no split) over the
    /// time the device measured for it (tuned::GemmKernelRates::main_ms); rule 2's rate is scaled
    /// by it, so that tiles whose counts promise the same rate run at the rates they keep. 0: not
    /// measured (1).
    double main_loop_scale = 0;
    /// The bytes per second its epilogue moves C with where the epilogue is the kernel (one
    /// k-tile, C in DRAM), measured likewise; GB/s, 0: not measured (the DRAM bandwidth then).
    double epilogue_gbs = 0;
};

/// What the GEMM derivation knows about a call C = op(A) op(B) (m x n x k).
struct GemmCall {
    long long m = 0, n = 0, k = 0;
    int elem_bytes = 4;
    bool aligned = true;              ///< every operand column 16-byte aligned: 16-byte copies
    bool vector_c = false;            ///< C is one column or row with contiguous vectors: a GEMV
    long long max_split_k = 0;        ///< the most slices of k the kernels take (0: no limit)
    double max_workspace_bytes = 0;   ///< the split's partials at most this many bytes (0: no limit)
    bool reads_c = true;              ///< beta != 0: the epilogue loads C before it stores it
    bool transposed_a = false;        ///< op(A) = A^T, read transposed (GemmTile::transposed_a_rate)
    bool op_b_t = false;              ///< op(B) = B^T, copied straight into place (GemmTile::op_nt_rate, op_tt_rate)
};

/// A tile's measured main-loop rate for the op pair it reads, over NN: op(A) = A^T with op(B) = B
/// (TN: `tn`), op(B) = B^T (NT: `nt`), both (TT: `tt`, TN's where not measured); a rate of 0 (not
/// measured) is 1. The derivation (GemmTile's rates) and the chapters' model both read it.
double gemm_op_pair_rate(bool transposed_a, bool op_b_t, double tn, double nt, double tt);

/// GEMM: on the `t10` preset with square n a power of two >= 512 White's procedure (§4.5.2,
/// Eq. 4.41). Otherwise, in order: a vector C runs as the GEMV (rule 1: its bytes bound it); then
/// for each candidate (the FP64 tensor-core kernel among them where `tiles` offers it and the
/// device's tensor cores run more FMAs per clock than its FP64 lanes) and split of k the time of
/// the busiest SM (rule 5: rounds of resident blocks, each at the share of the rate its warps
/// keep issuing, a split up to one round of the most-resident candidate's slots, the split's
/// second pass counted) at the rate the tile's reuse allows
/// (rule 2: shared-memory bytes per FMA against the banks, issue slots, L2 bytes per flop), not
/// faster than Little's law lets the device's bytes arrive (rule 1). Among times within 1/16 of
/// the least (the estimate's resolution) the most reuse (rule 2: the tensor cores' fragments
/// first), then the least shared memory (rule 3), then the most blocks on the busiest SM up to
/// the resident ones, then the fewest slices.
/// `tiles`: the candidates (the kernels' instantiated tiles, so that the pick is a launch they
/// take); empty: the powers of two 32 ... 256 with 256 threads and two stages of two 32-byte
/// sectors per row. Throws std::invalid_argument when no candidate fits the device.
Derivation derive_gemm(const DeviceProfile& dev, const GemmCall& call, const std::vector<GemmTile>& tiles = {});

/// derive_gemm for an aligned m x n x k call; `max_split_k`: the most slices of k the kernel takes.
Derivation derive_gemm(const DeviceProfile& dev, long long m, long long n, long long k, int elem_bytes,
                       const std::vector<GemmTile>& tiles = {}, long long max_split_k = 0);

/// The GEMM derivation's resolution: times within 1/16 of the least count as equal, and White's
/// order decides among them (more reuse first). The tuned GEMM's weighing of its copies uses it too.
inline constexpr double kGemmResolution = 1.0 / 16;

/// The slices of k a GEMM split may take: 1, 2, 3, 4, 6, 8, 12, ... (2^j and 3 x 2^j) up to `most`.
/// Powers of two alone leave gaps a wave wide (3 slices can fill one wave where 4 need two); the
/// tuned GEMM's legal launches list the same values.
std::vector<long long> gemm_split_candidates(long long most);

/// Convolution of a rows x cols image with an FS x FS filter: on the `t10` preset with square
/// rows = cols a power of two >= 512 White's procedure (§5.1.5, Eq. 5.19); otherwise block_x
/// (coalescing), outputs per thread (rule 1), thread_x from the halo (rule 2).
/// A convolution launch the derivation may pick: block_x x block_y threads, each thread_x x
/// thread_y outputs of a tile_x x tile_y tile; `staged`: the tile and its halo are staged in
/// shared memory (false: read into registers, the halo through shuffles). The model derives the
/// rest of the kernel's shape (its filter passes, its taps) from these and the filter size.
struct Conv2dTile {
    int block_x = 0, block_y = 0, thread_x = 0, thread_y = 0, tile_x = 0, tile_y = 0;
    bool staged = true;
    /// The blocked kernel where the filter size has a compile-time kernel (FS = 3, 5, 7, 15; the
    /// launch's `blocked`): the model counts the blocked loop, not the compile-time one.
    bool blocked = false;
};

/// With `tiles` (the kernel's instantiated launches for this filter size): each candidate that
/// fits the device is predicted by the convolution model (model::predict_conv2d_launch, where
/// Little's law, the window's reuse, the shared memory per block and the busiest SM's issue over
/// whole tiles meet, each counted from the kernel's code) and the least predicted time wins (ties
/// within 1/64: the least shared memory, rule 3). `vector_rows`: the image's rows start on 16-byte
/// boundaries (the staging copies whole vectors; otherwise element by element). Otherwise the
/// powers-of-two derivation above. Throws std::invalid_argument when no candidate fits the device.
Derivation derive_conv2d(const DeviceProfile& dev, long long rows, long long cols, int fs, int elem_bytes,
                         const std::vector<Conv2dTile>& tiles = {}, bool vector_rows = true);

/// SYMV (lower triangle). First (rule 5, the waves and the second kernel) the row panels where
/// `row_panels` allows them: one kernel of n / 8 blocks that reads the triangle twice, where its
/// grid is one wave and the second read costs less than the tiles' second kernel (its queued
/// start, one DRAM latency, the partials): the `panel rows` parameter, 8 (0: the tiles). Then
/// KBLAS's order nb -> Q -> Y (TOMS §9): (nb, Q) keeping the most bytes of A in flight per SM
/// (rule 1, ties to the larger nb; the smaller tile where the whole grid keeps less than the
/// device's Little's law), Y balancing each block's pipeline fill and drain against the grid's
/// tail (rule 5), doubled where the column stride `lda_bytes` (0: not known) is a multiple of
/// 128 KiB (rule 4: the columns alias in the DRAM's interleave).
/// `vector_loads`: A's columns start 16-byte aligned (lda a multiple of 16 / elem_bytes), so
/// the tile may be read with 16-byte loads (rule 2: whole lines in a quarter of the load
/// instructions): the `loads` parameter, 16 or elem_bytes (tuned::symv_launch_of maps it to the
/// kernel that has such loads for the tile). Chapter 5's default launch is this derivation
/// (tuned::symv_derived_launch).
Derivation derive_symv(const DeviceProfile& dev, long long n, int elem_bytes, bool vector_loads = true,
                       long long lda_bytes = 0, bool row_panels = true);

/// CG: the Mv is derive_symv's for A's leading dimension `lda` (0: n); the vector kernels take one
/// wave of resident 256-thread blocks (rule 5: no tail) with the elements per thread Little's law
/// asks for (rule 1).
/// Then the check interval (cg_check_interval at the CG model's iteration on the CUDA graphs) and
/// the schedule (model::cg_tuned_schedule: the persistent kernel where the model predicts it
/// faster per iteration by more than the model's resolution), both with the Mv's own model
/// (model::predict_symv).
Derivation derive_cg(const DeviceProfile& dev, long long n, int elem_bytes, long long lda = 0);

/// The problem a CG default launch is derived for: kappa 1e4 (the chapters' harder matrix) at the
/// chapters' tolerances, float 1e-5 and double 1e-9; cg_derive_iterations gives its iteration
/// bound (model::cg_iteration_bound: 610 float, 1071 double).
constexpr double kCgDeriveKappa = 1e4, kCgDeriveTolFloat = 1e-5, kCgDeriveTolDouble = 1e-9;
double cg_derive_iterations(int elem_bytes);
/// The tuned CG step's legal check intervals (the chapter's sweep: 4 ... 32).
constexpr int kCgCheckMin = 4, kCgCheckMax = 32;
/// The check interval for a solve of `iterations` iterations of `iteration_us` each, with a
/// round trip of `round_trip_us` per chunk: c* = sqrt(m R / (1.5 t)), the minimum of
/// m (t + R / c) + 1.5 c t (the converging chunk half wasted on average, the next one queued),
/// rounded to the nearest power of two in [kCgCheckMin, kCgCheckMax]. Throws
/// std::invalid_argument on iterations or iteration_us <= 0, or round_trip_us < 0.
int cg_check_interval(double iterations, double iteration_us, double round_trip_us);

}  // namespace wb::derive
