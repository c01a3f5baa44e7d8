// Which data each side of chapter 7's hybrids reads (kernels/cpu/hybrid_partition.hpp), checked
// element by element without a GPU: SYMV's share of whole stored columns, replayed on counters for
// every share and chunk of odd sizes and both triangles (each term once, from the stored triangle;
// each stored element of the GPU's columns copied once; each chunk's rows complete at its end);
// the convolution's input band, whose rows hold every neighbour an output row of the band reads.
#include "catch.hpp"

#include "hybrid_partition.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

using wb::Uplo;
using wb::hybrid::Block;

namespace {

bool inside(const Block& b, int i, int j) {
    return i >= b.row0 && i < b.row0 + b.rows && j >= b.col0 && j < b.col0 + b.cols;
}

bool stored(Uplo u, int i, int j) { return u == Uplo::Lower ? i >= j : i <= j; }

/// The hybrid SYMV with g of n rows on the GPU in chunks of `chunk`, replayed on counters: every
/// element (i, j) of the full matrix must be added into y(i) exactly once, from a stored element
/// only; every stored element of the GPU's columns copied exactly once and no other element read
/// by it; the CPU's diagonal block disjoint from the GPU's panels; and each chunk's rows complete
/// when the chunk ends (every term of them added by it or by a chunk before it).
void check_share(Uplo u, int n, int g, int chunk) {
    INFO("uplo " << (u == Uplo::Lower ? "L" : "U") << " n " << n << " g " << g << " chunk " << chunk);
    std::vector<int> adds(static_cast<std::size_t>(n) * n, 0), copies(static_cast<std::size_t>(n) * n, 0);
    auto at = [n](std::vector<int>& v, int i, int j) -> int& { return v[static_cast<std::size_t>(j) * n + i]; };
    auto read = [&](int i, int j) {  // y(i) += A(i, j) from the stored element
        REQUIRE((stored(u, i, j) || stored(u, j, i)));
        ++at(adds, i, j);
    };
    const auto mine = wb::hybrid::symv_gpu_rows(u, n, g);
    REQUIRE(mine.end - mine.begin == g);
    REQUIRE((u == Uplo::Lower ? mine.begin == 0 : mine.end == n));
    std::vector<int> complete_after(static_cast<std::size_t>(n), -1);  // the chunk whose end completes a row
    int k = 0;
    for (int r0 = 0; r0 < g; r0 += chunk, ++k) {
        const int c = std::min(chunk, g - r0);
        const auto cols = wb::hybrid::symv_gpu_chunk(u, n, g, r0, c);
        REQUIRE((cols.begin >= mine.begin && cols.end <= mine.end && cols.end - cols.begin == c));
        const auto p = wb::hybrid::symv_columns_plan(u, n, cols.begin, cols.end);
        // the panel: exactly the chunk's columns, the stored part of them (and the diagonal block)
        REQUIRE((p.panel.col0 == cols.begin && p.panel.cols == c));
        for (int j = cols.begin; j < cols.end; ++j)
            for (int i = 0; i < n; ++i) {
                const bool in_panel = inside(p.panel, i, j);
                REQUIRE(in_panel == (stored(u, i, j) || inside(p.diag, i, j)));
                if (in_panel) ++at(copies, i, j);
            }
        REQUIRE((inside(p.panel, p.diag.row0, p.diag.col0) || p.diag.empty()));
        for (int i = cols.begin; i < cols.end; ++i)  // the SYMV of the diagonal block
            for (int j = cols.begin; j < cols.end; ++j) read(i, j);
        if (!p.off.empty()) {
            REQUIRE((p.off.col0 == cols.begin && p.off.cols == c));
            for (int i = p.off.row0; i < p.off.row0 + p.off.rows; ++i)
                for (int j = cols.begin; j < cols.end; ++j) {
                    REQUIRE(stored(u, i, j));
                    REQUIRE(inside(p.panel, i, j));
                    read(i, j);  // GEMV N: y(off rows) += off x(chunk)
                    read(j, i);  // GEMV T: y(chunk) += off^T x(off rows)
                }
        }
        for (int i = cols.begin; i < cols.end; ++i) {
            for (int j = 0; j < n; ++j) REQUIRE(at(adds, i, j) == 1);  // complete at the chunk's end
            complete_after[static_cast<std::size_t>(i)] = k;
        }
    }
    // the CPU's rows: one SYMV of their diagonal block, disjoint from the GPU's columns
    const int c0 = u == Uplo::Lower ? g : 0, r = n - g;
    const auto cpu_rows = wb::hybrid::symv_cpu_rows(u, n, g);
    REQUIRE((cpu_rows.begin == c0 && cpu_rows.end == c0 + r));
    for (int i = c0; i < c0 + r; ++i) {
        REQUIRE((i < mine.begin || i >= mine.end));
        for (int j = c0; j < c0 + r; ++j) {
            if (stored(u, i, j)) REQUIRE(at(copies, i, j) == 0);
            read(i, j);
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            REQUIRE(at(adds, i, j) == 1);
            if (j >= mine.begin && j < mine.end && stored(u, i, j)) REQUIRE(at(copies, i, j) == 1);
        }
    for (int i = mine.begin; i < mine.end; ++i) REQUIRE(complete_after[static_cast<std::size_t>(i)] >= 0);
}

}  // namespace

TEST_CASE("hybrid SYMV: every term added once, from the stored triangle; the GPU's columns copied once",
          "[cpu][split]") {
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
        for (int n : {1, 2, 7, 31, 64})
            for (int g = 0; g <= n; g += (n > 10 ? 3 : 1))
                for (int chunk : {1, 2, 5, 17, n}) check_share(u, n, g, std::max(1, chunk));
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) check_share(u, 64, 64, 64);  // the all-GPU call
}

