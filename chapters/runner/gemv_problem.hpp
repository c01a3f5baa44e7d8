/// \file gemv_problem.hpp
/// \brief One GEMV problem on the device — seeded random A, x, y (never zeros), its float64
///        reference, and the two things every consumer does with a step: check it against the
///        reference (output poisoned first) and time it (L2 flushed). Chapters, gpu tests and
///        perf tests all go through here, so they check and time the same way.
#pragma once

#include "bench.hpp"
#include "buffer.hpp"
#include "compare.hpp"
#include "memory_fit.hpp"
#include "gemv.hpp"
#include "model/gemv.hpp"

#include <cstdint>
#include <vector>

namespace wb {

template <class T>
struct GemvProblem {
    Op op = Op::N;
    int m = 0, n = 0, lda = 1;
    T alpha = T(1.5), beta = T(0.5);
    std::uint64_t seed = 0;
    int a_offset = 0;  ///< elements of the allocation before A (a submatrix's offset; they hold NaN)
    int x_offset = 0;  ///< elements of the allocation before x (they hold NaN)
    std::vector<T> hA, hx, hy;  ///< host copies of the inputs (hy: y before the call)
    DeviceBuffer<T> A, x, y;    ///< allocations: A and x start a_offset and x_offset elements in

    GemvArgs<T> args() {
        return {op, m, n, alpha, A.data() + a_offset, lda, x.data() + x_offset, beta, y.data()};
    }
    /// Useful bytes of one call (common/roofline).
    double useful_bytes() const;
    /// The float64 reference result for the current inputs.
    std::vector<double> reference() const;
    /// |alpha| |op(A)| |x| + |beta| |y| in float64: the right-hand side of BLAS's error bound
    /// |y - y_computed| <= c k eps (|alpha| |op(A)| |x| + |beta| |y|). Errors are measured
    /// against it, so a result that cancels to almost nothing is not held to an impossible
    /// relative accuracy (computed on first use, then kept).
    const std::vector<double>& error_scale() const;

private:
    mutable std::vector<double> scale_;
};

/// Allocates and fills a problem: A is m x n in an lda x n array (lda >= m; the padding rows are
/// NaN, so a kernel that reads them fails), x and y seeded random from `seed`. A starts
/// `a_offset` elements into its allocation (a submatrix at that offset: its address is then
/// aligned to a_offset elements only), x `x_offset` elements into its own; the elements before
/// them are NaN.
template <class T>
GemvProblem<T> make_gemv_problem(Op op, int m, int n, int lda, std::uint64_t seed, T alpha = T(1.5),
                                 T beta = T(0.5), int a_offset = 0, int x_offset = 0);

/// Result of one checked call (common/compare.hpp).
using GemvCheck = CheckResult;

/// Restores y, poisons nothing else, runs `step` once with `launch`, compares with `ref`.
/// When beta == 0, y is poisoned with NaN before the call (it must not be read).
template <class T>
GemvCheck check_gemv(const GemvStep<T>& step, const GemvLaunch& launch, GemvProblem<T>& p,
                     const std::vector<double>& ref);

/// Times `step` on the problem with the harness (L2 flushed unless opt says otherwise).
template <class T>
BenchStats time_gemv(const GemvStep<T>& step, const GemvLaunch& launch, GemvProblem<T>& p, BenchOptions opt);

/// The memory make_gemv_problem, check_gemv and time_gemv need at their peak for elements of
/// `elem` bytes: A (with its offset and padding rows), x, y and the split partials of the steps'
/// workspaces on the device; A, the |A| of the error scale, x, y and the float64 reference on the
/// host. Nothing is allocated: the chapter loop asks before it builds a problem.
MemoryNeed gemv_memory_need(std::size_t elem, Op op, int m, int n, int lda, int a_offset = 0, int x_offset = 0);

/// The model's view of a launch (model::GemvModelLaunch): the fields that shape the kernels' grids.
model::GemvModelLaunch gemv_model_launch_of(const GemvLaunch& l);

/// The tuned step's launch `l` of call `s` as its launcher runs it on `dev`: the split Y the
/// launcher derives where `l` leaves it at 0, and element loads where A's columns are not 16-byte
/// aligned (chapter 5's rows and chapter 6's sweep predict the same launch alike).
model::GemvModelLaunch gemv_model_launch_of(const GemvLaunch& l, const GemvShape& s, const DeviceProfile& dev);

}  // namespace wb
