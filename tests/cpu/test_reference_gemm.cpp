// The float64 GEMM reference (common/reference_gemm) against a product computed by hand and
// against identities: op(A) = I^T, transposes of the operands, beta == 0 ignoring NaN in C,
// sampled columns equal to the same columns of the whole product, and the absolute-value scale.
#include "catch.hpp"

#include "reference_gemm.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace {

using wb::Op;

template <class T>
wb::ref::GemmOperands<T> ops(Op oa, Op ob, int m, int n, int k, const std::vector<T>& A, int lda,
                             const std::vector<T>& B, int ldb, const std::vector<T>& C, int ldc, std::size_t off = 0) {
    wb::ref::GemmOperands<T> o;
    o.op_a = oa;
    o.op_b = ob;
    o.m = m;
    o.n = n;
    o.k = k;
    o.A = &A;
    o.lda = lda;
    o.B = &B;
    o.ldb = ldb;
    o.C = &C;
    o.ldc = ldc;
    o.offset = off;
    return o;
}

}  // namespace

TEST_CASE("reference gemm matches a hand-computed 2x2x3 product", "[cpu][gemm]") {
    // A (2 x 3) = [1 2 3; 4 5 6] column-major with lda = 3 (one padding row of NaN),
    // B (3 x 2) = [7 8; 9 10; 11 12], C = [1 2; 3 4].
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> A = {1, 4, nan, 2, 5, nan, 3, 6, nan};
    const std::vector<double> B = {7, 9, 11, 8, 10, 12};
    const std::vector<double> C = {1, 3, 2, 4};
    // A B = [58 64; 139 154]; 2 A B + 0.5 C = [116.5 129; 279.5 310]
    const auto r = wb::ref::gemm<double>(ops<double>(Op::N, Op::N, 2, 2, 3, A, 3, B, 3, C, 2), 2.0, 0.5);
    REQUIRE(r.size() == 4);
    CHECK(r[0] == 116.5);
    CHECK(r[1] == 279.5);
    CHECK(r[2] == 129.0);
    CHECK(r[3] == 310.0);
    // beta == 0 never reads C: NaN there does not matter.
    const std::vector<double> Cnan(4, nan);
    const auto r0 = wb::ref::gemm<double>(ops<double>(Op::N, Op::N, 2, 2, 3, A, 3, B, 3, Cnan, 2), 1.0, 0.0);
    CHECK(r0 == std::vector<double>{58, 139, 64, 154});
    // The same product through the transposed storage of both operands: A^T stored 3 x 2,
    // B^T stored 2 x 3, with a base offset of 1 element.
    const std::vector<double> At = {nan, 1, 2, 3, 4, 5, 6};        // A^T column-major (3 x 2), lda = 3
    const std::vector<double> Bt = {nan, 7, 8, 9, 10, 11, 12};     // B^T column-major (2 x 3), ldb = 2
    const std::vector<double> C1 = {nan, 1, 3, 2, 4};
    const auto rt = wb::ref::gemm<double>(ops<double>(Op::T, Op::T, 2, 2, 3, At, 3, Bt, 2, C1, 2, 1), 2.0, 0.5);
    CHECK(rt == r);
}

TEST_CASE("reference gemm with op(A) = I^T returns op(B)", "[cpu][gemm]") {
    const int n = 5, k = 7;
    std::vector<float> I(static_cast<std::size_t>(k) * k, 0.f);
    for (int i = 0; i < k; ++i) I[i + static_cast<std::size_t>(i) * k] = 1.f;
    std::vector<float> Bt(static_cast<std::size_t>(n) * k);  // B^T stored n x k: op(B) = B (k x n)
    for (std::size_t e = 0; e < Bt.size(); ++e) Bt[e] = 0.25f * static_cast<float>(e) - 3.f;
    const std::vector<float> C(static_cast<std::size_t>(k) * n, std::numeric_limits<float>::quiet_NaN());
    const auto r = wb::ref::gemm<float>(ops<float>(Op::T, Op::T, k, n, k, I, k, Bt, n, C, k), 1.0, 0.0);
    REQUIRE(r.size() == static_cast<std::size_t>(k) * n);
    for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p) CHECK(r[p + static_cast<std::size_t>(j) * k] == Bt[j + static_cast<std::size_t>(p) * n]);
}

