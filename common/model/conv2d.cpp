/// \file conv2d.cpp
/// \brief The convolution model (model/conv2d.hpp).
#include "model/conv2d.hpp"

#include "model/gemm.hpp"  // kL2OverDram
#include "model/kernel_time.hpp"
#include "model/model_internal.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace wb::model {
namespace {

/// The tuned blocked kernel (kernels/conv2d_common.cuh, blocked_conv2d_kernel<T, RX, RY, true>)
/// counted per thread over a whole tile from its sm_90 SASS (CUDA 13.0, `cuobjdump -sass` and
/// `-res-usage` of the built tuned object). Per pass (kc filter rows, lc columns) and per window
/// row (RY + kc - 1 of them), the row's taps run in chunks of 8, then one of 4 and one of 1-3
/// (blocked_chunks): a chunk of CW taps reads its ceil((RX + CW - 1) / W) 16-byte vectors once and
/// issues about 22 more (loop, addresses, the output rows' uniform tests); then, for each output
/// row whose filter row lies in the pass, ceil(CW / W) 16-byte reads of the pass's taps in shared
/// memory (a broadcast: one wavefront each) and RX CW FMAs. The chunk of 8's loop is 159
/// instructions at float 4 x 4, 94 at 4 x 2, 100 at double 4 x 2, 69 at 2 x 2, which this gives
/// within 3%; a window row adds about 10 outside its chunks; each pass stages its window, about
/// 65 (double) to 90 (float) instructions per 16-byte vector (the staging loop's SASS over its 4
/// copies per trip), and its kc x lc taps (68 per thread, the copy loop's SASS).
struct BlockedChunks {
    double per_window_row = 0;  ///< issued per window row: the chunks' reads and loops
    double per_filter_row = 0;  ///< issued per (output row, filter row) pair: taps' reads, FMAs
    double lds = 0;             ///< 16-byte shared loads of window pixels per window row
    double tap_lds = 0;         ///< 16-byte broadcast loads of taps per (output row, filter row) pair
};
BlockedChunks blocked_chunks(int rx, int lc, int w) {
    BlockedChunks c;
    c.per_window_row = 10;
    const auto chunk = [&](int cw, int n) {
        const int nv = (rx + cw - 1 + w - 1) / w, nf = (cw + w - 1) / w;
        c.per_window_row += n * (nv + 22.0);
        c.per_filter_row += n * (nf + static_cast<double>(rx) * cw);
        c.lds += n * nv;
        c.tap_lds += n * nf;
    };
    chunk(8, lc / 8);
    chunk(4, (lc % 8) / 4);
    if (lc % 4) chunk(lc % 4, 1);
    return c;
}

/// Registers per thread of the blocked kernel (`cuobjdump -res-usage` of the instantiation that
/// copies the taps from constant memory; none spills): float 4 x 4 58, 4 x 2 52; double 4 x 2 64,
/// 2 x 2 48. 0 for a shape not instantiated (the estimate stands).
int blocked_registers(int elem_bytes, int thread_x, int thread_y) {
    struct Count { int elem, rx, ry, regs; };
    static constexpr Count kCounted[] = {{4, 4, 4, 58}, {4, 4, 2, 52}, {8, 4, 2, 64}, {8, 2, 2, 48}};
    for (const Count& c : kCounted)
        if (c.elem == elem_bytes && c.rx == thread_x && c.ry == thread_y) return c.regs;
    return 0;
}

/// Registers per thread of the tuned step's compile-time kernel (kernels/tuned/conv2d.cu,
/// fixed_conv2d_kernel<T, FS, RX, RY>) as ptxas allocated them (sm_90, CUDA 13.0,
/// `cuobjdump -res-usage` of the built object; none spills). They set the blocks an SM holds and
/// with them the kernel's persistent grid (blocks per SM x SMs), so the tiles each block loops
/// over and the last round's idle blocks (the waves' tail). The estimate (accumulators, the
/// window's registers and 40 for addresses) ran 20 above the counts at FS = 7 in float (68
/// against 48 at 4 x 4: 3 blocks per SM against 5; 60 against 40 at 4 x 2: 4 against 6), which
/// turned the tail around: at 1777^2 the 784 tiles of 64 x 64 fill 660 slots 1.19 times (the
/// busiest block runs 2 tiles, 1.68x the mean), the 1568 tiles of 64 x 32 fill 792 slots 1.98
/// times. Counted again after the kernel stores each output row as soon as it is complete (bb59bb9:
/// float FS = 7 4 x 4 48 -> 40, double 4 x 2 40 -> 48). 0 for a shape not counted (the estimate
/// stands).
int counted_registers(int elem_bytes, int thread_x, int thread_y, int fs) {
    struct Count { int elem, rx, ry, fs, regs; };
    static constexpr Count kCounted[] = {
        {4, 4, 4, 3, 45}, {4, 4, 4, 5, 40}, {4, 4, 4, 7, 40}, {4, 4, 4, 15, 48},  // float 4 x 4
        {4, 4, 2, 3, 45}, {4, 4, 2, 5, 40}, {4, 4, 2, 7, 40}, {4, 4, 2, 15, 36},  // float 4 x 2
        {8, 4, 2, 3, 48}, {8, 4, 2, 5, 50}, {8, 4, 2, 7, 48}, {8, 4, 2, 15, 48},  // double 4 x 2
        {8, 2, 2, 3, 34}, {8, 2, 2, 5, 32}, {8, 2, 2, 7, 32}, {8, 2, 2, 15, 40},  // double 2 x 2
    };
    for (const Count& c : kCounted)
        if (c.elem == elem_bytes && c.rx == thread_x && c.ry == thread_y && c.fs == fs) return c.regs;
    return 0;
}

/// Issued instructions per 16-byte vector of a window the compile-time kernel stages
/// (kernels/conv2d_common.cuh, stage_window_async) where the image's rows are not 16-byte
/// aligned (an odd width, pitch + 1): the loop path, per vector the division by the constant
/// NVR, two addresses, then W element copies (LDGSTS.E of 4 or 8 bytes), each with its own
/// column bounds and 64-bit address, and the vector path's predicated copy and branch still
/// issued. sm_90 SASS of fixed_conv2d_kernel at FS = 7, the copy of the next tile inside the
/// tile loop (`cuobjdump -sass` of the built tuned object): float 161 instructions per trip of
/// 2 vectors (4 copies each) at 4 x 4 and 157 at 4 x 2, double 117 per 2 (2 copies each) at
/// 2 x 2 and 4 x 2. Aligned rows take the unrolled path: about 21 per vector (the division by
/// NVR, two addresses, the 16-byte copy and its predicate).
double fixed_staging_instructions_per_vector(int elem_bytes, bool vector_rows) {
    if (vector_rows) return 21;
    return elem_bytes == 4 ? 161 / 2.0 : 117 / 2.0;
}

/// Issued instructions per warp and tile of the compile-time kernel (fixed_conv2d_kernel<T, FS,
/// RX, RY>) on aligned rows, as Nsight Compute counted them on an H200 (inst_executed over the
/// launch's warp-tiles: 4096^2 at FS = 7, 1500^2 at FS = 15; instruction counts of the code,
/// the same on every sm_90 card). Against the terms the estimate below counts (the FMAs, the
/// window reads, one ULDC per two taps, about 21 per staged 16-byte vector, the row stores) they
/// hold 140-235 more per tile: the persistent loop's tile index (a division by the tiles per row,
/// about 40 in the SASS), the window's wait and barrier (16), the stores' row and column paths
/// (93 static at float 4 x 2), the loop, and taps reloaded more often than once per two. 0 for a
/// configuration not counted.
double counted_tile_instructions(int elem_bytes, int thread_x, int thread_y, int fs) {
    struct Count { int elem, rx, ry, fs; double per_tile; };
    static constexpr Count kCounted[] = {
        {4, 4, 4, 7, 36549416.0 / 32768}, {4, 4, 2, 7, 42137278.0 / 65536},   // float, 4096^2
        {4, 4, 4, 15, 19225276.0 / 4608}, {4, 4, 2, 15, 20353284.0 / 9024},   // float, 1500^2
        {8, 4, 2, 7, 48594194.0 / 65536}, {8, 2, 2, 7, 64484344.0 / 131072},  // double, 4096^2
    };
    for (const Count& c : kCounted)
        if (c.elem == elem_bytes && c.rx == thread_x && c.ry == thread_y && c.fs == fs) return c.per_tile;
    return 0;
}

/// The compile-time kernel's per-tile instructions besides the terms its estimate counts (the
/// tile index, wait, barrier, store paths and loop: counted_tile_instructions' remainder at FS = 7
/// for the same thread shape), where a configuration has no count of its own.
double fixed_tile_instructions(int elem_bytes, int thread_x, int thread_y) {
    if (elem_bytes == 4) return thread_y == 4 ? 166 : 143;
    return thread_x == 4 ? 161 : 167;
}

long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

/// Filter elements the kernels' constant-memory copy holds (kernels/conv2d_common.cuh,
/// kConstFloat and kConstDouble): FS <= 89 in float, FS <= 63 in double.
constexpr int kConstFilterFloat = 7936;
constexpr int kConstFilterDouble = 3969;

/// The smallest 2^a 3^b 5^c 7^d >= n.
long long fft_size(long long n) {
    for (long long m = std::max(1LL, n);; ++m) {
        long long r = m;
        for (int f : {2, 3, 5, 7})
            while (r % f == 0) r /= f;
        if (r == 1) return m;
    }
}

/// Wavefronts of a warp's 16-byte shared load whose lanes read `stride` bytes apart, over the 4
/// a 16-byte load takes anyway: each quarter warp's 8 lanes hit 128 / gcd(stride, 128) distinct
/// 16-byte slots of the 128-byte bank row (at most 8); lanes on the same slot conflict. Strips of
/// two vectors (32 bytes apart) meet two to a slot: twice the wavefronts.
double lds128_ways(int stride_bytes) {
    if (stride_bytes <= 16) return 1;
    const int g = std::gcd(stride_bytes, 128);
    const int slots = std::min(8, 128 / std::max(16, g));
    return 8.0 / slots;
}

/// Dependent global-load round trips of the busiest warp of stage_tile (conv2d_common.cuh), the
/// staging loop of chapters 2 and 3, for a window of wr x wc pixels and a block of 32 x by
/// threads. Thread row 0 copies ceil(wr / by) window rows, one after the other (the row loop is
/// not unrolled). Along a row lane tx copies columns tx, tx + 32, ...: nvcc unrolls that loop,
/// whose trip count it knows only at run time, by 4 and runs the remainder trips first (sm_90
/// SASS): in a remainder trip the shared store waits for its global load (a round trip each),
/// the four loads of an unrolled trip are in flight together (one round trip). A warp waits for
/// its slowest lane: lanes below wc % 32 make one trip more than the others.
double stage_tile_rounds(long long wr, long long wc, int by) {
    if (wr <= 0 || wc <= 0) return 0;
    const long long hi = (wc + 31) / 32, lo = wc / 32;  // trips of the lanes below / from wc % 32
    const long long rem = wc % 32 == 0 || lo == 0 ? hi % 4 : std::max(hi % 4, lo % 4);
    const long long rows = (wr + std::max(1, by) - 1) / std::max(1, by);
    return static_cast<double>(rows * (rem + hi / 4));
}

/// Windows (passes) one SM completes per second when its `resident` blocks each alternate between
/// waiting `wait_s` for a window (the round trips of its staging: nothing of the SM's is used,
/// every block waits on its own) and computing on it, `work_s` of the SM's full rate (its pipes
/// shared by the blocks computing at the same time; one block alone reaches `alone` of that rate:
/// its warps over kBusyWarps, the warps an SM needs to hide its pipes' latencies). The number of
/// blocks computing is followed as a birth-death chain (a block leaves the wait at rate
/// 1 / wait_s, the computing ones finish at the rate their share of the SM allows): its stationary
/// distribution weighs each state's rate (Little's law per state). With the wait negligible it
/// is 1 / work_s (the SM's pipes bound it); with the work negligible, resident / wait_s (the
/// latency walk).
double windows_per_second(int resident, double wait_s, double work_s, double alone) {
    if (work_s <= 0) return wait_s > 0 ? resident / wait_s : 0;
    if (wait_s <= 0) return 1.0 / work_s;
    const auto rate = [&](int n) { return std::min(1.0, n * alone) / work_s; };  // finishing, n computing
    double weight = 1, total = 1, done = 0;  // state 0: all blocks waiting
    for (int n = 1; n <= resident; ++n) {
        weight *= ((resident - n + 1) / wait_s) / rate(n);
        total += weight;
        done += weight * rate(n);
    }
    return done / total;
}

}  // namespace

