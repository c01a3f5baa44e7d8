// GPU correctness of every registered GEMM step and the cuBLAS peer: float and double x
// NN/NT/TN/TT x shapes 0, 1, 1x1x1, k = 1, k = 0 (C = beta C), primes, 2^k +- 1, non-multiples
// of every tile (the largest is 256 x 128 x 16), rectangular (short k, long k, tall, skinny);
// ld > rows (padding rows hold NaN), base pointers offset by one element (breaks 16-byte
// alignment), beta = 0.5 and 0 (C poisoned with NaN: a kernel that reads it fails), alpha = 0;
// then seeded random shapes for every transpose combination (seed printed on failure), every
// legal launch of every step on odd shapes, and a repeatability check. Each result against the
// float64 reference under a bound that grows with sqrt(k) (compare_output); nothing outside the
// m x n window of C may change. WB_TEST_SMALL (the sanitizer run) keeps only small shapes.
#include "catch.hpp"

#include "gemm_problem.hpp"
#include "gemm_test_shapes.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_kernel_rates.hpp"
#include "random.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using wb::Op;

/// The device runs the FP64 tensor-core DGEMM (tuned/dgemm_tensor_core.hpp).
bool tensor_cores() {
    int dev = 0;
    return cudaGetDevice(&dev) == cudaSuccess && wb::tuned::dgemm_tensor_core_supported(dev);
}

bool small_run() { return std::getenv("WB_TEST_SMALL") != nullptr; }
/// WB_TEST_SMALL=2: racecheck, which instruments every shared-memory access (the split-k case at
/// level 1 kept it past 100 s on an H100): the split-k case keeps one split per transpose.
bool tiny_run() {
    const char* v = std::getenv("WB_TEST_SMALL");
    return v != nullptr && std::string(v) == "2";
}

using wb::test::Mnk;

std::vector<Mnk> fixed_shapes() {
    std::vector<Mnk> v = {
        {0, 0, 0},     {0, 5, 3},     {5, 0, 3},      {1, 1, 1},      {1, 1, 0},     {7, 5, 1},     {6, 4, 0},
        {2, 3, 2},     {37, 53, 19},  {127, 131, 67}, {63, 65, 129},  {255, 257, 33}, {129, 127, 255},
        {300, 257, 47}, {200, 300, 3}, {33, 17, 2000}, {1000, 9, 40},  {9, 1000, 40},  {130, 258, 17}};
    if (small_run()) {
        std::vector<Mnk> s;
        for (auto x : v)
            if (static_cast<long long>(x.m) * x.n * std::max(1, x.k) <= 70000) s.push_back(x);
        return s;
    }
    return v;
}

const char* prec(float) { return "float"; }
const char* prec(double) { return "double"; }

template <class T>
void check_one(const wb::Step<wb::GemmArgs<T>>& step, const wb::GemmShape& s, T alpha, T beta, std::uint64_t seed,
               const wb::GemmLaunch* launch = nullptr) {
    auto p = wb::make_gemm_problem<T>(s, seed, alpha, beta);
    const auto ref = p.reference();
    const wb::GemmLaunch l = launch ? *launch : step.default_launch(p.args());
    const auto c = wb::check_gemm(step, l, p, ref);
    INFO(step.stage << " " << prec(T{}) << " " << p.shape.str() << " alpha=" << alpha << " beta=" << beta << " launch "
                    << l.str() << " seed=" << seed << " rel err " << c.rel_error << " tol " << c.tolerance << " "
                    << c.first_bad);
    CHECK(c.ok());
}

/// C after one call of `step` with launch `l`, starting from the problem's initial C (for the
/// same-bits checks: a fixed-order kernel gives the same bits on every call).
template <class T>
auto result_of(const wb::Step<wb::GemmArgs<T>>& step, wb::GemmProblem<T>& p, const wb::GemmLaunch& l) {
    p.C.upload(p.hC);
    step.launch(p.args(), l, nullptr);
    return p.C.download();
}

template <class T>
void check_step_fixed(const wb::Step<wb::GemmArgs<T>>& step) {
    wb::test::for_each_transpose(fixed_shapes(), [&](const wb::GemmShape& tight) {
        for (int variant = 0; variant < 2; ++variant)  // tight, or ld > rows with offset 1
            for (T beta : {T(0.5), T(0)}) {
                wb::GemmShape s = tight;
                if (variant == 1) {
                    s.lda = std::max(1, s.rows_a()) + 3;
                    s.ldb = std::max(1, s.rows_b()) + 2;
                    s.ldc = std::max(1, s.m) + 5;
                    s.offset = 1;
                }
                check_one<T>(step, s, T(1.5), beta, wb::fresh_seed());
            }
    });
    // alpha = 0: C = beta*C without reading A or B (and C = 0 with beta = 0).
    for (T beta : {T(0.5), T(0)}) check_one<T>(step, wb::GemmShape{Op::N, Op::T, 33, 17, 9}, T(0), beta, wb::fresh_seed());
}

