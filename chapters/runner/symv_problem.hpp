/// \file symv_problem.hpp
/// \brief One SYMV problem on the device — seeded random A (its stored triangle), x and y (never
///        zeros), NaN everywhere a correct kernel must not read (the other triangle, the padding
///        rows, the elements before an offset base pointer), its float64 reference and error
///        scale, and the two things every consumer does with a step: check it against the
///        reference (y poisoned first when beta == 0) and time it (L2 flushed: SYMV is memory
///        bound). Chapters, gpu tests and perf tests all go through here.
#pragma once

#include "bench.hpp"
#include "buffer.hpp"
#include "compare.hpp"
#include "memory_fit.hpp"
#include "model/symv.hpp"
#include "symv.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wb {

template <class T>
struct SymvProblem {
    Uplo uplo = Uplo::Lower;
    int n = 0, lda = 1;
    T alpha = T(1.5), beta = T(0.5);
    std::size_t offset = 0;      ///< elements before A(0, 0) in A's array (a submatrix's base)
    std::size_t vec_offset = 0;  ///< elements before x(0) and y(0) (1 when offset != 0)
    std::uint64_t seed = 0;
    std::vector<T> hA, hx, hy;  ///< host copies as allocated (hy: y before the call)
    DeviceBuffer<T> A, x, y;

    SymvArgs<T> args() {
        SymvArgs<T> a;
        a.uplo = uplo;
        a.n = n;
        a.alpha = alpha;
        a.A = A.data() ? A.data() + offset : nullptr;
        a.lda = lda;
        a.x = x.data() ? x.data() + vec_offset : nullptr;
        a.beta = beta;
        a.y = y.data() ? y.data() + vec_offset : nullptr;
        return a;
    }
    /// Useful bytes of one call (common/roofline: size(T)(n(n+1)/2 + 3n)).
    double useful_bytes() const;
    /// The float64 reference for the inputs (computed on first use with the error scale in the
    /// same pass, then kept: the inputs never change after make_symv_problem).
    std::vector<double> reference() const;
    /// |alpha| |A| |x| + |beta| |y| in float64 (BLAS's error bound, compare.hpp), computed with the
    /// reference on first use, then kept.
    const std::vector<double>& error_scale() const;

private:
    mutable std::vector<double> ref_, scale_;
};

/// Allocates and fills a problem: A is n x n in an lda x n array after `offset` leading elements;
/// the stored triangle is seeded random from `seed`; the other triangle, the padding rows n..lda-1
/// and the offset prefix are NaN, so a kernel that reads any of them fails. x and y are seeded
/// random (seed + 1, seed + 2), after one leading NaN element when offset != 0.
/// Throws std::invalid_argument when n < 0 or lda < max(1, n).
template <class T>
SymvProblem<T> make_symv_problem(Uplo uplo, int n, int lda, std::uint64_t seed, T alpha = T(1.5), T beta = T(0.5),
                                 std::size_t offset = 0);

/// As make_symv_problem, but A's array holds `values` (the first offset + lda x n of them, which
/// must exist) instead of values drawn from `seed`; x and y are still drawn from seed + 1 and
/// seed + 2, and the unread triangle, the padding rows and the offset prefix are still NaN. The
/// submatrix experiment draws its matrix once and takes every offset's problem from it: drawing
/// 16384^2 values takes about 4 s on one core, the rest of a problem a fraction of that.
/// Throws std::invalid_argument as make_symv_problem does, and when `values` is too short.
template <class T>
SymvProblem<T> make_symv_problem_from(const std::vector<T>& values, Uplo uplo, int n, int lda, std::uint64_t seed,
                                      T alpha = T(1.5), T beta = T(0.5), std::size_t offset = 0);

/// Restores y (or poisons it with NaN when beta == 0: it must not be read), runs `step` once with
/// `launch`, compares the n results with `ref` (compare_output, reduction length n + 1), and fails
/// the check when an element of y's array outside y (the offset prefix) changed, or, when nothing
/// is to be done (n == 0, or alpha == 0 and beta == 1), when y changed at all.
template <class T>
CheckResult check_symv(const SymvStep<T>& step, const SymvLaunch& launch, SymvProblem<T>& p,
                       const std::vector<double>& ref);

/// Times `step` on the problem with the harness (L2 flushed unless opt says otherwise).
template <class T>
BenchStats time_symv(const SymvStep<T>& step, const SymvLaunch& launch, SymvProblem<T>& p, BenchOptions opt);

/// The fields of a SymvLaunch the SYMV model needs (model/symv), for the chapters' model columns
/// and for the ops whose Mv is a SYMV (CG).
model::SymvModelLaunch symv_model_launch(const SymvLaunch& l);

/// The memory make_symv_problem, check_symv and time_symv need at their peak for elements of
/// `elem` bytes: A as allocated (offset, lda), x, y and the steps' shared workspace of partials
/// (at most n ceil(n / 32) + n elements: the pattern step's) on the device; A (drawn, then moved),
/// the reference's copy of it and the vectors on the host. Nothing is allocated.
MemoryNeed symv_memory_need(std::size_t elem, int n, int lda, std::size_t offset = 0);

}  // namespace wb
