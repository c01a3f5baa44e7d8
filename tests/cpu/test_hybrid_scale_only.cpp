// Chapter 7's BLAS hybrids on their degenerate call, alpha == 0 (GEMM: or k == 0): out = beta out
// on the host (hybrid_common.hpp, detail::scale_on_host), with the operands they would multiply
// null (BLAS does not read them), beta 0 over NaN and beta 0.5, C with ldc > m (its padding
// untouched), any share; an armed CPU failure fires, an armed GPU one finds no GPU work and is
// disarmed. No GPU is touched, so these run without one.
#include "catch.hpp"

#include "hybrid_common.hpp"
#include "hybrid_gemm.hpp"
#include "hybrid_gemv.hpp"
#include "hybrid_symv.hpp"
#include "random.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace {

using wb::hybrid::testing::Fail;

/// The expected out = beta out of `v` (beta 0: zeros whatever v holds).
std::vector<double> scaled(const std::vector<double>& v, double beta) {
    std::vector<double> out(v);
    for (double& x : out) x = beta == 0 ? 0 : beta * x;
    return out;
}

}  // namespace

TEST_CASE("hybrid BLAS calls with alpha == 0 scale their output on the host and read nothing else", "[cpu][split]") {
    for (double beta : {0.0, 0.5}) {
        INFO("beta " << beta);
        // GEMV op T, m = 7, n = 19: y of 19; A and x null.
        std::vector<double> y = wb::random_vector<double>(19, 401);
        if (beta == 0) wb::poison(y);
        const auto want_y = scaled(y, beta);
        wb::hybrid::gemv<double>({wb::Op::T, 7, 19, 0.0, nullptr, 7, nullptr, beta, y.data()}, 5, 2);
        CHECK(y == want_y);
        // SYMV n = 23, any triangle, A and x null.
        std::vector<double> ys = wb::random_vector<double>(23, 402);
        if (beta == 0) wb::poison(ys);
        const auto want_ys = scaled(ys, beta);
        wb::hybrid::symv<double>({wb::Uplo::Upper, 23, 0.0, nullptr, 23, nullptr, 1, beta, ys.data(), 1}, 11, 3);
        CHECK(ys == want_ys);
        // GEMM m = 5, n = 6, ldc = 8 (rows 5 - 7 of each column are padding, kept); alpha 0 with A
        // and B null, then k == 0 with alpha 1.
        for (int k : {4, 0}) {
            const double alpha = k == 0 ? 1.0 : 0.0;
            std::vector<double> c = wb::random_vector<double>(48, 403);
            std::vector<double> want_c(c);
            for (int j = 0; j < 6; ++j)
                for (int i = 0; i < 8; ++i) {
                    double& v = c[static_cast<std::size_t>(j) * 8 + i];
                    if (i < 5 && beta == 0) v = std::nan("");
                    want_c[static_cast<std::size_t>(j) * 8 + i] = i < 5 ? (beta == 0 ? 0 : beta * v) : v;
                }
            wb::hybrid::gemm<double>({wb::Op::N, wb::Op::N, 5, 6, k, alpha, nullptr, 5, nullptr, std::max(1, k), beta,
                                      c.data(), 8},
                                     3, 2);
            CHECK(c == want_c);
        }
    }
    const wb::hybrid::SideTimes t = wb::hybrid::last_side_times();
    CHECK(t.gpu_ms == 0);
    CHECK(t.total_ms >= t.cpu_ms);
}

TEST_CASE("hybrid BLAS calls with alpha == 0 take an armed failure as any call does", "[cpu][split]") {
    std::vector<float> y(9, 1.0f);
    const wb::GemvArgs<float> a{wb::Op::N, 9, 4, 0.0f, nullptr, 9, nullptr, 2.0f, y.data()};
    wb::hybrid::testing::fail_next_call(Fail::cpu);
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 4, 2), Catch::Contains("injected CPU failure"));
    CHECK(y == std::vector<float>(9, 1.0f));  // before its share ran
    wb::hybrid::testing::fail_next_call(Fail::gpu);  // no GPU work: disarmed, not fired
    CHECK_NOTHROW(wb::hybrid::gemv(a, 4, 2));
    CHECK(y == std::vector<float>(9, 2.0f));
    CHECK_NOTHROW(wb::hybrid::gemv(a, 4, 2));  // nothing left armed
    CHECK(y == std::vector<float>(9, 4.0f));
}
