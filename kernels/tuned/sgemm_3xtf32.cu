/// \file tuned/sgemm_3xtf32.cu
/// \brief Chapter 5's named variant: SGEMM on the TF32 tensor cores with FP32 accuracy, three
///        `mma.sync.m16n8k8.tf32` products per multiply (why three: sgemm_3xtf32.hpp).
///
/// The kernel is the FP64 tensor cores' (dgemm_tensor_core.cu) with 4-byte elements:
/// - The multiply. `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`: D(16 x 8) += A(16 x 8)
///   B(8 x 8), FP32 accumulators. The fragments sit where the f64 instruction of the same shape
///   has them: lane (g, t), g = lane / 4, t = lane % 4, brings A[g][t], A[g+8][t], A[g][t+4],
///   A[g+8][t+4] and B[t][g], B[t+4][g], and keeps C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1].
///   A warp computes 64 x 32 of C: 4 x 4 instructions per k-step of 8, three times over (the
///   low parts first, so the small terms are added before the large one swamps them).
/// - The split. Each fragment element x read from shared memory becomes hi = x rounded to TF32
///   and lo = x - hi cut to TF32 (split_tf32: four integer and FP32 instructions), shared by every
///   instruction that element feeds (a warp tile of 64 x 32 reuses an A element 4 times and a B
///   element 4 times).
/// - Shared memory laid out for the fragments, with 4-byte banks: a tile is kept in the order its
///   operand is stored, so the global-to-shared copies stay 16-byte `cp.async`. A k-contiguous
///   row is padded to BK + 4 floats (32 + 4 = 36 = 4 mod 32: lane (g, t) reads bank 4 g + t) and
///   a row-contiguous one to ROWS + 8 (8 mod 32: bank 8 t + g): the 32 lanes hit 32 banks.
/// - The sum (Sgemm3xTf32Sum). kTensorCores: three passes over all accumulators, the products
///   summed on the tensor cores over all of k. kFp32: per row of accumulators, each k-step's three
///   products into a fresh partial on the tensor cores, added to the running sum in FP32 (the
///   tensor cores' own accumulation rounds less carefully than an FMA: its error grows with k).
/// - The pipeline: STAGES tiles in flight, one barrier per tile (in its last k-step, after which
///   the next tile's first fragments are read), fragments double-buffered in registers. Edges
///   and k's tail are copied with a byte count that zero-fills the rest.
/// Model: per k-step a warp issues 48 tensor-core instructions (98 K flops, 33 K of them the
/// product's) against 24 fragment loads and 96 integer and FP32 instructions of the splits: the
/// tensor cores bound it where their TF32 rate is at least three times the FMA lanes' FP32 rate
/// (Ampere and Hopper).
/// Run: ./workbook run ch05 -- --op gemm --precision float
#include "tuned/sgemm_3xtf32.hpp"

#include "check.hpp"
#include "cp_async.cuh"
#include "gemm_common.cuh"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_rule_common.hpp"
#include "tuned/gemm_splitk.hpp"
#include "tuned/tensor_core_launch.hpp"
#include "tuned/tensor_core_tile.cuh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wb::tuned {
namespace {


/// One tile configuration (kSgemm3xTf32Tiles[I]): block BM x BN x BK, four warps of WM x WN,
/// STAGES buffers, MIN_BLOCKS per SM asked of the compiler (its register budget).
template <int I>
struct Cfg {
    static constexpr Sgemm3xTf32Tile kT = kSgemm3xTf32Tiles[I];
    static constexpr int BM = kT.tile_m, BN = kT.tile_n, BK = kT.tile_k, WM = kT.warp_m, WN = kT.warp_n;
    static constexpr int STAGES = kT.stages, MIN_BLOCKS = kT.min_blocks, MMA_K = 8;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int MT = WM / 16, NT = WN / 8;  // instructions per warp along m and n
};

/// x as its TF32 high part (rounded to nearest on the magnitude, ties away: add half a TF32 ulp
/// to the bit pattern, clear the 13 bits TF32 drops) and what is left, cut to TF32. Integer and
/// FP32 instructions at the ALU's and FMA pipes' rates: `cvt.rna.tf32.f32` runs on the
/// conversion unit, at a fraction of that rate. A magnitude within half a TF32 ulp of FLT_MAX
/// rounds to infinity, as the conversion's does.
__device__ __forceinline__ void split_tf32(float x, std::uint32_t& hi, std::uint32_t& lo) {
    constexpr std::uint32_t kHalfUlp = 1u << 12, kKeep = ~((1u << 13) - 1);
    hi = (__float_as_uint(x) + kHalfUlp) & kKeep;
    lo = __float_as_uint(x - __uint_as_float(hi)) & kKeep;
}

/// d += a b on the TF32 tensor cores, one warp (fragments: file header).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    // Not volatile: the compiler may interleave the instructions with the loads and splits.
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// d = a b on the TF32 tensor cores (a fresh accumulator: C = 0), one warp.
__device__ __forceinline__ void mma_tf32_fresh(float (&d)[4], const std::uint32_t (&a)[4],
                                               const std::uint32_t (&b)[2]) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%10,%10,%10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(0.0f));
}

