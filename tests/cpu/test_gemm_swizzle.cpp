// The tuned GEMM's coalesced, swizzled transposing loads (kernels/tuned/gemm_swizzle.hpp, used by
// TileLoader in kernels/tuned/gemm_tile_loader.cuh), checked on the host for the stage shapes the
// kernel uses (256 threads; 256- and 128-row operands; BK = 16: 4 lanes per row, BK = 8: 2) and the skinny
// tiles' long operand (128 threads, 128 rows, BK = 32: 8 lanes per row, passes of 16 rows):
// - every element (k, row) of a stage is loaded and stored exactly once;
// - one warp's 16-byte load instruction reads whole rows (BK contiguous floats each);
// - one warp's 4-byte store instruction hits 32 distinct shared-memory banks;
// - the fragment loads' offsets commute with the XOR, so a 16-byte fragment read at the swizzled
//   base row returns the rows the FMAs expect;
// - the element copies along r (ELEM_COLUMNS) cover a stage once, 32 consecutive rows per warp copy.
#include "catch.hpp"

#include "tuned/gemm_swizzle.hpp"

#include <set>
#include <utility>
#include <vector>

namespace {

namespace sw = wb::tuned::gemm_swizzle;

constexpr int kVec = 4;  // floats per 16-byte vector

template <int G>
void check_stage(int rows, int threads = 256) {
    constexpr int bk = G * kVec;
    const int per_thread = bk * rows / kVec / threads;
    INFO("BK = " << bk << " rows = " << rows << " threads = " << threads);
    REQUIRE(per_thread >= 1);
    REQUIRE(per_thread * threads * kVec == bk * rows);  // whole vectors per thread
    REQUIRE((threads / G) % sw::rows_per_pass_multiple<G>() == 0);  // TileLoader's static_assert
    std::vector<int> seen(static_cast<std::size_t>(bk) * rows, 0);
    for (int e = 0; e < per_thread; ++e)
        for (int warp = 0; warp < threads / 32; ++warp) {
            std::set<int> warp_rows;
            std::vector<std::set<int>> banks(kVec);
            for (int lane = 0; lane < 32; ++lane) {
                const unsigned t = static_cast<unsigned>(warp * 32 + lane);
                const int r = sw::row_of_thread<G>(t) + e * (threads / G);
                const int p = sw::k_of_thread<G>(t);
                REQUIRE(r >= 0);
                REQUIRE(r < rows);
                REQUIRE(p % kVec == 0);
                warp_rows.insert(r);
                for (int c = 0; c < kVec; ++c) {
                    ++seen[static_cast<std::size_t>(p + c) * rows + r];
                    const int col = r ^ sw::swizzle_xor<G>(p);
                    REQUIRE(col < rows);
                    banks[c].insert(((p + c) * rows + col) % 32);
                }
            }
            INFO("pass " << e << " warp " << warp);
            CHECK(warp_rows.size() == static_cast<std::size_t>(32 / G));  // G lanes cover each row's BK floats
            for (int c = 0; c < kVec; ++c) CHECK(banks[c].size() == 32u);
        }
    for (std::size_t i = 0; i < seen.size(); ++i) {
        INFO("element " << i);
        CHECK(seen[i] == 1);
    }
}

/// Fragment reads: base row ra = 4 * lane-row (+ warp offset), offsets q * 4 * lanes, 4 floats.
template <int G>
void check_fragments(int lanes, int frags, int rows) {
    constexpr int bk = G * kVec;
    for (int p = 0; p < bk; ++p)
        for (int base = 0; base < rows; base += 4)
            for (int q = 0; q < frags; ++q) {
                const int off = q * 4 * lanes, x = sw::swizzle_xor<G>(p);
                if (base + off + 3 >= rows) continue;
                for (int i = 0; i < 4; ++i) {
                    INFO("BK = " << bk << " p = " << p << " base row " << base << " offset " << off << " + " << i);
                    CHECK(((base ^ x) + off + i) == ((base + off + i) ^ x));
                }
            }
}

}  // namespace

TEST_CASE("gemm swizzle: each stage element loaded once, whole rows per warp load, no store bank conflicts",
          "[cpu][gemm]") {
    check_stage<4>(256);  // BK = 16: op(A) of the 256 x 128 tile
    check_stage<4>(128);  // op(B)
    check_stage<2>(256);  // BK = 8
    check_stage<2>(128);
    check_stage<8>(128, 128);  // BK = 32: FN16's op(A) = A^T, FM16's op(B) = B (128 threads)
    check_stage<4>(64);        // the 64 x 64 tile (and the element path's 64-row operands)
    check_stage<4>(64, 128);   // 128 x 64's op(B), 64 x 128's op(A)
    check_stage<4>(128, 128);  // 128 x 64's op(A), 64 x 128's op(B)
}

