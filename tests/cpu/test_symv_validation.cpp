// Argument validation of every SYMV launcher (the five steps and the cuBLAS peer), before any GPU
// call: each bad input throws std::invalid_argument naming the function, the argument, its value
// and the rule; nothing launches (fake device pointers are never dereferenced, and these tests run
// on machines without a GPU). n == 0 and alpha == 0 with beta == 1 are valid no-ops (BLAS's quick
// returns); an illegal SymvLaunch is rejected with a message naming the field and the legal values.
#include "catch.hpp"
#include "step_errors.hpp"

#include "symv.hpp"
#include "tuned/symv_layout.hpp"
#include "launch_checks.hpp"
#include "model/symv.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using wb_test::error_of;

using wb::Uplo;

template <class T>
std::vector<wb::Step<wb::SymvArgs<T>>> all_steps() {
    return wb_test::ladder_and_peer<wb::SymvArgs<T>>();
}

/// A valid 8 x 8 product with fake device pointers (never dereferenced).
template <class T>
wb::SymvArgs<T> valid(Uplo uplo = Uplo::Lower) {
    T* const fake = reinterpret_cast<T*>(0x1000);
    wb::SymvArgs<T> a;
    a.uplo = uplo;
    a.n = 8;
    a.alpha = T(1);
    a.A = fake;
    a.lda = 8;
    a.x = fake;
    a.beta = T(0);
    a.y = fake;
    return a;
}

template <class T, class Edit>
void expect_error(Edit edit, const std::string& message) {
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        auto a = valid<T>(u);
        edit(a);
        wb_test::expect_rejected(all_steps<T>(), a, "symv", message,
                                 std::string(sizeof(T) == 4 ? "float " : "double ") + wb::uplo_char(u));
    }
}

template <class T>
void validation_rules() {
    using A = wb::SymvArgs<T>;
    expect_error<T>([](A& a) { a.n = -1; }, "n (-1) must be >= 0");
    expect_error<T>([](A& a) { a.uplo = static_cast<Uplo>(5); }, "uplo (5) must be Lower or Upper");
    expect_error<T>([](A& a) { a.lda = 5; }, "lda (5) must be >= max(1, n) (8)");
    expect_error<T>([](A& a) { a.n = 0; a.lda = 0; }, "lda (0) must be >= max(1, n) (1)");
    expect_error<T>([](A& a) { a.incx = 2; }, "incx (2) must be 1");
    expect_error<T>([](A& a) { a.incx = 0; }, "incx (0) must be 1");
    expect_error<T>([](A& a) { a.incx = -1; }, "incx (-1) must be 1");
    expect_error<T>([](A& a) { a.incy = 3; }, "incy (3) must be 1");
    expect_error<T>([](A& a) { a.incy = 0; }, "incy (0) must be 1");
    expect_error<T>([](A& a) { a.y = nullptr; }, "y must not be null when n > 0");
    expect_error<T>([](A& a) { a.A = nullptr; }, "A must not be null when n > 0 and alpha != 0");
    expect_error<T>([](A& a) { a.x = nullptr; }, "x must not be null when n > 0 and alpha != 0");
}

template <class T>
void quick_returns_are_no_ops() {
    for (const auto& step : all_steps<T>()) {
        INFO("step " << step.stage);
        // n == 0: BLAS's quick return, even with null pointers; no GPU call is made.
        wb::SymvArgs<T> a;
        a.n = 0;
        a.lda = 1;
        CHECK(error_of(step, a) == "(no exception)");
        a.uplo = Uplo::Upper;
        CHECK(error_of(step, a) == "(no exception)");
        // alpha == 0 and beta == 1: y = y, nothing is read or written.
        a.n = 16;
        a.lda = 16;
        a.alpha = T(0);
        a.beta = T(1);
        a.y = reinterpret_cast<T*>(0x1000);
        CHECK(error_of(step, a) == "(no exception)");
    }
}

