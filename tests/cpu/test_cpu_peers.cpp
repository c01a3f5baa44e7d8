// The CPU peers of chapter 7 (kernels/cpu/cpu_peers.hpp) against the float64 references on odd
// sizes, leading dimensions and pitches above the minimum, base pointers offset into their arrays,
// beta == 0 over NaN-poisoned outputs, NaN in SYMV's unread triangle, the convolution's row split
// (two shares give the whole call's bits), CG's stopping rule, and the ops' argument rules.
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "reference_cg.hpp"
#include "reference_conv2d.hpp"
#include "reference_gemm.hpp"
#include "reference_symv.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using wb::Op;
using wb::Uplo;

template <class T>
double eps() {
    return static_cast<double>(std::numeric_limits<T>::epsilon());
}

/// ||out - ref|| / ||ref|| over ref.size() contiguous values of `out`; NaN when any is not finite.
template <class T>
double rel_error(const T* out, const std::vector<double>& ref) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (!std::isfinite(static_cast<double>(out[i]))) return std::numeric_limits<double>::quiet_NaN();
        const double d = static_cast<double>(out[i]) - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return std::sqrt(num / den);
}

/// The bound of the tests (architecture page: about eps x sqrt(k), with room for the blocking).
template <class T>
double bound(int k) {
    return 8 * eps<T>() * std::sqrt(static_cast<double>(k) + 1);
}

template <class T>
void check_gemv(Op op, T beta) {
    const int m = 37, n = 23, lda = m + 5;
    const std::size_t off = 3;
    auto A = wb::random_vector<T>(off + static_cast<std::size_t>(lda) * n, 11);
    const int lx = op == Op::N ? n : m, ly = op == Op::N ? m : n;
    auto x = wb::random_vector<T>(off + lx, 12);
    auto y = wb::random_vector<T>(off + ly, 13);
    if (beta == T(0)) wb::poison(y);
    const std::vector<T> As(A.begin() + off, A.end()), xs(x.begin() + off, x.end()), ys(y.begin() + off, y.end());
    const auto ref = wb::ref::gemv(op == Op::T, m, n, 0.75, As, lda, xs, static_cast<double>(beta), ys);
    wb::GemvArgs<T> a;
    a.op = op;
    a.m = m;
    a.n = n;
    a.alpha = T(0.75);
    a.A = A.data() + off;
    a.lda = lda;
    a.x = x.data() + off;
    a.beta = beta;
    a.y = y.data() + off;
    wb::cpu::gemv(a);
    CHECK(rel_error(y.data() + off, ref) <= bound<T>(op == Op::N ? n : m));
    CHECK(std::isnan(static_cast<double>(y[0])) == (beta == T(0)));  // the prefix is untouched
}

}  // namespace

TEST_CASE("cpu::gemv matches the float64 reference (odd sizes, lda > m, offsets, beta == 0 over NaN)", "[cpu][split]") {
    if (!wb::cpu::have_cblas()) {
        std::vector<float> v(1, 1.0f);
        CHECK_THROWS_AS(wb::cpu::gemv(wb::GemvArgs<float>{Op::N, 1, 1, 1, v.data(), 1, v.data(), 0, v.data()}),
                        std::runtime_error);
        return;
    }
    for (Op op : {Op::N, Op::T}) {
        check_gemv<float>(op, 0.0f);
        check_gemv<float>(op, 0.5f);
        check_gemv<double>(op, 0.0);
        check_gemv<double>(op, -1.25);
    }
}

TEST_CASE("cpu::gemv: alpha == 0 reads neither A nor x; beta == 0 never reads y", "[cpu][split]") {
    std::vector<float> y(5, std::numeric_limits<float>::quiet_NaN());
    wb::GemvArgs<float> a;
    a.m = 5;
    a.n = 3;
    a.lda = 5;
    a.alpha = 0;
    a.beta = 0;
    a.y = y.data();
    wb::cpu::gemv(a);
    for (float v : y) CHECK(v == 0.0f);
    std::vector<float> z{1, 2, 3, 4, 5};
    a.y = z.data();
    a.beta = 2;
    wb::cpu::gemv(a);
    CHECK(z[4] == 10.0f);
}

