/// \file tuned/gemm_config.hpp
/// \brief The tuned GEMM's configuration table: every instantiated kernel shape, named, with the
///        constants the default rule weighs it by. Host and device code read it (the kernels
///        through KernelConfig, the rule in gemm_default_rule.cpp); nothing here needs a GPU.
///
/// A configuration is a GemmConfig: the block tile of C and the depth of one stage, the warp and
/// thread tiles, the pipeline's stages, the blocks per SM the kernel is compiled for, which
/// transposing operands are stored swizzled, and the blocks per SM the rule counts without a GPU.
/// Each entry below says why it exists (the measurements: \ref notes_gemm). What the default rule
/// weighs comes from chapter 6's derivation and rates measured on the device
/// (gemm_kernel_rates.hpp), not from this table.
/// To add a configuration: one entry here, its name in Configs<T> below, and its two
/// instantiation lines (run_config, resident_blocks) in a gemm_instances_*.cu file.
#pragma once

#include "gemm.hpp"

#include <cstddef>

namespace wb::tuned {

/// Which transposing operands (op(A) = A^T, op(B) = B) a configuration stores XOR-swizzled on its
/// 16-byte path, read BK / 4 lanes per row (TileLoader's Swizzle; the index map: gemm_swizzle.hpp).
enum class GemmSwizzle {
    none,               ///< one lane per row, unswizzled
    tn,                 ///< op(A) = A^T, and op(B) = B where op(A) = A^T too (the largest float tile)
    long_side,          ///< every transposing operand whose stage has 32 rows or more, NN included
    long_side_async_b,  ///< as long_side, and in NN op(B) = B copied by 4-byte cp.async straight
                        ///< into its swizzled stage even where it is 16-byte aligned
};

/// One configuration: the kernel's shape (template constants of the kernels instantiated from
/// it). Entries are built by the named setters below, so that every number says what it is.
struct GemmConfig {
    int tile_m = 0, tile_n = 0;    ///< rows and columns of C one block computes (BM x BN)
    int tile_k = 0;                ///< depth of one shared-memory stage (BK)
    int warp_m = 0, warp_n = 0;    ///< rows and columns of C one warp computes
    int thread_m = 0, thread_n = 0;  ///< rows and columns of C one thread computes (register block)
    int stages = 0;                ///< shared-memory stages in the cp.async ring
    int min_blocks = 1;            ///< blocks per SM the kernel is compiled for (__launch_bounds__);
                                   ///< 1 selects the main loop's one-block order
    bool prefetch_order = false;   ///< the one-block order (the next tile's first fragments loaded
                                   ///< before the last k-step's FMAs) at more blocks per SM too
    bool prefetch_c = false;       ///< C prefetched into the L2 before the epilogue (unsplit launches
                                   ///< with op(B) = B^T, beta != 0; gemm_kernel.cuh says where it pays)
    GemmSwizzle swizzle = GemmSwizzle::none;
    bool operand_guard = false;    ///< copies checked per operand, not per tile of C (skinny C)
    int sm90_blocks = 1;           ///< blocks per SM on an H100 or H200: the rule's count without a GPU

    constexpr int threads() const { return 32 * (tile_m / warp_m) * (tile_n / warp_n); }

    /// A copy with `set` applied: the named setters below, each one field group.
    template <class Set>
    constexpr GemmConfig with(Set set) const {
        GemmConfig c = *this;
        set(c);
        return c;
    }
    constexpr GemmConfig tile(int m, int n, int k) const {
        return with([&](GemmConfig& c) { c.tile_m = m, c.tile_n = n, c.tile_k = k; });
    }
    constexpr GemmConfig warp(int m, int n) const {
        return with([&](GemmConfig& c) { c.warp_m = m, c.warp_n = n; });
    }
    constexpr GemmConfig thread(int m, int n) const {
        return with([&](GemmConfig& c) { c.thread_m = m, c.thread_n = n; });
    }
    constexpr GemmConfig pipeline(int stage_count, int blocks_per_sm) const {
        return with([&](GemmConfig& c) { c.stages = stage_count, c.min_blocks = blocks_per_sm; });
    }
    constexpr GemmConfig swizzled(GemmSwizzle s) const {
        return with([&](GemmConfig& c) { c.swizzle = s; });
    }
    constexpr GemmConfig prefetching() const {
        return with([&](GemmConfig& c) { c.prefetch_order = true; });
    }
    constexpr GemmConfig prefetching_c() const {
        return with([&](GemmConfig& c) { c.prefetch_c = true; });
    }
    constexpr GemmConfig guard_each_operand() const {
        return with([&](GemmConfig& c) { c.operand_guard = true; });
    }
    constexpr GemmConfig sm90_occupancy(int blocks) const {
        return with([&](GemmConfig& c) { c.sm90_blocks = blocks; });
    }
    /// The whole shape at once, in the order of the probe hook below.
    constexpr GemmConfig shape(int bm, int bn, int bk, int wm, int wn, int tm, int tn, int stage_count,
                               int blocks_per_sm) const {
        return tile(bm, bn, bk).warp(wm, wn).thread(tm, tn).pipeline(stage_count, blocks_per_sm);
    }

