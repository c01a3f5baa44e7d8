/// \file tuned/gemm.cu
/// \brief Chapter 5 — tuned GEMM: warp tiles of 2-D register blocks, 16-byte global loads into
///        a multi-stage shared-memory pipeline (cp.async), a fast interior and guarded edges.
///
/// What changes against chapter 4:
/// - Bigger register blocks with warp tiles: for a large float C a block of 256 threads computes
///   BM x BN = 256 x 128, each warp WM x WN = 64 x 64, each thread TM x TN = 16 x 8, arranged
///   as (TM/4) x (TN/4) sub-blocks of 4 x 4 spaced 4*LM rows / 4*LN columns apart (LM x LN =
///   4 x 8 lanes). Each 16-byte shared read is then one row of 4 lanes x 16 bytes = 64
///   contiguous bytes (op(A)) or 8 x 16 = 128 bytes (op(B)), broadcast to the other lanes:
///   conflict-free without padding. 128 accumulators per thread: one block of 8 warps per SM
///   (the shape cuBLAS's own FP32 kernel has on the H200: 256 threads, ~254 registers).
/// - 16-byte global loads. The operand already stored k-major (op_a = N for A, op_b = T for B)
///   is copied with cp.async 16-byte straight into shared memory (no registers, no wait); the
///   operand stored the other way (op_a = T, op_b = N) is loaded as 16-byte vectors along k into
///   registers and stored transposed (consecutive lanes take consecutive rows: no conflicts). On
///   the 256 x 128 tile four lanes read one row's 16 elements instead (a warp's load covers 8
///   whole 64-byte rows, not 32 half-used sectors) and the stage is XOR-swizzled so that those
///   8 rows still store without conflicts; the fragment loads undo the swizzle (SWIZZLE_T). op(B)
///   = B is swizzled only in TN (in NN it measured 1-2% slower swizzled; SA / SB in the kernel).
///   The skinny tiles do the same for their long operand, 8 lanes per 32-element row.
/// - A STAGES-deep ring of shared-memory tiles, one barrier per tile (cp.async.wait_group
///   STAGES-2 before it). Where the barrier sits depends on how many blocks share an SM:
///   - One block per SM (the 256 x 128 configuration): no other block's warps can issue while
///     this block waits, so the barrier is moved off the path into the FMAs (CUTLASS's
///     multistage order). It sits inside each tile's last k-step, after that step's fragments
///     are loaded; then the next tile's k-step-0 fragments are loaded (a second set of TM + TN
///     registers, the only fragments held twice) before that step's FMAs, then the copy of tile
///     t+STAGES is issued into the stage just freed. The warps leave the barrier with 128 FMAs
///     to issue while their next fragments arrive. The transposing loads of a tile are issued
///     after one barrier and stored before the next: a whole tile of FMAs hides them.
///   - Two or more blocks per SM (128 x 128, 64 x 64, the double configurations): the barrier at
///     the top of each tile, tile t+STAGES-1 in flight while tile t is computed; another resident
///     block's warps issue during one block's wait. The register path loads its tile at the top
///     of the iteration and stores it after the FMAs.
/// - Vector loads only where legal: 16-byte-aligned base pointer and ld % (16 / sizeof(T)) == 0,
///   decided at launch (VEC); otherwise the same pipeline copies element by element, 4-byte
///   cp.async, still coalesced: an operand stored along r a whole column per warp, a transposing
///   float operand into the 16-byte path's swizzled slots (TileLoader's ELEM_COLUMNS and
///   ELEM_SWIZZLE; H100, scripts/probes/gemm_elem_probe.cu --configs: 0.84x-0.94x the 16-byte
///   rate on the 256-, 128- and 64-wide tiles, 0.74x-0.90x on the narrow ones; 0.36x-0.71x
///   before). Interior
///   tiles copy without checks; the tiles on an edge of C or of k copy with per-element checks
///   (cp.async's src-size zero-fills what lies outside), chosen per tile by one uniform branch.
/// - The configuration is chosen from the shape (default_launch, gemm_default below): each
///   instantiated configuration's measured rate times the fraction of its last wave that works
///   times the fraction of its tiles inside C; the highest estimate wins (256 x 128 on large C,
///   128 x 128 or 64 x 64 where the large tiles would leave SMs idle or waste a row of tiles, or
///   where the operands are not 16-byte aligned: each configuration's element-copy rate).
/// - Shapes a square benchmark never shows (ch05 --shapes; the tuning notes, "GEMM: the shape
///   set"): C of one column or row runs as chapter 5's GEMV (gemm_as_gemv); 2 ... 16 columns or
///   rows take 16-wide tiles and 33 ... 64 take 64-wide ones, their copies checked per operand
///   (OPERAND_GUARD); an operand whose columns are not 16-byte aligned is copied to aligned
///   columns first where that pays (GemmLaunch::align).
/// - Split k where C alone cannot fill the GPU (GemmLaunch::split_k; the default rule decides,
///   estimate() below): gridDim.z slices of k, each a multiple of BK long, write partial C's to a
///   workspace; splitk_sum adds them in slice order and applies alpha and beta (deterministic,
///   like cuBLAS's own split-k reduction). A 1024 x 1024 C is 32 tiles of 256 x 128 for 132
///   SMs: with k = 16384 the unsplit kernel ran at 0.48x cuBLAS (H100, gemm-bench-eb48aad.txt).
/// Model (float, 256 x 128 x 16, thread 16 x 8): global loads per FMA 1/256 + 1/128; shared
/// loads per FMA (16 + 8) / 128 = 0.19 elements = 6 LDS.128 per 128 FFMA (chapter 4: 1/8 of an
/// instruction per FMA); the FMA issue rate is the limit: ~90% of issued instructions are FMAs.
/// Measured (H100, 2026-11-25, scripts/probes/gemm_bench.cu --tuned-only, cuBLAS pedantic FP32 in
/// the same run; this loop as the probe order 1 of branch gemm-next, ae2d34c, files
/// docs/results/h100/gemm-probe-gemm-next-ae2d34c-{V0,V3,W0,W3}.txt): 256 x 128 in this order
/// 48.1 TFLOP/s at 4096 NN, 0.93x cuBLAS (0.94x at 8192; TN 0.85x / 0.84x) (W3). The same tile
/// with the barrier at the top of each tile 0.87x / 0.88x NN (V3); the former 128 x 256 (warp
/// 128 x 32) 0.85x / 0.85x in that order (V0) and 0.85x / 0.86x in this one (W0): the order gains
/// on the 256 x 128 tile, not on 128 x 256. At 4097 (lda 4097: the element copies, and edge
/// tiles) this order measured slower: NN and TN 0.61x-0.62x against 0.68x-0.70x (W0, W3 against
/// V0, V3), not explained yet; the default rule takes 128 x 128 there (RATE_ELEM below).
/// The swizzled transposing loads (same bench, H100, docs/results/h100/gemm-bench-cdb13d2-t1.txt):
/// TN 0.94x / 0.93x cuBLAS at 4096 / 8192 (0.85x / 0.84x before), NN 0.91x / 0.92x (unchanged
/// kernels: 0.93x / 0.94x in eb48aad's run, the spread between runs); geometric mean over the
/// bench's shapes 0.905 NN, 0.920 TN. With op(B) swizzled only in TN (gemm-probe-3d1be4b-run2-P.txt
/// against -M.txt, one run): NN 0.93x / 0.94x, TN 0.93x / 0.93x at 4096 / 8192.
/// Before (H200, 2026-11-23, ncu): cuBLAS's kernel issued an instruction in 87% of scheduler
/// cycles, the 128 x 128 configuration of this one in 70%. A different change measured slower
/// then (128 x 256, 38.6 against 43.2 TFLOP/s): the barrier also before the last k-step, but every
/// k-step's fragments double-buffered in registers; this loop holds only k-step 0's twice.
/// Run: ./workbook run ch05 -- --op gemm       (GemmLaunch: tile, warp, thread, stages: one of
///                                               the instantiated configurations, legal_launches)
#include "buffer.hpp"
#include "gemm_common.cuh"
#include "tuned/gemm_swizzle.hpp"
#include "tuned/gemm_pack.cuh"
#include "cp_async.cuh"
#include "gemv.hpp"