/// FP32_SUM: each k-step's products summed on the tensor cores into a fresh partial, added to the
/// running sum in FP32 (Sgemm3xTf32Sum::kFp32); otherwise the running sum is the tensor cores'.
/// AKC: op(A) is stored k-contiguous (op_a = T); BKC: op(B) is (op_b = N).
template <class Cfg, bool FP32_SUM, bool AKC, bool BKC, bool VEC_A, bool VEC_B>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    sgemm_3xtf32_kernel(GemmArgs<float> a, int kc, float* partials, int group) {
    extern __shared__ __align__(16) float smem[];  // STAGES x (A tile, B tile)
    const tc::BlockTile<float, Cfg, AKC, BKC, VEC_A, VEC_B> blk(smem, a, kc, partials, group);

    float acc[Cfg::MT][Cfg::NT][4] = {};
    //! [tuned-sgemm-3xtf32]
    // One k-step (the pipeline around it: tc::BlockTile::main_loop): this k-step's fragments split
    // into high and low parts, then the next k-step's start loading into the registers they held.
    blk.main_loop(a, [&](const float (&fa)[Cfg::MT][4], const float (&fb)[Cfg::NT][2], auto&& advance) {
        std::uint32_t ah[Cfg::MT][4], al[Cfg::MT][4], bh[Cfg::NT][2], bl[Cfg::NT][2];
#pragma unroll
        for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
            for (int q = 0; q < 4; ++q) split_tf32(fa[i][q], ah[i][q], al[i][q]);
#pragma unroll
        for (int j = 0; j < Cfg::NT; ++j)
#pragma unroll
            for (int q = 0; q < 2; ++q) split_tf32(fb[j][q], bh[j][q], bl[j][q]);
        advance();
        if constexpr (!FP32_SUM) {
            // The small terms first: lo(a) hi(b) and hi(a) lo(b), then hi(a) hi(b). Each pass
            // runs over all MT x NT accumulators: consecutive instructions never wait on each
            // other (the three products of one accumulator back to back would each wait out the
            // previous one's latency).
#pragma unroll
            for (int pass = 0; pass < 3; ++pass)
#pragma unroll
                for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
                    for (int j = 0; j < Cfg::NT; ++j)
                        mma_tf32(acc[i][j], pass == 0 ? al[i] : ah[i], pass == 1 ? bl[j] : bh[j]);
        } else {
            // Each k-step's three products of a row of accumulators go to a fresh partial on the
            // tensor cores (the small terms first: lo(a) hi(b), hi(a) lo(b), then hi(a) hi(b)),
            // and the partial into the running sum with an FP32 add. The tensor cores round
            // their own accumulation less carefully than an FMA: summed there over all of k the
            // error grew with k (5.4e-7 at k = 4096 against the FMA kernel's 1.1e-8). Each pass
            // runs over the row's NT partials, so consecutive instructions never wait on each
            // other.
#pragma unroll
            for (int i = 0; i < Cfg::MT; ++i) {
                float part[Cfg::NT][4];
#pragma unroll
                for (int j = 0; j < Cfg::NT; ++j) mma_tf32_fresh(part[j], al[i], bh[j]);
#pragma unroll
                for (int pass = 1; pass < 3; ++pass)
#pragma unroll
                    for (int j = 0; j < Cfg::NT; ++j) mma_tf32(part[j], ah[i], pass == 1 ? bl[j] : bh[j]);
#pragma unroll
                for (int j = 0; j < Cfg::NT; ++j)
#pragma unroll
                    for (int e = 0; e < 4; ++e) acc[i][j][e] += part[j][e];
            }
        }
    });
    //! [tuned-sgemm-3xtf32]

    tc::store_c(a, acc, blk.m0 + blk.wm, blk.n0 + blk.wn, blk.g, blk.t);  // C = alpha acc + beta C
}

