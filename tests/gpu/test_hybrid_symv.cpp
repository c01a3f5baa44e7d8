// The hybrid SYMV of chapter 7 (kernels/cpu/hybrid_symv.hpp): the GPU's rows (each chunk a slice of
// its whole stored columns: a SYMV of the diagonal block and two GEMVs of the rest, into one y on
// the device; Lower the first rows, Upper the last) and the CPU's assembled in place, against the
// float64 reference on odd sizes, both triangles, the other triangle and the padding rows NaN
// (never read), lda > n, beta == 0 over NaN and beta != 0,
// shares none / one row / some / all but one / all with chunks that do not divide them, pinned and
// pageable memory, float and double; the failure contract and the early-read rule
// (test_hybrid_common.hpp); argument errors.
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "hybrid_partition.hpp"
#include "hybrid_symv.hpp"
#include "random.hpp"
#include "reference_symv.hpp"
#include "test_hybrid_common.hpp"

#include <cstring>
#include <limits>
#include <vector>

namespace {

using wb::Uplo;
using hybrid_test::Host;

template <class T>
struct Case {
    Uplo uplo;
    int n, lda;
    T beta;
    std::vector<T> A0, x0, y0;
    std::vector<double> ref;
    Host<T> A, x, y;
    Case(Uplo u, int n_, T beta_, bool pinned, std::uint64_t seed)
        : uplo(u), n(n_), lda(n_ + 6), beta(beta_), A0(matrix(seed)),
          x0(wb::random_vector<T>(static_cast<std::size_t>(n_), seed + 1)), y0(y_init(seed + 2)),
          ref(wb::ref::symv(u, n_, 1.25, A0, lda, x0, static_cast<double>(beta_), y0)), A(A0, pinned), x(x0, pinned),
          y(y0, pinned) {}
    /// Random in the stored triangle, NaN in the other one and in the padding rows.
    std::vector<T> matrix(std::uint64_t seed) const {
        auto a = wb::random_vector<T>(static_cast<std::size_t>(lda) * n, seed);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < lda; ++i)
                if (i >= n || (uplo == Uplo::Lower ? i < j : i > j))
                    a[static_cast<std::size_t>(j) * lda + i] = std::numeric_limits<T>::quiet_NaN();
        return a;
    }
    std::vector<T> y_init(std::uint64_t seed) const {
        auto v = wb::random_vector<T>(static_cast<std::size_t>(n), seed);
        if (beta == T(0)) wb::poison(v);
        return v;
    }
    void reset() { std::memcpy(y.data(), y0.data(), y0.size() * sizeof(T)); }
    wb::SymvArgs<T> args() { return {uplo, n, T(1.25), A.data(), lda, x.data(), 1, beta, y.data(), 1}; }
    void check() const { hybrid_test::check_error(y.copy(), ref, static_cast<std::size_t>(n) + 1); }
};

}  // namespace

TEST_CASE("hybrid::symv matches the float64 reference for both triangles, every share and chunk", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = hybrid_test::size(1031);
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (bool pinned : {false, true}) {
            Case<float> f(u, n, 0.0f, pinned, 301);
            Case<double> d(u, n, 0.5, pinned, 311);
            for (int g : {0, 1, n / 3, n - 1, n}) {
                INFO("uplo " << wb::uplo_char(u) << " pinned " << pinned << " gpu_rows " << g);
                f.reset();
                wb::hybrid::symv(f.args(), g, 97);
                f.check();
                d.reset();
                wb::hybrid::symv(d.args(), g, 128);
                d.check();
            }
        }
}

TEST_CASE("hybrid::symv: a failure on either side surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const int n = hybrid_test::size(2053);
        Case<float> c(u, n, 0.0f, true, 321);
        hybrid_test::check_failures<float>([&] { wb::hybrid::symv(c.args(), n / 2, n / 8); }, c.y.data(), c.y.size(),
                                           [&] { c.check(); }, [&] { c.reset(); });
    }
}

TEST_CASE("hybrid::symv: y is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const int n = hybrid_test::size(3001);
        Case<double> c(u, n, 0.0, true, 331);
        hybrid_test::check_no_early_read<double>([&] { wb::hybrid::symv(c.args(), 4 * n / 7, n / 10); }, c.y.data(), c.y.size(),
                                                 [&] { c.check(); },
                                                 [&] { c.reset(); }, {&c.A, &c.x});
    }
}

