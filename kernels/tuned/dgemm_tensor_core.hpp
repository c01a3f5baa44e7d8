/// \file tuned/dgemm_tensor_core.hpp
/// \brief Chapter 5 — DGEMM on the FP64 tensor cores (sm_90): the host entry points.
///
/// On Hopper the double-precision FMA units of the SMs reach about half of what the FP64
/// tensor cores do. A warp-level `mma.sync.m16n8k8.f64` multiplies a 16 x 8 tile of op(A) by an
/// 8 x 8 tile of op(B) in IEEE double (fused multiply-adds, the same rounding as an FMA loop in
/// another order), so a DGEMM that feeds those instructions keeps the BLAS accuracy contract
/// and moves its ceiling from the FMA rate to the tensor-core rate. The kernel is in
/// dgemm_tensor_core.cu; chapter 5's page (the MM section) teaches it.
#pragma once

#include "gemm.hpp"

#include <cuda_runtime_api.h>

namespace wb::tuned {

/// The kernel's tiles, the one place they are written: the kernel is instantiated with each and
/// the default rule and the chapter's model read them. 64 x 64 x 16 per block with warps of
/// 32 x 32 for C of many tiles; 128 x 16 (warps 32 x 16) and 16 x 128 (warps 16 x 32) for C of
/// 16 columns or rows or fewer, where a 64-wide tile would multiply 4 to 32 times more zeros than
/// data (why these: dgemm_tensor_core.cu); four warps and 3 stages each. The fourth, below, is
/// the large-C tile of least traffic. sm90_blocks: the blocks per SM of the kernel as compiled for sm_90 (the
/// occupancy calculator on an H200, chapter 6's "compiled kernel" lines: 174-188 registers for
/// 64 x 64), what the default rule and the derivation count without a GPU, as the FMA
/// configurations' GemmConfig::sm90_blocks.
struct DgemmTcTile {
    int tile_m, tile_n, tile_k, warp_m, warp_n, stages, sm90_blocks;
};
/// 96 x 128 x 32 (twelve warps of 32 x 32, 3 stages, 187 KB of shared memory: one block of 384
/// threads per SM, registers held to 168): it reads each operand once per 128 columns or 96 rows of
/// C where 64 x 64 reads it once per 64 of each, so it moves 42% less per flop from the L2 (and
/// less than cuBLAS's 64 x 128), and at 8192^3 about half the DRAM bytes. Per SM clock it runs
/// about as fast as 64 x 64 (H200, 4096^3: 49.1 against 49.2 TFLOP/s per wave of tiles); under
/// the board's power limit the traffic costs clock (8192^3: 64 x 64 at 1.86-1.87 GHz, this tile
/// and cuBLAS at 1.96-1.98), so the default rule takes it for large C wherever its waves cost no
/// more than 64 x 64's (dgemm_tc_rule.cpp; \ref notes_gemm, session 25).
inline constexpr DgemmTcTile kDgemmTcTiles[] = {
    {64, 64, 16, 32, 32, 3, 2}, {128, 16, 16, 32, 16, 3, 3}, {16, 128, 16, 16, 32, 3, 3}, {96, 128, 32, 32, 32, 3, 1}};
inline constexpr DgemmTcTile kDgemmTcTile = kDgemmTcTiles[0];  ///< the large-C tile the rule starts from
inline constexpr int kDgemmTcTileCount = 4;
/// True for the tiles of C one of their 16 rows or columns wide (the default rule's skinny tiles).
constexpr bool dgemm_tc_skinny(const DgemmTcTile& t) { return t.tile_m <= 16 || t.tile_n <= 16; }

/// True where the device runs `mma.sync.m16n8k8.f64` (compute capability 9.0 and later) and
/// this build holds code for it.
bool dgemm_tensor_core_supported(int device);

/// C = alpha op(A) op(B) + beta C on the FP64 tensor cores. The arguments follow GemmArgs (BLAS
/// conventions, validated by the caller: tuned::gemm); beta == 0 never reads C. Any shape,
/// leading dimension and base offset: 16-byte copies where the operand's columns are 16-byte
/// aligned, 8-byte copies otherwise.
/// split > 1: k cut into that many slices (gridDim.z; each a multiple of the tile's k), their
/// partial C's added by the tuned GEMM's split-k pass (gemm_splitk.hpp): the way a C of few
/// tiles (long k, or C a few tiles wide) keeps every SM busy.
/// tile: an index into kDgemmTcTiles (0: 64 x 64); throws std::invalid_argument outside.
void dgemm_tensor_core(const GemmArgs<double>& a, int split, cudaStream_t stream, int tile = 0);

/// Index into kDgemmTcTiles of the tile with tile_m x tile_n (-1: none).
constexpr int dgemm_tc_tile_index(int tile_m, int tile_n) {
    for (int i = 0; i < kDgemmTcTileCount; ++i)
        if (kDgemmTcTiles[i].tile_m == tile_m && kDgemmTcTiles[i].tile_n == tile_n) return i;
    return -1;
}

/// Blocks of the tensor-core kernel of tile `tile` one SM holds (the occupancy calculator on the
/// kernel as built); 0 where dgemm_tensor_core_supported(device) is false. The default rule's waves.
int dgemm_tensor_core_resident_blocks(int device, int tile = 0);

/// dgemm_tensor_core_resident_blocks where the device answers, else the tile's sm90_blocks (a
/// predict-only run, which picks as an H100 or H200 would).
inline int dgemm_tc_blocks_or_sm90(int device, int tile) {
    const int b = dgemm_tensor_core_resident_blocks(device, tile);
    return b > 0 ? b : kDgemmTcTiles[tile].sm90_blocks;
}

/// FP64 tensor-core flops per clock per SM against the FP64 FMA lanes' (Hopper: 2; the
/// dmma_rate probe measures 66.5 against 32.9 TFLOP/s on an H200). The default rule weighs the
/// tensor cores' padding to their 64 x 64 tile against an FMA tile with it.
inline constexpr double kTensorOverFmaRate = 2.0;

}  // namespace wb::tuned