/// Random shapes: m, n in [1, 300], k in [1, 600] on a log scale, random padding, offset and beta.
template <class T>
void check_random(const std::vector<wb::Step<wb::GemmArgs<T>>>& steps, Op oa, Op ob, int count) {
    const std::uint64_t seed0 = wb::fresh_seed();
    std::mt19937_64 g(seed0);
    auto logu = [&](int hi) {
        std::uniform_real_distribution<double> u(0.0, std::log(static_cast<double>(hi)));
        return std::max(1, static_cast<int>(std::exp(u(g))));
    };
    for (int c = 0; c < count; ++c) {
        wb::GemmShape s{oa, ob, logu(small_run() ? 40 : 300), logu(small_run() ? 40 : 300), logu(small_run() ? 40 : 600)};
        std::uniform_int_distribution<int> pad(0, 4), bit(0, 1);
        if (bit(g)) {
            s.lda = std::max(1, s.rows_a()) + pad(g);
            s.ldb = std::max(1, s.rows_b()) + pad(g);
            s.ldc = std::max(1, s.m) + pad(g);
        }
        s.offset = bit(g);
        const T beta = bit(g) ? T(0) : T(-0.75);
        const std::uint64_t seed = g();
        INFO("random shape " << c << " of " << count << " from seed " << seed0);
        for (const auto& step : steps) check_one<T>(step, s, T(1.25), beta, seed);
    }
}

template <class T>
std::vector<wb::Step<wb::GemmArgs<T>>> steps_and_peer() {
    auto v = wb::ladder<wb::GemmArgs<T>>();
    v.push_back(wb::peer_step<wb::GemmArgs<T>>());
    return v;
}

template <class T>
void check_all_launches(const wb::Step<wb::GemmArgs<T>>& step) {
    wb::test::for_each_transpose({{129, 77, 33}, {257, 300, 47}}, [&](const wb::GemmShape& tight) {
        for (int off : {0, 1}) {
            wb::GemmShape s = tight;
            s.offset = off;
            auto p = wb::make_gemm_problem<T>(s, wb::fresh_seed(), T(1.5), T(0.5));
            for (const auto& l : step.legal_launches(p.args())) check_one<T>(step, s, T(1.5), T(0.5), p.seed, &l);
        }
    });
}

void check_chapter(int chapter) {
    check_step_fixed(wb::step<wb::GemmArgs<float>>(chapter));
    check_step_fixed(wb::step<wb::GemmArgs<double>>(chapter));
    if (!small_run()) {
        check_all_launches(wb::step<wb::GemmArgs<float>>(chapter));
        check_all_launches(wb::step<wb::GemmArgs<double>>(chapter));
    }
}

}  // namespace

TEST_CASE("gemm ch01 naive matches the float64 reference", "[gpu][gemm]") { check_chapter(1); }
TEST_CASE("gemm ch02 shared matches the float64 reference", "[gpu][gemm]") { check_chapter(2); }
TEST_CASE("gemm ch03 pattern matches the float64 reference", "[gpu][gemm]") { check_chapter(3); }
TEST_CASE("gemm ch04 access matches the float64 reference", "[gpu][gemm]") { check_chapter(4); }
TEST_CASE("gemm ch05 tuned matches the float64 reference", "[gpu][gemm]") { check_chapter(5); }
TEST_CASE("gemm cuBLAS peer matches the float64 reference", "[gpu][gemm]") {
    check_step_fixed(wb::peer_step<wb::GemmArgs<float>>());
    check_step_fixed(wb::peer_step<wb::GemmArgs<double>>());
}

TEST_CASE("gemm steps match the reference on seeded random shapes", "[gpu][gemm]") {
    // 56 shapes per transpose combination (224 in all) through every step and the peer in
    // float, 14 per combination in double.
    const int n = small_run() ? 5 : 56;
    for (Op oa : {Op::N, Op::T})
        for (Op ob : {Op::N, Op::T}) {
            check_random<float>(steps_and_peer<float>(), oa, ob, n);
            check_random<double>(steps_and_peer<double>(), oa, ob, std::max(1, n / 4));
        }
}

