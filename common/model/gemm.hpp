/// \file gemm.hpp
/// \brief The GEMM model: what limits each ladder step, and its predicted GFLOP/s (see the
///        chapter pages' GEMM sections). Plain host arithmetic on a DeviceProfile, so it runs
///        without a GPU.
///
/// A step is described by its tiles (GemmDesign): a block computes tile_m x tile_n of C, one
/// thread thread_m x thread_n of it, and each k-step loads tile_k columns of op(A) and rows of
/// op(B). From the tiles follow, per fused multiply-add (FMA):
///   - global (L2) loads: (1/tile_m + 1/tile_n) elements, the block's reuse;
///   - operand loads from L1/shared memory: (thread_m + thread_n) / (thread_m thread_n) elements,
///     the thread's register reuse, in instructions of `load_width` elements; the pipe serves
///     each instruction in one 128-byte wavefront per 128 bytes the warp requests (a 16-byte load
///     is four quarter-warp wavefronts even where its lanes read the same address), more where
///     its lanes conflict;
///   - issued instructions: the FMA itself, those loads and `overhead` (index, loop, barrier).
/// The predicted time is the largest of five bounds (plus the launch overhead): FMA lanes,
/// instruction issue (4 warp instructions per clock per SM), L1/shared wavefronts (one 128-byte
/// wavefront per clock per SM), L2 bandwidth (kL2OverDram x DRAM bandwidth, an assumption: the
/// profile has no L2 figure), each of these stretched by the tail (a pipelined kernel's busiest SM
/// runs its blocks in rounds, each at the share of the clocks its warps keep issuing past their
/// fragments' shared-load wait), the whole tiles' padding and a pipelined block's fill and
/// epilogue ((kt + 2) / kt for kt k-tiles per block); and DRAM (each matrix once, whatever the
/// tiles). Not counted: the register path's depth and sector use (a tile loaded through registers
/// is one tile deep). Where the skinny tiles' long operand took
/// that path one lane per row (half of each sector per load) it streamed at half NN's rate; read
/// 8 lanes per row into a swizzled stage it streams at 72-76% of the read ceiling against NN's
/// 85-88% (chapter 5, "Every class of shape"), +22% to +33% from this model.
#pragma once

#include "device_profile.hpp"
#include "stage.hpp"
#include "model/kernel_time.hpp"  // kL2OverDram
#include "model/occupancy.hpp"

#include <string>

