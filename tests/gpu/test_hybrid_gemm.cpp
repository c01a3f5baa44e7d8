// The hybrid GEMM of chapter 7 (kernels/cpu/hybrid_gemm.hpp): the GPU's columns of C and the CPU's
// assembled in place, against the float64 reference on odd sizes (m, n, k none a multiple of a
// tile), every op_a x op_b, leading dimensions above the rows (the padding rows never written),
// beta == 0 over NaN and beta != 0, shares none / one column / some / all but one / all and chunks
// that do not divide them, pinned and pageable memory, float and double; the failure contract and
// the early-read rule (test_hybrid_common.hpp); argument errors. And on the same cases the vendor's
// host-memory GEMM beside which chapter 7 times it (cuBLASXt, kernels/cpu/xt_gemm.hpp): tiles that do
// not divide C, a CPU share, pinned and pageable memory, its degenerate calls and argument errors.
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "hybrid_gemm.hpp"
#include "random.hpp"
#include "reference_gemm.hpp"
#include "test_hybrid_common.hpp"
#include "xt_gemm.hpp"

#include <cstring>
#include <limits>
#include <vector>

namespace {

using wb::Op;
using hybrid_test::Host;

template <class T>
struct Case {
    Op oa, ob;
    int m, n, k, lda, ldb, ldc;
    T beta;
    std::vector<T> A0, B0, C0;
    std::vector<double> ref;
    Host<T> A, B, C;
    Case(Op oa_, Op ob_, int m_, int n_, int k_, T beta_, bool pinned, std::uint64_t seed)
        : oa(oa_), ob(ob_), m(m_), n(n_), k(k_), lda((oa_ == Op::N ? m_ : k_) + 3), ldb((ob_ == Op::N ? k_ : n_) + 2),
          ldc(m_ + 5), beta(beta_), A0(wb::random_vector<T>(static_cast<std::size_t>(lda) * (oa_ == Op::N ? k_ : m_), seed)),
          B0(wb::random_vector<T>(static_cast<std::size_t>(ldb) * (ob_ == Op::N ? n_ : k_), seed + 1)),
          C0(c_init(beta_, seed + 2)), ref(reference()), A(A0, pinned), B(B0, pinned), C(C0, pinned) {}
    std::vector<T> c_init(T b, std::uint64_t seed) const {
        auto v = wb::random_vector<T>(static_cast<std::size_t>(ldc) * n, seed);
        if (b == T(0))  // the m rows of each column poisoned; the padding rows keep their values
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) v[static_cast<std::size_t>(j) * ldc + i] = std::numeric_limits<T>::quiet_NaN();
        return v;
    }
    std::vector<double> reference() const {
        wb::ref::GemmOperands<T> o;
        o.op_a = oa, o.op_b = ob, o.m = m, o.n = n, o.k = k;
        o.A = &A0, o.lda = lda, o.B = &B0, o.ldb = ldb, o.C = &C0, o.ldc = ldc;
        return wb::ref::gemm(o, 1.25, static_cast<double>(beta));
    }
    /// C as before the call (poisoned where beta == 0), for the next call.
    void reset() { std::memcpy(C.data(), C0.data(), C0.size() * sizeof(T)); }
    wb::GemmArgs<T> args() { return {oa, ob, m, n, k, T(1.25), A.data(), lda, B.data(), ldb, beta, C.data(), ldc}; }
    void check() const {
        bool padding_kept = false;  // the padding rows of every column as they were
        const std::vector<T> out = hybrid_test::packed(C.copy(), C0, n, m, ldc, &padding_kept);
        CHECK(padding_kept);
        hybrid_test::check_error(out, ref, static_cast<std::size_t>(k) + 1);
    }
};

}  // namespace

TEST_CASE("hybrid::gemm matches the float64 reference for every op, share and chunk", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int m = hybrid_test::size(517), n = hybrid_test::size(389), k = hybrid_test::size(263);
    for (Op oa : {Op::N, Op::T})
        for (Op ob : {Op::N, Op::T}) {
            const bool pinned = oa == ob;  // NN and TT from pinned memory, NT and TN from pageable
            Case<float> f(oa, ob, m, n, k, 0.0f, pinned, 201);
            Case<double> d(oa, ob, m, n, k, 0.5, pinned, 211);
            for (int g : {0, 1, n / 3, n - 1, n}) {
                INFO("op " << wb::op_char(oa) << wb::op_char(ob) << " pinned " << pinned << " gpu_cols " << g);
                f.reset();
                wb::hybrid::gemm(f.args(), g, 37);
                f.check();
                d.reset();
                wb::hybrid::gemm(d.args(), g, 64);
                d.check();
            }
        }
}