#include <algorithm>
#include <map>
#include <type_traits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace wb::tuned {
namespace {

// ----------------------------------------------------------------------------------------------
// cp.async (sm_80+): kernels/cp_async.cuh.
using detail::cp_async;
using detail::cp_async_commit;
using detail::cp_async_wait;

// ----------------------------------------------------------------------------------------------
/// Which transposing operands a configuration swizzles (Config::SWIZZLE_T).
constexpr int kSwizzleNone = 0, kSwizzleTN = 1, kSwizzleLong = 2, kSwizzleLongAsyncB = 3;

/// A configuration: tile sizes as template constants, their relations checked at compile time.
template <class T, int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MINB_,
          int SWIZZLE_T_ = 0, bool OPERAND_GUARD_ = false>
struct Config {
    using type = T;
    static constexpr int BM = BM_, BN = BN_, BK = BK_;  // block tile of C, depth of one stage
    static constexpr int WM = WM_, WN = WN_;            // warp tile
    static constexpr int TM = TM_, TN = TN_;            // thread tile
    static constexpr int STAGES = STAGES_, MIN_BLOCKS = MINB_;
    // The default rule's TN factor (estimate()): this configuration's 16-byte rate with op(A) = A^T
    // read transposed over its NN rate, relative to the 256 x 128 tile's (kTransposedARate takes
    // that tile's penalty). 1 unless a configuration measured it (the float ones below).
    static constexpr double TN_REL = 1.0;
    // Transposing operands (op(A) = A^T, op(B) = B) loaded BK / 4 lanes per row of BK elements and
    // stored with an XOR swizzle of the row index that the fragment loads undo (TileLoader's Swizzle):
    // set per configuration, 16-byte path only (the kernel's SA / SB). kSwizzleTN (1): op(A) = A^T,
    // and op(B) = B where op(A) = A^T too (measured on the largest float tile). kSwizzleLong (2):
    // every transposing operand whose stage has 32 rows or more (the 16- and 64-wide tiles, 64 x 64).
    // kSwizzleLongAsyncB (3): as 2, and in NN op(B) = B copied element by element by 4-byte
    // cp.async straight into its swizzled stage (TileLoader's Async) even where it is 16-byte
    // aligned (128 x 128; the measurements at F128).
    static constexpr int SWIZZLE_T = SWIZZLE_T_;
    // Copies checked per operand (the operand's own extent), not per tile of C: set by the
    // skinny configurations, whose tiles all cross the short side of C.
    static constexpr bool OPERAND_GUARD = OPERAND_GUARD_;
    static constexpr int LM = WM / TM, LN = WN / TN;    // lanes of a warp along m and n
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int W = gemm_detail::Vec16<T>::width;  // elements per 16-byte vector
    static constexpr std::size_t SMEM = std::size_t(STAGES) * BK * (BM + BN) * sizeof(T);
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles tile the block tile");
    static_assert(WM % TM == 0 && WN % TN == 0 && LM * LN == 32, "a warp is LM x LN = 32 lanes of TM x TN");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 sub-blocks");
    static_assert(BK % W == 0, "k-vectors of the transposing loads fit in one stage");
    static_assert((BK * BM / W) % THREADS == 0 && (BK * BN / W) % THREADS == 0, "every thread copies whole vectors");
    static_assert(THREADS % BM == 0 && THREADS % BN == 0, "the transposing loads cover whole k-vectors per pass");
    static_assert(STAGES >= 2, "at least double buffering");
    static GemmLaunch launch() {
        GemmLaunch l;
        l.block_x = THREADS;
        l.block_y = 1;
        l.tile_m = BM;
        l.tile_n = BN;
        l.tile_k = BK;
        l.warp_m = WM;
        l.warp_n = WN;
        l.thread_m = TM;
        l.thread_n = TN;
        l.stages = STAGES;
        return l;
    }
};

// The instantiated configurations (legal_launches lists them in this order), each with the
// default rule's four constants (estimate() below): RATE (GFLOP/s of the main loop with 16-byte
// copies), RATE_ELEM (with element copies), FILL (k-tiles of pipeline fill and epilogue a block
// pays besides its main loop) and EPI (how much of its C tile's traffic a block waits for, 0 ...
// 1: 1 where a block is alone on its SM). The double ones and FM16 are the first estimates
// described below. The other float ones are fitted (scripts/probes/gemm_rule_fit.py --regret,
// H100, docs/results/h100/gemm-rule-sweep-21208ec.txt: 130 calls x every configuration and
// split): the values, searched from those first estimates, under which the rule's picks lose
// least against the fastest launch of each call, the chapter's shapes losing nothing. Fitted on
// half of the shapes, the rule's loss on the other half went from 1.09x-1.11x to 1.03x-1.05x (two
// random halves); fitted on all, 1.10x -> 1.03x (worst 1.66x -> 1.52x), the chapter's shapes
// 1.028x -> 1.002x; on an earlier sweep (another H100, before the element epilogue's change,
// gemm-rule-sweep-1e7ac34.txt) the same values give 1.10x -> 1.03x. The first estimates: RATE
// the GFLOP/s the configuration reached at 4096^3 NN (scripts/probes/gemm_bench.cu): F256's on
// an H100, 2026-11-25 (docs/results/h100/gemm-probe-gemm-next-ae2d34c-W3.txt: 48148, cuBLAS
// 51687), the others on an H200, 2026-11-23 (the same H100 run measured the float ones within 1%
// of these); FILL 2 and EPI 0 where blocks share an SM, FILL 1 and EPI 1 where a block is alone
// (f658cf2).
// SM90_BLOCKS: the blocks per SM the occupancy API gives on an H100 or H200; the rule asks the
// device, and takes these where there is none (predict-only, the CPU tests).
#ifndef WB_GEMM_PROBE_F256  // scripts/probes/gemm_bench.cu rebuilds this file with other values
#define WB_GEMM_PROBE_F256 256, 128, 16, 64, 64, 16, 8, 3, 1
#endif
// RATE_ELEM is the rate of the element-copy path (operands whose columns are not 16-byte aligned:
// odd lda, offset pointers). Since the element copies stay coalesced (TileLoader's ELEM_COLUMNS,
// ELEM_SWIZZLE): RATE x the configuration's element-path rate over its 16-byte rate at 4096 x 4096
// x 2048, the geometric mean over NN, NT, TN, TT, capped at RATE (H100, scripts/probes/
// gemm_elem_probe.cu --configs, docs/results/h100/gemm-elem-configs-new.txt: 0.910, 1.032, 0.968,
// 0.895, 0.884, 0.753, 0.735 in the order below), and no lower than the value fitted for the
// slower element path before (FM16). Before, RATE x the 4097 / 4096 ratio (0.57x-0.95x), then
// fitted (gemm_rule_fit.py). The double configurations keep RATE_ELEM = RATE: their element path
// runs at 0.74-0.96 of their 16-byte rate (docs/results/h100/gemm-elem-configs-double-*), but with
// RATE_ELEM at those ratios the rule copied the operands of 23 of 90 double calls first and lost
// 0.3% over them (gemm-rulecheck-delem-*).
// F128 and F64 swizzle their transposing operands (kSwizzleLongAsyncB, kSwizzleLong) since these
// constants were fitted: their 16-byte path is 1.07x-1.33x faster than RATE describes (H100,
// gemm_elem_probe --configs, the old and new build alternating, docs/results/h100/
// gemm-swz-configs-{head,vD}-run{1,2}.txt: 128 x 128 NN 1.686 -> 1.576 ms, TN 1.919 -> 1.607 ms
// (gemm-swz128-vB-*: its TN kernels disassemble to the same SASS as these), TT 1.729 -> 1.517 ms;
// 64 x 64 NN 2.466 -> 2.097, TN 3.032 -> 2.287, TT 2.461 -> 2.168), RATE and RATE_ELEM kept as
// measured against the slower path: scaling RATE by that gain made the rule pick 128 x 128 on
// 4096^2 to 8192^2, where 256 x 128 is still 7% faster (1.469 against 1.576 ms at 4096 x 4096 x
// 2048 NN), an error of the fitted model. A sweep of the new kernels and a search from these values
// (gemm_rule_fit.py --tied on gemm-rule-sweep-1f8e88a.txt and gemm-rule-sweep-align-bcd0c80.txt)
// found no constants that do better on held-out calls. Where the rule picks these tiles they run
// faster; where they are now the fastest launch and the rule does not pick them, the gain is left.
// TN_REL: each float configuration's TN / NN rate at 4096 x 4096 x 2048 (16-byte path, op(A) = A^T
// read transposed; docs/results/h100/gemm-swz-configs-vD-*, 128 x 128's TN from gemm-swz128-vB-*)
// over the 256 x 128 tile's (0.979): 128 x 128 1.0, 64 x 64 0.937, 128 x 64 0.836, 64 x 128 0.921,
// 128 x 16 0.782, 16 x 128 0.917.
// Before, every configuration took the same penalty (kTransposedARate), and at 1000^3 TN the rule
// read A transposed with 128 x 64 (TN / NN 0.82) at 0.81x cuBLAS where 128 x 128 reached 0.89x
// (gemm-rule-sweep-shape-b39d328-stdout.txt); replayed on the two sweeps, the rule's regret on
// the TN calls read transposed 1.038x -> 1.025x.
// F256 swizzles its transposing loads (SWIZZLE_T): TN 0.94x / 0.93x cuBLAS at 4096 / 8192 on an
// H100 against 0.86x / 0.84x with one lane per row (docs/results/h100/gemm-probe-fb11bf9-T1.txt).
struct F256 : Config<float, WB_GEMM_PROBE_F256, kSwizzleTN> {  // float, large C
    static constexpr double RATE = 44100, RATE_ELEM = 40100, FILL = 6, EPI = 1;  // first: 48000, 27600, 1, 1
    static constexpr int SM90_BLOCKS = 1;
};
struct F128 : Config<float, 128, 128, 16, 64, 32, 8, 8, 3, 2, kSwizzleLongAsyncB> {
    static constexpr double RATE = 39100, RATE_ELEM = 39100, FILL = 1.5, EPI = 0;  // first: 40000, 33200, 2, 0
    static constexpr int SM90_BLOCKS = 2;
};
struct F64 : Config<float, 64, 64, 16, 32, 16, 4, 4, 3, 4, kSwizzleLong> {  // small C
    static constexpr double RATE = 28000, RATE_ELEM = 27100, FILL = 0.5, EPI = 0;  // first: 28000, 26600, 2, 0
    static constexpr double TN_REL = 0.937;
    static constexpr int SM90_BLOCKS = 4;
};
// D128: thread tiles of 8 x 8 (not 8 x 4): a k-step loads 16 operands for 64 FMAs, 2 bytes of
// shared memory per FMA, which is what an SM's 128 bytes per clock feed at its 64 FP64 FMAs per
// clock (8 x 4: 3 bytes per FMA, two thirds of the FMA rate at best). 64 accumulators of 8 bytes
// take ~250 registers, so one block of 256 threads per SM, and BK = 8 with 4 stages (BK = 16
// spilled: ptxas, sm_90). H200, one call against 8 x 4 (128 x 64 x 16, 2 blocks per SM):
// 4096 NN 12439 -> 15298 GFLOP/s, TN 10043 -> 13243 (docs/results/h200/gemm-probe-d88k8-*).
struct D128 : Config<double, 128, 128, 8, 64, 32, 8, 8, 4, 1> {
    static constexpr double RATE = 15300, RATE_ELEM = 15300, FILL = 1, EPI = 1;
    static constexpr int SM90_BLOCKS = 1;
};
struct D64 : Config<double, 64, 64, 16, 32, 16, 4, 4, 3, 3> {
    static constexpr double RATE = 10200, RATE_ELEM = 10200, FILL = 2, EPI = 0;
    static constexpr int SM90_BLOCKS = 3;
};
// Skinny C: 16 columns (FN16, DN16) or 16 rows (FM16, DM16) of C per block, four warps along the
// long side. A 64 x 64 tile does n / 64 of its FMAs useful where C has n < 64 columns (8192 x 16
// x 8192 float: 0.44x cuBLAS on the H100, docs/results/h100/gemm-shapes-float-base.txt); these
// do all of them from n = 16 on and read the long operand once per 16 columns. Such a call is
// bound by the long operand's bytes (2 n / size(T) flops per byte of it) more than by the FMAs.
// BK = 32 in float: with 128 threads a stage of 16 columns is then 128 whole 16-byte vectors.
// 3 blocks per SM (170 registers): at 4 (128) the element-copy kernels, 32 copies per thread and
// tile, spilled 400-700 bytes (ptxas, sm_90); the 16-byte kernels take 101-119.
// RATE: first estimates (the 64 x 64 tile's, less the thinner thread tile's reuse). Measured on
// the H200 (b8e8ccc, gemm-shapes-float-b8e8ccc.txt; memory-bound shapes, so rates of the shape, not
// of the tile): FN16 25.9 TFLOP/s at 8192 x 16 x 8192, FM16 14.1 at 16 x 8192 x 8192, FN64 27.7
// and FM64 30.3 at 64 columns / rows; DN16 10.1 (gemm-shapes-double-87ffc16.txt). The rule's picks
// on the shape set were measured; the rates were not fitted to them.
// OPERAND_GUARD (the last template argument): each operand's copies checked against its own
// extent, since every tile of a skinny C crosses its short edge.
// kSwizzleLong: the long operand (128 rows of the stage), where it is transposing (FN16's op(A) =
// A^T, FM16's op(B) = B), is read 8 lanes per row (one 128-byte line per row of BK = 32) into a
// swizzled stage. With one lane per row a warp's load had touched 32 lines for 16 bytes of each,
// and those calls streamed at half NN's rate: on one H100, same machine and call order, TN 8192 x
// 2 ... 16 x 8192 went from 0.82x-0.94x to 1.19x-1.36x cuBLAS, NN and TN with 4 or 16 rows from
// 0.94x-0.96x to 1.24x-1.28x (docs/results/h100/gemm-shapes-float-{N,T}-{7b0a442,skinny}.txt).

struct FN16 : Config<float, 128, 16, 32, 32, 16, 4, 4, 3, 3, kSwizzleLong, true> {
    static constexpr double RATE = 21600, RATE_ELEM = 16300, FILL = 2, EPI = 0;  // first: 20000, 15000, 2, 0
    static constexpr double TN_REL = 0.782;
    static constexpr int SM90_BLOCKS = 4;
};
struct FM16 : Config<float, 16, 128, 32, 16, 32, 4, 4, 3, 3, kSwizzleLong, true> {
    static constexpr double RATE = 20000, RATE_ELEM = 15000, FILL = 2, EPI = 0;
    static constexpr double TN_REL = 0.917;
    static constexpr int SM90_BLOCKS = 4;
};
// 33 ... 64 columns or rows: the 128 x 128 tile's 8 x 8 thread tile and warp tile on 128 x 64
// (FN64) or 64 x 128 (FM64), four warps; the 64 x 64 tile's 4 x 4 thread tiles ran 8192 x 64 x
// 8192 at 0.58x cuBLAS (H100, same file). Their transposing loads are swizzled as F256's (BK =
// 16: 4 lanes per row): unswizzled, TN with 64 columns ran at 0.53x cuBLAS against NN's 0.62x
// (H200, gemm-shapes-float-b8e8ccc.txt). kSwizzleLong: op(B) = B in NN too (FM64's long operand,
// 128 rows; FN64's 64): on one H100, old and new build alternating (docs/results/h100/
// gemm-rulecheck-swz64-*.txt), NN 64 x 8192 x 8192 0.84x -> 0.97x cuBLAS, 8192 x 56 x 8192 0.72x ->
// 0.88x, 4226 x 2000 x 822 0.63x -> 0.89x (the rule now picks 128 x 64 there), no call of 172 slower
// by more than 3%. The NN unsplit 128 x 64 kernel takes 144 registers now (127 before): 3 blocks
// per SM, as its other kernels.
struct FN64 : Config<float, 128, 64, 16, 64, 32, 8, 8, 3, 2, kSwizzleLong, true> {
    static constexpr double RATE = 41400, RATE_ELEM = 37100, FILL = 0, EPI = 0;  // first: 36000, 30000, 2, 0
    static constexpr double TN_REL = 0.836;
    static constexpr int SM90_BLOCKS = 3;
};
struct FM64 : Config<float, 64, 128, 16, 32, 64, 8, 8, 3, 2, kSwizzleLong, true> {
    static constexpr double RATE = 36000, RATE_ELEM = 31800, FILL = 2, EPI = 0;
    static constexpr double TN_REL = 0.921;
    static constexpr int SM90_BLOCKS = 3;
};
struct DN16 : Config<double, 128, 16, 16, 32, 16, 4, 4, 3, 3, kSwizzleNone, true> {
    static constexpr double RATE = 8000, RATE_ELEM = 8000, FILL = 2, EPI = 0;
    static constexpr int SM90_BLOCKS = 3;
};
struct DM16 : Config<double, 16, 128, 16, 16, 32, 4, 4, 3, 3, kSwizzleNone, true> {
    static constexpr double RATE = 8000, RATE_ELEM = 8000, FILL = 2, EPI = 0;
    static constexpr int SM90_BLOCKS = 3;
};

// ----------------------------------------------------------------------------------------------
/// One operand's tile loader. The tile is s[p][r] = op(X)(r0 + r, p0 + p), p < BK, r < R (R = BM
/// for op(A), BN for op(B)), k-major in shared memory. `ContigR`: X is stored with r contiguous
/// (A with op N, B with op T) -> cp.async straight into place. Otherwise p is contiguous (A with
/// op T, B with op N) -> vectors along p through registers, stored transposed.
template <class Cfg, int R, bool ContigR, bool VEC, bool Swizzle = false, bool Async = false>
struct TileLoader {
    using T = typename Cfg::type;
    using V = typename gemm_detail::Vec16<T>::type;
    static constexpr int THREADS = Cfg::THREADS, BK = Cfg::BK;
    // Swizzle without VEC: the element path of a transposing operand (columns not 16-byte
    // aligned) in the 16-byte path's slots and stage layout, each slot's W elements copied by W
    // cp.async of one element straight into their swizzled places (no registers). Before, that path
    // had consecutive lanes load consecutive rows, one element each: 32 rows, 32 lines per warp
    // load, the values staged in registers and stored after the FMAs.
    // Async: the same on the 16-byte path (the configuration asks for it, kSwizzleLongAsyncB).
    static constexpr bool ELEM_SWIZZLE = Swizzle && (!VEC || Async);
    static constexpr int W = VEC || Swizzle ? Cfg::W : 1;     // elements per slot
    static constexpr int PER_THREAD = BK * R / W / THREADS;   // slots per thread per tile
    static constexpr int REGS = ContigR || ELEM_SWIZZLE ? 1 : PER_THREAD * W;  // staging registers (transposing path)
    // The element path of an operand stored along r (ContigR, W = 1): each warp copies whole
    // columns p of the tile, 32 consecutive r per copy, so that a thread's copies of one column lie
    // at immediate offsets (32 elements apart) from one address, E / C addresses per tile (E copies
    // per thread, C = R / 32 per column). The 16-byte path's mapping (consecutive warps along r,
    // then p) gave each of a thread's copies its own column: E 64-bit addresses live across the
    // main loop (ptxas: the 256 x 128 tile's NT kernel at its 255-register cap).
    static constexpr int C32 = R / 32;
    // Float only: in double it moved ptxas's spills (the 128 x 128 TT split kernel 0 -> 8 bytes,
    // 64 x 64 ones up and down) and the double element path is not measured.
    static constexpr bool ELEM_COLUMNS =
        sizeof(T) == 4 && ContigR && W == 1 && R % 32 == 0 && PER_THREAD % (C32 > 0 ? C32 : 1) == 0;
    // Swizzle (the kernel decides, SA / SB): the transposing path, coalesced and swizzled: a row's
    // BK contiguous elements come from G = BK / 4 lanes (BK = 16: 4 lanes, 64 bytes), so a warp's
    // 16-byte loads cover 32 / G whole rows (full sectors instead of half-used ones); the stage
    // holds element (p, r) at s[p][r ^ swizzle_xor(p)], so that the rows of one store instruction
    // land in distinct banks, and the fragment loads undo the XOR (load_frags<Cfg, SA, SB>; the
    // index map: gemm_swizzle.hpp, checked on the host by tests/cpu/test_gemm_swizzle.cpp).
    static constexpr int G = BK / 4;  // lanes per row of the swizzled path (float, 16-byte vectors)
    static_assert(!Swizzle || (!ContigR && sizeof(T) == 4 && (G == 2 || G == 4 || G == 8) && R % 32 == 0 &&
                               (THREADS / G) % gemm_swizzle::rows_per_pass_multiple<G>() == 0),
                  "the coalesced mapping is written for float, BK = 8, 16 or 32, 16-byte vectors, R a multiple of 32 "
                  "rows, passes a multiple of gemm_swizzle::rows_per_pass_multiple rows");