namespace wb::model {


/// One GEMM step's design, as the model sees it.
struct GemmDesign {
    Stage stage = Stage::kNaive;  ///< the ladder stage it models (stage.hpp): chapter 5's runs at a GEMM's clock
    int tile_m = 1, tile_n = 1, tile_k = 1;  ///< C tile of a block; k depth per step
    int thread_m = 1, thread_n = 1;          ///< C elements per thread
    int warp_m = 32, warp_n = 1;             ///< C elements of one warp (its lanes' thread tiles)
    int threads = 256;        ///< threads per block
    int load_width = 1;       ///< elements per operand load instruction (4 floats / 2 doubles for 16-byte loads)
    double overhead = 0.5;    ///< other instructions per FMA instruction (addresses, loop, barriers)
    int regs_per_thread = 64; ///< registers per thread (estimate from the accumulators + operands)
    /// Blocks per SM the kernel is compiled for (__launch_bounds__; 0: none): the compiler keeps
    /// its registers within regs_per_sm / (min_blocks x threads), in the profile's allocation units.
    int min_blocks = 0;
    int smem_per_block = 0;   ///< shared-memory bytes per block
    bool operands_from_l1 = false;  ///< true: operands come from global memory through L1 (naive)
    /// true: each lane of a warp reads op(A) from its own line (op(A) = A^T read straight from
    /// global memory: naive and pattern), one wavefront per line: 32 per load instruction.
    bool strided_a = false;
    /// k split into this many slices (the tuned step's split k): split_k times the blocks, each
    /// over k / split_k, then a pass that reads the split_k partials and writes C (DRAM-bound).
    int split_k = 1;
    /// Shared-memory stages of the block's pipeline (1: none; the tuned kernels' cp.async stages):
    /// a pipelined block fills it before its first k-tile and drains it after its last.
    int stages = 1;
    /// Shared-memory wavefronts of one warp's reads of op(A) per k-step where they conflict (0:
    /// computed from the load width, one wavefront per 128 requested bytes). Chapter 2's op(A) =
    /// A^T is read down a column of its unpadded tile: each lane reads 16 bytes along k (16 / size(T)
    /// k-steps), all 32 lanes from the same banks, 32 wavefronts per instruction.
    double a_wavefronts_per_k = 0;
    /// The FP64 tensor cores (mma.sync .f64): the rate is dev.fp64_tensor_gflops (twice the FP64
    /// FMA lanes' where the profile has none), and a k-step's operands are spread over the 4 lanes
    /// that share a fragment row, so each thread loads a quarter of thread_m + thread_n per k-step.
    bool tensor_core = false;
    /// The bytes per second the kernel's epilogue moves C with (tuned::gemm_kernel_rates: one
    /// k-tile, C in DRAM), GB/s; 0: not measured. C's reads and writes move at the lesser of it and
    /// the DRAM bandwidth (an unsplit launch: a split writes partials and sums them in a pass).
    double epilogue_gbs = 0;
    /// The main loop as measured over as counted: what this model predicts for the kernel's own
    /// timed call (tuned::gemm_kernel_rates: whole rounds of resident blocks, at the boost clock)
    /// over that call's measured time, at most 1 (1: not measured). The FP64 tensor-core rate
    /// chapter 0 measures keeps its operands in registers; the kernel feeds each mma.sync from
    /// shared memory, one 8-byte load per fragment element, and reaches a share of it the counts
    /// above do not see (\ref notes_gemm): divides the tensor cores' FMA-lane time. The FMA tiles
    /// keep 83-87% of their counted issue rate on an H200 (the warps' waits the counts do not
    /// see all): divides their compute bounds' time, as the derivation scales their rate.
    double main_share = 1;
    /// The FMA tiles' main loop for the call's op(A), op(B) as the kernel reads them over NN,
    /// measured (tuned::gemm_kernel_rates: an operand stored with k contiguous goes through the
    /// transposing register path); divides the compute bounds' time, not the DRAM's (1: NN, or
    /// not measured).
    double op_rate = 1;
    /// The operand copies the launch runs before its main loop (op(A) = A^T or op(B) = B
    /// transposed into a workspace, unaligned operands copied), ms, added (0: none).
    double copies_ms = 0;
};

struct GemmPrediction {
    double flops = 0;               ///< 2 m n k
    double gflops = 0;              ///< predicted GFLOP/s
    double ms = 0;                  ///< predicted time
    double peak_gflops = 0;         ///< the FMA lanes' peak for this precision
    double global_loads_per_fma = 0;  ///< elements from L2 per FMA
    double operand_loads_per_fma = 0; ///< elements from L1/shared per FMA
    double issue_fraction = 0;      ///< FMA instructions / all issued instructions
    Occupancy occ;                  ///< resident blocks per SM
    double waves = 0;               ///< blocks / (SMs x resident blocks)
    std::string limit;              ///< the bound that sets the time, and why, in words
};

/// Instructions per k-tile and thread of a tuned GEMM kernel's main loop other than its FMAs and
/// fragment loads: its share of the stage copies (addresses, guards, cp.async or the transposing
/// loads and stores), the cp.async wait, the barrier and the loop. Counted in the sm_90 SASS of the
/// seven float NN main loops: 86 (64 x 64) to 140 (128 x 64, 16 x 128) on the interior path,
/// median 110 (\ref notes_gemm). The model's tuned step and chapter 6's derivation both count it.
inline constexpr double kTunedGemmLoopInstrPerKTile = 110;

/// Prediction for C = alpha op(A) op(B) + beta C, m x n x k, elements of `elem_bytes` (4 or 8).
/// Throws std::invalid_argument on negative sizes, elem_bytes not 4 or 8, or a design whose
/// tiles are not positive or whose block cannot be resident (naming the field and the rule).
/// Sizes with m, n or k zero predict the launch overhead only.
GemmPrediction predict_gemm(const GemmDesign& d, long long m, long long n, long long k, int elem_bytes,
                            const DeviceProfile& dev);

}  // namespace wb::model