/// n past the kernels' 32-bit indices is rejected by every launcher (the peer shares the rule),
/// also with alpha == 0, where only y = beta y would run and A is never read; the largest n
/// passes validation.
template <class T>
void index_limits() {
    using A = wb::SymvArgs<T>;
    constexpr int kMax = wb::launch_checks::kMaxIndexedExtent;
    expect_error<T>([](A& a) { a.n = a.lda = kMax + 1; },
                    "n (2147418112) must be <= 2147418111 (rows are indexed with 32-bit ints: a block or grid stride "
                    "past the last one would overflow)");
    expect_error<T>([](A& a) { a.n = a.lda = 2147483647; a.alpha = T(0); a.beta = T(0.5); a.A = nullptr; },
                    "n (2147483647) must be <= 2147418111");
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        A a = valid<T>(u);
        a.n = a.lda = kMax;
        CHECK(wb::validate_symv(a));
        a.alpha = T(0);  // y = beta y: A is not read
        a.beta = T(0.5);
        a.A = nullptr;
        CHECK(wb::validate_symv(a));
    }
}

}  // namespace

TEST_CASE("symv launchers reject n past the kernels' 32-bit indices; the largest is valid", "[cpu][symv]") {
    index_limits<float>();
    index_limits<double>();
}

TEST_CASE("symv launchers reject each bad argument with a message naming it", "[cpu][symv]") {
    validation_rules<float>();
    validation_rules<double>();
}

TEST_CASE("symv with n zero, or alpha zero and beta one, is a no-op for every launcher", "[cpu][symv]") {
    quick_returns_are_no_ops<float>();
    quick_returns_are_no_ops<double>();
}

TEST_CASE("symv launchers reject an illegal SymvLaunch before anything else", "[cpu][symv]") {
    // Checked before validation and before any GPU call.
    const auto a = valid<float>();
    auto err = [&](int chapter, const wb::SymvLaunch& l) { return error_of(wb::step<wb::SymvArgs<float>>(chapter), a, l); };
    wb::SymvLaunch l;
    l.block_x = 100;
    CHECK_THAT(err(1, l), Catch::Matchers::Contains("naive::symv: launch.block_x (100) must be a multiple of 32"));
    l = {};
    l.nb = 16;
    CHECK_THAT(err(2, l), Catch::Matchers::Contains("shared::symv: launch.nb (16) must be 32"));
    l = {};
    l.block_y = 3;
    CHECK_THAT(err(2, l), Catch::Matchers::Contains("shared::symv: launch.block_y (3) must be 4, 8 or 16"));
    CHECK_THAT(err(3, l), Catch::Matchers::Contains("pattern::symv: launch.block_y (3) must be 4 or 8"));
    l = {};
    l.nb = 32;
    CHECK_THAT(err(4, l), Catch::Matchers::Contains("access::symv: launch.nb (32) must be 64"));
    l = {};
    l.nb = 48;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.nb (48) must be one of the instantiated tiles"));
    l = {};
    l.nb = 32;
    l.block_y = 8;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.block_y (8) must be Q of an instantiated"));
    l = {};
    l.y_blocks = 3;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.y_blocks (3) must be 1, 2, 4, 8, 16 or 32"));
    l.y_blocks = 64;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.y_blocks (64) must be 1, 2, 4, 8, 16 or 32"));
    l = {};
    l.block_x = 256;
    l.nb = 32;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.nb (32) must be 64 with block_x = 256"));
    l = {};
    l.block_x = 256;
    l.block_y = 4;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.block_y (4) must be 0 or 1 with block_x = 256"));
    // The row-panel layout (block_x = 1024 or nb = 8) takes no tile, Q or Y.
    l = {};
    l.block_x = 1024;
    l.nb = 64;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.nb (64) must be 8 or 16 with block_x = 1024"));
    l = {};
    l.nb = 8;
    l.block_x = 256;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.block_x (256) must be 1024 with nb = 8"));
    l = {};
    l.nb = 8;
    l.block_y = 4;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.block_y (4) must be 0 or 1 with the row-panel"));
    l = {};
    l.block_x = 1024;
    l.y_blocks = 8;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.y_blocks (8) must be 0 or 1 with the row-panel"));
    l = {};
    l.block_x = 512;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.block_x (512) must be the nb of an instantiated"));
    l = {};
    l.atomics = 2;
    CHECK_THAT(err(5, l), Catch::Matchers::Contains("tuned::symv: launch.atomics (2) must be 0"));
    CHECK_THAT(error_of(wb::peer_step<wb::SymvArgs<float>>(), a, l),
               Catch::Matchers::Contains("cublas::symv: launch.atomics (2) must be 0 (default mode) or 1"));
}