TEST_CASE("hybrid::gemm: a failure on either side surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = hybrid_test::size(1023);
    Case<float> c(Op::N, Op::N, hybrid_test::size(1025), n, hybrid_test::size(511), 0.0f, true, 221);
    hybrid_test::check_failures<float>([&] { wb::hybrid::gemm(c.args(), n / 2 + 88, n / 7); }, c.C.data(), c.C.size(),
                                       [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::gemm: C is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = hybrid_test::size(1531);
    Case<double> c(Op::N, Op::T, hybrid_test::size(1537), n, hybrid_test::size(769), 0.0, true, 231);
    hybrid_test::check_no_early_read<double>([&] { wb::hybrid::gemm(c.args(), 2 * n / 3, n / 6); }, c.C.data(), c.C.size(),
                                             [&] { c.check(); },
                                             [&] { c.reset(); }, {&c.A, &c.B});
}

TEST_CASE("hybrid::gemm: bad arguments throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    wb::GemmArgs<float> a{Op::N, Op::N, 4, 4, 4, 1, v.data(), 4, v.data(), 4, 0, v.data() + 32, 4};
    CHECK_THROWS_WITH(wb::hybrid::gemm(a, 5, 2), "hybrid::gemm: gpu_cols (5) must be in [0, n] ([0, 4])");
    CHECK_THROWS_WITH(wb::hybrid::gemm(a, 2, 0), "hybrid::gemm: chunk_cols (0) must be >= 1");
    a.ldc = 3;
    CHECK_THROWS_AS(wb::hybrid::gemm(a, 2, 2), std::invalid_argument);
}

// The balanced call (pieces > 1, kernels/cpu/hybrid_balance.hpp): where the two sides meet depends
// on their times in this run, so each call is checked whole, whatever split it ended with, and the
// split it reports must be a whole number of columns on each side.
TEST_CASE("hybrid::gemm balanced matches the float64 reference for every op, plan and piece count", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int m = hybrid_test::size(517), n = hybrid_test::size(389), k = hybrid_test::size(263);
    for (Op oa : {Op::N, Op::T})
        for (Op ob : {Op::N, Op::T}) {
            const bool pinned = oa != Op::T || ob != Op::N;  // TN from pageable memory: the fixed share
            Case<float> f(oa, ob, m, n, k, 0.0f, pinned, 241);
            Case<double> d(oa, ob, m, n, k, 0.5, pinned, 251);
            for (int g : {1, n / 3, n - 1})
                for (int pieces : {2, 8}) {
                    INFO("op " << wb::op_char(oa) << wb::op_char(ob) << " pinned " << pinned << " plan " << g << " pieces "
                               << pieces);
                    f.reset();
                    wb::hybrid::gemm(f.args(), g, 13, pieces);
                    const int gpu_cols = wb::hybrid::last_side_times().gpu_outputs;
                    if (pinned) CHECK((gpu_cols >= 1 && gpu_cols <= n - 1));  // each side at least one column
                    else CHECK(gpu_cols == -1);  // the fixed share
                    f.check();
                    d.reset();
                    wb::hybrid::gemm(d.args(), g, 29, pieces);
                    d.check();
                }
        }
}

TEST_CASE("hybrid::gemm balanced: a failure on either side surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = hybrid_test::size(1023);
    Case<float> c(Op::N, Op::N, hybrid_test::size(1025), n, hybrid_test::size(511), 0.0f, true, 261);
    hybrid_test::check_failures<float>([&] { wb::hybrid::gemm(c.args(), n / 2 + 88, n / 15, 6); }, c.C.data(), c.C.size(),
                                       [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::gemm balanced: a GPU failure between the CPU's pieces surfaces after both stopped", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = hybrid_test::size(1023);
    Case<float> c(Op::N, Op::N, hybrid_test::size(1025), n, hybrid_test::size(511), 0.0f, true, 265);
    hybrid_test::check_late_failure<float>([&] { wb::hybrid::gemm(c.args(), n / 2, n / 15, 6); }, c.C.data(), c.C.size(),
                                           [&] { c.check(); }, [&] { c.reset(); });
}

TEST_CASE("hybrid::gemm balanced: C is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    const int n = hybrid_test::size(1531);
    Case<double> c(Op::T, Op::T, hybrid_test::size(1537), n, hybrid_test::size(769), 0.0, true, 271);
    hybrid_test::check_no_early_read<double>([&] { wb::hybrid::gemm(c.args(), 2 * n / 3, n / 12, 8); }, c.C.data(), c.C.size(),
                                             [&] { c.check(); }, [&] { c.reset(); }, {&c.A, &c.B});
}

TEST_CASE("hybrid::gemm: pieces below 1 throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    const wb::GemmArgs<float> a{Op::N, Op::N, 4, 4, 4, 1, v.data(), 4, v.data(), 4, 0, v.data() + 32, 4};
    CHECK_THROWS_WITH(wb::hybrid::gemm(a, 2, 2, 0), "hybrid::gemm: pieces (0) must be >= 1");
}

TEST_CASE("xt::gemm (cuBLASXt) matches the float64 reference for every op, tile and CPU share", "[gpu][split]") {
    const int m = hybrid_test::size(517), n = hybrid_test::size(389), k = hybrid_test::size(263);
    std::vector<double> ratios{0.0};
    if (wb::cpu::have_cblas()) ratios.push_back(0.3);  // OpenBLAS as its CPU routine
    for (Op oa : {Op::N, Op::T})
        for (Op ob : {Op::N, Op::T}) {
            const bool pinned = oa == ob;  // NN and TT from pinned memory, NT and TN from pageable
            Case<float> f(oa, ob, m, n, k, 0.0f, pinned, 281);
            Case<double> d(oa, ob, m, n, k, 0.5, pinned, 291);
            for (int tile : {0, 64})  // the library's tile; 64: many tiles, partial ones at both edges
                for (double ratio : ratios) {
                    INFO("op " << wb::op_char(oa) << wb::op_char(ob) << " pinned " << pinned << " tile " << tile
                               << " cpu_ratio " << ratio);
                    f.reset();
                    wb::xt::gemm(f.args(), ratio, tile);
                    f.check();
                    d.reset();
                    wb::xt::gemm(d.args(), ratio, tile);
                    d.check();
                }
        }
    CHECK(wb::xt::default_block_dim() > 0);
}

TEST_CASE("xt::gemm: alpha == 0 and k == 0 are C = beta C, A and B not read", "[gpu][split]") {
    std::vector<double> c{1, 2, 3, 4, 5, 6};  // 2 x 2, ldc 3: the third row is padding
    wb::GemmArgs<double> a{Op::N, Op::N, 2, 2, 3, 0.0, nullptr, 2, nullptr, 3, 2.0, c.data(), 3};
    wb::xt::gemm(a);
    CHECK(c == std::vector<double>{2, 4, 3, 8, 10, 6});
    a.alpha = 1;
    a.k = 0;
    a.beta = 0;
    c[0] = std::numeric_limits<double>::quiet_NaN();
    wb::xt::gemm(a);
    CHECK(c == std::vector<double>{0, 0, 3, 0, 0, 6});
}

TEST_CASE("xt::gemm: bad arguments throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    wb::GemmArgs<float> a{Op::N, Op::N, 4, 4, 4, 1, v.data(), 4, v.data(), 4, 0, v.data() + 32, 4};
    CHECK_THROWS_WITH(wb::xt::gemm(a, 1.0), "xt::gemm: cpu_ratio (1) must be in [0, 1)");
    CHECK_THROWS_WITH(wb::xt::gemm(a, -0.25), "xt::gemm: cpu_ratio (-0.25) must be in [0, 1)");
    CHECK_THROWS_AS(wb::xt::gemm(a, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
    CHECK_THROWS_WITH(wb::xt::gemm(a, 0.0, -1), "xt::gemm: block_dim (-1) must be >= 0 (0: the library's tile)");
    a.ldc = 3;
    CHECK_THROWS_WITH(wb::xt::gemm(a), Catch::Matchers::Contains("xt::gemm") && Catch::Matchers::Contains("ldc"));
}