TEST_CASE("gemm ch05 tuned: split k, explicit and derived, every transpose, same bits on repeated calls",
          "[gpu][gemm]") {
    // Short m x n, long k: each slice's operands start kc elements further along k (kc a multiple
    // of BK, the last slice shorter), the partials go to a workspace and the second pass applies
    // alpha and beta (C poisoned where beta = 0). ld > rows with offset 1 takes the element copies.
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    const auto& tuned_d = wb::step<wb::GemmArgs<double>>(5);
    const int kk = small_run() ? 700 : 5003;
    for (Op oa : {Op::N, Op::T})
        for (Op ob : {Op::N, Op::T})
            for (int variant = 0; variant < (tiny_run() ? 1 : 2); ++variant)
                for (int split : {2, 3, 16}) {
                    if (tiny_run() && split != 3) continue;
                    wb::GemmShape s{oa, ob, 131, 67, kk};
                    if (variant == 1) {
                        s.lda = s.rows_a() + 3;
                        s.ldb = s.rows_b() + 2;
                        s.ldc = s.m + 5;
                        s.offset = 1;
                    }
                    // Every configuration (the legal launches also list splits and copies: the split is set here).
                    auto configs = wb::tuned::gemm_configs<float>();
                    if (tiny_run()) configs.resize(1);
                    for (const wb::GemmLaunch& base : configs) {
                        wb::GemmLaunch l = base;
                        l.split_k = split;
                        check_one<float>(tuned, s, 1.5f, variant == 0 ? 0.5f : 0.f, wb::fresh_seed(), &l);
                    }
                    wb::GemmLaunch ld = wb::tuned::gemm_configs<double>().front();
                    ld.split_k = split;
                    check_one<double>(tuned_d, s, 1.5, 0.5, wb::fresh_seed(), &ld);
                    if (tensor_cores()) {  // the FP64 tensor cores split the same way (C poisoned at beta = 0)
                        wb::GemmLaunch tc;
                        tc.math = 2;
                        tc.split_k = split;
                        check_one<double>(tuned_d, s, 1.5, variant == 0 ? 0.5 : 0.0, wb::fresh_seed(), &tc);
                    }
                }
    // The default rule splits a small C with a long k, and the split sums in a fixed order.
    auto p = wb::make_gemm_problem<float>(wb::GemmShape{Op::N, Op::N, 256, 192, small_run() ? 1024 : 8192},
                                          wb::fresh_seed(), 1.5f, 0.5f);
    const wb::GemmLaunch d = tuned.default_launch(p.args());
    INFO("default launch " << d.str());
    CHECK(d.split_k > 1);
    const auto ref = p.reference();
    CHECK(wb::check_gemm(tuned, d, p, ref).ok());
    const auto first = result_of(tuned, p, d);
    for (int rep = 0; rep < 3; ++rep) CHECK(result_of(tuned, p, d) == first);
    // A plain default call (GemmLaunch{}) runs the derived launch, split included: same bits.
    CHECK(result_of(tuned, p, wb::GemmLaunch{}) == first);
}

namespace {

/// The default rule's pack of an operand (`field`: pack_a or pack_b) on the first of `shapes`
/// where it takes it (2): checked against the float64 reference, same bits on repeated calls and
/// from a plain default call. Where it takes it on none, a warning (the explicit packs are checked
/// by the caller).
void check_default_pack(const wb::Step<wb::GemmArgs<float>>& tuned, int wb::GemmLaunch::*field, const char* operand,
                        const std::vector<wb::GemmShape>& shapes) {
    const auto it = std::find_if(shapes.begin(), shapes.end(), [&](const wb::GemmShape& s) {
        return tuned.default_launch(wb::make_gemm_problem<float>(s, 1).args()).*field == 2;
    });
    if (it == shapes.end()) {
        WARN("the default rule packs " << operand << " in none of the shapes on this device: its pack is checked "
                                                     "explicitly only");
        return;
    }
    auto p = wb::make_gemm_problem<float>(*it, wb::fresh_seed(), 1.5f, 0.5f);
    const wb::GemmLaunch d = tuned.default_launch(p.args());
    INFO(it->str() << " default launch " << d.str());
    CHECK(d.*field == 2);
    const auto ref = p.reference();
    CHECK(wb::check_gemm(tuned, d, p, ref).ok());
    const auto first = result_of(tuned, p, d);
    for (int rep = 0; rep < 2; ++rep) CHECK(result_of(tuned, p, d) == first);
    CHECK(result_of(tuned, p, wb::GemmLaunch{}) == first);
}

/// The pack tests' calls, for each (op(A), op(B)) of `ops`: shapes that are not multiples of the
/// transpose's 32 x 32 tile or of any GEMM tile, a split k on some (`split`), and on the `ragged`
/// ones leading dimensions past the rows with a base offset by one element (their beta 0, C
/// poisoned).
struct PackCase {
    wb::GemmShape s;
    int split;
    bool ragged;
};
std::vector<PackCase> pack_cases(const std::vector<std::pair<Op, Op>>& ops) {
    struct Case { int m, n, k, split; bool ragged; };
    const std::vector<Case> cases = small_run() ? std::vector<Case>{{33, 17, 45, 0, true}, {70, 9, 31, 3, false}}
                                                : std::vector<Case>{{33, 17, 45, 0, true},   {257, 131, 97, 0, false},
                                                                    {70, 9, 31, 3, false},   {1, 1, 1, 0, true},
                                                                    {129, 300, 1031, 4, true}, {512, 256, 64, 0, true}};
    std::vector<PackCase> v;
    for (const auto& [oa, ob] : ops)
        for (const Case& c : cases) {
            wb::GemmShape s{oa, ob, c.m, c.n, c.k};
            if (c.ragged) {
                s.lda = s.rows_a() + 3;
                s.ldb = s.rows_b() + 2;
                s.ldc = s.m + 5;
                s.offset = 1;
            }
            v.push_back({s, c.split, c.ragged});
        }
    return v;
}

/// Each pack case of `ops` (pack_cases) on every legal configuration of the tuned step, each
/// launch `pack` makes of it checked in float (beta 0 and C poisoned on the ragged cases), then
/// `pack` of the rule's own launch (GemmLaunch{}) in double.
void check_packs(const std::vector<std::pair<Op, Op>>& ops,
                 const std::function<std::vector<wb::GemmLaunch>(wb::GemmLaunch, const wb::GemmShape&)>& pack) {
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    const auto& tuned_d = wb::step<wb::GemmArgs<double>>(5);
    for (const auto& [s, split, ragged] : pack_cases(ops)) {
        for (wb::GemmLaunch base : tuned.legal_launches(wb::make_gemm_problem<float>(s, 1).args())) {
            if (base.gemv == 2) continue;  // 1 x 1 x 1: the GEMV, which packs nothing
            base.split_k = split;
            for (const wb::GemmLaunch& l : pack(base, s))
                check_one<float>(tuned, s, 1.5f, ragged ? 0.f : 0.5f, wb::fresh_seed(), &l);
        }
        for (const wb::GemmLaunch& l : pack(wb::GemmLaunch{}, s))  // alone: the rule's configuration, packed
            check_one<double>(tuned_d, s, 1.5, 0.5, wb::fresh_seed(), &l);
    }
}

}  // namespace

