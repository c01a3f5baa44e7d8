/// \file tuned/sgemm_3xtf32.hpp
/// \brief Chapter 5's named variant beyond the vendor's pedantic mode: SGEMM on the TF32 tensor
///        cores, three products per multiply so that the result keeps FP32's accuracy.
///
/// A TF32 operand keeps 10 of FP32's 23 mantissa bits, so one TF32 product per multiply loses
/// about three decimal digits (cuBLAS's CUBLAS_TF32_TENSOR_OP_MATH). Split each float x into a
/// high part hi(x) = tf32(x) and a low part lo(x) = tf32(x - hi(x)): together they hold 21 of its
/// 24 significant bits. Then
///     a b = hi(a) hi(b) + hi(a) lo(b) + lo(a) hi(b) + lo(a) lo(b),
/// and the last term is below 2^-21 of the product: dropping it leaves three tensor-core products
/// (CUTLASS calls this 3xTF32). The tensor cores run TF32 at several times the FMA lanes' FP32
/// rate, so three of them still beat one FMA. Where the products are summed decides the rest:
/// the tensor cores' own FP32 accumulation rounds less carefully than an FMA, so summed there over
/// all of k the error grows with k; summed there one k-step at a time and added in FP32, it is
/// FP32's (Sgemm3xTf32Sum).
/// It is a named variant, never the tuned step's default: its rounding differs from an FP32 FMA
/// loop's (the same bound, other bits), which a caller asks for by name. The kernel, its teaching
/// comments and the measured rate: sgemm_3xtf32.cu and chapter 5's MM page.
#pragma once

#include "gemm.hpp"
#include "step.hpp"
#include "tuned/tensor_core_launch.hpp"

#include <cuda_runtime_api.h>

namespace wb::tuned {

/// True where the device runs `mma.sync.m16n8k8.tf32` (compute capability 8.0 and later) and this
/// build holds code for it.
bool sgemm_3xtf32_supported(int device);

/// Where the variant sums its products.
enum class Sgemm3xTf32Sum {
    kTensorCores,  ///< on the tensor cores over all of k: fastest; the error grows with k
    kFp32,         ///< each k-step on the tensor cores into a fresh partial, added in FP32: FP32's error
};

/// C = alpha op(A) op(B) + beta C in FP32 on the TF32 tensor cores, three products per multiply
/// (file header). GemmArgs's rules, validated here (std::invalid_argument naming the argument):
/// any shape, leading dimension and base offset; beta == 0 never reads C; k == 0 or alpha == 0
/// gives beta C. Operands finite and below FLT_MAX by more than half a TF32 unit: the entries of
/// C that an infinity, a NaN or a larger value reaches hold NaN (an infinity's low part is
/// x - x; FP32 gives an infinity there where no NaN is involved).
/// tile: an index into kSgemm3xTf32Tiles, or -1; split_k: slices of k whose partial C's the tuned
/// GEMM's second pass adds in order (1: none), or 0. Where either is left to the kernel (-1, 0),
/// sgemm_3xtf32_default picks it. sum: where the products are summed. Throws
/// std::invalid_argument outside those ranges, std::runtime_error where sgemm_3xtf32_supported
/// is false.
void sgemm_3xtf32(const GemmArgs<float>& a, cudaStream_t stream, int split_k = 0, int tile = -1,
                  Sgemm3xTf32Sum sum = Sgemm3xTf32Sum::kTensorCores);

/// The default launch of an m x n x k call on machine `mc` (tc::machine(): the current device's):
/// of each tile with 1 ... 64 slices of k, the one whose waves of blocks take least (each block's
/// padded tile of C times its slice of k at the tile's rate, which scales with the SM clock; a
/// split adds its partials' round trip at a share of the DRAM bandwidth and the second pass, and
/// its partials stay within the tuned GEMM's workspace cap, kMaxWorkspaceBytes). With split_k given
/// and the tile not, the tile is the one this picks, unsplit where it picked a split of the other.
struct Sgemm3xTf32Launch {
    int tile = 0, split = 1;
};
Sgemm3xTf32Launch sgemm_3xtf32_default(int m, int n, int k, const tc::Machine& mc);

/// The kernel's tiles, the one place they are written: block tile_m x tile_n x tile_k, four warps
/// of warp_m x warp_n, `stages` buffers, min_blocks per SM asked of the compiler (and what the
/// GPU holds), `rate` the tile's measured rate against tile 0's. 128 x 64 with warps of 64 x 32
/// (each element of a fragment feeds 4 instructions: fewer loads and splits per product, up to
/// 255 registers, two blocks per SM) and 64 x 64 with warps of 32 x 32 (half the registers,
/// three blocks per SM, less padding on a C a few tiles tall): 0.86 of tile 0's rate at 4096^3
/// and 8192^3 on an H200 (scripts/probes/sgemm_3xtf32_probe.cu).
struct Sgemm3xTf32Tile {
    int tile_m, tile_n, tile_k, warp_m, warp_n, stages, min_blocks;
    double rate;
};
inline constexpr Sgemm3xTf32Tile kSgemm3xTf32Tiles[] = {{128, 64, 32, 64, 32, 3, 2, 1.0},
                                                        {64, 64, 32, 32, 32, 4, 3, 0.86}};
inline constexpr int kSgemm3xTf32TileCount = 2;

/// The variant as a step the chapter's rows and the tests time and check like the ladder's steps
/// (named "3xTF32", or "3xTF32 FP32 sum" with Sgemm3xTf32Sum::kFp32; chapter 0 like a peer: it is
/// not a rung of the ladder). Its launch reads GemmLaunch::tile_m x tile_n (0 x 0: the kernel's
/// own) and split_k (0: the kernel's own); its legal launches are each tile, unsplit and split in
/// 2 and 4.
Step<GemmArgs<float>> sgemm_3xtf32_step(Sgemm3xTf32Sum sum = Sgemm3xTf32Sum::kTensorCores);

}  // namespace wb::tuned
