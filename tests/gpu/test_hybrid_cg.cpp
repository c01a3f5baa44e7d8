// Chapter 7's ways to run CG on host data (kernels/cpu/hybrid_cg.hpp): the all-GPU solve (one
// transfer each way) and White's §5.2 split (the product on the GPU, the vector operations on the
// CPU), on SPD systems of odd sizes with the upper triangle and the padding rows NaN (only the lower
// triangle is read), lda > n, x0 zero and random, pinned and pageable memory, float and double:
// each converges with a true residual ||b - A x|| / ||b|| (float64) under the bound of the CG
// steps' tests and within 1.1x + 2 the float64 reference's iterations; a failure on either side
// surfaces with x and the result untouched afterwards; x is complete at the return and the inputs
// are free to reuse.
#include "catch.hpp"

#include "cg_problem.hpp"
#include "cpu_peers.hpp"
#include "hybrid_cg.hpp"
#include "random.hpp"
#include "reference_cg.hpp"
#include "test_hybrid_common.hpp"

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using hybrid_test::Host;

template <class T> double tol_for() { return sizeof(T) == 4 ? 1e-5 : 1e-10; }

template <class T>
struct System {
    int n, lda;
    double kappa = 100;
    std::vector<T> full, A0, b0, x00;
    Host<T> A, b, x;
    wb::CgResult result;
    System(int n_, bool random_x0, bool pinned, std::uint64_t seed)
        : n(n_), lda(n_ + 3), full(spd(seed)), A0(lower_only()), b0(wb::random_vector<T>(static_cast<std::size_t>(n_), seed + 1)),
          x00(random_x0 ? wb::random_vector<T>(static_cast<std::size_t>(n_), seed + 2) : std::vector<T>(static_cast<std::size_t>(n_))),
          A(A0, pinned), b(b0, pinned), x(x00, pinned) {}
    std::vector<T> spd(std::uint64_t seed) const {
        std::vector<T> a(static_cast<std::size_t>(lda) * n);
        wb::ref::spd_matrix(n, kappa, seed, a.data(), lda);
        return a;
    }
    /// The stored matrix: the lower triangle; NaN above it and in the padding rows.
    std::vector<T> lower_only() const {
        std::vector<T> a(full);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < lda; ++i)
                if (i < j || i >= n) a[static_cast<std::size_t>(j) * lda + i] = std::numeric_limits<T>::quiet_NaN();
        return a;
    }
    void reset() {
        std::memcpy(x.data(), x00.data(), x00.size() * sizeof(T));
        result = wb::CgResult{};
        result.iterations = -7;  // a sentinel: a failed solve must not write the result
    }
    wb::CgArgs<T> args() { return {n, A.data(), lda, b.data(), x.data(), tol_for<T>(), 1000, &result}; }
    void check(const std::vector<T>& xs) const {
        const double res = wb::ref::true_residual<T>(n, full.data(), lda, b0.data(), xs.data());
        const auto ref = wb::ref::cg<double, T>(n, full.data(), lda, b0, x00, tol_for<T>(), 1000);
        INFO("n " << n << " iterations " << result.iterations << " (float64 reference " << ref.iterations
                  << "), true residual " << res);
        CHECK(result.status == wb::CgStatus::Converged);
        CHECK(res <= wb::cg_residual_bound<T>(tol_for<T>(), kappa));
        if (2 * ref.iterations < n) CHECK(result.iterations <= 1.1 * ref.iterations + 2);
    }
    void check() const { check(x.copy()); }
};

template <class T>
void solves() {
    for (int n : {17, hybrid_test::size(1031)})
        for (bool random_x0 : {false, true}) {
            const bool pinned = random_x0;
            System<T> s(n, random_x0, pinned, 501);
            INFO("n " << n << " random x0 " << random_x0 << " pinned " << pinned);
            s.reset();
            wb::hybrid::cg_gpu(s.args());
            s.check();
            s.reset();
            wb::hybrid::cg_split(s.args());
            s.check();
        }
}

/// After a failure: the exception names the side, x and the result stay as they were.
template <class F>
void check_failed_solve(System<float>& s, F solve, const char* what) {
    s.reset();
    const std::string e = hybrid_test::thrown_by([&] { solve(s.args()); });
    CHECK(e.find(what) != std::string::npos);
    CHECK(s.result.iterations == -7);
    CHECK(hybrid_test::unchanged_after_settling(s.x.data(), s.x00));
}

}  // namespace

TEST_CASE("hybrid CG: the all-GPU solve and White's split converge like the float64 reference", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    solves<float>();
    solves<double>();
}

TEST_CASE("hybrid CG: a failure on either side surfaces, x and the result untouched", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    using wb::hybrid::testing::Fail;
    System<float> s(hybrid_test::size(1031), true, true, 511);
    wb::hybrid::testing::fail_next_call(Fail::gpu);
    check_failed_solve(s, [](const wb::CgArgs<float>& a) { wb::hybrid::cg_gpu(a); }, "injected GPU failure");
    wb::hybrid::testing::fail_next_call(Fail::gpu);
    check_failed_solve(s, [](const wb::CgArgs<float>& a) { wb::hybrid::cg_split(a); }, "injected GPU failure");
    wb::hybrid::testing::fail_next_call(Fail::cpu);
    s.reset();
    const std::string e = hybrid_test::thrown_by([&] { wb::hybrid::cg_split(s.args()); });
    CHECK(e.find("injected CPU failure") != std::string::npos);
    CHECK(s.result.iterations == -7);
    const std::vector<float> after = s.x.copy();
    CHECK(hybrid_test::unchanged_after_settling(s.x.data(), after));
    // the next solves are whole again
    s.reset();
    wb::hybrid::cg_split(s.args());
    s.check();
    s.reset();
    wb::hybrid::cg_gpu(s.args());
    s.check();
}

TEST_CASE("hybrid CG: x is complete at the return and the inputs are free to reuse", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (int way = 0; way < 2; ++way) {
        System<double> s(hybrid_test::size(2049), false, true, 521);
        s.reset();
        hybrid_test::check_no_early_read<double>(
            [&] { way == 0 ? wb::hybrid::cg_gpu(s.args()) : wb::hybrid::cg_split(s.args()); }, s.x.data(), s.x.size(),
            [&] { s.check(); },
            [&] { s.reset(); }, {&s.A, &s.b}, hybrid_test::kAutomaticOnly);  // CG does not go through run()
    }
}

TEST_CASE("hybrid CG: bad arguments throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    const wb::CgArgs<float> a{8, v.data(), 5, v.data(), v.data() + 8, 1e-5, 10, nullptr};
    CHECK_THROWS_WITH(wb::hybrid::cg_gpu(a), "hybrid::cg_gpu: lda (5) must be >= max(1, n) (8)");
    CHECK_THROWS_WITH(wb::hybrid::cg_split(a), "hybrid::cg_split: lda (5) must be >= max(1, n) (8)");
}
