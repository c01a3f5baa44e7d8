// GPU correctness of every registered GEMV step (and the cuBLAS peer, as a check of the harness):
// (the tuned step also on every shape class of issue 14: odd lda, offset submatrices and x,
// rectangles both ways, m or n <= 64 against 10^5, every legal launch on the new paths' shapes)
// N/T x float/double x sizes 0, 1, 2, 17, 31, 33, 100, 1000, 4097 and rectangular shapes,
// lda = m and lda > m (padding rows hold NaN), alpha = 1.5 and beta = 0.5 or 0 (y poisoned with
// NaN, so a kernel that reads it fails), fresh seeded inputs per case (seed printed on failure),
// each result against the float64 reference under a bound that grows with sqrt(k).
#include "catch.hpp"

#include "gemv_problem.hpp"
#include "gemv_rules.hpp"
#include "random.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <cstdlib>
#include <tuple>
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

/// One shape of issue 14's classes: m x n in an lda x n array, A and x at element offsets.
struct Shape {
    int m, n, lda, a_offset = 0, x_offset = 0;
};

/// Small members of every shape class `ch05_unrolled --shapes` times: squares that are not powers
/// of two, odd leading dimensions, rectangles both ways, m or n <= 64 against >= 10^5, submatrices
/// at offsets 1 ... 33 (every offset on a small matrix), x at an offset (T: x not 16-byte aligned).
std::vector<Shape> shape_classes() {
    std::vector<Shape> v;
    for (int n : {1000, 3001}) v.push_back({n, n, n});
    for (auto [m, n] : {std::pair{1000, 1000}, {2000, 999}, {999, 2000}}) v.push_back({m, n, m + 1});
    for (auto [m, n] : {std::pair{4000, 1000}, {1000, 4000}, {20000, 200}, {200, 20000}, {100000, 20}, {20, 100000},
                        {300000, 3}, {3, 300000}})
        v.push_back({m, n, m});
    for (auto [m, n] : {std::pair{32, 100000}, {64, 100003}, {100000, 32}, {100003, 64}, {8, 100000}, {100000, 8},
                        {1, 100000}, {100000, 1}, {17, 100000}, {100000, 17}})
        v.push_back({m, n, m});
    // T with one or two steps per block and aligned columns whose last vector crosses m (the
    // partial step, loaded with the full one before it): m % W != 0, lda % W == 0.
    v.push_back({579, 5790, 580});
    v.push_back({183, 18300, 184});
    v.push_back({33, 100000, 35});   // short columns, odd lda
    v.push_back({100000, 33, 100001});
    for (int off = 1; off <= 33; ++off) v.push_back({129, 77, 136, off});
    for (int off : {1, 2, 3, 17, 33}) v.push_back({1000, 1000, 1040, off});
    for (int off : {1, 3}) {
        v.push_back({1000, 1000, 1000, 0, off});
        v.push_back({40, 5000, 40, 0, off});
    }
    if (std::getenv("WB_TEST_SMALL")) {  // under compute-sanitizer: keep the run short
        std::vector<Shape> small;
        for (auto s : v)
            if (static_cast<long>(s.lda) * s.n <= 200000) small.push_back(s);
        return small;
    }
    return v;
}

template <class T>
void check_shape_classes(const wb::GemvStep<T>& step) {
    for (Op op : {Op::N, Op::T})
        for (const Shape& sh : shape_classes())
            for (T beta : {T(0.5), T(0)}) {
                const std::uint64_t seed = wb::fresh_seed();
                auto p = wb::make_gemv_problem<T>(op, sh.m, sh.n, sh.lda, seed, T(1.5), beta, sh.a_offset, sh.x_offset);
                const auto ref = p.reference();
                const wb::GemvLaunch l = step.default_launch(p.args());
                const auto c = wb::check_gemv(step, l, p, ref);
                INFO(step.stage << " " << wb::op_char(op) << (sizeof(T) == 4 ? " float" : " double") << " m=" << sh.m
                                << " n=" << sh.n << " lda=" << sh.lda << " A offset " << sh.a_offset << " x offset "
                                << sh.x_offset << " beta=" << beta << " launch " << l.str() << " seed=" << seed
                                << " rel err " << c.rel_error << " tol " << c.tolerance << " " << c.first_bad);
                CHECK(c.ok());
            }
}