TEST_CASE("gemm ch05 tuned: op(A) = A^T packed into a workspace (pack_a = 2), every configuration", "[gpu][gemm]") {
    // The transpose (kernels/tuned/gemm_pack.cuh) on shapes that are not multiples of its 32 x 32
    // tile or of any GEMM tile, lda > k with a base offset by one element (the packed A is
    // aligned, B is not: element copies), a split k on the packed operand, and beta = 0 (C
    // poisoned); then the default rule's pack at a size where it picks it, same bits repeated.
    check_packs({{Op::T, Op::N}, {Op::T, Op::T}}, [](wb::GemmLaunch l, const wb::GemmShape&) {
        l.pack_a = 2;
        return std::vector<wb::GemmLaunch>{l};
    });
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    if (small_run()) return;  // the rule packs from a few hundred on: too large for the sanitizers' run
    // The default rule's pack, where it takes it: whether it does depends on the kernels' op(A) =
    // A^T rates measured on this device (tuned::gemm_kernel_rates), so the first of these shapes
    // where the rule packs (on an H200 the 128 x 64 tile's, 0.77 of its op(A) = A rate, packs).
    check_default_pack(tuned, &wb::GemmLaunch::pack_a, "A",
                       {{Op::T, Op::N, 3000, 3000, 1000}, {Op::T, Op::N, 5000, 5000, 3000},
                        {Op::T, Op::N, 4000, 300, 4000}, {Op::T, Op::N, 2048, 2048, 2048}});
}

TEST_CASE("gemm ch05 tuned: op(B) = B packed into a workspace (pack_b = 2), every configuration", "[gpu][gemm]") {
    // The transpose of B (kernels/tuned/gemm_pack.cu, packed_b) on shapes that are not multiples
    // of its 32 x 32 tile or of any GEMM tile, ldb > k with a base offset by one element, op(A) = N
    // and T (A^T read transposed or packed too: TN packed both ways runs as NT), a split k on the
    // packed operand, and beta = 0 (C poisoned); then the default rule's pack of B at a size where
    // it picks it, same bits repeated.
    // B packed, A read transposed or packed too (the rule's own launch: B packed alone).
    check_packs({{Op::N, Op::N}, {Op::T, Op::N}}, [](wb::GemmLaunch l, const wb::GemmShape& s) {
        l.pack_b = 2;
        std::vector<wb::GemmLaunch> v{l};
        if (s.op_a == Op::T && l.tile_m > 0) {
            l.pack_a = 1;
            v[0] = l;
            l.pack_a = 2;
            v.push_back(l);
        }
        return v;
    });
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    if (small_run()) return;
    // The default rule's pack of B, where it takes it: that depends on the kernels' NN, TN, NT and
    // TT rates measured on this device (tuned::gemm_kernel_rates), so the first of these shapes
    // where the rule packs B (on an H200: a B of a few MB beside a main loop of a millisecond).
    check_default_pack(tuned, &wb::GemmLaunch::pack_b, "B",
                       {{Op::T, Op::N, 10000, 50, 10000}, {Op::T, Op::N, 8192, 64, 8192},
                        {Op::N, Op::N, 30000, 30, 4000}, {Op::T, Op::N, 4000, 300, 4000}});
}

