// The hybrid GEMV of chapter 7 (kernels/cpu/hybrid_gemv.hpp): the GPU's rows and the CPU's rows of
// one call assembled in place, against the float64 reference on odd sizes, in both ops and
// precisions, with lda > m, beta == 0 over NaN and beta != 0, every share (none, some, all) and
// chunk sizes that do not divide the share; pageable and pinned host memory; argument errors; a
// failing side surfacing as an exception after both sides have stopped; the output complete at
// the return and the inputs free to reuse (test_hybrid_common.hpp).
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "hybrid_gemv.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "test_hybrid_common.hpp"

#include <cstring>
#include <limits>
#include <vector>

namespace {

using wb::Op;
using hybrid_test::Host;

/// One GEMV case on host data: A (lda x n), x, y (poisoned when beta == 0), its float64 reference.
template <class T>
struct Case {
    Op op;
    int m, n, lda;
    T beta;
    std::vector<T> A0, x0, y0;
    std::vector<double> ref;
    Host<T> A, x, y;
    Case(Op op_, int m_, int n_, int lda_, T beta_, bool pinned, std::uint64_t seed)
        : op(op_), m(m_), n(n_), lda(lda_), beta(beta_),
          A0(wb::random_vector<T>(static_cast<std::size_t>(lda_) * n_, seed)),
          x0(wb::random_vector<T>(static_cast<std::size_t>(op_ == Op::N ? n_ : m_), seed + 1)),
          y0(y_init(op_ == Op::N ? m_ : n_, beta_, seed + 2)),
          ref(wb::ref::gemv(op_ == Op::T, m_, n_, 1.25, A0, lda_, x0, static_cast<double>(beta_), y0)),
          A(A0, pinned), x(x0, pinned), y(y0, pinned) {}
    static std::vector<T> y_init(int len, T beta, std::uint64_t seed) {
        auto v = wb::random_vector<T>(static_cast<std::size_t>(len), seed);
        if (beta == T(0)) wb::poison(v);
        return v;
    }
    wb::GemvArgs<T> args() { return {op, m, n, T(1.25), A.data(), lda, x.data(), beta, y.data()}; }
    int len_y() const { return op == Op::N ? m : n; }
    /// y as before the call (poisoned where beta == 0), for the next call.
    void reset() { std::memcpy(y.data(), y0.data(), y0.size() * sizeof(T)); }
    void check() const { hybrid_test::check_error(y.copy(), ref, static_cast<std::size_t>(op == Op::N ? n : m) + 1); }
};

template <class T>
void check_case(Op op, int m, int n, int lda, T beta, int gpu_rows, int chunk, bool pinned) {
    Case<T> c(op, m, n, lda, beta, pinned, 101);
    wb::hybrid::gemv(c.args(), gpu_rows, chunk);
    c.check();
}

}  // namespace

TEST_CASE("hybrid::gemv matches the float64 reference for every share and chunk", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Op op : {Op::N, Op::T})
        for (bool pinned : {false, true}) {
            const int m = hybrid_test::size(1031), n = hybrid_test::size(517), lda = m + 6;
            const int ly = op == Op::N ? m : n;
            for (int g : {0, 1, ly / 3, ly - 1, ly}) {
                INFO("op " << (op == Op::N ? "N" : "T") << " pinned " << pinned << " gpu_rows " << g);
                check_case<float>(op, m, n, lda, 0.0f, g, 97, pinned);
                check_case<double>(op, m, n, lda, 0.5, g, 128, pinned);
            }
        }
}

// Op N's chunks split the GPU band's columns and add into one y on the device in order: one column
// per chunk (hundreds of chunks alternating streams), and more chunks asked for than A has columns.
TEST_CASE("hybrid::gemv op N: chunks of columns add in order, more chunks than columns", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int m = hybrid_test::size(1031);
    for (int n : {1, 2, 5, hybrid_test::size(517)})
        for (bool pinned : {false, true}) {
            INFO("n " << n << " pinned " << pinned);
            check_case<float>(Op::N, m, n, m + 3, 0.0f, m - 7, 1, pinned);
            check_case<double>(Op::N, m, n, m + 1, -0.75, m / 2 + 1, 2, pinned);
        }
    // chunk_rows as large as an int goes: one chunk, whatever g
    for (Op op : {Op::N, Op::T}) {
        INFO("op " << (op == Op::N ? "N" : "T") << " chunk_rows INT_MAX");
        check_case<float>(op, m, hybrid_test::size(517), m + 2, 0.0f, 4, std::numeric_limits<int>::max(), true);
        check_case<double>(op, m, hybrid_test::size(517), m + 2, 0.5, 2, std::numeric_limits<int>::max() - 1, true);
    }
}