template <class T>
void check_all_launches_at_shapes(const wb::GemvStep<T>& step) {
    // Every legal launch on shapes of the new paths: a submatrix at an odd offset (shifted loads),
    // short columns aligned and not (T with lanes per column), a short output with a long
    // reduction (splits), x at an offset. Every other shape with beta = 0: y poisoned with NaN.
    // N's element loads (columns not 16-byte aligned: offset 3, odd lda) run here with every
    // unroll, U = 16 included (float); the count below keeps the coverage from going vacuous.
    const std::vector<Shape> shapes = {Shape{129, 77, 136, 3}, Shape{16, 3000, 16}, Shape{17, 3001, 19, 1},
                                       Shape{3000, 9, 3001}, Shape{200, 300, 200, 0, 1}};
    int element_launches = 0, element_u16 = 0, same_head_policies = 0;
    for (Op op : {Op::N, Op::T})
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const Shape& sh = shapes[i];
            const T beta = i % 2 ? T(0) : T(0.5);
            const std::uint64_t seed = wb::fresh_seed();
            auto p = wb::make_gemv_problem<T>(op, sh.m, sh.n, sh.lda, seed, T(1.5), beta, sh.a_offset, sh.x_offset);
            const auto ref = p.reference();
            const bool element = op == Op::N && wb::tuned_gemv_loads(wb::gemv_shape(p.args())) == wb::GemvLoads::kElement;
            for (const wb::GemvLaunch& l : step.legal_launches(p.args())) {
                element_launches += element;
                element_u16 += element && l.ept == 16;
                const auto c = wb::check_gemv(step, l, p, ref);
                INFO(step.stage << " " << wb::op_char(op) << " m=" << sh.m << " n=" << sh.n << " lda=" << sh.lda
                                << " A offset " << sh.a_offset << " x offset " << sh.x_offset << " beta=" << beta
                                << " launch " << l.str()
                                << " seed=" << seed << " rel err " << c.rel_error << " " << c.first_bad);
                CHECK(c.ok());
            }
            // T with shifted columns sharing one head (lda % W == 0: A or x at an offset) streams
            // A's aligned part with the aligned kernel's policy: both policies it takes, explicitly.
            const wb::GemvShape gs = wb::gemv_shape(p.args());
            if (op == Op::T && wb::tuned_gemv_loads(gs) == wb::GemvLoads::kShifted16 && sh.lda % (16 / sizeof(T)) == 0)
                for (int cache : {1, 2}) {
                    wb::GemvLaunch l = step.default_launch(p.args());
                    l.cache = cache;
                    const auto c = wb::check_gemv(step, l, p, ref);
                    INFO("T same head m=" << sh.m << " n=" << sh.n << " lda=" << sh.lda << " A offset " << sh.a_offset
                                          << " x offset " << sh.x_offset << " launch " << l.str() << " seed=" << seed);
                    CHECK(c.ok());
                    ++same_head_policies;
                }
        }
    CHECK(element_launches > 0);
    CHECK(same_head_policies >= 4);
    CHECK((element_u16 > 0) == (sizeof(T) == 4));
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
TEST_CASE("gemv ch05 tuned matches the float64 reference at every shape class", "[gpu][gemv]") {
    check_shape_classes(wb::step<wb::GemvArgs<float>>(5));
    check_shape_classes(wb::step<wb::GemvArgs<double>>(5));
}
TEST_CASE("gemv ch05 tuned matches the reference on 200 seeded random shapes", "[gpu][gemv]") {
    // m and n log-uniform in [1, 2^17] with m n <= 2^22, lda = m + [0, 5], A and x at element
    // offsets [0, 33] and [0, 3], N or T, float or double, beta 0.5 or 0: every load kind, split
    // and short-reduction rule gets drawn. One seed per run (printed), then one per shape.
    const std::uint64_t run_seed = wb::fresh_seed();
    std::mt19937_64 rng(run_seed);
    const bool small = std::getenv("WB_TEST_SMALL") != nullptr;  // under compute-sanitizer
    const int count = small ? 20 : 200;
    const long long max_elems = small ? (1LL << 16) : (1LL << 22);
    for (int i = 0; i < count; ++i) {
        auto log_uniform = [&](int hi) {
            return std::max(1, static_cast<int>(std::exp2(std::uniform_real_distribution<double>(0, hi)(rng))));
        };
        int m = log_uniform(17), n = log_uniform(17);
        while (static_cast<long long>(m) * n > max_elems) (m > n ? m : n) /= 2;
        const int lda = m + static_cast<int>(rng() % 6), a_off = static_cast<int>(rng() % 34),
                  x_off = static_cast<int>(rng() % 4);
        const Op op = rng() % 2 ? Op::T : Op::N;
        const bool dbl = rng() % 2, beta0 = rng() % 2;
        const std::uint64_t seed = rng();
        INFO("run seed " << run_seed << " shape " << i << ": " << wb::op_char(op) << (dbl ? " double" : " float")
                         << " m=" << m << " n=" << n << " lda=" << lda << " A offset " << a_off << " x offset "
                         << x_off << " beta " << (beta0 ? 0 : 0.5) << " seed=" << seed);
        if (dbl) {
            const auto& step = wb::step<wb::GemvArgs<double>>(5);
            auto p = wb::make_gemv_problem<double>(op, m, n, lda, seed, 1.5, beta0 ? 0.0 : 0.5, a_off, x_off);
            const auto c = wb::check_gemv(step, step.default_launch(p.args()), p, p.reference());
            INFO("launch " << step.default_launch(p.args()).str() << " rel err " << c.rel_error << " " << c.first_bad);
            CHECK(c.ok());
        } else {
            const auto& step = wb::step<wb::GemvArgs<float>>(5);
            auto p = wb::make_gemv_problem<float>(op, m, n, lda, seed, 1.5f, beta0 ? 0.f : 0.5f, a_off, x_off);
            const auto c = wb::check_gemv(step, step.default_launch(p.args()), p, p.reference());
            INFO("launch " << step.default_launch(p.args()).str() << " rel err " << c.rel_error << " " << c.first_bad);
            CHECK(c.ok());
        }
    }
}
TEST_CASE("gemv ch05 tuned: every legal launch on the new paths' shapes", "[gpu][gemv]") {
    if (std::getenv("WB_TEST_SMALL")) return;
    check_all_launches_at_shapes(wb::step<wb::GemvArgs<float>>(5));
    check_all_launches_at_shapes(wb::step<wb::GemvArgs<double>>(5));
}
TEST_CASE("gemv steps 1-4 and cuBLAS stay correct on offset submatrices and odd lda", "[gpu][gemv]") {
    for (int ch : {0, 1, 2, 3, 4})
        for (Op op : {Op::N, Op::T})
            for (const Shape& sh : {Shape{129, 77, 136, 1}, Shape{100, 33, 101, 33}, Shape{64, 1000, 64, 0, 1}}) {
                const std::uint64_t seed = wb::fresh_seed();
                auto pf = wb::make_gemv_problem<float>(op, sh.m, sh.n, sh.lda, seed, 1.5f, 0.5f, sh.a_offset, sh.x_offset);
                auto pd = wb::make_gemv_problem<double>(op, sh.m, sh.n, sh.lda, seed, 1.5, 0.0, sh.a_offset, sh.x_offset);
                const auto& sf = wb::step<wb::GemvArgs<float>>(ch);
                const auto& sd = wb::step<wb::GemvArgs<double>>(ch);
                const auto cf = wb::check_gemv(sf, sf.default_launch(pf.args()), pf, pf.reference());
                const auto cd = wb::check_gemv(sd, sd.default_launch(pd.args()), pd, pd.reference());
                INFO("chapter " << ch << " " << wb::op_char(op) << " m=" << sh.m << " n=" << sh.n << " lda=" << sh.lda
                                << " A offset " << sh.a_offset << " x offset " << sh.x_offset << " seed=" << seed);
                CHECK(cf.ok());
                CHECK(cd.ok());
            }
}
TEST_CASE("gemv cuBLAS peer matches the float64 reference", "[gpu][gemv]") {
    check_step(wb::peer_step<wb::GemvArgs<float>>());
    check_step(wb::peer_step<wb::GemvArgs<double>>());
}