template <class Cfg, bool FP32_SUM, bool AKC, bool BKC, bool VA, bool VB>
void launch(const GemmArgs<float>& a, int split, cudaStream_t s) {
    constexpr int smem = tc::smem_bytes<float, Cfg, AKC, BKC>();
    auto kernel = sgemm_3xtf32_kernel<Cfg, FP32_SUM, AKC, BKC, VA, VB>;
    static const int group = tc::configure_groups(reinterpret_cast<const void*>(kernel), Cfg::THREADS, smem);
    tc::run_split(a, split, Cfg::BK, s, [&](int kc, int slices, float* partials) {
        const dim3 grid((a.m + Cfg::BM - 1) / Cfg::BM, (a.n + Cfg::BN - 1) / Cfg::BN, slices);
        kernel<<<grid, Cfg::THREADS, smem, s>>>(a, kc, partials, std::min<int>(group, grid.x));
        WB_CHECK_LAUNCH();
    });
}

/// The four run-time choices (layout of A and B, vector copies of each) as template arguments.
template <class Cfg, bool FP32_SUM>
void dispatch(const GemmArgs<float>& a, int split, cudaStream_t s) {
    tc::with_layouts(a.op_a == Op::T, a.op_b == Op::N, tc::columns_16b_aligned(a.A, a.lda),
                     tc::columns_16b_aligned(a.B, a.ldb), [&](auto akc, auto bkc, auto va, auto vb) {
                         launch<Cfg, FP32_SUM, decltype(akc)::value, decltype(bkc)::value, decltype(va)::value,
                                decltype(vb)::value>(a, split, s);
                     });
}

}  // namespace

bool sgemm_3xtf32_supported(int device) {
    static std::atomic<int> known[tc::kDevices] = {};  // 1 no, 2 yes
    const void* kernel = reinterpret_cast<const void*>(sgemm_3xtf32_kernel<Cfg<0>, false, false, true, true, true>);
    return tc::asked_once(known, device, [&] { return tc::kernel_runs_on(device, kernel, 8) ? 2 : 1; }) == 2;
}