TEST_CASE("symv: every step's legal launches are accepted by its own launcher", "[cpu][symv]") {
    // n == 0 returns after the launch checks and before any GPU call: a legal launch passes them.
    wb::SymvArgs<float> a;
    a.n = 0;
    for (const auto& step : all_steps<float>())
        for (const auto& l : step.legal_launches(a)) {
            INFO(step.stage << " " << l.str());
            CHECK(error_of(step, a, l) == "(no exception)");
        }
    CHECK(wb::step<wb::SymvArgs<double>>(5).legal_launches(wb::SymvArgs<double>{}).size() == 58);  // 2 modes x (3 tiles x 6 Y + warp rows x 4 Y + vector layout x 6 Y) + row panels of 8 and 16
    CHECK(wb::peer_step<wb::SymvArgs<double>>().legal_launches(wb::SymvArgs<double>{}).size() == 2);
}

TEST_CASE("symv: the tuned default is deterministic and follows the register rule without a GPU", "[cpu][symv]") {
    // No GPU here: the default takes each tile's resident blocks from the register rule
    // (model::tuned_symv_min_blocks): float (64, 4) 3 blocks x 16 KB, (64, 8) 2 x 16 KB, (32, 4)
    // 9 x 4 KB; double (64, 4) 2 x 32 KB, (32, 4) 6 x 8 KB, (64, 8) 1 x 32 KB.
    CHECK(wb::model::tuned_symv_min_blocks(64, 4, 4) == 3);
    CHECK(wb::model::tuned_symv_min_blocks(32, 4, 4) == 9);
    CHECK(wb::model::tuned_symv_min_blocks(64, 4, 8) == 2);
    CHECK(wb::model::tuned_symv_min_blocks(32, 4, 8) == 6);
    wb::SymvArgs<float> a;
    for (int n : {1, 1024}) {  // n / 8 blocks of 1024 threads, one per SM, are one wave (rule 0)
        a.n = n;
        a.lda = n;
        const wb::SymvLaunch l = wb::tuned::symv_default(a);
        INFO("n = " << n << ": " << l.str());
        CHECK(l.atomics == 0);
        CHECK(l.nb == 8);
        CHECK(l.block_x == 1024);
        CHECK(l.y_blocks == 1);
    }
    for (int n : {4096, 16384, 32768}) {
        a.n = n;
        a.lda = n;
        const wb::SymvLaunch l = wb::tuned::symv_default(a);
        INFO("n = " << n << ": " << l.str());
        CHECK(l.atomics == 0);
        CHECK(l.nb == 64);
        CHECK(l.block_x == 256);  // (64, 4) is read by the vector layout
        CHECK(l.block_y == 0);
        CHECK(l.y_blocks == (n == 32768 ? 16 : 8));  // lda x 4 bytes = 128 KiB at 32768 (rule 5)
    }
    wb::SymvArgs<double> d;
    d.n = d.lda = 4096;
    CHECK(wb::tuned::symv_default(d).nb == 64);
    CHECK(wb::tuned::symv_default(d).block_x == 256);
}