    const T* X;
    int ldx, r0, rows, k;  // rows: extent of r in the operand (m or n); k: the reduction length
    T reg[REGS];

    // Copy number e of this thread: (p, r) of its first element.
    __device__ __forceinline__ void coords(int e, int& p, int& r) const {
        const int v = threadIdx.x + e * THREADS;
        if constexpr (ELEM_COLUMNS) {  // warp w: columns w, w + THREADS / 32, ...; copy e: chunk e % C32
            p = gemm_swizzle::column_copy_col(threadIdx.x, e, R, THREADS);
            r = gemm_swizzle::column_copy_row(threadIdx.x, e, R);
        } else if constexpr (ContigR) {  // W consecutive r of one p; a warp covers 32W consecutive r
            p = v / (R / W);
            r = (v % (R / W)) * W;
        } else if constexpr (Swizzle) {  // (constexpr: the swizzle's index map exists for BK = 8, 16, 32 only)  // G = BK / 4 consecutive lanes read one r's BK contiguous p;
            // a warp covers 32 / G rows per instruction, permuted so that they differ in every
            // bit of r mod 32 but those the swizzle XORs with p / 4 (gemm_swizzle.hpp).
            r = gemm_swizzle::row_of_thread<G>(threadIdx.x) + e * (THREADS / G);
            p = gemm_swizzle::k_of_thread<G>(threadIdx.x);
        } else {        // W consecutive p of one r; consecutive lanes take consecutive r
            r = v % R;
            p = (v / R) * W;
        }
    }

    /// ContigR: issue the cp.async copies of tile p0 into `s` (guarded: edge tiles).
    template <bool Guard>
    __device__ __forceinline__ void async_copy(T* s, int p0) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            int bytes = W * sizeof(T);
            const T* src = X + gr + static_cast<long long>(gp) * ldx;
            if (Guard) {
                const int valid = gp < k ? min(W, max(0, rows - gr)) : 0;
                bytes = valid * static_cast<int>(sizeof(T));
                if (valid == 0) src = X;  // never form an address outside the operand
            }
            cp_async(s + p * R + r, src, W * sizeof(T), bytes);
        }
    }

    /// ELEM_SWIZZLE: issue tile p0's element copies into their swizzled places in `s` (guarded:
    /// edge tiles; cp.async's src-size 0 zero-fills an element outside the operand).
    template <bool Guard>
    __device__ __forceinline__ void async_copy_swizzled(T* s, int p0) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            const int col = r ^ gemm_swizzle::swizzle_xor<G>(p);  // p + c (c < W) shares p / 4
            const T* src = X + gp + static_cast<long long>(gr) * ldx;
#pragma unroll
            for (int c = 0; c < W; ++c) {
                const bool ok = !Guard || (gr < rows && gp + c < k);
                cp_async(s + (p + c) * R + col, ok ? src + c : X, sizeof(T), ok ? sizeof(T) : 0);
            }
        }
    }

    /// !ContigR: load tile p0 into registers (guarded: element by element, zeros outside).
    template <bool Guard>
    __device__ __forceinline__ void load_regs(int p0) {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            const int gp = p0 + p, gr = r0 + r;
            const T* src = X + gp + static_cast<long long>(gr) * ldx;
            if (!Guard) {
                if (W == Cfg::W && W > 1) {
                    const V v = __ldg(reinterpret_cast<const V*>(src));
                    const T* pv = reinterpret_cast<const T*>(&v);
#pragma unroll
                    for (int c = 0; c < W; ++c) reg[e * W + c] = pv[c];
                } else {
#pragma unroll
                    for (int c = 0; c < W; ++c) reg[e * W + c] = __ldg(src + c);
                }
            } else {
#pragma unroll
                for (int c = 0; c < W; ++c) reg[e * W + c] = gr < rows && gp + c < k ? __ldg(src + c) : T(0);
            }
        }
    }

    /// !ContigR: store the registers transposed: s[p + c][r] (a warp writes 32 consecutive r).
    __device__ __forceinline__ void store_regs(T* s) const {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int p, r;
            coords(e, p, r);
            if constexpr (Swizzle) {  // p is a multiple of 4, so p + c (c < 4) shares p / 4: one swizzled column
                const int col = r ^ gemm_swizzle::swizzle_xor<G>(p);
#pragma unroll
                for (int c = 0; c < W; ++c) s[(p + c) * R + col] = reg[e * W + c];
            } else {
#pragma unroll
                for (int c = 0; c < W; ++c) s[(p + c) * R + r] = reg[e * W + c];
            }
        }
    }

    /// Starts the copy of tile p0 into stage `s`: cp.async, or the register loads (the
    /// transposed store follows with finish()).
    __device__ __forceinline__ void start(T* s, int p0, bool full) {
        if constexpr (ContigR) {
            if (full) async_copy<false>(s, p0);
            else async_copy<true>(s, p0);
        } else if constexpr (ELEM_SWIZZLE) {
            if (full) async_copy_swizzled<false>(s, p0);
            else async_copy_swizzled<true>(s, p0);
        } else {
            if (full) load_regs<false>(p0);
            else load_regs<true>(p0);
        }
    }
    __device__ __forceinline__ void finish(T* s) const {
        if constexpr (!ContigR && !ELEM_SWIZZLE) store_regs(s);
    }
};

