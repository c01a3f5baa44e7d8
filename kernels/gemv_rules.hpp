/// \file gemv_rules.hpp
/// \brief The tuned GEMV's launch, derived from the shape of the call: (m, n, lda, the alignment
///        of A and x, the element size, op) and the machine (SM count, bandwidth, latency). Pure
///        host code with no device call, so the rules are unit-tested without a GPU
///        (tests/cpu/test_gemv_rules.cpp) and chapter 6 can generalize them.
///
/// The rules, in the units they reason in (H200 figures in brackets):
/// 1. Loads. 16-byte loads need each column to start on a 16-byte boundary: A aligned and
///    lda a multiple of W = 16 / size(T) (T also needs x aligned; N also m >= 2W). Otherwise N
///    reads one element per load, a warp across 32 consecutive rows of one column (128 or 256
///    contiguous bytes per load instruction: one 32-byte sector more than an aligned run, L2
///    traffic +25% float, +12.5% double, DRAM traffic unchanged; no shuffles, no selects), with
///    enough bytes in flight per block (rule 2); T keeps 16-byte loads over each column's aligned part
///    and peels the head and tail (KBLAS TOMS §6.6, offset interface).
/// 2. Bytes in flight (Little's law): the device needs bandwidth x latency bytes outstanding
///    [4800 GB/s x 700 ns = 3.4 MB, 25 KB per SM]. A block keeps threads x (loads per thread in
///    flight) x (16 bytes, or one element) outstanding; a launch asks for enough blocks per SM to
///    cover twice the per-SM figure (the margin hides each block's reduction tail). N holds two
///    batches of U columns per thread: U = 8 16-byte loads (256 B per thread), or, for element
///    loads, U = 64 / size(T) (16 float, 8 double: 128 B per thread, 64 KB per 512-thread block,
///    2.5x the per-SM figure) in the same registers (A and x of two batches: 64).
/// 3. Every SM gets work. With fewer tiles (blocks along the output) than SMs, the reduction is
///    split over Y blocks per tile (KBLAS's blocks per row) when one SM per tile cannot pull its
///    share: `tiles` SMs at a per-SM ceiling [100 GB/s, about three times an SM's share of
///    the bandwidth; a lead for chapter 6 to measure] take longer than the whole device at its
///    bandwidth plus the split's fixed cost (partials written and read again, a ticket, the last
///    block's pass: ~2 us), or when the tiles' blocks keep less than Little's law in flight. With fewer tiles than an eighth of the
///    SMs the reduction is always split (the call is latency-bound; a shorter walk per block is
///    what pays).
/// 4. The split's limits: each thread row keeps at least one batch of U columns (N) or each
///    block two steps of rows (T); the deterministic second pass sums at
///    most 8 partials per chain of its thread groups (two rounds of four chains).
/// 5. The wave tail: a split takes Y = ceil(SMs / tiles) (one wave of blocks, each with enough
///    bytes in flight by rule 2), not more: more blocks only add partials (resident blocks of N
///    counted by registers, 128 per thread). Where that would put blocks beyond the resident
///    slots, Y rounds down instead: a split's blocks are equally long, so a second wave of even
///    one block doubles the time, while an idle SM costs only its share (579 x 57900 N on an
///    H100: Y = 7, 133 blocks, 0.81x cuBLAS; Y = 6, 114 blocks, 1.10x). Where N's blocks have 512
///    threads (one per SM) the tile widens, up to 4x, while that gives more blocks in the wave
///    (579 rows of element loads: 19 tiles x 6 at 32 rows, 10 tiles x 13 = 130 at 64 rows: 1.11x).
///    Element loads carry half an aligned batch's bytes; where the finish's cap (rule 4) leaves
///    their split fewer blocks than SMs, blocks take 512 threads (float 58 x 580000).
/// 6. Short reductions (tall N, wide T): the thread rows (N: Q) or warps (T) per block are cut
///    so that each still has two batches (N: at least 2U - 1 columns) or a step (T: 32 W rows)
///    of work; T with m <= 64 W runs L <= 16 lanes per column (several columns per warp), so a
///    warp's lanes are not idle.
/// 7. The wave tail of a long output (N): blocks that are all resident stream together and end
///    together; a second, partial wave runs with a fraction of Little's law in flight (H200,
///    first run: 287 tiles on 264 slots ran at 0.81-0.89x cuBLAS, 157 on 132 at 0.90-0.96x,
///    while the powers of two, 128 or 256 tiles, ran ahead). The N kernels hold up to 128
///    registers per thread, so an SM keeps 512 of their threads: two blocks of 256. Tiles widen
///    (up to 64 threads across) until one wave of 256-thread blocks holds them all; blocks have
///    512 threads only where one per SM holds every tile. Where no tile width gets there, the
///    waves are many and the tail small: the narrowest tiles that still leave a wave's worth.
/// 8. Block turnover (T, short columns, many tiles): a T block that owns one tile of columns
///    lives for one or two DRAM round trips, then a barrier and a reduction; with thousands of
///    such blocks the launch is limited by how fast blocks turn over, not by the bytes a
///    resident block has in flight (wide T: 19 KB per block at double 579 x 57900, 0.47x
///    cuBLAS). There the tuned step runs the looping kernel (GemvLaunch::loop, tuned/
///    gemv_t_loop.cuh): a resident wave of blocks, each group of L lanes walking tile after tile
///    of C = 4 columns with the next step's loads (the next tile's included) issued before the
///    current tile's lanes meet, so the stream never drains. L covers a column's vectors (the
///    power of two >= them, 4 ... 32). Taken where every warp gets at least two tiles
///    (n / C >= 2 warp slots of 24 per SM x SMs x lanes per warp's groups) and the one-tile
///    block's job is at most two steps of 32 Q vectors, the last less than half full (its fill,
///    vectors / (steps x 32 Q), under 3/4): its second round trip carries little (double 579
///    rows: 57%, float 579: 57%, double 183: 72%; float 1832 rows, 89%, runs 1.44x cuBLAS with
///    one tile per block and keeps it).
///    Not for short columns (rule 6's lanes in the one-tile launch): they looped faster only
///    while the short kernel read beta * y after its reduction (H200); with y loaded first, one
///    tile per block is faster on every such shape measured but float 58 rows (H200;
///    \ref notes_gemv).
///    Never where the looping group is a whole warp whose lanes read at most one vector of a
///    column per tile (double 58 and 64 rows: 0.78x and 0.56x looping against 1.03x and 0.82x
///    with one tile per block; not explained yet).
///    The partial last step's prefetch (the second run's T kernel) is part of this kernel's
///    stream, not of the teaching kernel (double C = 4 keeps 64 registers there).
/// The square powers of two 1024 ... 16384 keep the launches measured before these rules
/// (the chapter 5 sweep, \ref notes_gemv): rule 3 gives Y = 1 there, rule 6 does not apply.
#pragma once