Conv2dDesign conv2d_stage_design(Stage stage, int fs, int elem_bytes, int tile_x, int tile_y, int thread_x,
                                 int thread_y, int threads, bool vector_rows, bool blocked) {
    // The tuned step's default for the sizes it has no compile-time kernel for (not 1, 3, 5, 7,
    // 15, 31, 63) is chapter 4's generic kernel at chapter 4's shape (kernels/tuned/conv2d.cu,
    // generic_fits): modelled as that step.
    const bool compiled = fs <= 7 || fs == 15 || fs == 31 || fs == 63;
    if (stage == Stage::kTuned && !compiled && thread_x * elem_bytes == 32 && thread_y == 4 && threads == 256) {
        Conv2dDesign a =
            conv2d_stage_design(Stage::kAccess, fs, elem_bytes, tile_x, tile_y, thread_x, thread_y, threads, vector_rows);
        a.stage = stage;
        a.shares_pipes = true;  // launched among the tuned step's blocks
        return a;
    }
    Conv2dDesign d;
    d.stage = stage;
    d.tile_x = std::max(1, tile_x);
    d.tile_y = std::max(1, tile_y);
    d.thread_x = std::max(1, thread_x);
    d.thread_y = std::max(1, thread_y);
    d.threads = std::max(1, threads);
    const double e = elem_bytes / 4.0;           // words per element
    const int w = 16 / std::max(1, elem_bytes);  // elements per 16-byte read
    const double rx = d.thread_x, ry = d.thread_y;
    if (stage == Stage::kNaive) {
        d.staged = false;
        // Per tap: the image load (one 128-byte line per warp in float) and the filter load (a
        // broadcast), the FMA, two bounds compares, an index and the loop.
        // The image load's 32 elements start at x = c + l - FS/2: unaligned to the 128-byte line
        // for all but one tap in 32, so they span two lines (e + 1 wavefronts); the filter load is
        // one broadcast.
        d.wavefronts_per_fma = (e + 1) + 1;
        d.other_per_fma = 6;
        d.regs_per_thread = 32;
    } else if (stage == Stage::kShared) {
        const bool fixed = fs == 3 || fs == 5 || fs == 7;  // compile-time FS (kernels/shared/conv2d.cu)
        d.chunk_x = d.chunk_y = fixed ? 0 : 32;
        d.wavefronts_per_fma = e;  // one shared load per FMA, 32 consecutive words
        if (fixed) {
            // Per tap the shared load, the tap an operand of the FMA (uniform registers, one
            // ULDC.64 per two taps for the thread's ry outputs).
            d.other_per_fma = 1 + 0.5 / ry;
        } else {
            // The generic loop, a pass's filter row unrolled over 32 taps, `if (l < lc)` around
            // each (sm_90 SASS, float): a tap inside the pass costs its filter load, ry shared
            // loads, ry FFMAs and the branch around them (ISETP, BRA and the convergence barrier's
            // BSSY and BSYNC); a tap beyond the pass's lc columns still issues those four.
            double issued = 0, fmas = 0;
            for (int l0 = 0; l0 < fs; l0 += 32) {
                const int lc = std::min(32, fs - l0);
                issued += lc * (ry + 5.0) + (32 - lc) * 4.0;
                fmas += lc * ry;
            }
            d.other_per_fma = issued / fmas;
            // A filter larger than the constant-memory copy (kConstFilterFloat elements in float,
            // kConstFilterDouble in double: FS = 513) is read from global memory instead: its
            // load, a broadcast through the L1, takes one wavefront per tap for ry FMAs.
            if (fs * fs > (elem_bytes == 4 ? kConstFilterFloat : kConstFilterDouble)) d.wavefronts_per_fma += 1.0 / ry;
        }
        d.stage_loop_rows = d.threads / 32;
        d.regs_per_thread = 32;
        const int c = fixed ? fs : 32;
        d.smem_per_block = (d.tile_y + c - 1) * (d.tile_x + c - 1) * elem_bytes;
    } else if (stage == Stage::kPattern) {
        // kernels/pattern/conv2d.cu: a thread rx consecutive outputs (rx odd) in each of ry rows;
        // per filter row and output row it loads the rx + FS - 1 (compile-time FS) or, per trip
        // of 8 taps, 8 more pixels (generic loop) into registers: scalar loads rx words apart
        // across the warp, conflict-free (rx odd), e wavefronts each.
        const bool fixed = fs == 3 || fs == 5 || fs == 7;
        d.chunk_x = fixed ? 0 : 32;
        d.chunk_y = fixed ? 0 : 16;
        if (fixed) {
            // Per tile: rx ry FS^2 FFMA, ry FS (rx + FS - 1) LDS, one ULDC.64 per two taps, the
            // staging (about 9.4 issued instructions per pixel: LDG, STS, bounds), the stores.
            const double fmas = rx * ry * fs * fs, loads = ry * fs * (rx + fs - 1.0);
            const double pixels = (d.tile_y + fs - 1.0) * (d.tile_x + fs - 1.0) / d.threads;
            d.wavefronts_per_fma = e * loads / fmas;
            d.other_per_fma = (loads + fs * fs / 2.0 + 9.4 * pixels + 3 * rx * ry + 20) / fmas;
        } else {
            // Per trip of 8 taps: 8 LDS, 8 filter loads, rx moves of the window and about 6 loop
            // and predicate instructions for 8 rx FMAs.
            d.wavefronts_per_fma = e / rx;
            d.other_per_fma = (8 + 8 + rx + 6) / (8 * rx);
        }
        d.stage_loop_rows = d.threads / 32;
        d.regs_per_thread = std::min(255, 32 + static_cast<int>((rx * ry + rx + (fixed ? fs - 1 : 8)) * e));
        const int cy = fixed ? fs : 16, cx = fixed ? fs : 32;
        d.smem_per_block = (d.tile_y + cy - 1) * (d.tile_x + cx - 1) * elem_bytes;
    } else if (stage == Stage::kAccess) {
        // kernels/access/conv2d.cu: chapter 3's computation pattern on strips of rx = 2 w elements
        // (two 16-byte vectors) in each of ry rows, read as conflict-free LDS.128 (4 wavefronts per
        // warp) from rows padded to an odd number of vectors; the window staged with cp.async
        // (16-byte copies: about 18 issued instructions per vector in the SASS of the path for
        // windows inside the image), from the column x0 - HA (the halo rounded up to whole vectors).
        const bool fixed = fs == 3 || fs == 5 || fs == 7;
        const int cx = fixed ? fs : 128 / elem_bytes, cy = fixed ? fs : 8;
        d.chunk_x = fixed ? 0 : cx;
        d.chunk_y = fixed ? 0 : cy;
        const int h = fixed ? fs / 2 : 0, ha = (h + w - 1) / w * w;
        // Vectors a thread reads per window row, the window's vectors per row and its stride.
        const int nv = fixed ? (ha - h + d.thread_x + fs - 1 + w - 1) / w : (d.thread_x + cx) / w;
        const int win = fixed ? ha + d.tile_x + h : d.tile_x + cx - 1;
        const int nvr = std::max((win + w - 1) / w, (d.tile_x - d.thread_x) / w + nv);
        const double vectors = (d.tile_y + cy - 1.0) * nvr / d.threads;
        if (fixed) {
            // Per tile: rx ry FS^2 FFMA, ry FS nv LDS.128, one ULDC.64 per two taps, the staging,
            // ry rows of 16-byte stores, about 60 for the wait, the barrier and the addresses
            // (sm_90 SASS at FS = 7 in float: 1568 FFMA, 112 LDS.128, 17 ULDC after the barrier).
            const double fmas = rx * ry * fs * fs, reads = ry * fs * nv;
            d.wavefronts_per_fma = 4.0 * lds128_ways(d.thread_x * elem_bytes) * reads / fmas;
            d.other_per_fma = (reads + fs * fs / 2.0 + 18 * vectors + ry * (rx / w + 6) + 60) / fmas;
        } else {
            // The generic kernel, counted per thread over a tile's passes. A pass of (at most) cy
            // filter rows by cx columns of the filter padded on the left by off zero taps stages
            // the whole window (tile_y + cy - 1 rows of nvr vectors) however few filter rows it
            // has left (FS = 9: a pass of 8 rows, then one of 1). Per output row and filter row
            // of the pass a thread reads its strip (rx / w LDS.128), then runs trips of 8 taps
            // until the first that starts beyond the filter: per trip 8 / w LDS.128, per tap its
            // predicate (LOP3), the branch around it and its filter load (sm_90 SASS, float),
            // 2 loop instructions; only the taps inside the filter issue their rx FMAs, so a row
            // ends on a whole trip (FS = 9: 16 taps issued for 9). The strips' LDS.128 are
            // conflict-free: a quarter-warp is 4 lanes 32 bytes apart in each of 2 rows an odd
            // number of vectors apart (the kernel's layout), 8 distinct 16-byte slots.
            const int hh = fs / 2, off = (hh + w - 1) / w * w - hh;
            double lds = 0, issued = 0, staged_vectors = 0;  // per thread, over the tile's passes
            for (int k0 = 0; k0 < fs; k0 += cy)
                for (int l0 = 0; l0 < fs + off; l0 += cx) {
                    const int kc = std::min(cy, fs - k0), trips = std::min(cx / 8, (fs + off - l0 + 7) / 8);
                    lds += ry * kc * (rx / w + trips * 8.0 / w);
                    issued += ry * kc * (trips * (3 * 8 + 2.0));
                    staged_vectors += vectors;
                }
            const double fmas = rx * ry * fs * static_cast<double>(fs);
            // The staging (kernels/conv2d_common.cuh, stage_window_async): about 18 issued
            // instructions per 16-byte vector; where rows do not start on a vector (pitch not a
            // multiple of it) each vector is w element copies (cp.async of 4 or 8 bytes), about 5
            // instructions each. A warp's copy instruction spans 32 vectors, 512 bytes: 4 L1
            // wavefronts to read and 4 shared ones to write (the element copies' lanes 16 bytes
            // apart: 4-way bank conflicts on 128 bytes), once per vector or once per element.
            const double copies = vector_rows ? 1.0 : w;
            d.wavefronts_per_fma = (4.0 * lds + 8.0 * copies * staged_vectors) / fmas;
            d.other_per_fma = (lds + issued + staged_vectors * (vector_rows ? 18.0 : 18.0 + 5.0 * w)) / fmas;
        }
        d.regs_per_thread = std::min(255, 32 + static_cast<int>((rx * ry + (fixed ? nv * w : rx + 8)) * e));
        d.smem_per_block = (d.tile_y + cy - 1) * (nvr | 1) * w * elem_bytes;
    } else if (stage == Stage::kTuned && (fs == 31 || fs == 63) && d.thread_x * elem_bytes == 32 && d.thread_y == 4) {
        // The filter-row kernel (kernels/tuned/conv2d.cu, Rows): per filter row a thread reads
        // ry rows of nv 16-byte vectors for rx ry FS FMAs, one ULDC per tap, 4 loop instructions.
        const int h = fs / 2, ha = (h + w - 1) / w * w, ng = (ha - h + fs + w - 1) / w, nv = ng + d.thread_x / w;
        const double fmas = rx * ry * fs, reads = ry * nv;
        d.wavefronts_per_fma = 4.0 * reads / fmas;  // conflict-free LDS.128: 4 wavefronts per warp
        d.other_per_fma = (reads + fs + 4) / fmas;
        d.regs_per_thread = 72;
        d.independent_fmas = d.thread_x * d.thread_y;  // every tap a uniform register: rx ry FMAs per tap
        const int nvr = (ha + d.tile_x + h + w - 1) / w;
        const int s0 = std::max((d.tile_x - d.thread_x) / w + nv, nvr);
        d.smem_per_block = (d.tile_y + fs - 1) * (s0 % 2 == 1 ? s0 : s0 + 1) * w * elem_bytes;
    } else if (stage == Stage::kTuned && d.threads == 128) {
        // The streaming shape (FS <= 5): no shared memory; per thread ry + FS - 1 16-byte loads,
        // 2 h shuffles and selects per row, ry 16-byte stores, for rx ry FS^2 FMAs (taps operands).
        d.staged = false;
        const int h = fs / 2;
        const double fmas = rx * ry * fs * fs, rows_in = ry + fs - 1;
        d.wavefronts_per_fma = 4.0 * rows_in / fmas;  // the L1 serves the loads: 4 wavefronts per warp
        d.other_per_fma = (rows_in * (3 + 4.0 * h) + 3 * ry + 20) / fmas;
        d.regs_per_thread = std::min(255, 24 + static_cast<int>((rx * ry + rows_in * rx) * e));
    } else if (stage == Stage::kTuned) {
        d.chunk_x = 32;
        d.chunk_y = 16;
        const int nv = (d.thread_x + fs - 1 + w - 1) / w;
        const bool fixed = tuned_conv2d_fixed_fs(fs) && !blocked;
        if (fixed) {
            // Compile-time FS: per thread (ry + FS - 1) rows of nv 16-byte reads for rx ry FS^2
            // FMAs whose filter taps are operands (one ULDC.64 per two taps per tile); the
            // next tile's window copied by cp.async meanwhile (about 5 instructions per vector
            // where rows are aligned). Where they are not, every vector is w element copies: the
            // window's WR rows of NVR vectors (Fixed<>) over the block's threads, each the loop's
            // instructions (fixed_staging_instructions_per_vector: 80 in float, 58 in double).
            d.chunk_x = d.chunk_y = 0;
            const double fmas = rx * ry * fs * fs, reads = (ry + fs - 1) * nv;
            const int h = fs / 2, ha = (h + w - 1) / w * w, nvr = (ha + d.tile_x + h + w - 1) / w;
            const double vectors = vector_rows ? (d.tile_y + fs - 1.0) * (d.tile_x + fs - 1.0 + w) / w / d.threads
                                               : (d.tile_y + fs - 1.0) * nvr / d.threads;
            // The 8 lanes of a quarter-warp lie along x, rx elements apart (double 4 x 2: 32 bytes,
            // two lanes on each 16-byte slot: lds128_ways). A warp's copy spans 32 vectors, 512
            // bytes: 4 L1 wavefronts to read, 4 shared ones to write; element by element, each of
            // the w copies reads the same 512 bytes, now off a 128-byte line (5 lines), and
            // writes them 4-way bank-conflicted (lanes 16 bytes apart): 9 wavefronts per copy.
            const double copy_wavefronts = vector_rows ? 8.0 : 9.0 * w;
            // The outputs: ry rows of rx / w 16-byte stores where rows are aligned; otherwise
            // rx ry element stores, each predicated on its column (sm_90 SASS, float 4 x 4: 16
            // STG.E, 8 compares, 4 row checks and branches). A warp is 8 lanes along x by 4 rows:
            // an element store touches, in each row, the 128-byte lines its 8 rx elements span
            // off a line boundary.
            const double stores = vector_rows ? ry * rx / w : ry * (rx + 2.0) + 2.0 * rx;
            const double store_wavefronts = vector_rows ? 0.0 : rx * ry * 4.0 * (8.0 * rx * elem_bytes / 128.0 + 1.0);
            d.wavefronts_per_fma = (4.0 * lds128_ways(d.thread_x * elem_bytes) * reads + copy_wavefronts * vectors +
                                    store_wavefronts) / fmas;
            // Where Nsight Compute counted the configuration on aligned rows, its count per tile;
            // otherwise the terms above, the staging and the per-tile rest of the count.
            const double counted =
                vector_rows ? counted_tile_instructions(elem_bytes, d.thread_x, d.thread_y, fs) : 0;
            const double staging = fixed_staging_instructions_per_vector(elem_bytes, vector_rows) * vectors;
            d.other_per_fma = counted > 0 ? counted / fmas - 1.0
                                          : (reads + fs * fs / 2.0 + staging + stores +
                                             fixed_tile_instructions(elem_bytes, d.thread_x, d.thread_y)) /
                                                fmas;
        } else {
            // The whole tile, pass by pass (blocked_chunks): each window row's chunks read once for
            // the RY output rows, each (output row, filter row) pair of the pass its filter loads
            // and FMAs; the window staged per pass (65 or 90 instructions per vector).
            double issued = 0, lds = 0, tap_lds = 0, vectors = 0;
            for (int k0 = 0; k0 < fs; k0 += d.chunk_y)
                for (int l0 = 0; l0 < fs; l0 += d.chunk_x) {
                    const int kc = std::min(d.chunk_y, fs - k0), lc = std::min(d.chunk_x, fs - l0);
                    const BlockedChunks c = blocked_chunks(d.thread_x, lc, w);
                    const double window_rows = d.thread_y + kc - 1.0;
                    issued += window_rows * c.per_window_row + kc * ry * c.per_filter_row + 68;
                    lds += window_rows * c.lds;
                    tap_lds += kc * ry * c.tap_lds;
                    vectors += (d.tile_y + kc - 1.0) * ((d.tile_x + lc - 1.0) / w + 1) / d.threads;
                }
            issued += vectors * (elem_bytes == 4 ? 90.0 : 65.0);
            const double tile_fmas = rx * ry * fs * static_cast<double>(fs);
            d.other_per_fma = issued / tile_fmas - 1.0;
            // A quarter-warp's 8 lanes along x, rx elements apart (lds128_ways: double 4 x 2 two-way);
            // each staged vector's element stores: w shared stores of a warp's 32 lanes 16 bytes apart.
            d.wavefronts_per_fma =
                (4.0 * lds128_ways(d.thread_x * elem_bytes) * lds + tap_lds + 4.0 * w * vectors) / tile_fmas;
        }
        // Accumulators (e words each), the window in registers (nv vectors at compile time, about
        // rx + w elements of a chunk in the blocked loop), addresses and indices: the estimate where
        // no count stands.
        d.regs_per_thread = std::min(255, 40 + static_cast<int>(rx * ry * e + (fixed ? nv * w : rx + w) * e));
        if (const int r = fixed ? counted_registers(elem_bytes, d.thread_x, d.thread_y, fs)
                                : blocked_registers(elem_bytes, d.thread_x, d.thread_y))
            d.regs_per_thread = r;
        // The compile-time kernel double-buffers its window (two of them per block). The blocked
        // kernel's window is static, sized for whole passes (Blocked<>::SMEM: TY + 15 rows of the
        // TX + 31 columns rounded up to vectors, plus one; and a pass's 16 x 32 taps plus a
        // vector), whatever FS is.
        d.prefetch = fixed;
        d.smem_per_block =
            fixed ? 2 * (d.tile_y + fs - 1) * (d.tile_x + fs - 1 + 2 * w) * elem_bytes
                  : ((d.tile_y + d.chunk_y - 1) * (((d.tile_x + d.chunk_x - 1 + w - 1) / w + 1) * w) +
                     d.chunk_y * d.chunk_x + w) *
                        elem_bytes;
    } else {
        throw std::invalid_argument(std::string("conv2d_stage_design: stage (\"") + stage_name(stage) +
                                    "\") has no convolution model");
    }
    d.shares_pipes = stage == Stage::kTuned;  // the tuned kernels: warps of RX x RY independent FMAs
    return d;
}

