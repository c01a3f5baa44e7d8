/// \file tuned/dgemm_tensor_core.cu
/// \brief Chapter 5 — DGEMM on the FP64 tensor cores: warp-level `mma.sync.m16n8k8.f64` fed
///        from a multistage shared-memory pipeline of `cp.async` copies.
///
/// What changes against the SIMT double kernel (tuned/gemm.cu):
/// - The multiply. A warp issues `mma.sync.aligned.m16n8k8.row.col.f64`: D(16 x 8) += A(16 x 8)
///   B(8 x 8), 2,048 flops per instruction, executed by the FP64 tensor cores (sm_90). Each lane
///   holds pieces of the operands (its "fragment"): with g = lane / 4 and t = lane % 4, lane
///   (g, t) brings A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4] and B[t][g], B[t+4][g], and keeps
///   C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]. A warp computes 32 x 32 of C (2 x 4
///   instructions per k-step of 8): 32 accumulators per lane.
/// - Shared memory laid out for the fragments. ldmatrix moves only 16-bit and 8-bit elements, so
///   every fragment element is one 8-byte shared load. A tile is kept in the order the operand
///   is stored, so the global-to-shared copies stay 16-byte `cp.async` whatever op(A) and op(B)
///   are: k-contiguous rows padded to BK + 4 doubles, or m/n-contiguous rows padded to BM + 4.
///   Either way the 16 lanes of a half warp (g = 0..3 or 4..7, t = 0..3) read 16 distinct 8-byte
///   slots of the 32 banks (row pitch = 4 mod 16 doubles: slot 4 t + g or 4 g + t): no conflicts.
/// - The pipeline of the float kernel: STAGES tiles in flight, one barrier per tile, the copy
///   of tile t + STAGES - 1 issued right after it into the stage just freed. Edges and k's tail
///   are copied with a byte count that zero-fills what lies outside (zeros add nothing to C), so
///   the main loop has no bounds checks; only the epilogue checks rows and columns of C.
/// - Operands whose columns are not 16-byte aligned (odd ld, a submatrix's offset) are copied
///   8 bytes at a time, still coalesced, from where they are.
/// - Fragments double-buffered in registers: the next k-step's are read from shared memory while
///   this k-step's instructions run, across the tile boundary too (the barrier sits in each
///   tile's last k-step).
/// Model: per k-step of 8 a warp loads (2 x 4 + 4 x 2) 8-byte fragment elements per lane for 8
/// instructions (16 K flops); a block of 64 x 64 moves 2 x 64 x 16 doubles from L2 per tile of
/// 64 x 64 x 16 (4 flops per byte, three blocks per SM): the tensor-core rate, not memory, bounds
/// large products.
/// Run: ./workbook run ch05 -- --op gemm --precision double
#include "tuned/dgemm_tensor_core.hpp"

#include "check.hpp"
#include "cp_async.cuh"
#include "tuned/dependent_launch.cuh"
#include "tuned/gemm_splitk.hpp"
#include "tuned/tensor_core_launch.hpp"
#include "tuned/tensor_core_tile.cuh"
#include "mma_f64.cuh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wb::tuned {
namespace {

/// One tile configuration: block tile BM x BN x BK, warp tile WM x WN, STAGES buffers.
template <int BM_, int BN_, int WM_, int WN_, int STAGES_, int MMA_K_ = 8, int BK_ = 16>
struct TcConfig {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_, MMA_K = MMA_K_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int MT = WM / 16, NT = WN / 8;  // mma tiles per warp along m and n
};
/// The configuration: 64 x 64 x 16 tiles, 4 warps of 32 x 32, 3 stages (61 KB of shared memory,
/// about 200 registers: three blocks per SM), m16n8k8 instructions. Larger warp tiles (64 x 32)
/// with double-buffered fragments need more than 255 registers and spill; on the H200 this tile
/// measured as fast as 128 x 64 and 128 x 128 at 4096^3 and faster on small or unaligned C
/// (\ref notes_gemm, "FP64 tensor cores").
template <int I>
using TcTile = TcConfig<kDgemmTcTiles[I].tile_m, kDgemmTcTiles[I].tile_n, kDgemmTcTiles[I].warp_m,
                        kDgemmTcTiles[I].warp_n, kDgemmTcTiles[I].stages, 8, kDgemmTcTiles[I].tile_k>;
using TcDefault = TcTile<0>;
// The skinny tiles (C of 16 columns, or rows, or fewer): a 64 x 64 tile there multiplies 4 to 32
// times more padding than data, and such a product streams one operand (8192 x 8 x 8192: A's
// 512 MB against 1 GFLOP), so the tile that wastes least and keeps bytes in flight wins: 128 x 16
// (4 warps along m, 2 x 2 mma tiles each) or 16 x 128 (4 warps along n), split k to fill the SMs.
// The large-C tile of least traffic, 96 x 128 x 32 (twelve warps, one block per SM): 384 threads
// hold 168 registers each, so the double-buffered fragments spill (ptxas: 80-100 bytes in the
// 16-byte kernels, up to 372 in the 8-byte ones, which the default rule does not give it); it
// still measured as fast per wave as 64 x 64 on the H200 (NN), and without the double buffer it
// spilled less and ran 8% slower.
static_assert(kDgemmTcTileCount == 4, "one TcTile<I> per entry of kDgemmTcTiles");

/// The kernel. AKC: op(A) is stored k-contiguous (op_a = T); BKC: op(B) is (op_b = N).
template <class Cfg, bool AKC, bool BKC, bool VEC_A, bool VEC_B>
__global__ void __launch_bounds__(Cfg::THREADS) dgemm_tc_kernel(GemmArgs<double> a, int kc, double* partials, int group) {
    extern __shared__ double smem[];  // STAGES x (A tile, B tile)
    const tc::BlockTile<double, Cfg, AKC, BKC, VEC_A, VEC_B> blk(smem, a, kc, partials, group);

    double acc[Cfg::MT][Cfg::NT][4] = {};
    //! [tuned-dgemm-tc]
    // One k-step (the pipeline around it, its copies and double-buffered fragments: tc::BlockTile::
    // main_loop): the next k-step's fragments start loading, then this k-step's MT x NT
    // instructions run on the ones already in registers.
    blk.main_loop(a, [&](const double (&fa)[Cfg::MT][4], const double (&fb)[Cfg::NT][2], auto&& advance) {
        advance();
#pragma unroll
        for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::NT; ++j) mma_f64<Cfg::MMA_K>(acc[i][j], fa[i], fb[j]);
    });
    //! [tuned-dgemm-tc]
    // The split's second pass may launch once every block is past its main loop (it waits for the
    // partials itself). With the trigger at the kernel's start the split rows ran 1-3% slower (an
    // H200): this kernel leaves room on an SM, where the second pass's blocks would be placed and
    // wait beside its main loop (tuned/dependent_launch.hpp).
    if (partials) dependent_trigger();