#include "blas_types.hpp"
#include "derive/derivation.hpp"
#include "gemv_launch.hpp"

#include <vector>

namespace wb {

/// How the tuned GEMV reads A (rule 1).
enum class GemvLoads : int {
    kElement = 0,    ///< N, columns not 16-byte aligned: one element per load, a warp per column
    kAligned16 = 1,  ///< every column starts 16-byte aligned: one 16-byte load per W rows
    kShifted16 = 2,  ///< T, columns or x not aligned: 16-byte loads over each column's aligned part,
                     ///< head and tail peeled
};

/// What the rules know about one call.
struct GemvShape {
    Op op = Op::N;
    int m = 0, n = 0, lda = 1;
    int elem_bytes = 4;      ///< 4 (float) or 8 (double)
    int a_offset_bytes = 0;  ///< A's address modulo 16
    int x_offset_bytes = 0;  ///< x's address modulo 16
};

/// What the rules know about the machine. Defaults: the H200 (device notes, common/device_profile).
struct GemvMachine {
    int sm_count = 132;
    int max_threads_per_sm = 2048;
    double bandwidth_gbs = 4800;     ///< DRAM bandwidth (datasheet; the measured read stream is ~4300)
    double latency_ns = 700;         ///< loaded DRAM latency (common/device_profile, kHopperLatencyNs)
    double sm_bandwidth_gbs = 100;   ///< what one SM can pull (a lead: ~3x its share of 4.8 TB/s)
    double split_cost_us = 2;        ///< fixed cost of a split: partials, ticket, the last block's pass
    int regs_per_sm = 65536;         ///< 32-bit registers per SM (rule 7)
    /// Little's law per SM: latency x bandwidth / SMs (GB/s x ns = bytes).
    double bytes_in_flight_per_sm() const { return bandwidth_gbs * latency_ns / sm_count; }
};

/// Rule 1: the loads the tuned GEMV uses for this shape.
GemvLoads tuned_gemv_loads(const GemvShape& s);

/// Elements per load: 16 / elem_bytes, or 1 for element loads.
int tuned_gemv_rows_per_load(const GemvShape& s);

/// True when `l` runs the short-reduction T kernel (L = block_x < 32 lanes per column).
inline bool tuned_gemv_short_t(Op op, const GemvLaunch& l) { return op == Op::T && l.block_x < 32 && l.loop == 0; }

/// True when `l` runs the looping T kernel (rule 8).
inline bool tuned_gemv_loop_t(Op op, const GemvLaunch& l) { return op == Op::T && l.loop != 0; }

/// Tiles (blocks along the output) of a launch: N: ceil(m / (block_x W)); T: ceil(n / nb), or
/// ceil(n / (nb block_y)) for the short-reduction kernel; looping T: ceil(n / nb) (tiles, not blocks).
long long tuned_gemv_tiles(const GemvShape& s, const GemvLaunch& l);

/// Bytes one block keeps in flight (rule 2): N: threads x 2U loads (double-buffered; 16 bytes
/// each, or one element); T: threads x 2(C + 1); short T: threads x C; looping T: threads x (C + 1),
/// continuously.
double tuned_gemv_block_bytes_in_flight(const GemvShape& s, const GemvLaunch& l);

/// Rules 3-5: blocks per tile for launch `l` (l.Y > 0 is returned as it is).
int tuned_gemv_split(const GemvShape& s, const GemvLaunch& l, const GemvMachine& mc);

/// A split reduction's slices (pattern, access and the tuned T kernels): the reduction of length
/// k > 0 over at most Y >= 1 blocks in whole steps of `step` elements.
struct GemvSplit {
    int k_per_block = 0;  ///< ceil(ceil(k / Y) / step) x step
    int Y = 1;            ///< the blocks that leaves: ceil(k / k_per_block) <= Y
};
/// The kernels compute a block's end, blockIdx.y x k_per_block + k_per_block, in int; the last
/// block's, Y x k_per_block, passes k by up to Y steps. Where that would pass kMaxInt32 (k within
/// Y steps of it: the default T launch of float 2147418111 x 8 has Y = 132 steps of 1024 rows),
/// Y is lowered, one at a time, until it does not; Y <= (kMaxInt32 - k) / step always fits (at least
/// 32 for every k validate_gemv accepts).
GemvSplit gemv_split_reduction(int k, int Y, int step);
/// N: the most blocks per tile a tuned launch with Q thread rows takes: every block gets at least
/// one column per thread row (n / Q, at least 1), and the column stride of a thread, Q Y, keeps
/// the kernel's count of its columns, (n - j + Q Y - 1) / (Q Y), within an int (Q Y <= 2^31 - n:
/// Y >= 512 for every n validate_gemv accepts).
int tuned_gemv_n_max_split(int n, int Q);
/// Rule 8: true when T runs the looping kernel at its default launch.
bool tuned_gemv_t_loops(const GemvShape& s, const GemvMachine& mc = {});

/// The looping T kernel's launch for this shape (rule 8's L lanes, C = 4, loop = 1), whether or
/// not rule 8 takes it (the shape benchmark times it beside the default).
GemvLaunch tuned_gemv_t_loop_launch(const GemvShape& s);

/// The default launch without rule 8 (one tile per block: the third run's launches).
GemvLaunch tuned_gemv_one_tile_launch(const GemvShape& s, const GemvMachine& mc = {});

/// Chapter 5's former default launch, by the rules above (every field set, Y derived, cache and
/// cluster auto). The tuned step's default is now tuned_gemv_default (chapter 6's derivation);
/// these rules stay as the derivation's reference: the sweep list covers their choices, and the
/// cpu tests compare them.
GemvLaunch tuned_gemv_default_launch(const GemvShape& s, const GemvMachine& mc = {});

/// The launch a GEMV derivation names: block_x, block_y (= Q), Y, loop and, by op, C (nb, T) or
/// U (ept, N). Chapter 6 and the tuned step's default read a derivation through it.
GemvLaunch gemv_launch_of(const derive::Derivation& d, bool trans);
/// derive::derive_gemv for call `s` on `dev`: T aligned where every column and x start on 16
/// bytes (else the heads are peeled), N 16-byte loads where tuned_gemv_loads gives them.
/// `white`: White's procedure where it applies (chapter 6 prints it); false: the tuned kernels'.
derive::Derivation gemv_derivation(const DeviceProfile& dev, const GemvShape& s, bool white = true);
/// The derived launch for call `s` on `dev` (m or n of 0: a valid no-op, the launch for 1).
GemvLaunch gemv_derived_launch(const DeviceProfile& dev, const GemvShape& s);
/// The tuned step's default launch: gemv_derived_launch on derive::default_profile() (the current
/// device's profile, read once; the h200 preset without a GPU), cached per device and shape.
GemvLaunch tuned_gemv_default(const GemvShape& s);

/// The tuned step's legal launches for this call, bounded (at most about 200) by taking each
/// tunable's values that mean something for the shape, and covering every choice the default
/// rule makes and chapter 6's derivation takes, so that a sweep of them is their oracle:
/// N: tiles of block_x = a 128-byte line's threads (or fewer, for an output shorter than that) up
/// to 256, blocks of 256 or 512 threads, every instantiated U (16: float element loads), Y = 1,
/// the default rule's Y for that block (rules 3-5) and one wave of blocks (floor(resident slots /
/// tiles), at most a batch per thread row), each split also with global partials (cluster 1);
/// T: 32 x Q blocks of C = 2, 4, 8 columns with the same three Y, the short-column lanes and the
/// looping kernel (cache 0, 1, 2). Every launch takes the automatic cache policy but the default's
/// block, which also takes each explicit policy (1-4; 1-2 for element loads): the policy decides
/// how A's lines stay in the L2, not how blocks cover A. The default launch is one of them.
std::vector<GemvLaunch> tuned_gemv_launches(const GemvShape& s, const GemvMachine& mc = {});

/// The tuned launcher's check of a launch's own fields (no device call; tuned::gemv runs it first,
/// and chapter 6's cpu tests run it on every derived launch). An explicit launch (block_x > 0) has
/// block_y, nb and ept filled where they are 0 (8, 4, 4) and its thread shape checked for op `op`;
/// every launch has nb, ept, cache, Y, cluster and loop checked. Returns the filled launch; throws
/// std::invalid_argument naming `fn`, the field, its value and the rule.
GemvLaunch check_tuned_gemv_launch(Op op, const GemvLaunch& in, const char* fn);

/// The shape's part of the check, once the launch is complete (default fields filled): ept = 16
/// only for float N with element loads (rule 1). Throws std::invalid_argument as above.
void check_tuned_gemv_ept(const GemvShape& s, const GemvLaunch& l, const char* fn);

}  // namespace wb
