// The shape classes of the op exercises' cases (op_classes.hpp). The names are those of
// op_exercises() (grading_op.cpp); the op record's parser rejects any other.
#include "op_classes.hpp"

#include <algorithm>

namespace wb::grade::test {

namespace {

struct Classes {
    std::vector<std::string> v;
    void add(bool when, const char* name) {
        if (when) v.emplace_back(name);
    }
};

bool odd(int v) { return v > 1 && v % 2 == 1; }

}  // namespace

std::vector<std::string> op_classes(const GemvCase& c) {
    Classes k;
    k.add(c.m <= 16 && c.n <= 16, "small");
    k.add(odd(c.m) || odd(c.n), "odd_sizes");
    k.add(c.lda > c.m, "lda_gt_rows");
    k.add(c.incx > 1 || c.incy > 1 || c.padA > 0 || c.padx > 0 || c.pady > 0, "offsets");
    k.add(c.beta == 0.0f, "beta0_poisoned");
    k.add(c.trans == 'T', "transposed");
    return k.v;
}

std::vector<std::string> op_classes(const SyrkCase& c) {
    Classes k;
    const int a_rows = c.trans == 'N' ? c.n : c.k;
    k.add(c.n <= 33, "small");
    k.add(odd(c.n) || odd(c.k), "odd_sizes");
    k.add(c.lda > a_rows || c.ldc > c.n, "ld_gt_rows");
    k.add(c.beta == 0.0f, "beta0_poisoned");
    k.add(c.uplo == 'L', "lower");
    k.add(c.uplo == 'U', "upper");
    k.add(c.k == 0 || c.alpha == 0.0f, "quick_return");
    return k.v;
}

namespace {

/// The separable filter's classes, chapter 2's and chapter 4's padded variant alike; the padded
/// one adds rows that end in a partial float4.
template <class C>
std::vector<std::string> separable_classes(const C& c, bool padded) {
    Classes k;
    k.add(c.rows <= 33 && c.cols <= 33, "small");
    k.add(odd(c.rows) || odd(c.cols), "odd_sizes");
    if (padded) k.add(c.cols % 4 != 0, "partial_float4");
    k.add(c.in_pitch > c.cols || c.out_pitch > c.cols, "pitch_gt_cols");
    k.add(c.fs >= std::min(c.rows, c.cols), "wide_filter");
    k.add(c.rows == 1 || c.cols == 1, "thin");
    k.add(static_cast<long long>(c.rows) * c.cols >= 100000, "large");
    return k.v;
}

}  // namespace

std::vector<std::string> op_classes(const SeparableCase& c) { return separable_classes(c, false); }

std::vector<std::string> op_classes(const SeparablePaddedCase& c) { return separable_classes(c, true); }

std::vector<std::string> op_classes(const GbmvCase& c) {
    Classes k;
    k.add(c.m <= 41 && c.n <= 41, "small");
    k.add(odd(c.m) || odd(c.n), "odd_sizes");
    k.add(c.lda > c.kl + c.ku + 1, "lda_gt_band");
    k.add(c.incx > 1 || c.incy > 1, "offsets");
    k.add(c.beta == 0.0f, "beta0_poisoned");
    k.add(c.trans == 'T', "transposed");
    k.add(c.kl + c.ku + 1 > std::min(c.m, c.n), "wide_bands");
    k.add(std::max(c.m, c.n) >= 1000, "many_blocks");
    return k.v;
}

std::vector<std::string> op_classes(const SpmvCase& c) {
    Classes k;
    k.add(c.n <= 41, "small");
    k.add(odd(c.n), "odd_sizes");
    k.add(c.beta == 0.0f, "beta0_poisoned");
    k.add(c.uplo == 'L', "lower");
    k.add(c.uplo == 'U', "upper");
    k.add(c.n >= 1000, "many_columns");
    return k.v;
}

std::vector<std::string> op_classes(const CgJacobiCase& c) {
    Classes k;
    k.add(c.len <= 64, "small");
    k.add(c.n == 0, "empty");
    k.add(c.len > c.n, "padding");
    k.add(c.len == c.n && c.n > 0, "no_padding");
    k.add(c.len >= 1024 && c.len <= 8192, "few_blocks");
    k.add(c.len >= 100000, "large");
    return k.v;
}

std::vector<std::string> op_classes(const CgGraphCase& c) {
    Classes k;
    k.add(c.n <= 64, "small");
    k.add(odd(c.n), "odd_sizes");
    k.add(c.lda > c.n, "lda_gt_n");
    k.add(c.n == 0 || c.iters == 0, "no_iterations");
    k.add(c.iters >= 10, "many_iterations");
    k.add(c.n >= 1000, "many_rows");
    return k.v;
}

}  // namespace wb::grade::test
