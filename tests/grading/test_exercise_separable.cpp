// CPU tests of chapter 2's separable-filter exercise: the argument rules its launcher checks
// and the float64 reference (exercises/exercise_separable.hpp), set against the workbook's 2-D
// convolution reference with the outer product of the taps as its filter; chapter 4's padded
// layout's rules (exercises/exercise_separable_padded.hpp).
#include "catch.hpp"
#include "exercise_separable_padded.hpp"
#include "reference_conv2d.hpp"

using wb::ex::SeparableArgs;
using wb::ex::check_separable_args;
using wb::ex::separable_reference;

namespace {

const float* const kDev = reinterpret_cast<const float*>(0x1000);  // never dereferenced by the checks
const float kTaps[3] = {1, 2, 3};

SeparableArgs valid() {
    SeparableArgs a;
    a.rows = 4; a.cols = 5; a.fs = 3; a.in_pitch = 5; a.out_pitch = 6;
    a.row_taps = a.col_taps = kTaps;
    a.in = kDev; a.tmp = a.out = const_cast<float*>(kDev);
    return a;
}

void rejects(const SeparableArgs& a, const std::string& what) {
    CHECK_THROWS_WITH(check_separable_args("ch02 separable", a), Catch::Contains("ch02 separable: " + what));
}

}  // namespace

TEST_CASE("separable: every argument rule names its argument", "[cpu][grading]") {
    CHECK_NOTHROW(check_separable_args("ch02 separable", valid()));
    auto a = valid(); a.rows = -1; rejects(a, "rows (-1) must be >= 0");
    a = valid(); a.cols = -1; rejects(a, "cols (-1) must be >= 0");
    a = valid(); a.fs = 4; rejects(a, "fs (4) must be odd and in [1, 63]");
    a = valid(); a.fs = 65; rejects(a, "fs (65) must be odd and in [1, 63]");
    a = valid(); a.in_pitch = 4; rejects(a, "in_pitch (4) must be >= max(1, cols) (5)");
    a = valid(); a.out_pitch = 4; rejects(a, "out_pitch (4) must be >= max(1, cols) (5)");
    a = valid(); a.col_taps = nullptr; rejects(a, "row_taps and col_taps must point to fs host floats each");
    a = valid(); a.tmp = nullptr; rejects(a, "in, tmp and out must point to device memory");
    a = valid(); a.in = nullptr; a.tmp = a.out = nullptr; a.rows = 0; CHECK_NOTHROW(check_separable_args("ch02 separable", a));
}

TEST_CASE("separable reference equals the 2-D convolution with the taps' outer product", "[cpu][grading]") {
    for (const int fs : {1, 3, 5, 9}) {
        SeparableArgs a = valid();
        a.rows = 6; a.cols = 7; a.in_pitch = 9; a.out_pitch = 7; a.fs = fs;
        std::vector<float> row(static_cast<std::size_t>(fs)), col(row.size()), filter(row.size() * row.size());
        for (int k = 0; k < fs; ++k) {
            row[static_cast<std::size_t>(k)] = 0.5f + 0.25f * static_cast<float>(k);
            col[static_cast<std::size_t>(k)] = 1.0f - 0.125f * static_cast<float>(k);
        }
        for (int k = 0; k < fs; ++k)
            for (int l = 0; l < fs; ++l)
                filter[static_cast<std::size_t>(k * fs + l)] = col[static_cast<std::size_t>(k)] * row[static_cast<std::size_t>(l)];
        a.row_taps = row.data(); a.col_taps = col.data();
        std::vector<float> in(5 * 9 + 7);
        for (std::size_t e = 0; e < in.size(); ++e) in[e] = static_cast<float>((e * 7) % 11) - 5.0f;
        const auto got = separable_reference(a, in);
        wb::ref::Conv2dOperands<float> o;
        o.rows = 6; o.cols = 7; o.fs = fs; o.in = &in; o.in_pitch = 9; o.filter = &filter;
        const auto want = wb::ref::conv2d_rows(o, {0, 1, 2, 3, 4, 5});
        REQUIRE(got.size() == want.size());
        for (std::size_t e = 0; e < got.size(); ++e) CHECK(got[e] == Approx(want[e]).epsilon(1e-12).margin(1e-12));
    }
}

TEST_CASE("separable_padded: pitches of 32 floats and 128-byte rows, after chapter 2's rules", "[cpu][grading]") {
    const auto rejects_padded = [](const SeparableArgs& a, const std::string& what) {
        CHECK_THROWS_WITH(wb::ex::check_separable_padded_args("ch04 separable_padded", a),
                          Catch::Contains("ch04 separable_padded: " + what));
    };
    auto a = valid(); a.in_pitch = 32; a.out_pitch = 64;  // kDev: 4096, a multiple of 128
    CHECK_NOTHROW(wb::ex::check_separable_padded_args("ch04 separable_padded", a));
    auto b = a; b.in_pitch = 40; rejects_padded(b, "in_pitch (40) must be a multiple of 32");
    b = a; b.out_pitch = 6; rejects_padded(b, "out_pitch (6) must be a multiple of 32");
    b = a; b.tmp = const_cast<float*>(kDev) + 4; rejects_padded(b, "tmp (at byte 4112) must be 128-byte aligned");
    b = a; b.in = kDev + 1; rejects_padded(b, "in (at byte 4100) must be 128-byte aligned");
    b = a; b.in_pitch = 4; rejects_padded(b, "in_pitch (4) must be >= max(1, cols) (5)");  // chapter 2's first
}