TEST_CASE("gemv ch05 tuned splits sum in a fixed order (same bits on repeated calls)", "[gpu][gemv]") {
    // Skinny shapes whose default launch splits the reduction (global partials and clusters).
    const auto& step = wb::step<wb::GemvArgs<double>>(5);
    const int f = std::getenv("WB_TEST_SMALL") ? 10 : 1;  // under compute-sanitizer: a tenth
    for (auto [op, m, n] : {std::tuple{Op::N, 32, 200000 / f}, {Op::N, 579, 57900 / f}, {Op::T, 200000 / f, 32},
                            {Op::T, 100000 / f, 200}})
        for (int cl : {0, 1}) {
            auto p = wb::make_gemv_problem<double>(op, m, n, m, wb::fresh_seed());
            wb::GemvLaunch l = step.default_launch(p.args());
            l.cluster = cl;
            p.y.upload(p.hy);
            step.launch(p.args(), l, nullptr);
            const auto first = p.y.download();
            for (int rep = 0; rep < 3; ++rep) {
                p.y.upload(p.hy);
                step.launch(p.args(), l, nullptr);
                INFO(wb::op_char(op) << " m=" << m << " n=" << n << " launch " << l.str() << " repetition " << rep);
                CHECK(p.y.download() == first);
            }
        }
}