TEST_CASE("cpu::gemm matches the float64 reference for every op pair", "[cpu][split]") {
    if (!wb::cpu::have_cblas()) return;  // the argument tests below still run
    const int m = 33, n = 17, k = 29;
    const std::size_t off = 5;
    for (Op oa : {Op::N, Op::T})
        for (Op ob : {Op::N, Op::T})
            for (double beta : {0.0, 0.5}) {
                const int ra = oa == Op::N ? m : k, ca = oa == Op::N ? k : m;
                const int rb = ob == Op::N ? k : n, cb = ob == Op::N ? n : k;
                const int lda = ra + 3, ldb = rb + 2, ldc = m + 4;
                auto A = wb::random_vector<double>(off + static_cast<std::size_t>(lda) * ca, 21);
                auto B = wb::random_vector<double>(off + static_cast<std::size_t>(ldb) * cb, 22);
                auto C = wb::random_vector<double>(off + static_cast<std::size_t>(ldc) * n, 23);
                if (beta == 0) wb::poison(C);
                wb::ref::GemmOperands<double> o{oa, ob, m, n, k, &A, lda, &B, ldb, &C, ldc, off};
                const auto ref = wb::ref::gemm(o, -0.5, beta);
                wb::GemmArgs<double> g{oa, ob, m, n, k, -0.5, A.data() + off, lda, B.data() + off, ldb, beta,
                                       C.data() + off, ldc};
                wb::cpu::gemm(g);
                double worst = 0;
                for (int j = 0; j < n; ++j) {
                    const std::vector<double> rc(ref.begin() + j * m, ref.begin() + (j + 1) * m);
                    const double e = rel_error(C.data() + off + static_cast<std::size_t>(j) * ldc, rc);
                    worst = std::isnan(e) ? e : std::max(worst, e);
                }
                CHECK(worst <= bound<double>(k));
                CHECK(std::isnan(C[0]) == (beta == 0));
            }
}

TEST_CASE("cpu::symv reads only uplo's triangle (the other NaN) and matches the reference", "[cpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = 41, lda = n + 3;
    const std::size_t off = 2;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (float beta : {0.0f, 2.0f}) {
            auto A = wb::random_vector<float>(off + static_cast<std::size_t>(lda) * n, 31);
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < lda; ++i)
                    if (i >= n || (u == Uplo::Lower ? i < j : i > j))
                        A[off + i + static_cast<std::size_t>(j) * lda] = static_cast<float>(nan);
            auto x = wb::random_vector<float>(n, 32);
            auto y = wb::random_vector<float>(n, 33);
            if (beta == 0.0f) wb::poison(y);
            const auto ref = wb::ref::symv(u, n, 1.5, A, lda, x, beta, y, off);
            wb::SymvArgs<float> s;
            s.uplo = u;
            s.n = n;
            s.alpha = 1.5f;
            s.A = A.data() + off;
            s.lda = lda;
            s.x = x.data();
            s.beta = beta;
            s.y = y.data();
            wb::cpu::symv(s);
            CHECK(rel_error(y.data(), ref) <= bound<float>(n));
        }
}

TEST_CASE("cpu::conv2d is the zero-bordered correlation; two row shares give the whole call's bits", "[cpu][split]") {
    const int rows = 19, cols = 23, pitch = cols + 4, opitch = cols + 1;
    const std::size_t off = 7;
    for (int fs : {1, 3, 5, 7}) {
        auto in = wb::random_vector<float>(off + static_cast<std::size_t>(pitch) * rows, 41);
        auto f = wb::random_vector<float>(static_cast<std::size_t>(fs) * fs, 42 + fs);
        std::vector<float> out(static_cast<std::size_t>(opitch) * rows);
        wb::poison(out);
        wb::ref::Conv2dOperands<float> o{rows, cols, fs, &in, pitch, off, &f};
        const auto ref = wb::ref::conv2d(o);
        wb::Conv2dArgs<float> a{rows, cols, fs, in.data() + off, pitch, f.data(), out.data(), opitch};
        wb::cpu::conv2d(a);
        for (int r = 0; r < rows; ++r) {
            const std::vector<double> rr(ref.begin() + r * cols, ref.begin() + (r + 1) * cols);
            CHECK(rel_error(out.data() + static_cast<std::size_t>(r) * opitch, rr) <= bound<float>(fs * fs));
        }
        std::vector<float> split(out.size());
        wb::poison(split);
        wb::Conv2dArgs<float> b = a;
        b.out = split.data();
        wb::cpu::conv2d_rows(b, 0, 7);
        wb::cpu::conv2d_rows(b, 7, rows);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                CHECK(split[static_cast<std::size_t>(r) * opitch + c] == out[static_cast<std::size_t>(r) * opitch + c]);
    }
}