TEST_CASE("hybrid::gemv: a failure on either side surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (bool pinned : {false, true}) {
        INFO("pinned " << pinned);
        const int m = hybrid_test::size(2049);
        Case<float> c(Op::N, m, hybrid_test::size(1537), m + 2, 0.0f, pinned, 111);
        hybrid_test::check_failures<float>([&] { wb::hybrid::gemv(c.args(), m / 2, m / 8); }, c.y.data(), c.y.size(),
                                           [&] { c.check(); }, [&] { c.reset(); });
    }
}

TEST_CASE("hybrid::gemv: y is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Op op : {Op::N, Op::T}) {
        Case<double> c(op, hybrid_test::size(3001), hybrid_test::size(2999), hybrid_test::size(3001), 0.0, true, 121);
        hybrid_test::check_no_early_read<double>([&] { wb::hybrid::gemv(c.args(), c.len_y() / 2 + 1, c.len_y() / 10 + 1); }, c.y.data(),
                                                 static_cast<std::size_t>(c.len_y()), [&] { c.check(); },
                                                 [&] { c.reset(); }, {&c.A, &c.x});
    }
}

TEST_CASE("hybrid::gemv: bad arguments throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    wb::GemvArgs<float> a{Op::N, 8, 4, 1, v.data(), 8, v.data(), 0, v.data()};
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 9, 4), "hybrid::gemv: gpu_rows (9) must be in [0, len(y)] ([0, 8])");
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 4, 0), "hybrid::gemv: chunk_rows (0) must be >= 1");
    a.lda = 5;
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 4, 4), "hybrid::gemv: lda (5) must be >= max(1, m) (8)");
}

// The balanced call (op N, pieces > 1): the sides split the columns and add their partial y's;
// where they meet depends on their times in this run, so each call is checked whole, and the
// columns the GPU reports must be a whole number of columns. Op T and pageable arrays run the
// fixed share (gpu_outputs -1).
TEST_CASE("hybrid::gemv balanced matches the float64 reference for every plan and piece count", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Op op : {Op::N, Op::T})
        for (bool pinned : {false, true}) {
            const int m = hybrid_test::size(1031), n = hybrid_test::size(517), lda = m + 6;
            const int ly = op == Op::N ? m : n;
            Case<float> f(op, m, n, lda, 0.0f, pinned, 131);
            Case<double> d(op, m, n, lda, -0.5, pinned, 141);
            for (int g : {1, ly / 3, ly - 1})
                for (int pieces : {2, 8}) {
                    INFO("op " << wb::op_char(op) << " pinned " << pinned << " plan " << g << " pieces " << pieces);
                    f.reset();
                    wb::hybrid::gemv(f.args(), g, 41, pieces);
                    const int cols = wb::hybrid::last_side_times().gpu_outputs;
                    // balanced only where the plan's share of the columns leaves both sides one
                    const long long plan_cols = (static_cast<long long>(g) * n * 2 + ly) / (2LL * ly);
                    if (op == Op::N && pinned && plan_cols > 0 && plan_cols < n) CHECK((cols >= 1 && cols <= n - 1));
                    else CHECK(cols == -1);
                    f.check();
                    d.reset();
                    wb::hybrid::gemv(d.args(), g, 7, pieces);
                    d.check();
                }
        }
}

TEST_CASE("hybrid::gemv balanced: a failure on either side surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int m = hybrid_test::size(2049);
    Case<float> c(Op::N, m, hybrid_test::size(1537), m + 2, 0.0f, true, 151);
    hybrid_test::check_failures<float>([&] { wb::hybrid::gemv(c.args(), m / 2, m / 16, 6); }, c.y.data(), c.y.size(),
                                       [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::gemv balanced: a GPU failure between the CPU's pieces surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int m = hybrid_test::size(2049);
    Case<float> c(Op::N, m, hybrid_test::size(1537), m + 2, 0.0f, true, 155);
    hybrid_test::check_late_failure<float>([&] { wb::hybrid::gemv(c.args(), m / 2, m / 16, 6); }, c.y.data(), c.y.size(),
                                           [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::gemv balanced: y is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    Case<double> c(Op::N, hybrid_test::size(3001), hybrid_test::size(2999), hybrid_test::size(3001), 0.25, true, 161);
    hybrid_test::check_no_early_read<double>([&] { wb::hybrid::gemv(c.args(), c.len_y() / 3 + 1, c.len_y() / 24 + 1, 8); },
                                             c.y.data(), static_cast<std::size_t>(c.len_y()), [&] { c.check(); },
                                             [&] { c.reset(); }, {&c.A, &c.x});
}

TEST_CASE("hybrid::gemv: pieces below 1 throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    const wb::GemvArgs<float> a{Op::N, 4, 4, 1, v.data(), 4, v.data() + 16, 0, v.data() + 32};
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 2, 2, 0), "hybrid::gemv: pieces (0) must be >= 1");
}