TEST_CASE("gemv ch05 tuned: a plain default call (GemvLaunch{}) runs the derived launch, split included",
          "[gpu][gemv]") {
    // GemvLaunch's own Y was 1 until 2026-11-25 (now 0: derived); the derived launch of these
    // shapes splits (Y > 1). The same launch
    // sums in the same order, so the two calls' results must be bit-identical; an unsplit default
    // call (the bug before 2026-11-25: 0.40x cuBLAS at N 579 x 57900) sums in another order and
    // differs in the last bits.
    const auto& step = wb::step<wb::GemvArgs<double>>(5);
    const int f = std::getenv("WB_TEST_SMALL") ? 10 : 1;
    for (auto [op, m, n] : {std::tuple{Op::N, 579, 57900 / f}, {Op::N, 58, 200000 / f}, {Op::T, 200000 / f, 32}}) {
        auto p = wb::make_gemv_problem<double>(op, m, n, m, wb::fresh_seed());
        const wb::GemvLaunch derived = step.default_launch(p.args());
        INFO(wb::op_char(op) << " m=" << m << " n=" << n << " derived launch " << derived.str());
        REQUIRE(derived.Y > 1);
        p.y.upload(p.hy);
        step.launch(p.args(), derived, nullptr);
        const auto want = p.y.download();
        p.y.upload(p.hy);
        step.launch(p.args(), wb::GemvLaunch{}, nullptr);
        CHECK(p.y.download() == want);
    }
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

namespace {

/// Rule 8's looping T kernel (tuned/gemv_t_loop.cuh): every loop launch of the sweep, each
/// checked against the float64 reference with y poisoned (check_gemv), on small members of
/// its shape classes: a few hundred rows at odd lda (every column its own head), a submatrix
/// at an offset with x unaligned, skinny double-style columns (16, 32, 64 rows, aligned), 58
/// rows, columns shorter than one vector, n not a multiple of W C.
template <class T>
void check_loop_launches() {
    const auto& step = wb::step<wb::GemvArgs<T>>(5);
    int launches = 0;
    for (const Shape& sh : {Shape{579, 3001, 579}, Shape{183, 5003, 183}, Shape{16, 20000, 16}, Shape{32, 20001, 32},
                            Shape{64, 10000, 64}, Shape{58, 7001, 58}, Shape{579, 2000, 600, 3, 1},
                            Shape{183, 3000, 184, 1, 1}, Shape{5, 1001, 5}, Shape{1, 517, 1}, Shape{3, 777, 4, 1}})
        for (T beta : {T(0.5), T(0)}) {
            const std::uint64_t seed = wb::fresh_seed();
            auto p = wb::make_gemv_problem<T>(Op::T, sh.m, sh.n, sh.lda, seed, T(1.5), beta, sh.a_offset, sh.x_offset);
            const auto ref = p.reference();
            for (const wb::GemvLaunch& l : step.legal_launches(p.args())) {
                if (l.loop == 0 || (beta == T(0) && l.cache != 0)) continue;
                ++launches;
                const auto c = wb::check_gemv(step, l, p, ref);
                INFO((sizeof(T) == 4 ? "float" : "double") << " T m=" << sh.m << " n=" << sh.n << " lda=" << sh.lda
                                                           << " A offset " << sh.a_offset << " x offset " << sh.x_offset
                                                           << " beta=" << beta << " launch " << l.str() << " seed="
                                                           << seed << " rel err " << c.rel_error << " tol "
                                                           << c.tolerance << " " << c.first_bad);
                CHECK(c.ok());
            }
        }
    CHECK(launches >= 11 * 33);  // 33 loop launches (lanes x nb x cache) at beta 0.5 on each shape
}

/// Rule 8's shape classes at full size, default launch: wide T of a few hundred rows loops (579
/// rows; double 183, whose one-tile launch is a whole warp per column), short columns keep one
/// tile per block: the short-column kernel where one pass of its lanes covers the column (16, 32,
/// 64 rows of float, 16 and 32 of double) or the column is off a 16-byte boundary (float 183),
/// a warp per column on aligned columns of 17 to 63 vectors (double 64 rows: 32 vectors); every
/// default matches the float64 reference with beta = 0.5 (y read).
template <class T>
void check_loop_defaults() {
    const auto& step = wb::step<wb::GemvArgs<T>>(5);
    for (auto [m, n] : {std::pair{579, 57900}, {183, 183000}, {16, 1000000}, {32, 200000}, {64, 1000000}}) {
        const std::uint64_t seed = wb::fresh_seed();
        auto p = wb::make_gemv_problem<T>(Op::T, m, n, m, seed, T(1.5), T(0.5));
        const wb::GemvLaunch l = step.default_launch(p.args());
        const bool loops = m == 579 || (m == 183 && sizeof(T) == 8);
        CHECK(l.loop == (loops ? 1 : 0));
        const bool warp_per_column = m == 64 && sizeof(T) == 8;
        if (!loops) CHECK(wb::tuned_gemv_short_t(Op::T, l) == !warp_per_column);
        if (warp_per_column) CHECK((l.block_x == 32 && l.block_y == 1));
        const auto c = wb::check_gemv(step, l, p, p.reference());
        INFO((sizeof(T) == 4 ? "float" : "double") << " T " << m << " x " << n << " launch " << l.str() << " seed="
                                                   << seed << " rel err " << c.rel_error << " " << c.first_bad);
        CHECK(c.ok());
    }
}

}  // namespace

TEST_CASE("gemv ch05 tuned: every looping T launch matches the float64 reference", "[gpu][gemv]") {
    check_loop_launches<float>();
    check_loop_launches<double>();
}

TEST_CASE("gemv ch05 tuned: rule 8's shape classes get their default launch and match the float64 reference",
          "[gpu][gemv]") {
    check_loop_defaults<float>();
    check_loop_defaults<double>();
}