TEST_CASE("cpu::cg converges like the float64 reference, reading only the lower triangle", "[cpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = 61, lda = n + 2;
    std::vector<double> A(static_cast<std::size_t>(lda) * n, 0.0);
    wb::ref::spd_matrix(n, 100.0, 51, A.data(), lda);
    auto xt = wb::random_vector<double>(n, 52);
    std::vector<double> b(n, 0.0);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) b[i] += A[i + static_cast<std::size_t>(j) * lda] * xt[j];
    const std::vector<double> x0(n, 0.0);
    const auto ref = wb::ref::cg<double, double>(n, A.data(), lda, b, x0, 1e-10, 500);
    std::vector<double> Ah = A;  // the peer's copy: the strict upper triangle NaN
    for (int j = 1; j < n; ++j)
        for (int i = 0; i < j; ++i) Ah[i + static_cast<std::size_t>(j) * lda] = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> x = x0;
    wb::CgResult res;
    wb::CgArgs<double> a{n, Ah.data(), lda, b.data(), x.data(), 1e-10, 500, &res};
    wb::cpu::cg(a);
    CHECK(res.status == wb::CgStatus::Converged);
    CHECK(res.residual <= 1e-10);
    CHECK(std::abs(res.iterations - ref.iterations) <= 2);
    CHECK(wb::ref::true_residual(n, A.data(), lda, b.data(), x.data()) <= 1e-9);
    // max_iter stops it; b == 0 gives x = 0 at once
    std::vector<double> x1 = x0;
    wb::CgArgs<double> a1{n, Ah.data(), lda, b.data(), x1.data(), 1e-10, 3, &res};
    wb::cpu::cg(a1);
    CHECK(res.status == wb::CgStatus::MaxIter);
    CHECK(res.iterations == 3);
    std::vector<double> zero(n, 0.0), x2(n, 5.0);
    wb::CgArgs<double> a2{n, Ah.data(), lda, zero.data(), x2.data(), 1e-10, 10, &res};
    wb::cpu::cg(a2);
    CHECK(res.status == wb::CgStatus::Converged);
    CHECK(x2[n - 1] == 0.0);
}

TEST_CASE("CPU peers: the ops' argument rules, named cpu::<op>", "[cpu][split]") {
    std::vector<float> buf(64);
    auto msg = [](auto&& f) {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    wb::GemvArgs<float> g{Op::N, 8, 4, 1, buf.data(), 5, buf.data(), 0, buf.data()};
    CHECK(msg([&] { wb::cpu::gemv(g); }) == "cpu::gemv: lda (5) must be >= max(1, m) (8)");
    wb::SymvArgs<float> s;
    s.n = 4;
    s.lda = 4;
    s.incx = 2;
    s.A = s.x = buf.data();
    s.y = buf.data();
    CHECK(msg([&] { wb::cpu::symv(s); }).rfind("cpu::symv: incx (2) must be 1", 0) == 0);
    wb::Conv2dArgs<float> c{4, 4, 4, buf.data(), 4, buf.data(), buf.data() + 32, 4};
    CHECK(msg([&] { wb::cpu::conv2d(c); }).rfind("cpu::conv2d: fs (4) must be odd", 0) == 0);
    c.fs = 3;
    CHECK(msg([&] { wb::cpu::conv2d_rows(c, 0, 5); }) == "cpu::conv2d_rows: row1 (5) must be in [row0, rows] ([0, 4])");
    wb::CgArgs<float> a{4, buf.data(), 3, buf.data(), buf.data() + 8, 1e-6, 10, nullptr};
    CHECK(msg([&] { wb::cpu::cg(a); }) == "cpu::cg: lda (3) must be >= max(1, n) (4)");
    // sizes of zero are no-ops that touch nothing
    wb::GemmArgs<float> z;
    z.m = 0;
    CHECK(msg([&] { wb::cpu::gemm(z); }) == "no error");
}
