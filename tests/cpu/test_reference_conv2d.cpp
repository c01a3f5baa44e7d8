// The float64 convolution reference (common/reference_conv2d): hand-computed values, the zero
// border, pitch and offset, correlation against true convolution (they differ on an asymmetric
// filter and agree on a symmetric one), the error scale, row subsets and the argument checks.
#include "catch.hpp"

#include "random.hpp"
#include "reference_conv2d.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace {

template <class T>
wb::ref::Conv2dOperands<T> ops(int rows, int cols, int fs, const std::vector<T>& in, const std::vector<T>& f,
                               int pitch = 0, std::size_t offset = 0) {
    wb::ref::Conv2dOperands<T> o;
    o.rows = rows;
    o.cols = cols;
    o.fs = fs;
    o.in = &in;
    o.in_pitch = pitch > 0 ? pitch : cols;
    o.offset = offset;
    o.filter = &f;
    return o;
}

}  // namespace

TEST_CASE("ref::conv2d: a 1 x 1 filter scales the image", "[cpu][conv2d]") {
    const std::vector<double> in = {1, 2, 3, 4, 5, 6}, f = {2.5};
    const auto out = wb::ref::conv2d(ops(2, 3, 1, in, f));
    REQUIRE(out.size() == 6);
    for (int i = 0; i < 6; ++i) CHECK(out[i] == 2.5 * in[i]);
}

TEST_CASE("ref::conv2d: 3 x 3 cross-correlation by hand, zeros outside the image", "[cpu][conv2d]") {
    // in = 1 2 3     filter = 1 2 0
    //      4 5 6              0 0 0
    //      7 8 9              0 0 0
    // out(i, j) = 1 in(i-1, j-1) + 2 in(i-1, j): row 0 sees only zeros above it.
    const std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9}, f = {1, 2, 0, 0, 0, 0, 0, 0, 0};
    const auto out = wb::ref::conv2d(ops(3, 3, 3, in, f));
    const std::vector<double> want = {0, 0, 0, 2, 1 + 4, 2 + 6, 8, 4 + 10, 5 + 12};
    CHECK(out == want);
    // The true convolution uses filter(2 - k, 2 - l): taps below-right, 2 in(i+1, j) + 1 in(i+1, j+1).
    const auto conv = wb::ref::conv2d(ops(3, 3, 3, in, f), /*flip=*/true);
    const std::vector<double> want_conv = {2 * 4 + 5, 2 * 5 + 6, 2 * 6, 2 * 7 + 8, 2 * 8 + 9, 2 * 9, 0, 0, 0};
    CHECK(conv == want_conv);
}

TEST_CASE("ref::conv2d: correlation and convolution agree on a symmetric filter only", "[cpu][conv2d]") {
    const int rows = 9, cols = 11, fs = 5;
    const auto in = wb::random_vector<double>(rows * cols, 11);
    auto f = wb::random_vector<double>(fs * fs, 12);
    CHECK(wb::ref::conv2d(ops(rows, cols, fs, in, f)) != wb::ref::conv2d(ops(rows, cols, fs, in, f), true));
    for (int k = 0; k < fs; ++k)  // symmetrize: f(k, l) = f(fs-1-k, fs-1-l)
        for (int l = 0; l < fs; ++l) f[(fs - 1 - k) * fs + (fs - 1 - l)] = f[k * fs + l];
    const auto a = wb::ref::conv2d(ops(rows, cols, fs, in, f)), b = wb::ref::conv2d(ops(rows, cols, fs, in, f), true);
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).epsilon(1e-14));
}

TEST_CASE("ref::conv2d: pitch and offset select the image, the padding is never read", "[cpu][conv2d]") {
    const int rows = 4, cols = 5, fs = 3, pitch = 7, offset = 2;
    const auto tight = wb::random_vector<float>(rows * cols, 3);
    std::vector<float> padded(offset + rows * pitch, NAN);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) padded[offset + r * pitch + c] = tight[r * cols + c];
    const auto f = wb::random_vector<float>(fs * fs, 4);
    const auto a = wb::ref::conv2d(ops(rows, cols, fs, tight, f));
    const auto b = wb::ref::conv2d(ops(rows, cols, fs, padded, f, pitch, offset));
    CHECK(a == b);
}

