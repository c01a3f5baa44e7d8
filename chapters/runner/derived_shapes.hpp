/// \file derived_shapes.hpp
/// \brief Chapter 6's cases per op: the page's shapes, the held-out sets (--shapes) and the
///        wave-tail series (--wave-tail). The held-out shapes were not used to write any rule:
///        non-powers of two, skinny both ways, odd leading dimensions, and pairs on both sides of a
///        wave boundary of the h200 (132 SMs), so that a rule fitted to the page's shapes shows.
#pragma once

#include "blas_types.hpp"
#include "derived_options.hpp"

#include <vector>

namespace wb::ch06 {

/// y = alpha op(A) x + beta y, A m x n with leading dimension lda.
struct GemvCase {
    bool trans = false;
    int m = 0, n = 0, lda = 0;
};
/// C = op(A) B, m x n x k; ld_extra added to lda and ldb (odd: columns not 16-byte aligned).
struct GemmCase {
    int m = 0, n = 0, k = 0, ld_extra = 0;
    Op op_a = Op::N;  ///< T: A stored k x m, read transposed or packed first (the rule decides)
};
/// An rows x cols image, FS x FS filter; pitch_extra added to both pitches.
struct Conv2dCase {
    int rows = 0, cols = 0, fs = 1, pitch_extra = 0;
};
/// SYMV (lower) and CG: n x n with leading dimension lda.
struct SquareCase {
    int n = 0, lda = 0;
};

/// The cases of each op the selection asks for: --sizes (square n: GEMV n x n both ops, GEMM n^3,
/// the convolution n x n with FS 3, 7, 17, 63, SYMV and CG n), --shapes (the held-out sets, at
/// least 12 each), --wave-tail (GEMV n x n at n = 64 k, k = 56 ... 80; SYMV n = 64 k, k = 40 ...
/// 104), or the page's. GEMV's cases keep the ops --trans selects.
std::vector<GemvCase> gemv_cases_of(const CaseSelection& cs);
std::vector<GemmCase> gemm_cases_of(const CaseSelection& cs);
std::vector<Conv2dCase> conv2d_cases_of(const CaseSelection& cs);
std::vector<SquareCase> symv_cases_of(const CaseSelection& cs);
std::vector<SquareCase> cg_cases_of(const CaseSelection& cs);

}  // namespace wb::ch06