TEST_CASE("symv: the tuned default is chapter 6's derivation: the panels, the most bytes in flight, Y",
          "[cpu][symv]") {
    using wb::tuned::symv_derived_launch;
    const wb::DeviceProfile h200 = wb::device_preset("h200");
    // float (64, 4): 3 blocks x 16 KB = 48 KB per SM against (64, 8) 32 KB and (32, 4) 36 KB; Y =
    // floor2(sqrt(396 slots x 1352 ns / (4 x 700 ns))) = floor2(13.8) = 8 at every n (the tail and
    // the blocks' fill and drain do not depend on n); double 2 x 32 KB, Y = floor2(13.0) = 8.
    for (int elem : {4, 8})
        for (int n : {1060, 2048, 2500, 4096, 8192, 12288, 20000, 100000}) {
            const auto l = symv_derived_launch(h200, n, n, elem);
            INFO("n = " << n << " elem " << elem << ": " << l.str());
            CHECK(l.nb == 64);
            CHECK(l.block_x == 256);  // the (64, 4) tile, read by the vector layout
            CHECK(l.y_blocks == 8);
            CHECK(l.atomics == 0);
        }
    // Columns not 16-byte aligned: the KBLAS tiles with element loads, Q by the SYMV model at Y =
    // 8: (64, 4) where the grid is full; at 3000 (376 blocks of (64, 4) on 396 slots) the model puts
    // (64, 8) ahead, 11.6 against 11.9 us, and the H200 ran it 8% faster (the held-out sweep,
    // docs/results/h200/ch06-shapes-symv.txt); double keeps (64, 4) there.
    const auto odd = symv_derived_launch(h200, 9000, 9003, 4);
    CHECK(odd.nb == 64);
    CHECK(odd.block_x == 64);
    CHECK(odd.block_y == 4);
    const auto small_odd = symv_derived_launch(h200, 3000, 3001, 4);
    CHECK(small_odd.block_x == 64);
    CHECK(small_odd.block_y == 8);
    CHECK(small_odd.y_blocks == 8);
    CHECK(symv_derived_launch(h200, 3000, 3001, 8).block_y == 4);
    CHECK(symv_derived_launch(h200, 12345, 12345, 8).block_y == 4);
    // Rule 4: Y doubles where lda x elem is a multiple of 128 KiB, not elsewhere.
    CHECK(symv_derived_launch(h200, 32768, 32768, 4).y_blocks == 16);
    CHECK(symv_derived_launch(h200, 16384, 16384, 8).y_blocks == 16);
    CHECK(symv_derived_launch(h200, 4096, 32768, 4).y_blocks == 16);  // a submatrix of a 32768 matrix
    CHECK(symv_derived_launch(h200, 32768, 32768 + 32, 4).y_blocks == 8);
    CHECK(symv_derived_launch(h200, 16384, 16384, 4).y_blocks == 8);   // 64 KiB
    CHECK(symv_derived_launch(h200, 24576, 24576, 8).y_blocks == 8);   // 192 KiB
    // Rule 5, the row panels of 8 rows: n / 8 blocks of 1024 threads one wave (n <= 1056 on 132
    // SMs) and the triangle's second read (double 1056: 0.93 us) under the second kernel's cost.
    for (int elem : {4, 8})
        for (int n : {1, 9, 1000, 1056}) {
            const auto l = symv_derived_launch(h200, n, n, elem);
            INFO("n = " << n << " elem " << elem << ": " << l.str());
            CHECK(l.block_x == 1024);
            CHECK(l.nb == 8);
            CHECK(l.y_blocks == 1);
        }
    // A quarter of the bandwidth for the same latency makes the second read dearer than the
    // second kernel (double 1000: 3.3 us against about 2 us); float's half as many bytes not yet.
    wb::DeviceProfile slow = h200;
    slow.bandwidth_gbs /= 4;
    CHECK(symv_derived_launch(slow, 1000, 1000, 8).block_x == 256);
    CHECK(symv_derived_launch(slow, 1000, 1000, 4).block_x == 1024);
    // The T10 preset (512 threads per block at most): no panels; the 32 tile (16 KB of shared memory).
    const auto t10 = symv_derived_launch(wb::device_preset("t10"), 1000, 1000, 4);
    CHECK(t10.nb == 32);
    CHECK(t10.block_x == 32);
}

