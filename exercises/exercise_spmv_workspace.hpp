/// \file exercise_spmv_workspace.hpp
/// \brief Chapter 4's SYMV exercise: SPMV (chapter 3's packed symmetric product) with a
///        workspace instead of atomics, so that the result is the same bit for bit on every run
///        (the contract and the rules the launcher checks; the float64 reference is chapter 3's).
///
/// The product, storage and BLAS conventions are those of exercise_spmv.hpp: `y = alpha A x +
/// beta y`, A symmetric `n x n` with one triangle in AP (column-major packed, `uplo` 'U' or 'L'),
/// x and y contiguous; beta == 0: y only written; n == 0, or alpha == 0 with beta == 1: nothing
/// read nor written. Here the caller also passes a device workspace:
///   - `work` holds spmv_workspace_size(n) = P * n floats, P = spmv_workspace_panels(n) =
///     min(n, kSpmvPanels), laid out as P rows of n (row p at `work + p * n`); its contents on
///     entry are anything (NaN, say): read only what you wrote in the same call;
///   - nothing outside [0, P n) of work, nor outside [0, n) of y, is written;
///   - the result must be deterministic: the same inputs give the same y bit for bit on every
///     call (no float atomics, no order of additions that depends on the timing of blocks).
/// The intended scheme: split the stored columns into P panels (column j in panel j % P), let one
/// block own a panel and sum its columns' contributions to all of y into its own workspace row
/// (each stored A(i, j) once: A(i, j) x[j] for y[i], A(i, j) x[i] for y[j]), then reduce the P
/// rows in a fixed order into y.
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void spmv(const SpmvWorkspaceArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ solves SYMV on a dense array; chapter 3's exercise (spmv.cu) meets the mirrored terms
/// with atomics, whose order, and so whose float result, varies from run to run.
#pragma once

#include "exercise_spmv.hpp"

namespace wb::ex {

/// The most panels (workspace rows): enough blocks for every SM of a large GPU several times.
constexpr long long kSpmvPanels = 512;

/// Arguments of one SPMV with a workspace: chapter 3's, and the workspace (see the file comment).
struct SpmvWorkspaceArgs : SpmvArgs {
    float* work = nullptr;  ///< device: spmv_workspace_size(n) floats, anything on entry
};

/// The launcher every spmv_workspace.cu defines.
using SpmvWorkspaceFn = void (*)(const SpmvWorkspaceArgs&, cudaStream_t);

/// The panels of an n x n SPMV: min(n, kSpmvPanels).
inline long long spmv_workspace_panels(long long n) { return n < kSpmvPanels ? n : kSpmvPanels; }

/// The floats `work` holds: one row of n per panel.
inline long long spmv_workspace_size(long long n) { return spmv_workspace_panels(n) * n; }

/// Chapter 3's rules (check_spmv_args), and `work` not null unless BLAS returns at once; throws
/// std::invalid_argument naming the function, the argument, its value and the rule.
inline void check_spmv_workspace_args(const char* fn, const SpmvWorkspaceArgs& a) {
    check_spmv_args(fn, a);
    if (spmv_quick_return(a)) return;
    if (a.work == nullptr)
        throw std::invalid_argument(std::string(fn) + ": work (null) must point to spmv_workspace_size(n) (" +
                                    std::to_string(spmv_workspace_size(a.n)) + ") device floats when n (" +
                                    std::to_string(a.n) + ") > 0");
}

}  // namespace wb::ex