TEST_CASE("gemm element copies along r: each stage element once, 32 consecutive rows per warp copy", "[cpu][gemm]") {
    // TileLoader's ELEM_COLUMNS (float element path of an operand stored along r), for every
    // stage it is used on: (rows, BK, threads) of the tiles' ContigR operands.
    struct Stage { int rows, bk, threads; };
    for (const Stage st : {Stage{256, 16, 256}, Stage{128, 16, 256}, Stage{64, 16, 256}, Stage{128, 16, 128},
                           Stage{64, 16, 128}, Stage{128, 32, 128}}) {
        INFO("rows " << st.rows << " BK " << st.bk << " threads " << st.threads);
        const int per_thread = st.bk * st.rows / st.threads;
        REQUIRE(per_thread % (st.rows / 32) == 0);  // TileLoader's condition for ELEM_COLUMNS
        std::vector<int> seen(static_cast<std::size_t>(st.bk) * st.rows, 0);
        for (int e = 0; e < per_thread; ++e)
            for (int warp = 0; warp < st.threads / 32; ++warp) {
                const unsigned t0 = static_cast<unsigned>(warp * 32);
                const int col = sw::column_copy_col(t0, e, st.rows, st.threads);
                const int row0 = sw::column_copy_row(t0, e, st.rows);
                CHECK(row0 % 32 == 0);
                for (int lane = 0; lane < 32; ++lane) {
                    const unsigned t = t0 + static_cast<unsigned>(lane);
                    const int p = sw::column_copy_col(t, e, st.rows, st.threads);
                    const int r = sw::column_copy_row(t, e, st.rows);
                    REQUIRE(p >= 0);
                    REQUIRE(p < st.bk);
                    REQUIRE(r < st.rows);
                    CHECK(p == col);          // one column per warp instruction
                    CHECK(r == row0 + lane);  // 32 consecutive rows: 128 contiguous bytes
                    ++seen[static_cast<std::size_t>(p) * st.rows + r];
                }
            }
        for (std::size_t i = 0; i < seen.size(); ++i) {
            INFO("element " << i);
            CHECK(seen[i] == 1);
        }
    }
}

TEST_CASE("gemm swizzle: the fragment loads undo the XOR (offsets commute with it)", "[cpu][gemm]") {
    // The 256 x 128 tile: op(A) fragments 4 lanes x 4 rows apart, TM / 4 = 4 of them;
    // op(B) 8 lanes x 4 columns apart, TN / 4 = 2.
    check_fragments<4>(4, 4, 256);
    check_fragments<4>(8, 2, 128);
    check_fragments<2>(4, 4, 256);
    check_fragments<2>(8, 2, 128);
    // 128 x 128 (thread tile 8 x 8, warp 64 x 32): op(A) 8 lanes x 4 rows apart, 2 fragments;
    // op(B) 4 lanes x 4 columns apart, 2. 64 x 64: a 4 x 4 thread tile, one fragment.
    check_fragments<4>(8, 2, 128);
    check_fragments<4>(4, 2, 128);
    check_fragments<4>(8, 1, 64);
    // FN16 / FM16: a 4 x 4 thread tile, one fragment (no offset) at a base 4 rows apart per lane.
    check_fragments<8>(8, 1, 128);
    check_fragments<8>(8, 1, 32);
}

TEST_CASE("gemm swizzle: BK = 32 keeps a swizzled row inside its 32-row block", "[cpu][gemm]") {
    // The XOR of BK = 32 flips bits 2 .. 4 of r: a 16-byte fragment at a base that is a multiple
    // of 4 stays whole and inside the same 32 rows, so one warp's 8 fragment reads of 32
    // consecutive rows stay one 128-byte wavefront.
    for (int p = 0; p < 32; ++p) {
        std::set<int> bases;
        for (int base = 0; base < 32; base += 4) {
            const int x = base ^ sw::swizzle_xor<8>(p);
            CHECK(x % 4 == 0);
            CHECK(x < 32);
            bases.insert(x);
        }
        CHECK(bases.size() == 8u);
    }
}