TEST_CASE("symv: uplo parsing and launch labels", "[cpu][symv]") {
    CHECK(wb::parse_uplo("L") == Uplo::Lower);
    CHECK(wb::parse_uplo("upper") == Uplo::Upper);
    CHECK(wb::parse_uplo("u") == Uplo::Upper);
    try {
        wb::parse_uplo("X", "--uplo");
        FAIL("no exception");
    } catch (const std::invalid_argument& e) {
        CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("--uplo (\"X\") must be L (lower) or U (upper)"));
    }
    CHECK(wb::uplo_char(Uplo::Lower) == 'L');
    CHECK(wb::SymvLaunch{}.str() == "default");
    wb::SymvLaunch l;
    l.nb = 64;
    l.block_x = 64;
    l.block_y = 4;
    l.y_blocks = 2;
    CHECK(l.str() == "nb=64 Q=4 Y=2 block=64x4");
    l.atomics = 1;
    CHECK(l.str() == "nb=64 Q=4 Y=2 atomics block=64x4");
    wb::SymvLaunch v;  // the vector layout
    v.nb = 64;
    v.block_x = 256;
    v.y_blocks = 8;
    CHECK(v.str() == "nb=64 Y=8 block=256x1");
    wb::SymvLaunch m = l;
    CHECK(m == l);
    m.atomics = 0;
    CHECK(!(m == l));
}

TEST_CASE("symv: the tuned step's L2 plan streams A only where the triangle exceeds the L2", "[cpu][symv]") {
    using wb::tuned::symv_l2_plan;
    const long long l2 = 50LL << 20;  // the H100's and H200's 50 MiB
    auto nt = [](long long n) { return static_cast<int>((n + 63) / 64); };
    // The stored triangle: float 4096 is 33.6 MB (fits), float 8192 134 MB, double 4096 67 MB.
    CHECK_FALSE(symv_l2_plan(4096, nt(4096), 8, 4, l2).stream_a);
    CHECK(symv_l2_plan(8192, nt(8192), 8, 4, l2).stream_a);
    CHECK(symv_l2_plan(4096, nt(4096), 8, 8, l2).stream_a);
    CHECK_FALSE(symv_l2_plan(2048, nt(2048), 8, 8, l2).stream_a);
    // The boundary: n (n + 1) / 2 x 4 bytes against 52,428,800: n = 5119 fits (52,418,560 bytes),
    // 5120 does not (52,439,040).
    CHECK_FALSE(symv_l2_plan(5119, nt(5119), 8, 4, l2).stream_a);
    CHECK(symv_l2_plan(5120, nt(5120), 8, 4, l2).stream_a);
    // Partials kept: a quarter of the L2 over n (nt + Y) elements, at most all of them.
    CHECK(symv_l2_plan(8192, nt(8192), 8, 4, l2).keep_fraction == 1.0f);  // 4.5 MB
    const float f16 = symv_l2_plan(16384, nt(16384), 8, 4, l2).keep_fraction;  // 17.3 MB
    CHECK(f16 == Approx(0.25 * 52428800.0 / (16384.0 * 264 * 4)));
    CHECK(f16 > 0.75f);
    CHECK(f16 < 0.76f);
    const float d32 = symv_l2_plan(32768, nt(32768), 8, 8, l2).keep_fraction;  // 136 MB
    CHECK(d32 == Approx(0.25 * 52428800.0 / (32768.0 * 520 * 8)));
    // Never below 1/64, never above 1; a tiny L2 or a huge n take the floor.
    CHECK(symv_l2_plan(1 << 20, nt(1 << 20), 8, 8, l2).keep_fraction == 1.0f / 64);
    CHECK(symv_l2_plan(1, 1, 8, 4, l2).keep_fraction == 1.0f);
    CHECK(symv_l2_plan(1, 1, 8, 4, l2).stream_a == false);
}