Conv2dPrediction predict_conv2d_launch(int tile_x, int tile_y, int thread_x, int thread_y, int threads, long long rows,
                                       long long cols, int fs, int elem_bytes, bool vector_rows,
                                       const DeviceProfile& dev, bool blocked) {
    return predict_conv2d(conv2d_stage_design(Stage::kTuned, fs, elem_bytes, tile_x, tile_y, thread_x, thread_y,
                                              threads, vector_rows, blocked),
                          rows, cols, fs, elem_bytes, dev);
}

double conv2d_roofline_gflops(long long rows, long long cols, int fs, int elem_bytes, double peak_gflops,
                              double bandwidth_gbs) {
    const double flops = 2.0 * rows * cols * fs * static_cast<double>(fs);
    const double bytes = elem_bytes * (2.0 * rows * cols + static_cast<double>(fs) * fs);
    if (bytes <= 0) return peak_gflops;
    return std::min(peak_gflops, bandwidth_gbs * flops / bytes);
}

Conv2dPrediction predict_conv2d(const Conv2dDesign& d, long long rows, long long cols, int fs, int elem_bytes,
                                const DeviceProfile& dev) {
    detail::require(rows >= 0 && cols >= 0, "predict_conv2d",
                    "rows, cols (" + std::to_string(rows) + ", " + std::to_string(cols) + ") must be >= 0");
    detail::require(fs >= 1 && fs % 2 == 1, "predict_conv2d", "fs (" + std::to_string(fs) + ") must be odd and >= 1");
    detail::require(elem_bytes == 4 || elem_bytes == 8, "predict_conv2d",
                    "elem_bytes (" + std::to_string(elem_bytes) + ") must be 4 or 8");
    detail::require(d.tile_x > 0 && d.tile_y > 0 && d.thread_x > 0 && d.thread_y > 0, "predict_conv2d",
                    "tiles must be positive");
    Conv2dPrediction p;
    p.flops = 2.0 * rows * cols * fs * static_cast<double>(fs);
    p.useful_bytes = elem_bytes * (2.0 * rows * cols + static_cast<double>(fs) * fs);
    p.intensity = p.useful_bytes > 0 ? p.flops / p.useful_bytes : 0;
    const int lanes = elem_bytes == 4 ? dev.fp32_lanes_per_sm : dev.fp64_lanes_per_sm;
    p.peak_gflops = dev.sm_count * lanes * 2.0 * dev.sm_clock_mhz / 1e3;
    p.roofline_gflops = conv2d_roofline_gflops(rows, cols, fs, elem_bytes, p.peak_gflops, dev.bandwidth_gbs);
    p.occ = occupancy(dev, d.threads, d.regs_per_thread, d.smem_per_block);
    detail::require(p.occ.blocks_per_sm > 0, "predict_conv2d",
                    "a block of " + std::to_string(d.threads) + " threads, " + std::to_string(d.regs_per_thread) +
                        " registers per thread and " + std::to_string(d.smem_per_block) +
                        " bytes of shared memory must fit an SM");
    p.issue_fraction = 1.0 / (1.0 + d.other_per_fma);
    p.wavefronts_per_fma = d.wavefronts_per_fma;
    // Pixels a block stages per output pixel, summed over its passes (chunks of the filter).
    const long long cy = d.chunk_y > 0 ? d.chunk_y : fs, cx = d.chunk_x > 0 ? d.chunk_x : fs;
    double staged = 0;
    for (long long k0 = 0; k0 < fs; k0 += cy)
        for (long long l0 = 0; l0 < fs; l0 += cx)
            staged +=
                static_cast<double>(d.tile_y + std::min(cy, fs - k0) - 1) * (d.tile_x + std::min(cx, fs - l0) - 1);
    p.halo_factor = staged / (static_cast<double>(d.tile_x) * d.tile_y);
    if (rows == 0 || cols == 0) {
        p.ms = kLaunchOverheadUs / 1e3;
        p.limit = "empty: launch overhead only";
        return p;
    }
    p.l2_bytes = elem_bytes * static_cast<double>(rows) * cols * (p.halo_factor + 1.0);
    const double clock_hz = dev.sm_clock_mhz * 1e6;
    const double blocks = static_cast<double>(cdiv(rows, d.tile_y)) * cdiv(cols, d.tile_x);
    const double padded = blocks * d.tile_x * d.tile_y / (static_cast<double>(rows) * cols);
    const double warp_fmas = p.flops / 2.0 / dev.warp_size * padded;
    const double per_sm = warp_fmas / dev.sm_count;
    const double t_fma = per_sm / (lanes / static_cast<double>(dev.warp_size)) / clock_hz;
    const double t_issue = per_sm / p.issue_fraction / 4.0 / clock_hz;
    const double t_smem = per_sm * d.wavefronts_per_fma / clock_hz;
    const double t_l2 = p.l2_bytes / (kL2OverDram * dev.bandwidth_gbs * 1e9);
    // The image read once and written once: the copy ceiling's mix of reads and writes.
    const double t_dram = dram_ms(p.useful_bytes / 2, p.useful_bytes / 2, dev) * 1e-3;
    const double slots = static_cast<double>(dev.sm_count) * p.occ.blocks_per_sm;
    p.waves = blocks / slots;
    // The last wave's idle slots: the earlier steps' blocks (a few warps, each waiting on its
    // loads) take their time whatever else the SM runs, so a half-empty last wave costs a whole
    // one. Blocks that share the SM's pipes (Conv2dDesign::shares_pipes: the tuned kernels) run
    // side by side, and SMs take the next block as one frees up: the busiest SM's
    // ceil(blocks / SMs) blocks against the mean. So does any grid of one wave or less.
    const double per_sm_mean = blocks / dev.sm_count;
    const bool shares_pipes = d.shares_pipes || p.waves <= 1;
    const double tail = shares_pipes ? std::max(1.0, std::ceil(per_sm_mean) / per_sm_mean)
                                     : std::max(1.0, std::ceil(p.waves) / p.waves);
    struct Bound {
        double t;
        std::string words;
    };
    const Bound bounds[] = {
        {t_fma * tail, "FMA lanes"},
        {t_issue * tail, "instruction issue: " + detail::pct(p.issue_fraction) + " of issued instructions are FMAs"},
        {t_smem * tail, std::string(d.staged ? "shared-memory" : "L1") + " wavefronts: " +
                            std::to_string(d.wavefronts_per_fma).substr(0, 5) + " per FMA instruction"},
        {t_l2, "L2 bandwidth: the tiles read " + std::to_string(p.halo_factor).substr(0, 4) + "x the image"},
        {t_dram, "DRAM bandwidth: the image read once and written once"},
    };
    const Bound* worst = &bounds[0];
    for (const Bound& b : bounds)
        if (b.t > worst->t) worst = &b;
    // The blocks' walks (model/kernel_time): a staged step waits, per pass of the filter, for
    // its window's loads (a DRAM round trip: every block starts on new rows) before its barrier;
    // the naive step's loop issues two taps' loads before their FMAs (cuobjdump -sass, sm_90), a
    // round trip to the L2 per pair of taps (the lines of the window are the neighbouring warps'
    // and blocks'), one to DRAM for the first. The walk adds the first bytes' latency the bounds
    // above leave out; where it is longer than them it sets the time.
    KernelWork k;
    double passes = 0, loop_rounds = 0;
    for (long long k0 = 0; k0 < fs; k0 += cy)
        for (long long l0 = 0; l0 < fs; l0 += cx) {
            passes += 1;
            loop_rounds += stage_tile_rounds(d.tile_y + std::min(cy, fs - k0) - 1, d.tile_x + std::min(cx, fs - l0) - 1,
                                             d.stage_loop_rows);
        }
    const bool naive = d.stage == Stage::kNaive;
    if (d.stage_loop_rows > 0) {
        k.rounds = loop_rounds;
    } else if (!naive) {
        k.rounds = passes + 1;  // the streaming shape (not staged): one pass, its rows in flight together
    } else {
        k.rounds = 1;
        k.l2_rounds = static_cast<double>(fs) * std::ceil(fs / 2.0);
    }
    // The latencies alone (the bandwidth is the DRAM bound's): the busiest SM's waves of blocks,
    // each waiting its rounds.
    const double walk_waves = std::ceil(std::ceil(blocks / dev.sm_count) / std::max(1, p.occ.blocks_per_sm));
    double walk_s = walk_waves * (k.rounds * dev.idle_latency_ns + k.l2_rounds * dev.l2_latency_ns) * 1e-9;
    if (d.staged && !d.prefetch) {
        // A block that stages its window and then computes on it (no copy of the next window in
        // flight meanwhile) alternates: it waits its pass's round trips, then runs the pass's
        // share of the SM's work (the largest of the FMA, issue and wavefront bounds) while the
        // other resident blocks wait or compute. The busiest SM's blocks, pass by pass, at the
        // rate windows_per_second gives: at least the walk's latencies (the work negligible)
        // and the SM's bounds (the waits negligible), more where they are alike.
        const double busiest = std::ceil(blocks / dev.sm_count);
        const double work = std::max({t_fma, t_issue, t_smem}) / (blocks / dev.sm_count) / passes;
        const double wait = k.rounds / passes * dev.idle_latency_ns * 1e-9;
        const int resident = static_cast<int>(std::min<double>(p.occ.blocks_per_sm, busiest));
        // One block alone keeps the SM's pipes busy with kBusyWarps warps of dependent FMAs, or
        // fewer where each warp has independent FMAs to issue back to back (independent_fmas).
        const double alone = std::min(1.0, d.threads / static_cast<double>(dev.warp_size) *
                                               std::max(1, d.independent_fmas) / kBusyWarps);
        walk_s = busiest * passes / windows_per_second(resident, wait, work, alone);
    }
    const Bound walk_bound{walk_s, naive                     ? "latency: a round trip per pair of taps"
                                   : d.staged && !d.prefetch ? "latency and work: each block waits for its window, then computes"
                                                             : "latency: each block waits for its window's loads per pass"};
    // Besides the largest bound, the first bytes' latency (the bounds are rates); the walk counts
    // its latencies itself. The walk sets the time only where it is longer than the rate bound
    // with that latency: a launch whose walk falls between the two is no faster than the bound
    // (otherwise a walking launch would be predicted below the DRAM floor every launch shares).
    const double rate_s = worst->t + dev.idle_latency_ns * 1e-9;
    if (walk_bound.t > rate_s) worst = &walk_bound;
    p.ms = std::max(rate_s, walk_bound.t) * 1e3 + kLaunchOverheadUs / 1e3;
    p.gflops = p.flops / (p.ms * 1e6);
    std::ostringstream os;
    os << worst->words << "; occupancy " << detail::pct(p.occ.occupancy) << " (" << limiter_name(p.occ.limiter) << "), "
       << std::fixed;
    os.precision(2);
    os << p.waves << " waves";
    p.limit = os.str();
    return p;
}