TEST_CASE("gemm ch05 tuned: unaligned operands copied to aligned columns first (align = 2), every configuration",
          "[gpu][gemm]") {
    // The copy (kernels/tuned/gemm_pack.cuh, copy_kernel) on odd leading dimensions and base
    // pointers offset by one element, every transpose combination, alone and after the transpose
    // of op(A) = A^T (pack_a = 2), with a split k; beta = 0 (C poisoned) on half; then the default
    // rule's copy at a size where it picks it.
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    const auto& tuned_d = wb::step<wb::GemmArgs<double>>(5);
    const std::vector<Mnk> shapes = small_run() ? std::vector<Mnk>{{33, 17, 45}}
                                                : std::vector<Mnk>{{33, 17, 45}, {257, 131, 97}, {70, 9, 1031}, {1, 300, 40}};
    wb::test::for_each_transpose(shapes, [&](wb::GemmShape s) {
        s.lda = s.rows_a() + 3;
        s.ldb = s.rows_b() + 1;
        s.ldc = s.m + 5;
        s.offset = 1;
        for (const wb::GemmLaunch& base : tuned.legal_launches(wb::make_gemm_problem<float>(s, 1).args())) {
            if (base.gemv == 2) continue;
            for (int pack : {1, 2}) {
                if (pack == 2 && s.op_a != Op::T) continue;
                wb::GemmLaunch l = base;
                l.align = 2;
                l.pack_a = pack;
                l.split_k = s.k > 1000 ? 3 : 0;
                check_one<float>(tuned, s, 1.5f, pack == 2 ? 0.f : 0.5f, wb::fresh_seed(), &l);
            }
        }
        wb::GemmLaunch ld{};
        ld.align = 2;  // alone: the rule's configuration, copied
        check_one<double>(tuned_d, s, 1.5, 0.5, wb::fresh_seed(), &ld);
        if (tensor_cores())  // the FP64 tensor cores on the copies, every tile, split or not, C poisoned at beta = 0
            for (int tile = 0; tile < wb::tuned::kDgemmTcTileCount; ++tile)
                for (int split : {0, 3}) {
                    wb::GemmLaunch tc;
                    tc.math = 2;
                    tc.align = 2;
                    tc.split_k = split;
                    tc.tile_m = wb::tuned::kDgemmTcTiles[tile].tile_m;
                    tc.tile_n = wb::tuned::kDgemmTcTiles[tile].tile_n;
                    check_one<double>(tuned_d, s, 1.5, split == 0 ? 0.0 : 0.5, wb::fresh_seed(), &tc);
                }
    });
    if (small_run()) return;
    {  // B of 530,000 columns: more than one copy grid's 65535 x 8 columns, copied in two chunks
        wb::GemmShape s{Op::N, Op::N, 5, 530000, 3};
        s.ldb = 4;
        wb::GemmLaunch l{};
        l.align = 2;
        check_one<float>(tuned, s, 1.5f, 0.5f, wb::fresh_seed(), &l);
        check_one<double>(tuned_d, s, 1.5, 0.0, wb::fresh_seed(), &l);
    }
    for (Op oa : {Op::N, Op::T}) {
        // The default rule's copy, where it takes it: whether it does depends on the kernels'
        // element-copy rates measured on this device, so the first of these shapes where it copies.
        wb::GemmShape s{oa, Op::N, 0, 0, 0};
        for (const Mnk& x : {Mnk{3000, 2000, 1000}, Mnk{4000, 4000, 2000}, Mnk{2000, 3000, 3000}, Mnk{6000, 6000, 1000}}) {
            wb::GemmShape t{oa, Op::N, x.m, x.n, x.k};
            t.lda = t.rows_a() + 1;
            t.ldb = t.rows_b() + 1;
            t.offset = 1;
            if (tuned.default_launch(wb::make_gemm_problem<float>(t, 1).args()).align == 2) {
                s = t;
                break;
            }
        }
        if (s.m == 0) {
            WARN("the default rule copies none of the shapes on this device (" << wb::op_char(oa)
                                                                             << "N): its copy is checked explicitly above only");
            continue;
        }
        auto p = wb::make_gemm_problem<float>(s, wb::fresh_seed(), 1.5f, 0.5f);
        const wb::GemmLaunch d = tuned.default_launch(p.args());
        INFO(p.shape.str() << " default launch " << d.str());
        CHECK(d.align == 2);
        const auto ref = p.reference();
        CHECK(wb::check_gemm(tuned, d, p, ref).ok());
        // Bit for bit (the offset prefix of C holds NaN, which == would never call equal).
        const auto first = result_of(tuned, p, d);
        const auto again = result_of(tuned, p, wb::GemmLaunch{});
        REQUIRE(again.size() == first.size());
        CHECK(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("gemm ch05 tuned: one column or one row of C runs as the GEMV (gemv = 2), the tiles on the same calls",
          "[gpu][gemm]") {
    // tuned::gemm_as_gemv: n == 1 (x = op(B)'s column: op_b = N, or op_b = T with ldb = 1) and
    // m == 1 (x = op(A)'s row: op_a = T, or op_a = N with lda = 1; C's row contiguous: ldc = 1).
    // Tight and padded leading dimensions (padding breaks the row case: the tiles then), base
    // pointers offset by one element, beta = 0 (C poisoned); the default must be the GEMV where
    // the call is one, and the tiled kernels (gemv = 1) must agree with the reference too.
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    const auto& tuned_d = wb::step<wb::GemmArgs<double>>(5);
    const std::vector<Mnk> shapes = small_run() ? std::vector<Mnk>{{70, 1, 33}, {1, 45, 70}, {1, 1, 100}}
                                                : std::vector<Mnk>{{1000, 1, 777}, {1, 1000, 777}, {1, 1, 5000},
                                                                   {37, 1, 1},     {1, 53, 2},     {4097, 1, 300},
                                                                   {3, 1, 4099},   {1, 4099, 3}};
    wb::test::for_each_transpose(shapes, [&](const wb::GemmShape& tight) {
        for (int variant = 0; variant < 3; ++variant) {
            wb::GemmShape s = tight;
                if (variant == 1) {  // padded: only op(B) = B's column stays contiguous
                    s.lda = s.rows_a() + 3;
                    s.ldb = s.rows_b() + 2;
                    s.ldc = s.m + 5;
                }
                if (variant == 2) s.offset = 1;
                auto p = wb::make_gemm_problem<float>(s, 1);
                const bool column = s.n == 1 && (s.op_b == Op::N || p.shape.ldb == 1);
                const bool row = s.m == 1 && p.shape.ldc == 1 && (s.op_a == Op::T || p.shape.lda == 1);
                const wb::GemmLaunch d = tuned.default_launch(p.args());
                INFO(p.shape.str() << " default " << d.str());
                CHECK((d.gemv == 2) == (column || row));
                const float beta = variant == 1 ? 0.f : 0.5f;
                check_one<float>(tuned, s, 1.5f, beta, wb::fresh_seed());
                check_one<double>(tuned_d, s, 1.5, static_cast<double>(beta), wb::fresh_seed());
                wb::GemmLaunch tiles{};
                tiles.gemv = 1;  // alone: the tiled rule's configuration
                check_one<float>(tuned, s, 1.5f, beta, wb::fresh_seed(), &tiles);
        }
    });
}

TEST_CASE("gemm ch05 tuned: the four-warp tiles on both sides of one block per SM (their two kernels)", "[gpu][gemm]") {
    // 128 x 64 and 64 x 128 run the prefetching kernel above one block per SM and their ONE_WAVE
    // kernel at or below it (tuned/gemm_config.hpp): grids of exactly sm_count blocks and one more,
    // unsplit and split 2 (twice the blocks), every transpose combination, k = 75 (not a multiple
    // of the stage depth, more k-tiles than stages), ragged leading dimensions with an offset
    // base, C poisoned (beta 0) and read (beta 0.5), against the float64 reference.
    int dev = 0, sms = 0;
    REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess);
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    int tested = 0;
    for (const wb::GemmLaunch& base : wb::tuned::gemm_configs<float>()) {
        if (!((base.tile_m == 128 && base.tile_n == 64) || (base.tile_m == 64 && base.tile_n == 128))) continue;
        for (int extra : {0, 1}) {
            // tiles_m x 1 tiles of C (n within one tile): sm_count blocks, then sm_count + 1.
            const int tiles_m = sms + extra;
            for (Op oa : {Op::N, Op::T})
                for (Op ob : {Op::N, Op::T})
                    for (int split : {0, 2}) {
                        wb::GemmShape s{oa, ob, base.tile_m * (tiles_m - 1) + 37, base.tile_n - 5, 75};
                        if (extra == 1 && split == 2) {  // and a ragged, offset call above the boundary
                            s.lda = s.rows_a() + 3;
                            s.ldb = s.rows_b() + 1;
                            s.ldc = s.m + 2;
                            s.offset = 1;
                        }
                        wb::GemmLaunch l = base;
                        l.split_k = split;
                        check_one<float>(tuned, s, 1.5f, 0.f, wb::fresh_seed(), &l);
                        check_one<float>(tuned, s, 1.5f, 0.5f, wb::fresh_seed(), &l);
                        ++tested;
                    }
        }
    }
    CHECK(tested == 2 * 2 * 4 * 2);
}

TEST_CASE("gemm ch05 tuned: a small C with a very long k, split into hundreds of slices", "[gpu][gemm]") {
    // The default rule splits 33 x 47 x 100003 (one tile of C) into several hundred slices;
    // explicit splits of 300 (not a power of two) and 1024 (the most) on every configuration; the
    // sum over the slices in their order: the same bits on every call.
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    const auto& tuned_d = wb::step<wb::GemmArgs<double>>(5);
    const int k = small_run() ? 20000 : 100003;
    for (Op oa : {Op::N, Op::T}) {
        wb::GemmShape s{oa, Op::N, 33, 47, k};
        auto p = wb::make_gemm_problem<float>(s, wb::fresh_seed(), 1.5f, 0.5f);
        const wb::GemmLaunch d = tuned.default_launch(p.args());
        INFO("default launch " << d.str());
        CHECK(d.split_k >= (small_run() ? 16 : 128));  // k = 20000: 32 slices of 625 (H200, memcheck run)
        const auto ref = p.reference();
        CHECK(wb::check_gemm(tuned, d, p, ref).ok());
        const auto first = result_of(tuned, p, d);
        CHECK(result_of(tuned, p, d) == first);
        if (small_run()) continue;
        for (int split : {300, 1024})
            for (const wb::GemmLaunch& base : tuned.legal_launches(p.args())) {
                if (base.gemv == 2) continue;
                wb::GemmLaunch l = base;
                l.split_k = split;
                check_one<float>(tuned, s, 1.5f, 0.f, wb::fresh_seed(), &l);
            }
        check_one<double>(tuned_d, s, 1.5, 0.5, wb::fresh_seed());
        if (tensor_cores()) {  // the default DGEMM: the tensor cores, split (one 64 x 64 tile of C), fixed order
            auto pd = wb::make_gemm_problem<double>(s, wb::fresh_seed(), 1.5, 0.5);
            const wb::GemmLaunch dd = tuned_d.default_launch(pd.args());
            INFO("double default launch " << dd.str());
            CHECK(dd.math == 2);
            CHECK(dd.split_k > 1);
            CHECK(wb::check_gemm(tuned_d, dd, pd, pd.reference()).ok());
            const auto once = result_of(tuned_d, pd, dd);
            CHECK(result_of(tuned_d, pd, dd) == once);
        }
    }
}

TEST_CASE("gemm ch05 tuned double: the tensor cores' tile by the width of C, short k", "[gpu][gemm]") {
    // C of 2 ... 16 columns (or rows) wastes most of a 64 x 64 tensor-core tile: the rule takes
    // the 128 x 16 (16 x 128) tile there, 64 x 64 from 17 on. A k of 1 ... 3 on a large C is its
    // epilogue (C read and written, next to nothing multiplied): there the derivation weighs each
    // kernel's epilogue as measured on the device, and at 2000^2 takes the FMA 128 x 128 tile,
    // whose epilogue an H200 measured fastest (run 69); at the sanitizers' 300^2 the tile is not
    // asserted (predicted: a tensor-core tile). Each against the float64 reference, beta = 0.5
    // and 0 (C poisoned), ld > rows with offset 1, every transpose of A.
    if (!tensor_cores()) {
        WARN("no FP64 tensor cores on this device: nothing to check");
        return;
    }
    const auto& tuned_d = wb::step<wb::GemmArgs<double>>(5);
    const int big = small_run() ? 300 : 2000;
    struct Want {
        Mnk x;
        int tile_m, tile_n;  // the tile the rule takes (tensor cores: 0 x 0 is 64 x 64)
        bool tensor_cores = true;  // false: the FMA tiles, asserted at the full size only
    };
    for (const Want& w : {Want{{big, 8, big}, 128, 16}, Want{{big, 3, 777}, 128, 16}, Want{{16, big, big}, 16, 128},
                          Want{{5, big, 999}, 16, 128}, Want{{big, 40, big}, 0, 0}, Want{{big, big, 3}, 128, 128, false},
                          Want{{big + 7, big - 5, 1}, 128, 128, false}})
        for (Op oa : {Op::N, Op::T})
            for (int variant = 0; variant < 2; ++variant)
                for (double beta : {0.5, 0.0}) {
                    wb::GemmShape s{oa, Op::N, w.x.m, w.x.n, w.x.k};
                    if (variant == 1) {
                        s.lda = s.rows_a() + 3;
                        s.ldb = s.rows_b() + 2;
                        s.ldc = s.m + 5;
                        s.offset = 1;
                    }
                    auto p = wb::make_gemm_problem<double>(s, wb::fresh_seed(), 1.5, beta);
                    const wb::GemmLaunch d = tuned_d.default_launch(p.args());
                    INFO(s.str() << " default " << d.str());
                    if (w.tensor_cores || !small_run()) {
                        CHECK((d.math == 2) == w.tensor_cores);
                        CHECK(d.tile_m == w.tile_m);
                        CHECK(d.tile_n == w.tile_n);
                    }
                    check_one<double>(tuned_d, s, 1.5, beta, p.seed, &d);
                }
}

TEST_CASE("gemm ch05 tuned double: every tensor-core tile at every transpose, edge, alignment and split",
          "[gpu][gemm]") {
    // Each tile of kDgemmTcTiles launched explicitly (the 96 x 128 x 32 tile of twelve warps copies
    // a partial last round of B's chunks: 2048 over 384 threads): m, n not multiples of any tile,
    // k not a multiple of the instruction's 8 or the tiles' 16 and 32; tight leading dimensions of
    // even length (16-byte copies) and odd ones with the bases one element in (8-byte copies);
    // beta = 0.5, and 0 over a poisoned C; unsplit and split in 3. Against the float64 reference.
    if (!tensor_cores()) {
        WARN("no FP64 tensor cores on this device: nothing to check");
        return;
    }
    const auto& tuned_d = wb::step<wb::GemmArgs<double>>(5);
    const std::vector<Mnk> shapes = small_run() ? std::vector<Mnk>{{211, 263, 75}}
                                                : std::vector<Mnk>{{211, 263, 75}, {390, 130, 301}, {97, 517, 1029}};
    for (int tile = 0; tile < wb::tuned::kDgemmTcTileCount; ++tile)
        wb::test::for_each_transpose(shapes, [&](const wb::GemmShape& tight) {
            for (int variant = 0; variant < 2; ++variant)
                for (int split : {0, 3}) {
                    wb::GemmShape s = tight;
                    s.lda = s.rows_a() + (variant == 0 ? s.rows_a() % 2 : 3);  // even, or odd
                    s.ldb = s.rows_b() + (variant == 0 ? s.rows_b() % 2 : 1);
                    s.ldc = s.m + 5;
                    s.offset = variant;
                    wb::GemmLaunch tc;
                    tc.math = 2;
                    tc.split_k = split;
                    tc.tile_m = wb::tuned::kDgemmTcTiles[tile].tile_m;
                    tc.tile_n = wb::tuned::kDgemmTcTiles[tile].tile_n;
                    check_one<double>(tuned_d, s, 1.5, split == 0 ? 0.0 : 0.5, wb::fresh_seed(), &tc);
                    check_one<double>(tuned_d, s, -0.5, split == 0 ? 0.5 : 0.0, wb::fresh_seed(), &tc);
                }
        });
}

TEST_CASE("gemm steps give the same result on repeated calls (no race)", "[gpu][gemm]") {
    const int size = small_run() ? 70 : 700;
    for (const auto& step : wb::ladder<wb::GemmArgs<float>>())
        for (Op oa : {Op::N, Op::T}) {
            auto p = wb::make_gemm_problem<float>(wb::GemmShape{oa, Op::N, size + 1, size - 1, size + 17},
                                                  wb::fresh_seed(), 1.5f, 0.5f);
            const auto l = step.default_launch(p.args());
            const auto first = result_of(step, p, l);
            for (int rep = 0; rep < 3; ++rep) {
                INFO(step.stage << " " << wb::op_char(oa) << "N repetition " << rep << " seed " << p.seed);
                CHECK(result_of(step, p, l) == first);
            }
        }
}

TEST_CASE("gemm ch05 tuned: the kernels' rates the rule reads are measured on this device", "[gpu][gemm][derive]") {
    if (wb::tuned::gemm_rates_preset_asked()) {  // racecheck's run: gemm_kernel_rates reads the H200's table, nothing is timed
        WARN("skipped: WB_GEMM_RATES=preset (racecheck's run) reads the rates from the H200's table; their kernels "
             "are the ladder's, racechecked in its cases");
        return;
    }
    int dev = 0, mem_khz = 0, bus_bits = 0;
    REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess);
    const double theoretical_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    // One entry per configuration, each a rate relative to op(A) = A with 16-byte copies: reading
    // op(A) = A^T through registers or copying element by element never makes a kernel faster by
    // more than timing noise, nor slower than a third (the H200 measured 0.7 ... 1.0).
    // Under the sanitizers (WB_TEST_SMALL) every kernel is instrumented, so its rates say nothing
    // of the device: the timings still run (the sanitizer checks their kernels) and must come out
    // finite and positive, the bounds are not read.
    auto check = [&](const auto& rates, std::size_t configs, const char* name) {
        INFO(name);
        REQUIRE(rates.size() == configs);
        for (std::size_t i = 0; i < rates.size(); ++i) {
            INFO("configuration " << i << ": op(A) = A^T x" << rates[i].transposed_a << ", element copies x"
                                  << rates[i].element);
            if (small_run()) {
                for (double r : {rates[i].transposed_a, rates[i].element, rates[i].op_nt, rates[i].op_tt,
                                 rates[i].tn_element, rates[i].nt_element, rates[i].tt_element, rates[i].epilogue_gbs})
                    CHECK((std::isfinite(r) && r > 0));
                continue;
            }
            CHECK(rates[i].transposed_a > 0.33);
            CHECK(rates[i].transposed_a < 1.15);
            CHECK(rates[i].element > 0.33);
            CHECK(rates[i].element < 1.15);
            // op(B) = B^T takes B straight into place: NT and TT no slower than a third of NN, nor
            // more than three times as fast (the H200: float 0.81 ... 1.20; double's 16 x 128 tile,
            // whose long side is B's, NT 2.05 and TT 1.92: its B through registers is the kernel).
            INFO("NT x" << rates[i].op_nt << ", TT x" << rates[i].op_tt << ", TN element x" << rates[i].tn_element);
            INFO("NT element x" << rates[i].nt_element << ", TT element x" << rates[i].tt_element);
            for (double r : {rates[i].tn_element, rates[i].nt_element, rates[i].tt_element}) {
                CHECK(r > 0.2);  // transposing element paths (H200 float 0.56 ... 0.93 in TN)
                CHECK(r < 3);    // NT and TT as fast as op_nt, op_tt allow
            }
            CHECK(rates[i].op_nt > 0.33);
            CHECK(rates[i].op_nt < 3);
            CHECK(rates[i].op_tt > 0.33);
            CHECK(rates[i].op_tt < 3);
            // The epilogue moves C from DRAM: a tenth of the theoretical bandwidth at least (a
            // kernel of one k-tile that held C in registers for a round trip each), and never past it.
            INFO("epilogue " << rates[i].epilogue_gbs << " GB/s of " << theoretical_gbs);
            CHECK(rates[i].epilogue_gbs > 0.1 * theoretical_gbs);
            CHECK(rates[i].epilogue_gbs < 1.02 * theoretical_gbs);
        }
    };
    // Double also times the FP64 tensor cores' tiles, after the configurations (gemm_rate_launches).
    check(wb::tuned::gemm_kernel_rates<float>(true), wb::tuned::gemm_rate_launches<float>().size(), "float");
    check(wb::tuned::gemm_kernel_rates<double>(true), wb::tuned::gemm_rate_launches<double>().size(), "double");
    CHECK(wb::tuned::gemm_rate_launches<double>().size() ==
          wb::tuned::gemm_configs<double>().size() + wb::tuned::kDgemmTcTileCount);
    // Measured once per device: the second call returns the same table.
    CHECK(&wb::tuned::gemm_kernel_rates<float>(true) == &wb::tuned::gemm_kernel_rates<float>(true));
}