/// The fragments of k-step p of one stage: a[TM] (rows ra + q*4*LM .. +3 of op(A)) and b[TN]
/// (columns cb + q*4*LN .. +3 of op(B)), 16-byte shared loads.
template <class Cfg, bool SA = false, bool SB = false>
__device__ __forceinline__ void load_frags(const typename Cfg::type* a_s, const typename Cfg::type* b_s, int p,
                                           int ra, int cb, typename Cfg::type (&a)[Cfg::TM],
                                           typename Cfg::type (&b)[Cfg::TN]) {
    using T = typename Cfg::type;
    using V = typename gemm_detail::Vec16<T>::type;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, TM = Cfg::TM, TN = Cfg::TN, LM = Cfg::LM, LN = Cfg::LN, W = Cfg::W;
    // A swizzled operand's element (p, r) is at p * R + (r ^ sw), sw = swizzle_xor(p): it flips
    // bits 2 .. 1 + log2(BK / 4) of r at most (bits 2, 3 for BK = 16; 2 .. 4 for BK = 32), so
    // (r + off) ^ sw = (r ^ sw) + off for the offsets below (multiples of BK, or none where the
    // thread tile is one vector wide) and a 16-byte vector stays whole.
    constexpr int kSwSpan = Cfg::BK;  // 4 x (BK / 4): the span of r the XOR stays within
    static_assert(!SA || (W == 4 && (TM == 4 || (4 * LM) % kSwSpan == 0)), "swizzle commutes with the fragment offsets");
    static_assert(!SB || (W == 4 && (TN == 4 || (4 * LN) % kSwSpan == 0)), "swizzle commutes with the fragment offsets");
    const int ras = SA ? ra ^ gemm_swizzle::swizzle_xor<Cfg::BK / 4>(p) : ra;
    const int cbs = SB ? cb ^ gemm_swizzle::swizzle_xor<Cfg::BK / 4>(p) : cb;
#pragma unroll
    for (int q = 0; q < TM / 4; ++q)
#pragma unroll
        for (int v = 0; v < 4 / W; ++v)
            *reinterpret_cast<V*>(&a[4 * q + v * W]) =
                *reinterpret_cast<const V*>(&a_s[p * BM + ras + q * 4 * LM + v * W]);
#pragma unroll
    for (int q = 0; q < TN / 4; ++q)
#pragma unroll
        for (int v = 0; v < 4 / W; ++v)
            *reinterpret_cast<V*>(&b[4 * q + v * W]) =
                *reinterpret_cast<const V*>(&b_s[p * BN + cbs + q * 4 * LN + v * W]);
}

/// Whether the element path may swizzle a transposing operand of R rows per stage (thread tile
/// TT, LL lanes along it): float (4 elements per slot), BK = 8, 16 or 32, whole 32-row passes of
/// the index map (TileLoader's static_assert), and fragment offsets that commute with the XOR
/// (load_frags's static_assert). Every float configuration's long operand qualifies; the short
/// side of the 16-wide tiles (R = 16) keeps the unswizzled element loads.
template <class Cfg, int R, int TT, int LL>
constexpr bool elem_swizzle() {
    constexpr int BK = Cfg::BK, G = BK / 4;
    if constexpr (sizeof(typename Cfg::type) != 4 || !(BK == 8 || BK == 16 || BK == 32)) return false;
    else return R % 32 == 0 && (Cfg::THREADS / G) % gemm_swizzle::rows_per_pass_multiple<G>() == 0 &&
                (TT == 4 || (4 * LL) % BK == 0);
}