    /// The configuration as the ladder's launch (legal_launches lists these).
    GemmLaunch launch() const {
        GemmLaunch l;
        l.block_x = threads();
        l.block_y = 1;
        l.tile_m = tile_m;
        l.tile_n = tile_n;
        l.tile_k = tile_k;
        l.warp_m = warp_m;
        l.warp_n = warp_n;
        l.thread_m = thread_m;
        l.thread_n = thread_n;
        l.stages = stages;
        return l;
    }
};

/// Exploration hook: scripts/probes/gemm_variants.sh rebuilds the tuned GEMM with another shape
/// of the large float tile, WB_GEMM_PROBE_F256 = "BM, BN, BK, WM, WN, TM, TN, STAGES, MIN_BLOCKS".
#ifdef WB_GEMM_PROBE_F256
constexpr GemmConfig probe_f256(GemmConfig c) { return c.shape(WB_GEMM_PROBE_F256); }
#else
constexpr GemmConfig probe_f256(GemmConfig c) { return c; }
#endif

// ----------------------------------------------------------------------------------------------
// The table.

/// Large float C: 128 accumulators per thread, one block of 8 warps per SM (the shape of cuBLAS's
/// own FP32 kernel on Hopper); its TN operands swizzled; C prefetched before its epilogue (one
/// block per SM: nothing else covers the epilogue's loads).
inline constexpr GemmConfig kFloat256x128 =
    probe_f256(GemmConfig{}.shape(256, 128, 16, 64, 64, 16, 8, 3, 1))
        .swizzled(GemmSwizzle::tn).prefetching_c().sm90_occupancy(1);
/// Medium float C, or where 256 x 128 tiles would leave SMs idle: two blocks per SM.
inline constexpr GemmConfig kFloat128x128 =
    GemmConfig{}.shape(128, 128, 16, 64, 32, 8, 8, 3, 2)
        .swizzled(GemmSwizzle::long_side_async_b).sm90_occupancy(2);
/// Small float C: four blocks per SM, many tiles for few FMAs.
inline constexpr GemmConfig kFloat64x64 =
    GemmConfig{}.shape(64, 64, 16, 32, 16, 4, 4, 3, 4)
        .swizzled(GemmSwizzle::long_side).sm90_occupancy(4);
/// 2 ... 16 columns of C: every FMA useful from n = 16 on, the long operand read once per 16
/// columns; BK = 32 so that a stage of 16 columns is 128 whole 16-byte vectors.
inline constexpr GemmConfig kFloat128x16 =
    GemmConfig{}.shape(128, 16, 32, 32, 16, 4, 4, 3, 3)
        .swizzled(GemmSwizzle::long_side).guard_each_operand().sm90_occupancy(4);
/// 2 ... 16 rows of C: 128 x 16 transposed.
inline constexpr GemmConfig kFloat16x128 =
    GemmConfig{}.shape(16, 128, 32, 16, 32, 4, 4, 3, 3)
        .swizzled(GemmSwizzle::long_side).guard_each_operand().sm90_occupancy(4);
/// 33 ... 64 columns of C, and C of about one tile per SM: the 128 x 128 tile's 8 x 8 thread tile
/// on four warps. Its main loop in the one-block order (prefetching) at three blocks per SM (168
/// registers, no spills): with four warps a block, an SM has 12 warps to hide a barrier with, and
/// loading the next tile's first fragments before the last k-step's FMAs measured 2-10% faster
/// than the order of the other multi-block tiles on most shapes (gemm_one_block_probe, \ref notes_gemm).
inline constexpr GemmConfig kFloat128x64 =
    GemmConfig{}.shape(128, 64, 16, 64, 32, 8, 8, 3, 3)
        .prefetching().swizzled(GemmSwizzle::long_side).guard_each_operand().sm90_occupancy(3);
/// 33 ... 64 rows of C: 128 x 64 transposed.
inline constexpr GemmConfig kFloat64x128 =
    GemmConfig{}.shape(64, 128, 16, 32, 64, 8, 8, 3, 3)
        .prefetching().swizzled(GemmSwizzle::long_side).guard_each_operand().sm90_occupancy(3);
/// Large double C: 8 x 8 thread tiles load 16 operands for 64 FMAs, 2 bytes of shared memory per
/// FMA, what an SM's 128 bytes per clock feed at 64 FP64 FMAs per clock; ~250 registers, so one
/// block per SM, and BK = 8 with 4 stages (BK = 16 spills).
inline constexpr GemmConfig kDouble128x128 =
    GemmConfig{}.shape(128, 128, 8, 64, 32, 8, 8, 4, 1).sm90_occupancy(1);
/// Small double C: three blocks per SM.
inline constexpr GemmConfig kDouble64x64 =
    GemmConfig{}.shape(64, 64, 16, 32, 16, 4, 4, 3, 3).sm90_occupancy(3);
/// 2 ... 16 columns of double C.
inline constexpr GemmConfig kDouble128x16 =
    GemmConfig{}.shape(128, 16, 16, 32, 16, 4, 4, 3, 3).guard_each_operand().sm90_occupancy(3);
/// 2 ... 16 rows of double C.
inline constexpr GemmConfig kDouble16x128 =
    GemmConfig{}.shape(16, 128, 16, 16, 32, 4, 4, 3, 3).guard_each_operand().sm90_occupancy(3);

/// The configurations of a precision, in the order legal_launches lists them (largest tile first).
template <const GemmConfig&... E>
struct ConfigList {};
template <class T>
struct Configs;
template <>
struct Configs<float> {
    using type = ConfigList<kFloat256x128, kFloat128x128, kFloat64x64, kFloat128x64, kFloat64x128, kFloat128x16,
                            kFloat16x128>;
};
template <>
struct Configs<double> {
    using type = ConfigList<kDouble128x128, kDouble64x64, kDouble128x16, kDouble16x128>;
};

/// A configuration as the kernels see it: its fields as template constants, the quantities that
/// follow from them, and their relations checked at compile time.
/// ONE_WAVE: where the configuration prefetches at several blocks per SM, the kernel for grids of
/// at most one block per SM: the multi-block order with its registers bounded by two blocks (at
/// 128 threads, no bound), since an SM with one block of four warps has no other warps to hide
/// the prefetching order's longer dependence chains under the three blocks' 168 registers
/// (gemm_one_block_probe and chapter 6's sweep: 0.93-0.97x the multi-block order there, 1.02-1.06x
/// above one block per SM; \ref notes_gemm).
template <class T, const GemmConfig& E, bool ONE_WAVE = false>
struct KernelConfig {
    using type = T;
    static constexpr int BM = E.tile_m, BN = E.tile_n, BK = E.tile_k;  // block tile of C, depth of one stage
    static constexpr int WM = E.warp_m, WN = E.warp_n;                  // warp tile
    static constexpr int TM = E.thread_m, TN = E.thread_n;              // thread tile
    static constexpr int STAGES = E.stages, MIN_BLOCKS = ONE_WAVE ? 2 : E.min_blocks;
    static constexpr bool PREFETCH_ORDER = !ONE_WAVE && (E.min_blocks == 1 || E.prefetch_order);  // the main loop's order
    static constexpr bool PREFETCH_C = E.prefetch_c;  // C into the L2 before the epilogue (gemm_kernel.cuh)
    static_assert(!PREFETCH_C || PREFETCH_ORDER, "the C prefetch sits in the one-block order's main loop");
    /// Whether grids of at most one block per SM run the ONE_WAVE kernel instead.
    static constexpr bool HAS_ONE_WAVE = !ONE_WAVE && E.min_blocks > 1 && E.prefetch_order;
    static constexpr GemmSwizzle SWIZZLE_T = E.swizzle;
    static constexpr bool OPERAND_GUARD = E.operand_guard;
    static constexpr int LM = WM / TM, LN = WN / TN;  // lanes of a warp along m and n
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int W = static_cast<int>(16 / sizeof(T));  // elements per 16-byte vector
    static constexpr std::size_t SMEM = std::size_t(STAGES) * BK * (BM + BN) * sizeof(T);
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles tile the block tile");
    static_assert(WM % TM == 0 && WN % TN == 0 && LM * LN == 32, "a warp is LM x LN = 32 lanes of TM x TN");
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 sub-blocks");
    static_assert(BK % W == 0, "k-vectors of the transposing loads fit in one stage");
    static_assert((BK * BM / W) % THREADS == 0 && (BK * BN / W) % THREADS == 0, "every thread copies whole vectors");
    static_assert(THREADS % BM == 0 && THREADS % BN == 0, "the transposing loads cover whole k-vectors per pass");
    static_assert(STAGES >= 2, "at least double buffering");
};

}  // namespace wb::tuned
