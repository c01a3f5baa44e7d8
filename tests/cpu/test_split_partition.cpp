// Which data each side of chapter 7's hybrids reads (kernels/cpu/hybrid_partition.hpp), checked
// element by element without a GPU: SYMV's rows from the stored triangle only, each element of
// each row exactly once, for every chunk of odd sizes and both triangles; the convolution's input
// band, whose rows hold every neighbour an output row of the band reads.
#include "catch.hpp"

#include "hybrid_partition.hpp"

#include <stdexcept>
#include <vector>

using wb::Uplo;
using wb::hybrid::Block;

namespace {

bool inside(const Block& b, int i, int j) {
    return i >= b.row0 && i < b.row0 + b.rows && j >= b.col0 && j < b.col0 + b.cols;
}

bool stored(Uplo u, int i, int j) { return u == Uplo::Lower ? i >= j : i <= j; }

/// Checks the plan of rows [r0, r1): every element (i, j) of those rows of the full matrix is
/// read exactly once, as A(i, j) from `direct`, as A(j, i) from `mirrored` (its transpose), or
/// from `diag` (its stored triangle); direct and mirrored hold stored elements only; the panel is
/// exactly the columns [r0, r1) holding diag and mirrored.
void check_plan(Uplo u, int n, int r0, int r1) {
    const auto p = wb::hybrid::symv_rows_plan(u, n, r0, r1);
    INFO("uplo " << (u == Uplo::Lower ? "L" : "U") << " n " << n << " rows " << r0 << ".." << r1);
    for (int i = r0; i < r1; ++i)
        for (int j = 0; j < n; ++j) {
            int reads = 0;
            if (inside(p.direct, i, j)) {
                ++reads;
                REQUIRE(stored(u, i, j));
            }
            if (inside(p.mirrored, j, i)) {
                ++reads;
                REQUIRE(stored(u, j, i));
            }
            if (inside(p.diag, i, j)) {
                ++reads;
                REQUIRE((inside(p.diag, j, i)));  // the SYMV of the block reads whichever is stored
            }
            REQUIRE(reads == 1);
        }
    // nothing outside the chunk's rows (direct) or columns (mirrored, diag)
    for (const Block* b : {&p.direct})
        if (!b->empty()) REQUIRE((b->row0 == r0 && b->rows == r1 - r0));
    for (const Block* b : {&p.mirrored, &p.diag})
        if (!b->empty()) REQUIRE((b->col0 == r0 && b->cols == r1 - r0));
    // the panel: columns [r0, r1), rows from the first to the last of diag and mirrored
    if (r0 == r1) return;  // an empty chunk copies nothing
    REQUIRE(p.panel.col0 == r0);
    REQUIRE(p.panel.cols == r1 - r0);
    const int top = p.mirrored.empty() ? p.diag.row0 : std::min(p.diag.row0, p.mirrored.row0);
    const int bottom = std::max(p.diag.row0 + p.diag.rows, p.mirrored.empty() ? 0 : p.mirrored.row0 + p.mirrored.rows);
    REQUIRE(p.panel.row0 == top);
    REQUIRE(p.panel.row0 + p.panel.rows == bottom);
}

}  // namespace

TEST_CASE("hybrid SYMV: each row's every element read exactly once, from the stored triangle only", "[cpu][split]") {
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (int n : {1, 2, 7, 31, 64}) {
            // every chunk [r0, r1) of the GPU's rows, and the CPU's rows [g, n)
            for (int r0 = 0; r0 <= n; r0 += (n > 10 ? 5 : 1))
                for (int r1 = r0; r1 <= n; r1 += (n > 10 ? 3 : 1)) check_plan(u, n, r0, r1);
            for (int g = 0; g <= n; ++g) check_plan(u, n, g, n);
        }
}

TEST_CASE("hybrid SYMV: the GPU's band reads n elements per row; the CPU's rows use one product less", "[cpu][split]") {
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const int n = 101;
        const auto p = wb::hybrid::symv_rows_plan(u, n, 20, 37);
        const long long direct = static_cast<long long>(p.direct.rows) * p.direct.cols;
        const long long panel = static_cast<long long>(p.panel.rows) * p.panel.cols;
        CHECK(direct + panel == 17LL * n);  // what a GEMV of the band of the full matrix reads
        // the CPU's rows [g, n): Lower has no mirrored block below them, Upper no direct block right of them
        const auto c = wb::hybrid::symv_rows_plan(u, n, 60, n);
        CHECK((u == Uplo::Lower ? c.mirrored.empty() : c.direct.empty()));
    }
    CHECK_THROWS_WITH(wb::hybrid::symv_rows_plan(Uplo::Lower, 10, 4, 11),
                      "symv_rows_plan: r0 (4) and r1 (11) must satisfy 0 <= r0 <= r1 <= n (10)");
    CHECK_THROWS_AS(wb::hybrid::symv_rows_plan(Uplo::Upper, 10, 5, 4), std::invalid_argument);
}

TEST_CASE("hybrid convolution: a band's input rows hold every neighbour of its output rows", "[cpu][split]") {
    for (int rows : {1, 2, 9, 33})
        for (int fs : {1, 3, 9, 35})
            for (int r0 = 0; r0 <= rows; ++r0)
                for (int r1 = r0; r1 <= rows; ++r1) {
                    INFO("rows " << rows << " fs " << fs << " band " << r0 << ".." << r1);
                    const auto b = wb::hybrid::conv2d_input_rows(rows, fs, r0, r1);
                    REQUIRE(b.begin >= 0);
                    REQUIRE(b.end <= rows);
                    REQUIRE(b.begin <= b.end);
                    if (r0 == r1) {
                        REQUIRE(b.begin == b.end);
                        continue;
                    }
                    const int h = fs / 2;
                    // every input row an output row of the band reads is in the band, or outside the image
                    for (int i = r0; i < r1; ++i)
                        for (int k = -h; k <= h; ++k) {
                            const int in = i + k;
                            REQUIRE(((in < 0 || in >= rows) || (in >= b.begin && in < b.end)));
                        }
                    // and no more: the band's first and last rows are read by some output row
                    REQUIRE(b.begin >= r0 - h);
                    REQUIRE(b.end <= r1 + h);
                }
    CHECK_THROWS_WITH(wb::hybrid::conv2d_input_rows(10, 4, 0, 5), "conv2d_input_rows: fs (4) must be odd and >= 1");
    CHECK_THROWS_AS(wb::hybrid::conv2d_input_rows(10, 3, 6, 5), std::invalid_argument);
}