    tc::store_c(a, acc, blk.m0 + blk.wm, blk.n0 + blk.wn, blk.g, blk.t);  // C = alpha acc + beta C
}

template <class Cfg, bool AKC, bool BKC, bool VA, bool VB>
void launch(const GemmArgs<double>& a, int kc, int slices, double* partials, cudaStream_t s) {
    constexpr int smem = tc::smem_bytes<double, Cfg, AKC, BKC>();
    auto kernel = dgemm_tc_kernel<Cfg, AKC, BKC, VA, VB>;
    // Once per kernel: its shared memory, and the tile-rows of a group (the first device launched
    // on decides).
    static const int square = tc::configure_groups(reinterpret_cast<const void*>(kernel), Cfg::THREADS, smem);
    const dim3 grid((a.m + Cfg::BM - 1) / Cfg::BM, (a.n + Cfg::BN - 1) / Cfg::BN, slices);
    kernel<<<grid, Cfg::THREADS, smem, s>>>(a, kc, partials, std::min<int>(square, grid.x));
    WB_CHECK_LAUNCH();
}

/// Turns the four run-time choices (layout of A and B, vector copies of each) into template
/// arguments: 16 kernels.
template <class Cfg>
void dispatch(const GemmArgs<double>& a, int kc, int slices, double* partials, cudaStream_t s) {
    tc::with_layouts(a.op_a == Op::T, a.op_b == Op::N, tc::columns_16b_aligned(a.A, a.lda),
                     tc::columns_16b_aligned(a.B, a.ldb), [&](auto akc, auto bkc, auto va, auto vb) {
                         launch<Cfg, decltype(akc)::value, decltype(bkc)::value, decltype(va)::value,
                                decltype(vb)::value>(a, kc, slices, partials, s);
                     });
}

template <class Cfg>
void run_tile(const GemmArgs<double>& a, int split, cudaStream_t stream) {
    if (a.m == 0 || a.n == 0) return;
    tc::run_split(a, split, Cfg::BK, stream,
                  [&](int kc, int slices, double* partials) { dispatch<Cfg>(a, kc, slices, partials, stream); });
}

}  // namespace

bool dgemm_tensor_core_supported(int device) {
    // The kernel exists only where this build compiled sm_90 code for the device.
    static std::atomic<int> known[tc::kDevices] = {};  // 1 no, 2 yes
    const void* kernel = reinterpret_cast<const void*>(dgemm_tc_kernel<TcDefault, false, true, true, true>);
    return tc::asked_once(known, device, [&] { return tc::kernel_runs_on(device, kernel, 9) ? 2 : 1; }) == 2;
}

namespace {
/// The occupancy calculator on one tile's kernel as built (registers, shared memory, threads).
template <class Cfg>
int resident_of(int device) {
    return tc::resident_blocks(device, reinterpret_cast<const void*>(dgemm_tc_kernel<Cfg, false, true, true, true>),
                               Cfg::THREADS, tc::smem_bytes<double, Cfg, false, true>());
}
}  // namespace

int dgemm_tensor_core_resident_blocks(int device, int tile) {
    // 0 where the kernel cannot run.
    static std::atomic<int> known[kDgemmTcTileCount][tc::kDevices] = {};  // -1 not supported
    if (tile < 0 || tile >= kDgemmTcTileCount || !dgemm_tensor_core_supported(device)) return 0;
    return std::max(0, tc::asked_once(known[tile], device, [&] {
                        return tile == 0   ? resident_of<TcTile<0>>(device)
                               : tile == 1 ? resident_of<TcTile<1>>(device)
                               : tile == 2 ? resident_of<TcTile<2>>(device)
                                           : resident_of<TcTile<3>>(device);
                    }));
}

void dgemm_tensor_core(const GemmArgs<double>& a, int split, cudaStream_t stream, int tile) {
    if (tile < 0 || tile >= kDgemmTcTileCount)
        throw std::invalid_argument("tuned::dgemm_tensor_core: tile (" + std::to_string(tile) + ") must be 0 ... " +
                                    std::to_string(kDgemmTcTileCount - 1) + " (an index into kDgemmTcTiles)");
    if (tile == 1) return run_tile<TcTile<1>>(a, split, stream);
    if (tile == 2) return run_tile<TcTile<2>>(a, split, stream);
    if (tile == 3) return run_tile<TcTile<3>>(a, split, stream);
    run_tile<TcTile<0>>(a, split, stream);
}

}  // namespace wb::tuned