TEST_CASE("ref::conv2d: the error scale is |filter| (x) |in|, computed in the same pass", "[cpu][conv2d]") {
    const int rows = 6, cols = 7, fs = 3;
    const auto in = wb::random_vector<double>(rows * cols, 5);
    const auto f = wb::random_vector<double>(fs * fs, 6);
    std::vector<double> ain(in.size()), af(f.size()), scale;
    for (std::size_t i = 0; i < in.size(); ++i) ain[i] = std::abs(in[i]);
    for (std::size_t i = 0; i < f.size(); ++i) af[i] = std::abs(f[i]);
    const auto out = wb::ref::conv2d(ops(rows, cols, fs, in, f), false, &scale);
    const auto want = wb::ref::conv2d(ops(rows, cols, fs, ain, af));
    REQUIRE(scale.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        CHECK(scale[i] == want[i]);
        CHECK(std::abs(out[i]) <= scale[i]);
    }
}

TEST_CASE("ref::conv2d_rows: a row subset equals those rows of the whole, whatever the threads", "[cpu][conv2d]") {
    // 300 x 200 x 9^2 = 4.9 M products: the whole is spread over the host's threads, the subset not.
    const int rows = 300, cols = 200, fs = 9;
    const auto in = wb::random_vector<float>(rows * cols, 7);
    const auto f = wb::random_vector<float>(fs * fs, 8);
    const auto all = wb::ref::conv2d(ops(rows, cols, fs, in, f));
    const std::vector<int> pick = {0, 3, 150, 299};
    const auto some = wb::ref::conv2d_rows(ops(rows, cols, fs, in, f), pick);
    REQUIRE(some.size() == pick.size() * cols);
    for (std::size_t q = 0; q < pick.size(); ++q)
        for (int c = 0; c < cols; ++c) CHECK(some[q * cols + c] == all[static_cast<std::size_t>(pick[q]) * cols + c]);
}

TEST_CASE("ref::conv2d: a filter larger than the image sees only zeros beyond it", "[cpu][conv2d]") {
    // 1 x 1 image, 5 x 5 filter: only the centre tap lands on the image.
    const std::vector<double> in = {3};
    const auto f = wb::random_vector<double>(25, 9);
    const auto out = wb::ref::conv2d(ops(1, 1, 5, in, f));
    REQUIRE(out.size() == 1);
    CHECK(out[0] == 3 * f[12]);
}

TEST_CASE("ref::conv2d rejects bad arguments, naming them", "[cpu][conv2d]") {
    const std::vector<float> in(12, 1.f), f(9, 1.f);
    auto msg = [&](wb::ref::Conv2dOperands<float> o, std::vector<int> rows = {}) {
        try {
            if (rows.empty()) wb::ref::conv2d(o);
            else wb::ref::conv2d_rows(o, rows);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(no exception)");
    };
    auto o = ops(3, 4, 3, in, f);
    CHECK(msg(o) == "(no exception)");
    o.fs = 4;
    CHECK_THAT(msg(o), Catch::Matchers::Contains("fs (4) must be odd"));
    o = ops(3, 4, 3, in, f, 3);
    CHECK_THAT(msg(o), Catch::Matchers::Contains("in_pitch (3) must be >= max(1, cols) (4)"));
    o = ops(4, 4, 3, in, f);
    CHECK_THAT(msg(o), Catch::Matchers::Contains("too few for the image"));
    o = ops(3, 4, 5, in, f);
    CHECK_THAT(msg(o), Catch::Matchers::Contains("fewer than fs^2 (25)"));
    o = ops(3, 4, 3, in, f);
    CHECK_THAT(msg(o, {3}), Catch::Matchers::Contains("row 3 must be in [0, rows)"));
}