//! [tuned-gemm]
template <class Cfg, bool TransA, bool TransB, bool VEC, bool SPLIT>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
gemm_kernel(int m, int n, int k, typename Cfg::type alpha, const typename Cfg::type* __restrict__ A, int lda,
            const typename Cfg::type* __restrict__ B, int ldb, typename Cfg::type beta,
            typename Cfg::type* __restrict__ C, int ldc, bool vec_c, int k_slice, long long c_slice) {
    using T = typename Cfg::type;
    using V = typename gemm_detail::Vec16<T>::type;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, S = Cfg::STAGES;
    constexpr int LM = Cfg::LM, LN = Cfg::LN, W = Cfg::W;
    // Split k (SPLIT, gridDim.z slices; dispatch below): slice z multiplies op(A)(:, z kc ...) by
    // op(B)(z kc ..., :) into its own m x n partial (C is the workspace, ldc = m, alpha 1, beta 0);
    // splitk_sum adds the partials in slice order. kc is a multiple of BK: the slices' operands
    // keep the alignment the full operands have. A kernel of its own (SPLIT): with this block in
    // the one kernel, the unsplit 256 x 128 kernel's schedule moved (H100: 0.93x -> 0.89x cuBLAS
    // NN at 4096, 0.85x -> 0.89x TN; docs/results/h100/gemm-bench-618e685.txt).
    if constexpr (SPLIT) {  // launched with gridDim.z = slices > 1 only (dispatch)
        const int k0 = static_cast<int>(blockIdx.z) * k_slice;
        A += TransA ? k0 : static_cast<long long>(k0) * lda;
        B += TransB ? static_cast<long long>(k0) * ldb : k0;
        C += blockIdx.z * c_slice;
        k = min(k_slice, k - k0);
    }
    // Which operands' stages are swizzled (TileLoader's Swizzle): the transposing ones, on the 16-byte
    // path, where the configuration asks for it; in the 256 x 128 tile (kSwizzleTN) op(B) = B only
    // when op(A) = A^T too. Measured
    // (H100, gemm_bench --large, cuBLAS in the same run, docs/results/h100/gemm-probe-3d1be4b-*):
    // the swizzle lifts TN from 0.86x to 0.93x-0.94x, and that gain is op(B)'s (swizzling op(A)
    // alone left TN at 0.86x); in NN, where op(B) is the only transposing operand, swizzling it
    // cost 1-2% (0.92x / 0.93x against 0.93x / 0.94x at 4096 / 8192).
    // kSwizzleLong (the 16- and 64-wide tiles, 64 x 64) swizzles every transposing operand of 32
    // rows or more, in NN too: e.g. op(A) = A^T in FN16 (TN, TT), op(B) = B in FM16 and FM64 (NN,
    // TN); 128 x 128 (kSwizzleLongAsyncB) too, with NN's op(B) = B copied by 4-byte cp.async into
    // its stage (AsyncB). 64 x 64 and 128 x 128 read their transposing operands unswizzled before:
    // at 4096 x 4096 x 2048 (H100, docs/results/h100/gemm-swz-configs-*) NN / TN / TT 2.466 / 3.032 /
    // 2.461 -> 2.097 / 2.287 / 2.168 ms (64 x 64), 1.686 / 1.919 / 1.729 -> 1.576 / 1.607 / 1.517 ms
    // (128 x 128; the tuning notes, "GEMM: element copies that stay coalesced").
    // On the element path (!VEC) every transposing float operand whose stage the index map covers
    // is swizzled, whatever the configuration (elem_swizzle): its copies are then coalesced along
    // k and conflict-free in shared memory (TileLoader's ELEM_SWIZZLE).
    constexpr bool kLong = Cfg::SWIZZLE_T == kSwizzleLong || Cfg::SWIZZLE_T == kSwizzleLongAsyncB;
    constexpr bool SA = TransA && (VEC ? Cfg::SWIZZLE_T == kSwizzleTN || (kLong && BM % 32 == 0)
                                       : elem_swizzle<Cfg, BM, TM, LM>());
    constexpr bool SB = !TransB && (VEC ? (Cfg::SWIZZLE_T == kSwizzleTN && TransA) || (kLong && BN % 32 == 0)
                                        : elem_swizzle<Cfg, BN, TN, LN>());
    constexpr bool AsyncB = SB && VEC && Cfg::SWIZZLE_T == kSwizzleLongAsyncB && !TransA;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sA = reinterpret_cast<T*>(smem_raw);  // S stages of [BK][BM]
    T* sB = sA + S * BK * BM;                // S stages of [BK][BN]

    const int i0 = blockIdx.x * BM, j0 = blockIdx.y * BN;
    const bool interior = i0 + BM <= m && j0 + BN <= n;
    // Which operand's copies need checks: both wherever the tile of C crosses an edge, or, in the
    // skinny configurations (OPERAND_GUARD), each by its own extent only: with C 4 rows tall every
    // tile crosses m, and the long operand's 16-byte loads would become element loads.
    const bool inside_a = Cfg::OPERAND_GUARD ? i0 + BM <= m : interior;
    const bool inside_b = Cfg::OPERAND_GUARD ? j0 + BN <= n : interior;
    // op(A) rows are r = i (A stored i-contiguous when op_a = N); op(B) rows are r = j (B stored
    // j-contiguous when op_b = T).
    TileLoader<Cfg, BM, !TransA, VEC, SA> la{A, lda, i0, m, k, {}};
    TileLoader<Cfg, BN, TransB, VEC, SB, AsyncB> lb{B, ldb, j0, n, k, {}};

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int lm = lane % LM, ln = lane / LM;
    const int ra = wm0 + 4 * lm, cb = wn0 + 4 * ln;  // first row / column of this thread's sub-blocks

    T acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = 0;

    const int tiles = (k + BK - 1) / BK;
    // Prologue: tiles 0 .. P-1 into stages 0 .. P-1 (one commit group per tile, empty past the
    // end). The one-block order below fills every stage (P = S); the other keeps one free
    // (P = S-1) for the copy it issues at the top of its first iteration.
    constexpr int P = Cfg::MIN_BLOCKS == 1 ? S : S - 1;
#pragma unroll
    for (int t = 0; t < P; ++t) {
        if (t < tiles) {
            const bool kin = (t + 1) * BK <= k, full_a = inside_a && kin, full_b = inside_b && kin;
            la.start(sA + t * BK * BM, t * BK, full_a);
            lb.start(sB + t * BK * BN, t * BK, full_b);
            la.finish(sA + t * BK * BM);
            lb.finish(sB + t * BK * BN);
        }
        cp_async_commit();
    }

    if constexpr (Cfg::MIN_BLOCKS == 1) {
        // One block per SM: while its warps wait at a barrier and then for their first fragments,
        // no other block's warps can issue. So the barrier sits inside each tile's last k-step,
        // after that step's fragments are loaded, and the next tile's first fragments are loaded
        // before that step's FMAs (CUTLASS's multistage order): the FMAs cover their latency.
        cp_async_wait<S - 1>();  // tile 0 has landed for this thread
        __syncthreads();         // and for every thread; its k-step 0 fragments into a0, b0
        T a0[TM], b0[TN];  // k-step 0 of the next tile, loaded during the last k-step of this one
        load_frags<Cfg, SA, SB>(sA, sB, 0, ra, cb, a0, b0);

        // At the top of iteration t: the groups of tiles 0 .. t+S-1 are committed, tile t is in
        // stage st = t % S for every thread, a0/b0 hold its k-step 0; the transposing loads of
        // tile t-1+S (issued in iteration t-1) wait in registers for stage sp = (t-1) % S.
        int st = 0, sp = S - 1;
        for (int t = 0; t < tiles; ++t) {
            const T* a_s = sA + st * BK * BM;
            const T* b_s = sB + st * BK * BN;
            const int s1 = st + 1 == S ? 0 : st + 1;  // stage of tile t+1
            const bool pend = t > 0 && t - 1 + S < tiles;  // tile t-1+S waits in registers
            const int tn = t + S;  // the tile to start, into stage st once everyone has read it
            const bool more = tn < tiles;
            const bool kin = (tn + 1) * BK <= k, full_a = inside_a && kin, full_b = inside_b && kin;
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                T a[TM], b[TN];
                if (p == 0) {
#pragma unroll
                    for (int r = 0; r < TM; ++r) a[r] = a0[r];
#pragma unroll
                    for (int c = 0; c < TN; ++c) b[c] = b0[c];
                } else {
                    load_frags<Cfg, SA, SB>(a_s, b_s, p, ra, cb, a, b);
                }
                if (p == BK - 1) {
                    // Every fragment of tile t is loaded (this step's are in a, b): after the
                    // barrier stage st is free, and tile t+1 has landed for every thread.
                    if (pend) {  // the transposing loads of tile t-1+S to their stage sp
                        la.finish(sA + sp * BK * BM);
                        lb.finish(sB + sp * BK * BN);
                    }
                    cp_async_wait<S - 2>();  // this thread's copies of tile t+1 have landed
                    __syncthreads();         // everyone's have; everyone has read stage st
                    // Tile t+1's first fragments first (in flight during the copies' issue and
                    // this step's FMAs), then the copy of tile t+S into the freed stage st.
                    load_frags<Cfg, SA, SB>(sA + s1 * BK * BM, sB + s1 * BK * BN, 0, ra, cb, a0, b0);
                    if (more) {
                        la.start(sA + st * BK * BM, tn * BK, full_a);
                        lb.start(sB + st * BK * BN, tn * BK, full_b);
                    }
                    cp_async_commit();
                }
                // FMA order: with op(A) = A the inner loop runs along the longer side of the
                // thread tile, so consecutive FMAs share b[c] (runs of TM = 16, the operand reuse
                // cache's longer runs); with op(A) = A^T along the shorter (runs of TN sharing
                // a[r]). Measured, not derived (H100, gemm_bench --large, cuBLAS in the same run):
                // the first probe (docs/results/h100/gemm-probe-6679994-{main,v3}.txt) ran b-sharing
                // runs everywhere, NN 0.95x / 0.96x cuBLAS at 4096 / 8192 against 0.93x / 0.94x, TN
                // 0.91x / 0.92x against 0.93x / 0.93x; this split, three runs alternating with the
                // previous binary (gemm-order-{a9340a2,new}-run{1,2,3}.txt): NN +1.2% at 4096 and
                // +1.7% at 8192 (0.94x-0.95x / 0.95x-0.96x), TN unchanged.
                if constexpr (!TransA) {
#pragma unroll
                    for (int c = 0; c < TN; ++c)
#pragma unroll
                        for (int r = 0; r < TM; ++r) acc[r][c] += a[r] * b[c];
                } else {
#pragma unroll
                    for (int r = 0; r < TM; ++r)
#pragma unroll
                        for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
                }
            }
            sp = st;
            st = s1;
        }
    } else {
        // Two or more blocks per SM: the barrier at the top of each tile; while this block's
        // warps wait there and for their first fragments, another block's warps issue FMAs (the
        // order above was measured on the one-block configuration only).
        for (int t = 0; t < tiles; ++t) {
            cp_async_wait<S - 2>();  // this thread's copies of tile t have landed
            __syncthreads();         // everyone's have; and everyone is done with tile t-1's stage
            const int tn = t + S - 1, sn = tn % S;  // the tile to start, into the stage freed above
            const bool more = tn < tiles;
            const bool kin = (tn + 1) * BK <= k, full_a = inside_a && kin, full_b = inside_b && kin;
            if (more) {
                la.start(sA + sn * BK * BM, tn * BK, full_a);
                lb.start(sB + sn * BK * BN, tn * BK, full_b);
            }
            cp_async_commit();

            const T* a_s = sA + (t % S) * BK * BM;
            const T* b_s = sB + (t % S) * BK * BN;
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                T a[TM], b[TN];
                load_frags<Cfg, SA, SB>(a_s, b_s, p, ra, cb, a, b);
#pragma unroll
                for (int r = 0; r < TM; ++r)
#pragma unroll
                    for (int c = 0; c < TN; ++c) acc[r][c] += a[r] * b[c];
            }
            if (more) {  // the transposing loads' registers go to their stage after the FMAs
                la.finish(sA + sn * BK * BM);
                lb.finish(sB + sn * BK * BN);
            }
        }
    }
    cp_async_wait<0>();  // nothing may be in flight when the block exits

    // Epilogue: C = alpha*acc + beta*C (C not read when beta == 0); 16-byte stores of each
    // 4-row group where C allows, element by element where it does not (ldc or C not 16-byte
    // aligned: an odd m with ldc = m, for one) and on the edges of C. With beta != 0 old values of
    // C are loaded in batches before the stores that follow them: a load after a store to C cannot
    // be moved above it (the compiler cannot prove the addresses differ), so loading each value
    // just before its store makes one DRAM round trip per store, one after another. The vector path
    // loads a row group's TN vectors at once; the element path half a row group's TN x 4 elements
    // (all of them made ptxas spill in the main loops of four 128 x 128 kernels). Before, the
    // element path loaded each element before its store: 64 round trips per thread of an 8 x 8
    // tile, which short k with an odd m paid in full (docs/notes/gemm.md, "GEMM: the
    // element epilogue's loads batched").
    auto column = [&](int c) { return j0 + cb + (c / 4) * 4 * LN + c % 4; };  // of thread-tile column c
    if (!vec_c) {  // element stores: half the thread tile's columns per batch of loads
        constexpr int H = TN / 2;
#pragma unroll
        for (int q = 0; q < TM / 4; ++q) {
            const int i = i0 + ra + q * 4 * LM;  // first of 4 rows
#pragma unroll
            for (int h = 0; h < TN; h += H) {
                T old[H][4];
                if (beta != T(0)) {
#pragma unroll
                    for (int c = 0; c < H; ++c) {
                        const int j = column(h + c);
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (i + e < m && j < n) old[c][e] = C[i + e + static_cast<long long>(j) * ldc];
                    }
                }
#pragma unroll
                for (int c = 0; c < H; ++c) {
                    const int j = column(h + c);
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        if (i + e < m && j < n) {
                            const T r = alpha * acc[4 * q + e][h + c];
                            C[i + e + static_cast<long long>(j) * ldc] = beta == T(0) ? r : r + beta * old[c][e];
                        }
                }
            }
        }
        return;
    }
#pragma unroll
    for (int q = 0; q < TM / 4; ++q) {
        const int i = i0 + ra + q * 4 * LM;  // first of 4 rows
        auto whole = [&](int j) { return vec_c && (interior || (i + 3 < m && j < n)); };
        V old[TN][4 / W];
        if (beta != T(0)) {
#pragma unroll
            for (int c = 0; c < TN; ++c)
                if (whole(column(c)))
#pragma unroll
                    for (int v = 0; v < 4 / W; ++v)
                        old[c][v] = *reinterpret_cast<const V*>(C + i + v * W + static_cast<long long>(column(c)) * ldc);
        }
#pragma unroll
        for (int c = 0; c < TN; ++c) {
            const int j = column(c);
            T* cp = C + i + static_cast<long long>(j) * ldc;
            if (whole(j)) {
#pragma unroll
                for (int v = 0; v < 4 / W; ++v) {
                    T out[W];
                    if (beta == T(0)) {
#pragma unroll
                        for (int e = 0; e < W; ++e) out[e] = alpha * acc[4 * q + v * W + e][c];
                    } else {
                        const T* po = reinterpret_cast<const T*>(&old[c][v]);
#pragma unroll
                        for (int e = 0; e < W; ++e) out[e] = alpha * acc[4 * q + v * W + e][c] + beta * po[e];
                    }
                    *reinterpret_cast<V*>(cp + v * W) = *reinterpret_cast<const V*>(out);
                }
            } else if (j < n) {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (i + e < m) gemm_detail::store_c(C, ldc, i + e, j, alpha, acc[4 * q + e][c], beta);
            }
        }
    }
}
//! [tuned-gemm]

/// The sum of split-k partials: C = alpha * (P_0 + P_1 + ... + P_{S-1}) + beta * C, the slices
/// added in their order (bit-identical run to run); C is not read when beta == 0.
template <class T>
__global__ void splitk_sum(int m, int n, int slices, const T* __restrict__ P, T alpha, T beta, T* __restrict__ C,
                           int ldc) {
    const long long mn = static_cast<long long>(m) * n;
    for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < mn;
         e += static_cast<long long>(gridDim.x) * blockDim.x) {
        // Up to 8 slices' loads in flight before their adds (in slice order): with hundreds of
        // slices (a small C, a long k) one load per add would wait an L2 round trip each.
        T sum = P[e];
        int z = 1;
        for (; z + 8 <= slices; z += 8) {
            T v[8];
#pragma unroll
            for (int u = 0; u < 8; ++u) v[u] = P[(z + u) * mn + e];
#pragma unroll
            for (int u = 0; u < 8; ++u) sum += v[u];
        }
        for (; z < slices; ++z) sum += P[z * mn + e];
        const long long i = e % m, j = e / m;
        T* c = C + i + j * ldc;
        *c = beta == T(0) ? alpha * sum : alpha * sum + beta * *c;
    }
}

/// The split-k workspace: the calling thread's grow-only buffer for the current device and the
/// call's stream (common/buffer.hpp, as SYMV's), kept for the process.
struct SplitKWorkspaceTag {};
void* splitk_workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<SplitKWorkspaceTag>(s).get(bytes);
}

/// The workspace of A transposed (pack_a = 2), per device and stream, kept for the process.
struct PackWorkspaceTag {};
void* pack_workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<PackWorkspaceTag>(s).get(bytes);
}

/// Leading dimension of the packed A (m x k): m rounded up to a 128-byte line, so that every
/// column starts aligned and the main loop takes its 16-byte copies.
template <class T>
long long pack_ld(int m) {
    constexpr long long line = 128 / sizeof(T);
    return (static_cast<long long>(std::max(1, m)) + line - 1) / line * line;
}

