// GPU correctness of every registered GEMV step (and the cuBLAS peer, as a check of the harness):
// N/T x float/double x sizes 0, 1, 2, 17, 31, 33, 100, 1000, 4097 and rectangular shapes,
// lda = m and lda > m (padding rows hold NaN), alpha = 1.5 and beta = 0.5 or 0 (y poisoned with
// NaN, so a kernel that reads it fails), fresh seeded inputs per case (seed printed on failure),
// each result against the float64 reference under a bound that grows with sqrt(k).
#include "catch.hpp"

#include "gemv_problem.hpp"
#include "random.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

namespace {

using wb::Op;

std::vector<std::pair<int, int>> shapes() {
    std::vector<std::pair<int, int>> v;
    for (int n : {0, 1, 2, 17, 31, 33, 100, 1000, 4097}) v.push_back({n, n});
    for (auto mn : {std::pair{1000, 37}, {37, 1000}, {4097, 100}, {100, 4097}, {0, 7}, {7, 0}, {129, 65}})
        v.push_back(mn);
    if (std::getenv("WB_TEST_SMALL")) {  // under compute-sanitizer: keep the run short
        std::vector<std::pair<int, int>> small;
        for (auto s : v)
            if (s.first <= 1000 && s.second <= 1000 && static_cast<long>(s.first) * s.second <= 40000) small.push_back(s);
        return small;
    }
    return v;
}

template <class T>
void check_step(const wb::GemvStep<T>& step) {
    for (Op op : {Op::N, Op::T})
        for (auto [m, n] : shapes())
            for (int pad : {0, 3})
                for (T beta : {T(0.5), T(0)}) {
                    const std::uint64_t seed = wb::fresh_seed();
                    const int lda = std::max(1, m) + pad;
                    auto p = wb::make_gemv_problem<T>(op, m, n, lda, seed, T(1.5), beta);
                    const auto ref = p.reference();
                    const auto c = wb::check_gemv(step, step.default_launch(p.args()), p, ref);
                    INFO(step.stage << " " << wb::op_char(op) << (sizeof(T) == 4 ? " float" : " double") << " m=" << m
                                    << " n=" << n << " lda=" << lda << " beta=" << beta << " seed=" << seed
                                    << " rel err " << c.rel_error << " tol " << c.tolerance << " " << c.first_bad);
                    CHECK(c.ok());
                }
}

template <class T>
void check_all_launches(const wb::GemvStep<T>& step) {
    // Every legal GemvLaunch on shapes that are not multiples of any tile.
    for (Op op : {Op::N, Op::T})
        for (auto [m, n] : {std::pair{129, 77}, {33, 517}}) {
            const std::uint64_t seed = wb::fresh_seed();
            auto p = wb::make_gemv_problem<T>(op, m, n, m + 1, seed);
            const auto ref = p.reference();
            for (const wb::GemvLaunch& l : step.legal_launches(p.args())) {
                const auto c = wb::check_gemv(step, l, p, ref);
                INFO(step.stage << " " << wb::op_char(op) << " m=" << m << " n=" << n << " launch " << l.str()
                                << " seed=" << seed << " rel err " << c.rel_error << " " << c.first_bad);
                CHECK(c.ok());
            }
        }
}

void check_chapter(int chapter) {
    check_step(wb::step<wb::GemvArgs<float>>(chapter));
    check_step(wb::step<wb::GemvArgs<double>>(chapter));
    if (!std::getenv("WB_TEST_SMALL")) {
        check_all_launches(wb::step<wb::GemvArgs<float>>(chapter));
        check_all_launches(wb::step<wb::GemvArgs<double>>(chapter));
    }
}

}  // namespace

TEST_CASE("gemv ch01 naive matches the float64 reference", "[gpu][gemv]") { check_chapter(1); }
TEST_CASE("gemv ch02 shared matches the float64 reference", "[gpu][gemv]") { check_chapter(2); }
TEST_CASE("gemv ch03 pattern matches the float64 reference", "[gpu][gemv]") { check_chapter(3); }
TEST_CASE("gemv ch04 access matches the float64 reference", "[gpu][gemv]") { check_chapter(4); }
TEST_CASE("gemv ch05 tuned matches the float64 reference", "[gpu][gemv]") { check_chapter(5); }
TEST_CASE("gemv cuBLAS peer matches the float64 reference", "[gpu][gemv]") {
    check_step(wb::peer_step<wb::GemvArgs<float>>());
    check_step(wb::peer_step<wb::GemvArgs<double>>());
}

TEST_CASE("gemv steps give the same result on repeated calls (no race)", "[gpu][gemv]") {
    for (const auto& step : wb::ladder<wb::GemvArgs<float>>())
        for (Op op : {Op::N, Op::T}) {
            auto p = wb::make_gemv_problem<float>(op, 3001, 2999, 3001, wb::fresh_seed());
            p.y.upload(p.hy);
            step.launch(p.args(), step.default_launch(p.args()), nullptr);
            const auto first = p.y.download();
            for (int rep = 0; rep < 3; ++rep) {
                p.y.upload(p.hy);
                step.launch(p.args(), step.default_launch(p.args()), nullptr);
                INFO(step.stage << " " << wb::op_char(op) << " repetition " << rep);
                CHECK(p.y.download() == first);
            }
        }
}