TEST_CASE("hybrid::symv: alpha == 0 is y = beta y, reads neither A nor x, and takes an armed failure",
          "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = 37;
    for (float beta : {0.0f, 0.5f}) {
        std::vector<float> y = wb::random_vector<float>(n, 341);
        if (beta == 0.0f) wb::poison(y);
        std::vector<float> want(y);
        for (float& v : want) v = beta == 0.0f ? 0.0f : beta * v;
        wb::SymvArgs<float> a{Uplo::Lower, n, 0.0f, nullptr, n, nullptr, 1, beta, y.data(), 1};
        wb::hybrid::symv(a, n / 2, 5);  // A and x null: never read
        for (int i = 0; i < n; ++i) REQUIRE(y[static_cast<std::size_t>(i)] == want[static_cast<std::size_t>(i)]);
    }
    // A CPU failure armed fires in this call (its work is the CPU's); a GPU one finds no GPU work,
    // is disarmed, and does not fire in the next hybrid call.
    std::vector<float> y(n, 1.0f);
    wb::SymvArgs<float> a{Uplo::Upper, n, 0.0f, nullptr, n, nullptr, 1, 2.0f, y.data(), 1};
    wb::hybrid::testing::fail_next_call(wb::hybrid::testing::Fail::cpu);
    CHECK_THROWS_WITH(wb::hybrid::symv(a, n, 4), Catch::Contains("injected CPU failure"));
    wb::hybrid::testing::fail_next_call(wb::hybrid::testing::Fail::gpu);
    CHECK_NOTHROW(wb::hybrid::symv(a, n, 4));
    Case<float> c(Uplo::Lower, n, 0.5f, true, 351);
    CHECK_NOTHROW(wb::hybrid::symv(c.args(), n / 2, 4));
    c.check();
}

TEST_CASE("hybrid::symv: bad arguments throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    wb::SymvArgs<float> a{Uplo::Lower, 8, 1, v.data(), 8, v.data(), 1, 0, v.data() + 16, 1};
    CHECK_THROWS_WITH(wb::hybrid::symv(a, 9, 4), "hybrid::symv: gpu_rows (9) must be in [0, n] ([0, 8])");
    CHECK_THROWS_WITH(wb::hybrid::symv(a, 4, 0), "hybrid::symv: chunk_rows (0) must be >= 1");
    a.incx = 2;
    CHECK_THROWS_AS(wb::hybrid::symv(a, 4, 4), std::invalid_argument);
}

// The balanced call (pieces > 1): the GPU's chunks of stored columns from its end, the CPU's
// pieces (cpu::symv_columns) from the other, in units of equal work, each side into a y of its own.
// Where they meet depends on their times in this run, so each call is checked whole; the GPU's
// part, reported as stored columns, leaves both sides some. Pageable arrays run the fixed share
// (gpu_outputs -1).
TEST_CASE("hybrid::symv balanced matches the float64 reference for both triangles, every plan and piece count",
          "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = hybrid_test::size(1031);
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (bool pinned : {false, true}) {
            Case<float> f(u, n, 0.0f, pinned, 361);
            Case<double> d(u, n, -0.5, pinned, 371);
            for (int g : {1, n / 3, n - 1})
                for (int pieces : {2, 8}) {
                    INFO("uplo " << wb::uplo_char(u) << " pinned " << pinned << " plan " << g << " pieces " << pieces);
                    f.reset();
                    wb::hybrid::symv(f.args(), g, 41, pieces);
                    const int cols = wb::hybrid::last_side_times().gpu_outputs;
                    // balanced only where the plan's units leave both sides some (n - 1 rows of
                    // 1031: all but half a unit, the fixed share)
                    const int units = wb::hybrid::symv_units_of(n, g);
                    if (pinned && units > 0 && units < n) CHECK((cols >= 1 && cols <= n - 1));
                    else CHECK(cols == -1);
                    f.check();
                    d.reset();
                    wb::hybrid::symv(d.args(), g, 7, pieces);
                    d.check();
                }
        }
}

TEST_CASE("hybrid::symv balanced: a failure on either side surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const int n = hybrid_test::size(2053);
        Case<float> c(u, n, 0.0f, true, 381);
        hybrid_test::check_failures<float>([&] { wb::hybrid::symv(c.args(), n / 2, n / 16, 6); }, c.y.data(), c.y.size(),
                                           [&] { c.check(); }, [&] { c.reset(); });
        hybrid_test::check_late_failure<float>([&] { wb::hybrid::symv(c.args(), n / 2, n / 16, 6); }, c.y.data(),
                                               c.y.size(), [&] { c.check(); }, [&] { c.reset(); });
    }
}

TEST_CASE("hybrid::symv balanced: y is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const int n = hybrid_test::size(3001);
        Case<double> c(u, n, 0.25, true, 391);
        hybrid_test::check_no_early_read<double>([&] { wb::hybrid::symv(c.args(), n / 3 + 1, n / 24 + 1, 8); }, c.y.data(),
                                                 c.y.size(), [&] { c.check(); }, [&] { c.reset(); }, {&c.A, &c.x});
    }
}

TEST_CASE("hybrid::symv: pieces below 1 throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    const wb::SymvArgs<float> a{Uplo::Lower, 4, 1, v.data(), 4, v.data() + 16, 1, 0, v.data() + 32, 1};
    CHECK_THROWS_WITH(wb::hybrid::symv(a, 2, 2, 0), "hybrid::symv: pieces (0) must be >= 1");
}