TEST_CASE("reference gemm columns equal the whole product's, and the scale is its absolute form", "[cpu][gemm]") {
    const int m = 9, n = 6, k = 4;
    std::vector<double> A(static_cast<std::size_t>(k) * m), B(static_cast<std::size_t>(k) * n), C(static_cast<std::size_t>(m) * n);
    for (std::size_t e = 0; e < A.size(); ++e) A[e] = std::sin(1.0 + e);
    for (std::size_t e = 0; e < B.size(); ++e) B[e] = std::cos(2.0 + e);
    for (std::size_t e = 0; e < C.size(); ++e) C[e] = std::sin(3.0 * e);
    const auto o = ops<double>(Op::T, Op::N, m, n, k, A, k, B, k, C, m);
    const auto whole = wb::ref::gemm<double>(o, -1.5, 0.25);
    const auto cols = wb::ref::gemm_columns<double>(o, -1.5, 0.25, {1, 5});
    REQUIRE(cols.size() == 2u * m);
    for (int i = 0; i < m; ++i) {
        CHECK(cols[i] == Approx(whole[i + 1 * m]).epsilon(1e-14));
        CHECK(cols[m + i] == Approx(whole[i + 5 * m]).epsilon(1e-14));
    }
    // |alpha||op(A)||op(B)| + |beta||C| at (0, 0), by hand.
    double s = 0;
    for (int p = 0; p < k; ++p) s += std::abs(A[p]) * std::abs(B[p]);
    s = 1.5 * s + 0.25 * std::abs(C[0]);
    const auto scale = wb::ref::gemm_columns<double>(o, -1.5, 0.25, {0}, true);
    CHECK(scale[0] == Approx(s).epsilon(1e-14));
    CHECK_THROWS_AS(wb::ref::gemm_columns<double>(o, 1.0, 0.0, {n}), std::invalid_argument);
}

TEST_CASE("reference gemm: m or n zero is empty, k zero scales C", "[cpu][gemm]") {
    const std::vector<double> none;
    const std::vector<double> C = {2, 4, 6, 8};
    CHECK(wb::ref::gemm<double>(ops<double>(Op::N, Op::N, 0, 3, 2, none, 1, none, 2, none, 1), 1, 1).empty());
    const auto r = wb::ref::gemm<double>(ops<double>(Op::N, Op::N, 2, 2, 0, none, 2, none, 1, C, 2), 3.0, 0.5);
    CHECK(r == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("reference gemm: the scale from the same pass, and threads, change nothing", "[cpu][gemm]") {
    // Large enough (m k cols >= 4e6) for the columns to be spread over threads.
    const int m = 203, n = 120, k = 211;
    for (Op oa : {Op::N, Op::T}) {
        std::vector<float> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n), C(static_cast<std::size_t>(m) * n);
        for (std::size_t e = 0; e < A.size(); ++e) A[e] = static_cast<float>(std::sin(0.1 * e));
        for (std::size_t e = 0; e < B.size(); ++e) B[e] = static_cast<float>(std::cos(0.3 * e));
        for (std::size_t e = 0; e < C.size(); ++e) C[e] = static_cast<float>(std::sin(0.7 * e));
        const auto o = ops<float>(oa, Op::N, m, n, k, A, oa == Op::N ? m : k, B, k, C, m);
        std::vector<int> cols(n);
        for (int j = 0; j < n; ++j) cols[j] = j;
        std::vector<double> scale;
        const auto r = wb::ref::gemm_columns<float>(o, 1.25, -0.5, cols, false, &scale);
        CHECK(scale == wb::ref::gemm_columns<float>(o, 1.25, -0.5, cols, true));
        for (int j : {0, 57, n - 1}) {  // one column alone (one thread) gives the same bits
            const auto one = wb::ref::gemm_columns<float>(o, 1.25, -0.5, {j});
            for (int i = 0; i < m; ++i) CHECK(one[i] == r[static_cast<std::size_t>(j) * m + i]);
        }
    }
}