double predict_fft_conv2d_ms(long long rows, long long cols, int fs, int elem_bytes, const DeviceProfile& dev) {
    if (rows <= 0 || cols <= 0) return kLaunchOverheadUs / 1e3;
    const long long h = fs / 2;
    const double pr = static_cast<double>(fft_size(std::max(rows + h, static_cast<long long>(fs))));
    const double pc = static_cast<double>(fft_size(std::max(cols + h, static_cast<long long>(fs))));
    const double n = static_cast<double>(rows) * cols, p = pr * pc;
    const double bytes = elem_bytes * (n + p                     // pad: read the image, write P
                                       + 2 * kFftPasses * 2 * p  // R2C and C2R: passes of read + write
                                       + 3 * p                   // product: two spectra read, one written
                                       + 2 * n);                 // extract: read and write the image
    return bytes / (dev.bandwidth_gbs * 1e9) * 1e3 + 5 * kLaunchOverheadUs / 1e3;
}

int fft_crossover_fs(long long rows, long long cols, int elem_bytes, const DeviceProfile& dev) {
    // The tuned step's default block (kernels/tuned/conv2d.cu): 4 x 4 outputs per thread in
    // float (tile 64 x 64), 2 x 2 in double (32 x 32), 256 threads.
    const int t = elem_bytes == 4 ? 4 : 2;
    for (int fs = 1; fs <= 1025; fs += 2) {
        const Conv2dDesign d = conv2d_stage_design(Stage::kTuned, fs, elem_bytes, 16 * t, 16 * t, t, t, 256);
        if (predict_fft_conv2d_ms(rows, cols, fs, elem_bytes, dev) <
            predict_conv2d(d, rows, cols, fs, elem_bytes, dev).ms)
            return fs;
    }
    return 0;
}

}  // namespace wb::model