Sgemm3xTf32Launch sgemm_3xtf32_default(int m, int n, int k, const tc::Machine& mc) {
    // Each candidate's time: its waves of blocks (the GPU holds min_blocks per SM) times one
    // block's work, its padded tile of C times its slice of k, at the tile's share of the rate;
    // plus, split, the partials written and read once and the second pass's launch.
    // Tile 0's rate per SM and clock: 50 TFLOP/s of FP32 work on the 132 SMs of an H200 at
    // 1980 MHz, 192 flops per clock per SM (the figure the launch was first set with on the card;
    // chapter 5's 3xTF32 rows run 60-62 TFLOP/s at 4096 and 8192, so it leans towards splitting).
    constexpr double kFlopsPerClockPerSm = 192.0;
    // The partials' round trip (written by the slices, read by the second pass) at this share of
    // the theoretical bandwidth: 3 TB/s of the H200's 4.9, below its 4.3 TB/s read stream.
    constexpr double kPartialShare = 0.6;
    const double sm_flops = kFlopsPerClockPerSm * std::max(1e8, mc.sm_hz);
    const double partial_bps = kPartialShare * std::max(1e9, mc.dram_bytes_per_second);
    Sgemm3xTf32Launch best{0, 1};
    double best_s = -1;
    for (int t = 0; t < kSgemm3xTf32TileCount; ++t) {
        const Sgemm3xTf32Tile& c = kSgemm3xTf32Tiles[t];
        const long long tiles = static_cast<long long>((m + c.tile_m - 1) / c.tile_m) * ((n + c.tile_n - 1) / c.tile_n);
        const long long resident = static_cast<long long>(std::max(1, mc.sms)) * c.min_blocks;
        const int most = static_cast<int>(std::clamp<long long>(k / (4LL * c.tile_k), 1, 64));
        for (int split = 1; split <= most; ++split) {
            const auto [kc, slices] = splitk::slice_k(k, split, c.tile_k);
            if (split > 1 && slices != split) continue;
            // The tuned GEMM's cap on a workspace: its partials are a copy of C per slice.
            if (split > 1 && static_cast<double>(slices) * m * n * sizeof(float) > kMaxWorkspaceBytes) break;
            const long long waves = (tiles * slices + resident - 1) / resident;
            const double block_s = 2.0 * c.tile_m * c.tile_n * kc * c.min_blocks / (sm_flops * c.rate);
            double seconds = waves * block_s;
            if (slices > 1)
                seconds += rule::kSumLaunchSeconds + 2.0 * slices * m * static_cast<double>(n) * sizeof(float) / partial_bps;
            if (best_s < 0 || seconds < best_s) {
                best_s = seconds;
                best = {t, slices};
            }
        }
    }
    return best;
}

void sgemm_3xtf32(const GemmArgs<float>& a, cudaStream_t stream, int split_k, int tile, Sgemm3xTf32Sum sum) {
    if (sum != Sgemm3xTf32Sum::kTensorCores && sum != Sgemm3xTf32Sum::kFp32)
        throw std::invalid_argument("tuned::sgemm_3xtf32: sum (" + std::to_string(static_cast<int>(sum)) +
                                    ") must be kTensorCores or kFp32");
    if (tile < -1 || tile >= kSgemm3xTf32TileCount)
        throw std::invalid_argument("tuned::sgemm_3xtf32: tile (" + std::to_string(tile) +
                                    ") must be -1 (the default) or 0 ... " + std::to_string(kSgemm3xTf32TileCount - 1) +
                                    " (an index into kSgemm3xTf32Tiles)");
    if (split_k < 0 || split_k > splitk::kMaxSplit)
        throw std::invalid_argument("tuned::sgemm_3xtf32: split_k (" + std::to_string(split_k) + ") must be 0 ... " +
                                    std::to_string(splitk::kMaxSplit));
    if (!gemm_detail::gemm_begin(a, "sgemm_3xtf32", stream)) return;
    int device = 0;
    WB_CUDA(cudaGetDevice(&device));
    if (!sgemm_3xtf32_supported(device))
        throw std::runtime_error("tuned::sgemm_3xtf32: device " + std::to_string(device) +
                                 " has no TF32 tensor cores this build can run (compute capability 8.0 or later)");
    if (tile < 0 || split_k == 0) {
        const Sgemm3xTf32Launch d = sgemm_3xtf32_default(a.m, a.n, a.k, tc::machine());
        if (tile < 0) tile = d.tile;
        if (split_k == 0) split_k = tile == d.tile ? d.split : 1;
    }
    const bool fp32 = sum == Sgemm3xTf32Sum::kFp32;
    if (tile == 1) {
        if (fp32) return dispatch<Cfg<1>, true>(a, split_k, stream);
        return dispatch<Cfg<1>, false>(a, split_k, stream);
    }
    if (fp32) return dispatch<Cfg<0>, true>(a, split_k, stream);
    dispatch<Cfg<0>, false>(a, split_k, stream);
}

}  // namespace wb::tuned
