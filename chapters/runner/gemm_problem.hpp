/// \file gemm_problem.hpp
/// \brief One GEMM problem on the device — seeded random A, B, C (never zeros, NaN in every
///        element outside the matrices), its float64 reference, and the two things every consumer
///        does with a step: check it against the reference (C poisoned first when beta == 0) and
///        time it. Chapters, gpu tests and perf tests all go through here, so they check and time
///        the same way.
#pragma once

#include "bench.hpp"
#include "buffer.hpp"
#include "compare.hpp"
#include "memory_fit.hpp"
#include "gemm.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// The shape of one GEMM: C (m x n) = alpha*op(A) (m x k) * op(B) (k x n) + beta*C.
struct GemmShape {
    Op op_a = Op::N, op_b = Op::N;
    int m = 0, n = 0, k = 0;
    int lda = 0, ldb = 0, ldc = 0;  ///< 0: tight (max(1, rows as stored))
    int offset = 0;                 ///< elements every base pointer is offset by (as a submatrix gives)
    /// e.g. "NT 4096x4096x256" or "TN 37x53x19 lda=22 ldb=24 ldc=40 offset=1" (non-tight parts only).
    std::string str() const;
    int rows_a() const { return op_a == Op::N ? m : k; }
    int cols_a() const { return op_a == Op::N ? k : m; }
    int rows_b() const { return op_b == Op::N ? k : n; }
    int cols_b() const { return op_b == Op::N ? n : k; }
};

template <class T>
struct GemmProblem {
    using Args = GemmArgs<T>;
    GemmShape shape;  ///< leading dimensions resolved (never 0)
    T alpha = T(1.5), beta = T(0.5);
    std::uint64_t seed = 0;
    /// Host copies of the inputs as allocated: `offset` leading elements, then the matrix in its
    /// ld x cols array. Every element outside the matrix (offset prefix, padding rows) is NaN.
    std::vector<T> hA, hB, hC;
    DeviceBuffer<T> A, B, C;

    Args args();
    /// 2 m n k (common/roofline).
    double useful_flops() const;
    /// size(T) (m k + k n + m n [+ m n when beta != 0]): each operand read once, C written once.
    double useful_bytes() const;
    /// The columns of C the check compares: all of them while m n k <= 2^31 (1024^3 is 2^30),
    /// otherwise a sample (seeded by `seed`: the first and last column and random ones) of about
    /// 2^30 / (m k) columns, at least 8 — the float64 reference costs m k per column.
    const std::vector<int>& checked_columns() const;
    /// The float64 reference over checked_columns(), column after column (m values each).
    std::vector<double> reference() const;
    /// |alpha| |op(A)| |op(B)| + |beta| |C| in float64 over checked_columns(): the right-hand side
    /// of BLAS's error bound |C - C_computed| <= c k eps (|alpha||op(A)||op(B)| + |beta||C|).
    /// Computed on first use, then kept.
    const std::vector<double>& error_scale() const;

private:
    mutable std::vector<int> cols_;
    mutable bool cols_set_ = false;
    mutable std::vector<double> scale_;
    mutable bool scale_set_ = false;
};

/// Allocates and fills a problem. Inputs seeded random from `seed` (full mantissas, never zero);
/// padding rows of A, B and C and the `offset` elements before each base pointer hold NaN, so a
/// kernel that reads them fails. Throws std::invalid_argument on a negative size or a leading
/// dimension below its rows.
template <class T>
GemmProblem<T> make_gemm_problem(const GemmShape& shape, std::uint64_t seed, T alpha = T(1.5), T beta = T(0.5));

/// Restores C (poisons it with NaN when beta == 0: it must not be read), runs `step` once with
/// `launch`, and compares the checked columns with `ref` (compare_output, k + 1 terms per
/// element: the k products and the beta term). Also fails when anything outside the m x n window
/// of C (padding rows, the offset prefix) changed, or, with m == 0 or n == 0, when C changed at all.
template <class T>
CheckResult check_gemm(const Step<GemmArgs<T>>& step, const GemmLaunch& launch, GemmProblem<T>& p,
                       const std::vector<double>& ref);

/// Times `step` on the problem with the harness (opt as given; working_set_bytes from the useful
/// bytes). C is restored afterwards.
template <class T>
BenchStats time_gemm(const Step<GemmArgs<T>>& step, const GemmLaunch& launch, GemmProblem<T>& p, BenchOptions opt);

/// The memory make_gemm_problem, check_gemm and time_gemm need at their peak for elements of
/// `elem` bytes: A, B, C as allocated (offset, leading dimensions) and the tuned step's
/// workspaces (split-k partials, A packed, B aligned: each at most 512 MiB by its default rule) on
/// the device; A, B, C, C's copies of the check and the float64 reference and error scale of the
/// checked columns on the host. Nothing is allocated.
MemoryNeed gemm_memory_need(std::size_t elem, const GemmShape& shape);

}  // namespace wb