TEST_CASE("hybrid SYMV: the GPU's share moves its columns of the triangle; bad ranges throw", "[cpu][split]") {
    for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
        const int n = 101, g = 30;
        long long panels = 0;
        for (int r0 = 0; r0 < g; r0 += 7) {
            const auto cols = wb::hybrid::symv_gpu_chunk(u, n, g, r0, std::min(7, g - r0));
            const auto p = wb::hybrid::symv_columns_plan(u, n, cols.begin, cols.end);
            panels += static_cast<long long>(p.panel.rows) * p.panel.cols;
        }
        // g whole columns of the triangle, and each chunk's diagonal block whole (7 x 6 / 2 more per
        // chunk of 7, 1 x 0 for the last of 2 ... : the triangle's other half inside the blocks)
        const long long triangle = static_cast<long long>(g) * n - static_cast<long long>(g) * (g - 1) / 2;
        long long upper_halves = 0;
        for (int r0 = 0; r0 < g; r0 += 7) {
            const long long c = std::min(7, g - r0);
            upper_halves += c * (c - 1) / 2;
        }
        CHECK(panels == triangle + upper_halves);
    }
    CHECK_THROWS_WITH(wb::hybrid::symv_columns_plan(Uplo::Lower, 10, 4, 11),
                      "symv_columns_plan: c0 (4) and c1 (11) must satisfy 0 <= c0 <= c1 <= n (10)");
    CHECK_THROWS_AS(wb::hybrid::symv_columns_plan(Uplo::Upper, 10, 5, 4), std::invalid_argument);
    CHECK_THROWS_WITH(wb::hybrid::symv_gpu_rows(Uplo::Upper, 10, 11), "symv_gpu_rows: g (11) must be in [0, n] ([0, 10])");
    CHECK_THROWS_WITH(wb::hybrid::symv_cpu_rows(Uplo::Lower, 10, -1), "symv_cpu_rows: g (-1) must be in [0, n] ([0, 10])");
    CHECK_THROWS_WITH(wb::hybrid::symv_gpu_chunk(Uplo::Lower, 10, 6, 4, 3),
                      "symv_gpu_chunk: r0 (4) and c (3) must satisfy 0 <= r0 <= r0 + c <= g (6)");
    CHECK_THROWS_AS(wb::hybrid::symv_gpu_chunk(Uplo::Lower, 10, 6, -1, 3), std::invalid_argument);
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