/// pack_ld as a GemmArgs leading dimension (an int) for the workspace of launch field `field`
/// (pack_a or align, 2). It fits wherever validate_gemm let the call through (rows at most
/// launch_checks::kMaxIndexedExtent, and the rounding adds at most 31); checked all the same:
/// the int would otherwise wrap.
template <class T>
int pack_ld_int(int rows, const char* fn, const char* field) {
    const long long ld = pack_ld<T>(rows);
    gemm_detail::require_launch(ld <= 2147483647LL, fn, field, 2,
                                "1 for this call: its workspace's leading dimension, " + std::to_string(rows) +
                                    " rows rounded up to 128 bytes (" + std::to_string(ld) + "), passes INT_MAX");
    return static_cast<int>(ld);
}

/// op(A) = A^T of `a` transposed into the workspace: the same call with op(A) = A.
template <class T>
GemmArgs<T> packed(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    const int ldt = pack_ld_int<T>(a.m, fn, "pack_a");
    // The grid first: an m beyond its 65535 tiles throws before the workspace is allocated.
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.k, pack::kTile), 2147483647LL, fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, pack::kTile), 65535LL, fn));
    T* At = static_cast<T*>(pack_workspace(static_cast<std::size_t>(ldt) * std::max(1, a.k) * sizeof(T), s));
    pack::transpose_kernel<T><<<grid, dim3(pack::kTile, pack::kRowsPerPass), 0, s>>>(a.k, a.m, a.A, a.lda, At, ldt);
    WB_CHECK_LAUNCH();
    GemmArgs<T> b = a;
    b.op_a = Op::N;
    b.A = At;
    b.lda = ldt;
    return b;
}

/// The workspace of B copied to aligned columns (align = 2), per device and stream; a copy of A
/// takes pack_workspace (A is either transposed there or copied, never both).
struct AlignBWorkspaceTag {};
void* align_b_workspace(std::size_t bytes, cudaStream_t s) {
    return workspace_of_current_device<AlignBWorkspaceTag>(s).get(bytes);
}

/// `rows` x `cols` of X (leading dimension ldx) copied into `ws` with pack_ld columns.
template <class T>
T* copy_aligned(const T* X, int rows, int cols, int ldx, void* (*ws)(std::size_t, cudaStream_t), cudaStream_t s,
                const char* fn) {
    const long long ldy = pack_ld<T>(rows);
    T* Y = static_cast<T*>(ws(static_cast<std::size_t>(ldy) * std::max(1, cols) * sizeof(T), s));
    // grid.y covers kColumnsPerBlock columns per block, at most 65535 blocks: wider operands are
    // copied in chunks of columns.
    constexpr int kChunk = 65535 * pack::kColumnsPerBlock;
    for (long long j0 = 0; j0 < cols; j0 += kChunk) {  // long long: cols may lie within kChunk of INT_MAX
        const int c = static_cast<int>(std::min<long long>(kChunk, cols - j0));
        const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(rows, pack::kCopyThreads), 2147483647LL, fn),
                        gemm_detail::grid_dim(gemm_detail::ceil_div(c, pack::kColumnsPerBlock), 65535LL, fn));
        pack::copy_kernel<T><<<grid, pack::kCopyThreads, 0, s>>>(rows, c, X + j0 * ldx,
                                                                 ldx, Y + j0 * ldy, ldy);
        WB_CHECK_LAUNCH();
    }
    return Y;
}

/// The same call with every operand whose columns are not 16-byte aligned copied to aligned
/// columns (align = 2): A as stored (rows_a x cols), B as stored.
template <class T>
GemmArgs<T> aligned(const GemmArgs<T>& a, cudaStream_t s, const char* fn) {
    GemmArgs<T> b = a;
    const int cols_a = a.op_a == Op::N ? a.k : a.m, cols_b = a.op_b == Op::N ? a.n : a.k;
    if (!gemm_detail::aligned16(a.A, a.lda)) {
        b.lda = pack_ld_int<T>(a.rows_a(), fn, "align");
        b.A = copy_aligned(a.A, a.rows_a(), cols_a, a.lda, pack_workspace, s, fn);
    }
    if (!gemm_detail::aligned16(a.B, a.ldb)) {
        b.ldb = pack_ld_int<T>(a.rows_b(), fn, "align");
        b.B = copy_aligned(a.B, a.rows_b(), cols_b, a.ldb, align_b_workspace, s, fn);
    }
    return b;
}

/// k per slice for `split` slices: a multiple of BK (so that slices keep the operands'
/// alignment), and the slices that this leaves (ceil(k / kc) <= split).
template <int BK>
std::pair<int, int> slice_k(int k, int split) {
    // In long long: k + kc - 1 passes INT_MAX from k of about 2^30 on (two slices).
    const long long per = (k + split - 1LL) / split;
    const long long kc = (per + BK - 1) / BK * BK;
    return {static_cast<int>(kc), static_cast<int>((k + kc - 1) / kc)};
}

template <class Cfg, bool TA, bool TB, bool VEC, bool SPLIT>
void launch_kernel(const GemmArgs<typename Cfg::type>& a, bool vec_c, cudaStream_t s, const char* fn, int slices,
                   int k_slice) {
    auto kernel = gemm_kernel<Cfg, TA, TB, VEC, SPLIT>;
    if (Cfg::SMEM > 48 * 1024) {  // above 48 KB a kernel must opt in (once per device)
        static thread_local unsigned long long done = 0;
        int dev = 0;
        WB_CUDA(cudaGetDevice(&dev));
        if (!(done >> (dev % 64) & 1)) {
            WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(Cfg::SMEM)));
            done |= 1ull << (dev % 64);
        }
    }
    const dim3 grid(gemm_detail::grid_dim(gemm_detail::ceil_div(a.m, Cfg::BM), 2147483647LL, fn),
                    gemm_detail::grid_dim(gemm_detail::ceil_div(a.n, Cfg::BN), 65535, fn), slices);
    kernel<<<grid, Cfg::THREADS, Cfg::SMEM, s>>>(a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta, a.C, a.ldc,
                                                 vec_c, k_slice, static_cast<long long>(a.m) * a.n);
}

template <class Cfg, bool TA, bool TB, bool VEC>
void launch(const GemmArgs<typename Cfg::type>& a, bool vec_c, cudaStream_t s, const char* fn, int slices,
            int k_slice) {
    if (slices > 1) launch_kernel<Cfg, TA, TB, VEC, true>(a, vec_c, s, fn, slices, k_slice);
    else launch_kernel<Cfg, TA, TB, VEC, false>(a, vec_c, s, fn, 1, 0);
}

/// The kernel for the call's transpose combination (op(A), op(B) in {N, T}).
template <class Cfg, bool VEC>
void launch_ops(const GemmArgs<typename Cfg::type>& a, bool vec_c, cudaStream_t s, const char* fn, int slices,
                int k_slice) {
    const bool ta = a.op_a == Op::T, tb = a.op_b == Op::T;
    if (!ta && !tb) launch<Cfg, false, false, VEC>(a, vec_c, s, fn, slices, k_slice);
    else if (!ta && tb) launch<Cfg, false, true, VEC>(a, vec_c, s, fn, slices, k_slice);
    else if (ta && !tb) launch<Cfg, true, false, VEC>(a, vec_c, s, fn, slices, k_slice);
    else launch<Cfg, true, true, VEC>(a, vec_c, s, fn, slices, k_slice);
}

template <class Cfg>
void dispatch(const GemmArgs<typename Cfg::type>& in, int split, cudaStream_t s, const char* fn) {
    using T = typename Cfg::type;
    GemmArgs<T> a = in;
    int slices = 1, kc = 0;
    if (split > 1) {  // the slices write partials to the workspace; splitk_sum applies alpha, beta
        std::tie(kc, slices) = slice_k<Cfg::BK>(a.k, split);
        if (slices > 1) {
            a.C = static_cast<T*>(splitk_workspace(static_cast<std::size_t>(slices) * a.m * a.n * sizeof(T), s));
            a.ldc = a.m;
            a.alpha = T(1);
            a.beta = T(0);
        }
    }
    // 16-byte copies need both operands' base pointers 16-byte aligned and lda, ldb multiples of
    // the vector width (every column starts aligned); otherwise element-wise copies.
    const bool vec = gemm_detail::aligned16(a.A, a.lda) && gemm_detail::aligned16(a.B, a.ldb);
    const bool vec_c = gemm_detail::aligned16<T>(a.C, a.ldc);
    if (vec) launch_ops<Cfg, true>(a, vec_c, s, fn, slices, kc);
    else launch_ops<Cfg, false>(a, vec_c, s, fn, slices, kc);
    if (slices > 1) {
        const long long mn = static_cast<long long>(in.m) * in.n;
        const int blocks = static_cast<int>(std::min<long long>((mn + 255) / 256, 8LL * gemm_detail::sm_count()));
        splitk_sum<T><<<blocks, 256, 0, s>>>(in.m, in.n, slices, a.C, in.alpha, in.beta, in.C, in.ldc);
    }
}

template <class... Cfgs> struct ConfigList {};
template <class T> struct Configs;
template <> struct Configs<float> { using type = ConfigList<F256, F128, F64, FN64, FM64, FN16, FM16>; };
template <> struct Configs<double> { using type = ConfigList<D128, D64, DN16, DM16>; };

/// Resident blocks per SM of one kernel of a configuration on the current device (cached per
/// device and kernel). The kernels of one configuration differ in registers (ptxas, sm_90): the
/// 16-wide tiles' 16-byte kernels fit 4 blocks per SM, their element-copy ones 3; before 3d07e89
/// the 128 x 64 tile's NN unsplit kernel took 127 registers (4 blocks) and its split, TN and TT
/// ones more (3). So the rule asks about the kernel the call will run, not one of them for all.
template <class Cfg, bool TA, bool TB, bool VEC, bool SPLIT>
int blocks_per_sm() {
    thread_local std::map<int, int> cache;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {  // no GPU (predict-only): an H100's or H200's, so that
        cudaGetLastError();                     // the rule picks as it does there
        return Cfg::SM90_BLOCKS;
    }
    auto it = cache.find(dev);
    if (it != cache.end()) return it->second;
    auto kernel = gemm_kernel<Cfg, TA, TB, VEC, SPLIT>;
    if (Cfg::SMEM > 48 * 1024)
        WB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(Cfg::SMEM)));
    int b = 0;
    WB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, Cfg::THREADS, Cfg::SMEM));
    cache[dev] = b < 1 ? 1 : b;
    return cache[dev];
}

/// blocks_per_sm for the kernel a call runs: op(A), op(B), 16-byte or element copies, split or not.
template <class Cfg>
int blocks_per_sm(bool ta, bool tb, bool vec, bool split) {
    auto pick = [&](auto ta_, auto tb_) {
        constexpr bool TA = decltype(ta_)::value, TB = decltype(tb_)::value;
        if (vec) return split ? blocks_per_sm<Cfg, TA, TB, true, true>() : blocks_per_sm<Cfg, TA, TB, true, false>();
        return split ? blocks_per_sm<Cfg, TA, TB, false, true>() : blocks_per_sm<Cfg, TA, TB, false, false>();
    };
    using F = std::false_type;
    using Tr = std::true_type;
    if (ta) return tb ? pick(Tr{}, Tr{}) : pick(Tr{}, F{});
    return tb ? pick(F{}, Tr{}) : pick(F{}, F{});
}

