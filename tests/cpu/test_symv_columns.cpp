// test_symv_columns.cpp — the balanced hybrid SYMV's host pieces (cpu::symv_columns) and its axis
// of equal work (hybrid_partition.hpp: symv_ordinal_at, symv_units_of, symv_ordinal_columns),
// against the float64 reference. Host only: no GPU, no BLAS.
//
// Run: build/bin/wb_cpu_tests "[symv_columns]"
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "error_norm.hpp"
#include "hybrid_partition.hpp"
#include "random.hpp"
#include "reference_symv.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using wb::Uplo;

/// A symmetric matrix stored in `u`'s triangle at offset `off` with leading dimension lda > n:
/// random values there, NaN in the other triangle and in the rows beyond n (never to be read).
template <class T>
std::vector<T> stored_triangle(Uplo u, int n, int lda, std::size_t off, unsigned seed) {
    auto A = wb::random_vector<T>(off + static_cast<std::size_t>(lda) * n, seed);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < lda; ++i)
            if (i >= n || (u == Uplo::Lower ? i < j : i > j)) A[off + i + static_cast<std::size_t>(j) * lda] = nan;
    return A;
}

/// y0 + alpha A x, by the pieces [cuts[k], cuts[k + 1]) of stored columns, one call each, in the
/// order given (the balanced call's CPU takes its pieces from the far end first).
template <class T>
std::vector<T> by_pieces(Uplo u, int n, T alpha, const std::vector<T>& A, int lda, std::size_t off, const std::vector<T>& x,
                         std::vector<T> y, const std::vector<int>& cuts, bool from_the_end) {
    const int k = static_cast<int>(cuts.size()) - 1;
    for (int p = 0; p < k; ++p) {
        const int q = from_the_end ? k - 1 - p : p;
        wb::cpu::symv_columns(u, n, alpha, A.data() + off, lda, x.data(), y.data(), cuts[q], cuts[q + 1]);
    }
    return y;
}

template <class T>
void check_pieces(Uplo u, int n, const std::vector<int>& cuts, bool from_the_end) {
    const int lda = n + 7;
    const std::size_t off = 3;
    const auto A = stored_triangle<T>(u, n, lda, off, 101 + n);
    const auto x = wb::random_vector<T>(n, 102);
    const auto y0 = wb::random_vector<T>(n, 103);
    const auto ref = wb::ref::symv(u, n, -1.25, A, lda, x, 1.0, y0, off);  // y0 + alpha A x
    const auto y = by_pieces(u, n, T(-1.25), A, lda, off, x, y0, cuts, from_the_end);
    CAPTURE(n, u == Uplo::Lower, cuts.size(), from_the_end);
    CHECK(wb::relative_error(y, ref) <= wb::tolerance<T>(static_cast<std::size_t>(n)));
}

}  // namespace

TEST_CASE("cpu::symv_columns: pieces of stored columns add up to y + alpha A x, one read each", "[cpu][split][symv_columns]") {
    // Odd n, lda > n, A at an offset, the other triangle NaN (read once: the result is NaN); the
    // pieces in either order, one piece the whole matrix, pieces of one column, and a matrix large
    // enough for several threads' bands (n = 911: 830 Ki elements in the first piece).
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        check_pieces<float>(u, 1, {0, 1}, false);
        check_pieces<float>(u, 37, {0, 37}, false);
        check_pieces<float>(u, 37, {0, 1, 2, 11, 36, 37}, true);
        check_pieces<double>(u, 53, {0, 5, 5, 29, 53}, false);  // an empty piece adds nothing
        check_pieces<float>(u, 911, {0, 200, 455, 700, 911}, true);
        check_pieces<double>(u, 911, {0, 911}, false);
        check_pieces<double>(u, 911, {0, 3, 640, 911}, true);
    }
}

TEST_CASE("cpu::symv_columns: the same y on every call, whatever the threads' timing", "[cpu][split][symv_columns]") {
    const int n = 1203, lda = n;
    const auto A = stored_triangle<float>(Uplo::Lower, n, lda, 0, 7);
    const auto x = wb::random_vector<float>(n, 8);
    std::vector<float> first(n, 0.0f);
    wb::cpu::symv_columns(Uplo::Lower, n, 1.0f, A.data(), lda, x.data(), first.data(), 0, n);
    for (int r = 0; r < 3; ++r) {
        std::vector<float> again(n, 0.0f);
        wb::cpu::symv_columns(Uplo::Lower, n, 1.0f, A.data(), lda, x.data(), again.data(), 0, n);
        CHECK(again == first);
    }
}

