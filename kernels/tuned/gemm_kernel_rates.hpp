/// \file tuned/gemm_kernel_rates.hpp
/// \brief What chapter 6's GEMM derivation cannot count, measured on the device: each
///        configuration's main-loop rate with op(A) = A^T read transposed, with op(B) = B^T (NT
///        and TT), and with element copies of unaligned columns (in each op pair), each over its
///        rate with op(A) = A, op(B) = B and 16-byte copies; and its main loop's own time.
///
/// The derivation counts issue slots, shared-memory bytes and L2 bytes per FMA (derive/gemm.cpp).
/// Reading op(A) = A^T through registers costs the tuned kernels more than those counts: on an
/// H200 the 256 x 128 kernel issues 1.7% more instructions per k-tile with op(A) = A^T (Nsight
/// Compute), yet runs about 5% slower, and the double kernels issue fewer and run about 13%
/// slower (\ref notes_gemm). The rates are therefore timed, like chapter 0's ceilings, on the
/// device the call runs on, once per device: each configuration's kernel on about four waves of
/// blocks with op(A) = A, op(A) = A^T, op(B) = B^T with each, and op(A) = A with odd leading
/// dimensions.
/// The default rule weighs packing A and copying unaligned operands with them
/// (gemm_default_rule.cpp); without a GPU it reads the rates an H200 measured.
#pragma once

#include "gemm.hpp"

#include <string>
#include <vector>

namespace wb::tuned {

/// One configuration's main-loop rates, relative to its op(A) = A rate with 16-byte copies.
struct GemmKernelRates {
    /// op(A) = A^T, read transposed through registers: the slower of two calls, the ratio call
    /// (each block row reading its own rows of A) and a one-row call (C one tile tall: every block
    /// reading the same rows of A), where the kernels' factors differ by up to 6% (\ref notes_gemm).
    double transposed_a = 1;
    double element = 1;       ///< A's columns not 16-byte aligned: both operands copied element by element
    /// The bytes per second its epilogue moves C with (read and written, beta != 0) where the
    /// epilogue is the kernel: one k-tile, C four times the L2, the L2 flushed before each call.
    /// GB/s, absolute (0: not measured). Each block loads its tile of C, then stores it; how many
    /// of those round trips overlap depends on its registers, blocks per SM and batches, which the
    /// derivation's bandwidth share does not see (\ref notes_gemm).
    double epilogue_gbs = 0;
    /// Its main loop's own time, ms, on a call of whole rounds (gemm_rate_shape: op(A) = A,
    /// 16-byte copies, beta 0; 0: not measured). The model sets the tensor cores' main loop
    /// against it: what its counts predict for that call over this (\ref notes_gemm).
    double main_ms = 0;
    /// op(A) = A, op(B) = B^T (NT): B copied straight into place like A, no transposing operand
    /// (0: not measured, taken as 1). The kernels keep both operands k-major in shared memory: an
    /// operand stored with k contiguous goes through their transposing path, one in NN, two in
    /// TN, one in TT, none in NT. The default rule weighs transposing B first with these
    /// (GemmLaunch::pack_b).
    double op_nt = 0;
    /// op(A) = A^T, op(B) = B^T (TT), likewise (0: not measured, taken as transposed_a).
    double op_tt = 0;
    /// op(A) = A^T with element copies (TN, both operands through the transposing path, columns off
    /// 16-byte boundaries), over NN with 16-byte copies (0: not measured, taken as transposed_a x
    /// element). Measured, not multiplied: the four-warp tiles run this pair at 0.74 of NN with
    /// element copies where TN and element copies alone cost them 2% and 7% (\ref notes_gemm).
    double tn_element = 0;
    /// NT and TT with element copies likewise (0: not measured, taken as op_nt, op_tt x element).
    double nt_element = 0;
    double tt_element = 0;
};

/// The shape of launch `c`'s main-loop call (GemmKernelRates::main_ms) on a device of `sm_count`
/// SMs (m, n, k): sm_count x 6 tiles of c, whole rounds at 1, 2, 3 or 6 resident blocks, k = 1056.
GemmTimedCall gemm_rate_shape(const GemmLaunch& c, int sm_count);

/// The one-row call of op(A) = A^T's second ratio (GemmKernelRates::transposed_a) on a device of
/// `sm_count` SMs: C one tile of `c` tall and sm_count tiles wide, k = 3 x 1056 split in
/// kGemmOneRowSplit slices (each slice 1056 deep, whole k-tiles of every configuration), so that
/// every block reads the same tile_m rows of A.
GemmTimedCall gemm_one_row_shape(const GemmLaunch& c, int sm_count);
inline constexpr int kGemmOneRowSplit = 3;

/// The launches whose rates are measured, in the rates' order: T's configurations
/// (gemm_configs<T>()), then in double the FP64 tensor cores' tiles (kDgemmTcTiles, each with its
/// tile fields set), whose element copies cost them more than the derivation counts too.
template <class T>
std::vector<GemmLaunch> gemm_rate_launches();

/// The rates of gemm_rate_launches<T>() in its order: with `live`, measured on the current device
/// at the first call for that device (measure_gemm_kernel_rates; thread-safe); otherwise
/// gemm_kernel_rates_h200(), also where the environment sets WB_GEMM_RATES=preset (racecheck's
/// test run, where the timings did not end within 545 s on an H200). A tensor-core tile on a device without them: {1, 1}.
template <class T>
const std::vector<GemmKernelRates>& gemm_kernel_rates(bool live);
/// Whether the environment sets WB_GEMM_RATES=preset (gemm_kernel_rates then reads the table).
bool gemm_rates_preset_asked();

/// "main loop 1.1535 ms, TN 0.965, NT 1.012, TT 0.968, element copies 0.912": the figures the rule
/// report and the WB_GEMM_RATES_LOG diagnostic print for one configuration.
std::string gemm_kernel_rates_line(const GemmKernelRates& r);

/// Times gemm_rate_launches<T>() on the current device now: per launch eight products of the
/// same shape (NN, TN, NT and TT, each also with its leading dimensions one longer, odd), the median of
/// three calls after one, on about four waves of its blocks with k = 1056; NN and TN on the
/// one-row call (gemm_one_row_shape); then op(A) = A on whole rounds (gemm_rate_shape:
/// GemmKernelRates::main_ms); then its epilogue's bandwidth on a C of four times the L2 with
/// k = one k-tile. All of that three times, launch after launch, each figure the median of its
/// three rounds. Allocates and frees its operands (up to four times the L2, and B of the one-row
/// call: about 210 MB in float, 430 MB in double on 132 SMs); synchronizes the device. Throws
/// wb::CudaError.
template <class T>
std::vector<GemmKernelRates> measure_gemm_kernel_rates();

/// The rates measure_gemm_kernel_rates gave on an H200 (\ref notes_gemm, chapter 6 prints them):
/// the default rule's without a GPU, as the `h200` profile preset is the profile's.
template <class T>
std::vector<GemmKernelRates> gemm_kernel_rates_h200();

}  // namespace wb::tuned