/// The default rule's estimate for one configuration with k split into `split` slices, in
/// GFLOP/s: its main loop's rate (RATE, or RATE_ELEM where the operands take the element copies)
/// x the fraction of the last wave's block slots that do work x the fraction of the tiles' area
/// inside C x the share of a block's time in its main loop (kt / (kt + overhead) for kt tiles of
/// BK, overhead from FILL and EPI), plus, for a split, the second pass: the partials written and read and C written
/// at kSumBytesPerSecond and one more launch (kSumLaunchSeconds). Split k pays where the tiles of
/// C alone leave SMs idle and k is long (1024 x 1024 x 16384: 32 tiles of 256 x 128 for 132 SMs).
constexpr double kSumBytesPerSecond = 2.5e12;  // below the H100's 3.0 and the H200's 4.3 TB/s read stream
constexpr double kSumLaunchSeconds = 4e-6;     // a dependent launch and its tail (chapter 0's overheads)
constexpr int kMaxSplit = 1024;  // 64 x 64 x 2^20: one 64 x 64 tile; 512 slices fill 132 SMs
constexpr double kMaxWorkspaceBytes = 512.0 * 1024 * 1024;  // each workspace the rule may ask for (split, pack, copy)

template <class Cfg, class T>
double estimate(const GemmArgs<T>& a, int split) {
    const bool vec = gemm_detail::aligned16(a.A, a.lda) && gemm_detail::aligned16(a.B, a.ldb);
    const auto [kc, slices] = slice_k<Cfg::BK>(std::max(1, a.k), split);
    if (split > 1 && (slices < split || static_cast<double>(slices) * a.m * a.n * sizeof(T) > kMaxWorkspaceBytes))
        return -1;  // this split would not give `split` slices, or its workspace is too large
    const long long bm = gemm_detail::ceil_div(a.m, Cfg::BM), bn = gemm_detail::ceil_div(a.n, Cfg::BN);
    const long long blocks = bm * bn * slices;
    const int resident = blocks_per_sm<Cfg>(a.op_a == Op::T, a.op_b == Op::T, vec, slices > 1);
    const long long slots = static_cast<long long>(gemm_detail::sm_count()) * resident;
    const double waves = static_cast<double>((blocks + slots - 1) / slots);
    const double fill = static_cast<double>(blocks) / (waves * slots);
    const double area = static_cast<double>(a.m) * a.n / (static_cast<double>(bm) * Cfg::BM * bn * Cfg::BN);
    // A block's pipeline fill and epilogue, in k-tiles of its main loop: FILL, plus EPI times its
    // C tile's bytes (read and written with beta != 0, a split's partial written once) at the
    // chip's share of kSumBytesPerSecond against the tile's FMAs at RATE (5.8 k-tiles for float,
    // beta != 0). Where blocks share an SM the others' main loops hide most of it (EPI 0, FILL 0
    // ... 2); a block alone on its SM (the 256 x 128 tile) waits for all of it (EPI 1).
    // op(A) = A^T read transposed (a packed A arrives as op(A) = A): the configuration's TN factor.
    const double r0 = (vec ? Cfg::RATE : Cfg::RATE_ELEM) * (a.op_a == Op::T ? Cfg::TN_REL : 1.0);
    const double c_bytes = sizeof(T) * (slices > 1 || a.beta == T(0) ? 1.0 : 2.0);
    const double overhead = Cfg::FILL + Cfg::EPI * c_bytes * r0 * 1e9 / (2.0 * Cfg::BK * kSumBytesPerSecond);
    const double kt = static_cast<double>(slices > 1 ? kc : std::max(1, a.k)) / Cfg::BK;
    const double rate = r0 * 1e9 * fill * area * kt / (kt + overhead);
    const double flops = 2.0 * a.m * a.n * std::max(1, a.k);
    double seconds = flops / rate;
    if (slices > 1)
        seconds += (2.0 * slices + (a.beta == T(0) ? 1.0 : 2.0)) * a.m * a.n * sizeof(T) / kSumBytesPerSecond +
                   kSumLaunchSeconds;
    // No call is faster than its bytes (A, B once, C written and, with beta != 0, read) at the
    // stream rate: with k of a few elements C's bytes are the time, whatever the tile (8192^2 x 1:
    // an aligned copy of B, chosen for its FMA rate, cost 1.40x on the H200).
    const double bytes = sizeof(T) * (static_cast<double>(a.m) * a.k + static_cast<double>(a.k) * a.n +
                                      (a.beta == T(0) ? 1.0 : 2.0) * a.m * a.n);
    // Where that floor binds, every configuration meets it: the FMA time breaks the tie (1e-3).
    seconds = std::max(seconds, bytes / kSumBytesPerSecond) + 1e-3 * seconds;
    return flops / seconds / 1e9;
}

template <class... Cfgs>
std::vector<GemmLaunch> launches(ConfigList<Cfgs...>) {
    return {Cfgs::launch()...};
}

/// The splits the rule weighs: 2^j and 3 x 2^j up to kMaxSplit (1, 2, 3, 4, 6, 8, 12, 16, ...).
/// Powers of two alone left gaps a wave wide: 128 x 64 tiles on 1024^3 NN ran in 0.072 ms split
/// in 3, 0.101 ms in 4 (two waves), and on 130 calls of scripts/probes/gemm_rule_sweep.cu the
/// rule's replay (gemm_rule_fit.py) went from 1.148x to 1.110x the fastest launch.
inline const std::vector<int>& split_candidates() {
    static const std::vector<int> v = [] {
        std::vector<int> r;
        for (int p = 1; p <= kMaxSplit; p *= 2) {
            r.push_back(p);
            if (3 * p <= kMaxSplit) r.push_back(3 * p);
        }
        std::sort(r.begin(), r.end());
        return r;
    }();
    return v;
}

/// The configuration and split with the highest estimate (split_k 0 where no split wins), and
/// that estimate (GFLOP/s) in *rate.
template <class T, class... Cfgs>
GemmLaunch best(const GemmArgs<T>& a, ConfigList<Cfgs...>, double* rate = nullptr) {
    GemmLaunch pick;
    double best_rate = -1;
    for (int split : split_candidates())
        for (auto [l, r] : {std::pair<GemmLaunch, double>{Cfgs::launch(), estimate<Cfgs>(a, split)}...})
            if (r > best_rate) {
                best_rate = r;
                pick = l;
                pick.split_k = split > 1 ? split : 0;
            }
    if (rate) *rate = best_rate;
    return pick;
}

/// The main loop's rate with op(A) = A^T against op(A) = A (both operands on the register path
/// against one), H200, the default configurations at 4096 and 8192: float 45838 / 48542 and
/// 46683 / 48812 GFLOP/s (gemm-ch05-float-epilogue.csv), double 13243 / 15298
/// (gemm-probe-d88k8-quick.txt).
template <class T>
constexpr double kTransposedARate = sizeof(T) == 4 ? 0.95 : 0.87;
/// The transpose's traffic (k x m read, m x k written) at kSumBytesPerSecond and one more launch.
template <class T>
double pack_seconds(const GemmArgs<T>& a) {
    return 2.0 * a.m * std::max(1, a.k) * sizeof(T) / kSumBytesPerSecond + kSumLaunchSeconds;
}

/// True when every field the caller set (nonzero) equals the configuration's.
bool matches(const GemmLaunch& want, const GemmLaunch& cfg) {
    auto eq = [](int w, int c) { return w == 0 || w == c; };
    return eq(want.block_x, cfg.block_x) && eq(want.block_y, cfg.block_y) && eq(want.tile_m, cfg.tile_m) &&
           eq(want.tile_n, cfg.tile_n) && eq(want.tile_k, cfg.tile_k) && eq(want.thread_m, cfg.thread_m) &&
           eq(want.thread_n, cfg.thread_n) && eq(want.warp_m, cfg.warp_m) && eq(want.warp_n, cfg.warp_n) &&
           eq(want.stages, cfg.stages);
}

/// Launches the first configuration that matches `l`; false when none does.
template <class T, class Cfg, class... Rest>
bool dispatch_first(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s, const char* fn) {
    if (matches(l, Cfg::launch())) {
        dispatch<Cfg>(a, l.split_k, s, fn);
        return true;
    }
    if constexpr (sizeof...(Rest) > 0) return dispatch_first<T, Rest...>(a, l, s, fn);
    return false;
}
template <class T, class... Cfgs>
bool dispatch_list(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s, const char* fn, ConfigList<Cfgs...>) {
    return dispatch_first<T, Cfgs...>(a, l, s, fn);
}

}  // namespace

/// The instantiated configurations of T (the ladder's legal_launches), largest tile first.
template <class T>
std::vector<GemmLaunch> gemm_configs() {
    return launches(typename Configs<T>::type{});
}

/// The GEMV a GEMM call is (GemmLaunch::gemv = 2), where C has one column or one row and the
/// vectors are contiguous; false otherwise. A tile of C at least 64 wide does 1/64 of its FMAs
/// there (8192 x 1 x 8192: 0.22x-0.32x cuBLAS on the H100, gemm-shapes-float-base), and the call
/// is bound by A's bytes: chapter 5's GEMV reads them at the read ceiling.
///   n == 1: C(:, 0) = alpha op(A) x + beta C(:, 0), x = op(B)'s one column (contiguous when
///           op_b = N, or op_b = T with ldb == 1).
///   m == 1: C(0, :)^T = alpha op(B)^T x + beta C(0, :)^T, x = op(A)'s one row (contiguous when
///           op_a = T, or op_a = N with lda == 1); C's row is contiguous only with ldc == 1.
template <class T>
bool gemm_as_gemv(const GemmArgs<T>& a, GemvArgs<T>* out) {
    GemvArgs<T> g;
    g.alpha = a.alpha;
    g.beta = a.beta;
    g.y = a.C;
    if (a.n == 1 && (a.op_b == Op::N || a.ldb == 1)) {
        g.op = a.op_a;  // A as stored: m x k (N) or k x m (T)
        g.A = a.A;
        g.lda = a.lda;
        g.m = a.rows_a();
        g.n = a.op_a == Op::N ? a.k : a.m;
        g.x = a.B;
    } else if (a.m == 1 && a.ldc == 1 && (a.op_a == Op::T || a.lda == 1)) {
        g.op = a.op_b == Op::N ? Op::T : Op::N;  // B as stored: k x n (N, read transposed) or n x k (T)
        g.A = a.B;
        g.lda = a.ldb;
        g.m = a.rows_b();
        g.n = a.op_b == Op::N ? a.n : a.k;
        g.x = a.A;
    } else {
        return false;
    }
    if (out) *out = g;
    return true;
}