TEST_CASE("cpu::symv_columns: alpha == 0 and empty pieces touch nothing; bad arguments are named", "[cpu][split][symv_columns]") {
    std::vector<float> y{1.0f, 2.0f, 3.0f};
    wb::cpu::symv_columns<float>(Uplo::Lower, 3, 0.0f, nullptr, 3, nullptr, y.data(), 0, 3);
    wb::cpu::symv_columns<float>(Uplo::Upper, 3, 2.0f, nullptr, 3, nullptr, y.data(), 2, 2);
    CHECK(y == std::vector<float>{1.0f, 2.0f, 3.0f});
    std::vector<float> A(9, 1.0f), x(3, 1.0f);
    auto msg = [&](int n, int lda, int c0, int c1, const float* a) {
        try {
            wb::cpu::symv_columns(Uplo::Lower, n, 1.0f, a, lda, x.data(), y.data(), c0, c1);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(msg(-1, 3, 0, 0, A.data()) == "cpu::symv_columns: n (-1) must be >= 0");
    CHECK(msg(3, 2, 0, 3, A.data()) == "cpu::symv_columns: lda (2) must be >= max(1, n) (3)");
    CHECK(msg(3, 3, 2, 1, A.data()) == "cpu::symv_columns: c0 (2) and c1 (1) must satisfy 0 <= c0 <= c1 <= n (3)");
    CHECK(msg(3, 3, 0, 4, A.data()) == "cpu::symv_columns: c0 (0) and c1 (4) must satisfy 0 <= c0 <= c1 <= n (3)");
    CHECK(msg(3, 3, 0, 3, nullptr) == "cpu::symv_columns: A, x and y must not be null");
}

TEST_CASE("symv_ordinal_at: n units of equal work tile the stored columns", "[cpu][split][symv_columns]") {
    for (int n : {1, 2, 3, 10, 97, 1000, 16384}) {
        CAPTURE(n);
        CHECK(wb::hybrid::symv_ordinal_at(n, 0) == 0);
        CHECK(wb::hybrid::symv_ordinal_at(n, n) == n);
        const double unit = (n + 1) / 2.0;  // stored elements per unit
        long long before = 0;  // elements of the ordinals before the current unit's first
        int prev = 0;
        for (int u = 1; u <= n; ++u) {
            const int k = wb::hybrid::symv_ordinal_at(n, u);
            REQUIRE(k >= prev);
            long long held = 0;  // the elements of ordinals [prev, k): column n - o holds n - o
            for (int o = prev; o < k; ++o) held += n - o;
            // every unit's columns hold its share, give or take the one column it ends inside
            const long long total = before + held;
            CHECK(static_cast<double>(total) >= u * unit - 1e-9);
            CHECK(static_cast<double>(total) < u * unit + (n - (k > 0 ? k - 1 : 0)));
            before = total;
            prev = k;
        }
        CHECK(before == static_cast<long long>(n) * (n + 1) / 2);
    }
    // the GPU's end: a long column holds about two units (unit 3 ends inside column 2: no column of
    // its own); the CPU's end: a unit holds many short ones
    CHECK(wb::hybrid::symv_ordinal_at(1000, 1) == 1);
    CHECK(wb::hybrid::symv_ordinal_at(1000, 2) == 2);
    CHECK(wb::hybrid::symv_ordinal_at(1000, 3) == 2);
    CHECK(wb::hybrid::symv_ordinal_at(1000, 999) < 1000 - 20);
    CHECK(wb::hybrid::symv_units_of(1000, 0) == 0);
    CHECK(wb::hybrid::symv_units_of(1000, 1000) == 1000);
    CHECK(wb::hybrid::symv_units_of(1000, 500) == 750);  // half the columns, the long ones: 3/4 of the work
    for (int k : {1, 17, 333, 999})  // the inverse of symv_ordinal_at within one unit
        CHECK(std::abs(wb::hybrid::symv_ordinal_at(1000, wb::hybrid::symv_units_of(1000, k)) - k) <= 1);
    CHECK(wb::hybrid::symv_ordinal_columns(Uplo::Lower, 10, 2, 5).begin == 2);
    CHECK(wb::hybrid::symv_ordinal_columns(Uplo::Lower, 10, 2, 5).end == 5);
    CHECK(wb::hybrid::symv_ordinal_columns(Uplo::Upper, 10, 2, 5).begin == 5);
    CHECK(wb::hybrid::symv_ordinal_columns(Uplo::Upper, 10, 2, 5).end == 8);
    CHECK_THROWS_WITH(wb::hybrid::symv_ordinal_at(10, 11), "symv_ordinal_at: u (11) must be in [0, n] ([0, 10])");
    CHECK_THROWS_WITH(wb::hybrid::symv_units_of(10, -1), "symv_units_of: k (-1) must be in [0, n] ([0, 10])");
    CHECK_THROWS_WITH(wb::hybrid::symv_ordinal_at(-2, 0), "symv_ordinal_at: n (-2) must be >= 0");
    CHECK_THROWS_AS(wb::hybrid::symv_ordinal_columns(Uplo::Upper, 10, 6, 5), std::invalid_argument);
}