/// The default rule: the configuration and k split with the highest estimate, its measured rate
/// times the fraction of its last wave that works times the fraction of its tiles inside C, with
/// the second pass of a split (estimate()). Large tiles win on large C; where they would leave
/// SMs idle (a 1024^2 C is 32 tiles of 256 x 128 for 132 SMs) k is split, or smaller tiles win,
/// as where they waste a tile row (4097).
/// With op(A) = A^T the rule also weighs packing A (pack_a = 2): the op(A) = A kernel's estimate
/// plus the transpose (pack_seconds) against the direct kernel's estimate at kTransposedARate;
/// packing wins where the transpose costs less than the main loop's penalty, from n of a few
/// hundred on for large m and k, and not where its workspace would exceed kMaxWorkspaceBytes.
/// Where an operand's columns are not 16-byte aligned (odd ld, a submatrix's offset), the rule
/// also weighs copying it to aligned columns first (align = 2): the kernels' 16-byte rate plus
/// the copy (2 x its bytes at kSumBytesPerSecond, one launch) against their element-copy rate
/// (RATE_ELEM). The candidates: pack_a 1 / 2 (op(A) = A^T) x align 1 / 2 (an unaligned operand).
template <class T>
GemmLaunch gemm_rule_tiled(const GemmArgs<T>& a) {
    if (a.m <= 0 || a.n <= 0) return gemm_configs<T>().front();
    if (a.k <= 0) return best(a, typename Configs<T>::type{});  // C = beta C: no main loop
    const double flops = 2.0 * a.m * a.n * a.k;
    const bool unaligned = !gemm_detail::aligned16(a.A, a.lda) || !gemm_detail::aligned16(a.B, a.ldb);
    GemmLaunch pick;
    double t_pick = 0;
    for (int pack_a : a.op_a == Op::T ? std::vector<int>{1, 2} : std::vector<int>{0})
        for (int align : unaligned ? std::vector<int>{1, 2} : std::vector<int>{0}) {
            GemmArgs<T> view = a;  // the call the main loop sees; nullptr: an aligned workspace
            double extra = 0;
            bool fits = true;  // each workspace within kMaxWorkspaceBytes
            auto to_workspace = [&](const T*& p, int& ld, int rows, int cols) {
                ld = static_cast<int>(std::min<long long>(pack_ld<T>(rows), 2147483647LL));
                p = nullptr;
                fits = fits && static_cast<double>(ld) * cols * sizeof(T) <= kMaxWorkspaceBytes;
                extra += 2.0 * rows * cols * sizeof(T) / kSumBytesPerSecond + kSumLaunchSeconds;
            };
            if (pack_a == 2) {  // the transpose's grid y covers m in 32-row tiles, at most 65535
                if (gemm_detail::ceil_div(a.m, pack::kTile) > 65535) continue;
                view.op_a = Op::N;
                to_workspace(view.A, view.lda, a.m, a.k);
            }
            if (align == 2) {  // the copies run in chunks of columns: no grid limit
                const int cols_a = view.op_a == Op::N ? a.k : a.m, cols_b = view.op_b == Op::N ? a.n : a.k;
                if (view.A && !gemm_detail::aligned16(view.A, view.lda)) to_workspace(view.A, view.lda, view.rows_a(), cols_a);
                if (!gemm_detail::aligned16(view.B, view.ldb)) to_workspace(view.B, view.ldb, view.rows_b(), cols_b);
            }
            if (!fits) continue;
            double rate = 0;
            GemmLaunch l = best(view, typename Configs<T>::type{}, &rate);
            const double t = flops / (rate * (view.op_a == Op::T ? kTransposedARate<T> : 1.0) * 1e9) + extra;
            l.pack_a = pack_a;
            l.align = align;
            if (t_pick == 0 || t < t_pick) {
                pick = l;
                t_pick = t;
            }
        }
    return pick;
}

/// gemm_rule_tiled's pick, cached per thread for each device and class of call: the shape, op(A),
/// op(B), whether A's and B's columns are 16-byte aligned and whether beta is 0 (all the rule
/// reads). The rule weighs up to 4 x 21 x 7 estimates per call (packing x align x splits x
/// configurations; its host time: scripts/probes/gemm_rule_check.cu), a lookup a map's; cuBLASLt
/// keeps such a heuristics cache too. At most kRuleCacheSize entries (then it starts again).
constexpr std::size_t kRuleCacheSize = 4096;
template <class T>
GemmLaunch gemm_default_tiled(const GemmArgs<T>& a) {
    using Key = std::tuple<int, int, int, int, int, int, bool, bool, bool>;
    thread_local std::map<Key, GemmLaunch> cache;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {  // no GPU (predict-only): the rule's fallbacks
        cudaGetLastError();
        dev = -1;
    }
    const Key key{dev, a.m, a.n, a.k, static_cast<int>(a.op_a), static_cast<int>(a.op_b),
                  gemm_detail::aligned16(a.A, a.lda), gemm_detail::aligned16(a.B, a.ldb), a.beta == T(0)};
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    const GemmLaunch pick = gemm_rule_tiled(a);
    if (cache.size() >= kRuleCacheSize) cache.clear();
    cache.emplace(key, pick);
    return pick;
}

/// The default launch: the GEMV where the call is one (gemm_as_gemv), the tiled rule otherwise.
template <class T>
GemmLaunch gemm_default(const GemmArgs<T>& a) {
    if (a.m > 0 && a.n > 0 && a.k > 0 && gemm_as_gemv<T>(a, nullptr)) {
        GemmLaunch g;
        g.gemv = 2;
        return g;
    }
    return gemm_default_tiled(a);
}

/// The legal launches of a call: every instantiated configuration, and the GEMV where the call
/// is one (gemm_as_gemv).
template <class T>
std::vector<GemmLaunch> gemm_launches(const GemmArgs<T>& a) {
    std::vector<GemmLaunch> v = gemm_configs<T>();
    if (gemm_as_gemv<T>(a, nullptr)) {
        GemmLaunch g;
        g.gemv = 2;
        v.push_back(g);
    }
    return v;
}

template <class T>
void gemm(const GemmArgs<T>& a, const GemmLaunch& l, cudaStream_t s) {
    constexpr const char* fn = "tuned::gemm";
    static const std::vector<GemmLaunch> configs = gemm_configs<T>();
    auto fits_one = [&](const GemmLaunch& want) {
        return std::any_of(configs.begin(), configs.end(), [&](const GemmLaunch& c) { return matches(want, c); });
    };
    if (!fits_one(l)) {  // name the first field no configuration has (the message is built only here)
        std::string rule = "the value of one of the instantiated configurations, with the fields set before it (";
        for (const auto& c : configs) rule += (rule.back() == '(' ? "" : " | ") + c.str();
        rule += ")";
        const std::pair<const char*, int GemmLaunch::*> fields[] = {
            {"tile_m", &GemmLaunch::tile_m},     {"tile_n", &GemmLaunch::tile_n},     {"tile_k", &GemmLaunch::tile_k},
            {"warp_m", &GemmLaunch::warp_m},     {"warp_n", &GemmLaunch::warp_n},     {"thread_m", &GemmLaunch::thread_m},
            {"thread_n", &GemmLaunch::thread_n}, {"stages", &GemmLaunch::stages},     {"block_x", &GemmLaunch::block_x},
            {"block_y", &GemmLaunch::block_y}};
        GemmLaunch partial;
        for (const auto& [name, field] : fields) {
            partial.*field = l.*field;
            gemm_detail::require_launch(fits_one(partial), fn, name, l.*field, rule);
        }
        throw std::invalid_argument(std::string(fn) + ": launch (" + l.str() +
                                    ") must be one configuration, not fields of several: " + rule);
    }
    gemm_detail::require_launch(l.split_k >= 0 && l.split_k <= kMaxSplit, fn, "split_k", l.split_k,
                                "0 (the default rule decides, or no split in an explicit launch) ... " +
                                    std::to_string(kMaxSplit));
    gemm_detail::require_launch(l.pack_a >= 0 && l.pack_a <= 2, fn, "pack_a", l.pack_a,
                                "0 (the default rule decides, or no packing in an explicit launch), 1 (A read "
                                "transposed) or 2 (A transposed into a workspace first)");
    gemm_detail::require_launch(l.align >= 0 && l.align <= 2, fn, "align", l.align,
                                "0 (the default rule decides, or operands read where they are in an explicit "
                                "launch), 1 (read where they are) or 2 (unaligned operands copied to aligned columns "
                                "first)");
    gemm_detail::require_launch(l.gemv >= 0 && l.gemv <= 2, fn, "gemv", l.gemv,
                                "0 (the default rule decides, or the tiled kernels in an explicit launch), 1 (the "
                                "tiled kernels) or 2 (the call as a GEMV)");
    GemvArgs<T> g;
    const bool gemv_shape = gemm_as_gemv<T>(a, &g);
    gemm_detail::require_launch(l.gemv != 2 || gemv_shape, fn, "gemv", l.gemv,
                                "2 only where C is one column (op_b = N or ldb == 1) or one row (ldc == 1 and "
                                "op_a = T or lda == 1)");
    if (l.gemv == 2) {
        GemmLaunch tiles = l;
        tiles.gemv = 0;
        gemm_detail::require_launch(tiles == GemmLaunch{}, fn, "gemv", l.gemv,
                                    "2 alone: the GEMV has no tiles, split or packing (" + l.str() + ")");
    }
    if (!gemm_detail::gemm_begin(a, fn, s)) return;
    GemmLaunch all_default{};
    all_default.pack_a = l.pack_a;  // pack_a or align alone leaves the configuration to the rule
    all_default.align = l.align;
    all_default.gemv = l.gemv == 1 ? 1 : 0;  // gemv = 1 alone: the tiled rule's configuration
    GemmLaunch chosen = l == all_default ? (l.gemv == 1 ? gemm_default_tiled(a) : gemm_default(a)) : l;
    if (chosen.gemv == 2) {
        tuned::gemv<T>(g, GemvLaunch{}, s);
        return;
    }
    if (l.pack_a != 0) chosen.pack_a = l.pack_a;
    if (l.align != 0) chosen.align = l.align;
    GemmArgs<T> run = a.op_a == Op::T && chosen.pack_a == 2 ? packed(a, s, fn) : a;
    if (chosen.align == 2) run = aligned(run, s, fn);
    dispatch_list(run, chosen, s, fn, typename Configs<T>::type{});
    WB_CHECK_LAUNCH();
}

template void gemm<float>(const GemmArgs<float>&, const GemmLaunch&, cudaStream_t);
template void gemm<double>(const GemmArgs<double>&, const GemmLaunch&, cudaStream_t);
template std::vector<GemmLaunch> gemm_configs<float>();
template std::vector<GemmLaunch> gemm_configs<double>();
template GemmLaunch gemm_default<float>(const GemmArgs<float>&);
template GemmLaunch gemm_default<double>(const GemmArgs<double>&);
template bool gemm_as_gemv<float>(const GemmArgs<float>&, GemvArgs<float>*);
template bool gemm_as_gemv<double>(const GemmArgs<double>&, GemvArgs<double>*);
template std::vector<GemmLaunch> gemm_launches<float>(const GemmArgs<float>&);
template std::vector<GemmLaunch> gemm_launches<double>(const GemmArgs<double>&);

}  // namespace wb::tuned
