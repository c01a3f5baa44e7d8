// test_model_symv.cpp — the SYMV model per ladder stage: bytes of the triangle read once or twice,
// the naive design's strided mirror, the workspace and reduction traffic of the storage-aware
// designs (Nath §5), the atomics mode, the longest walk that Y cuts, the optimality bound of
// Nath §7.2, argument validation, and the ladder's order on the h200 preset.
#include "catch.hpp"

#include "model/symv.hpp"
#include "roofline.hpp"

#include <stdexcept>

using namespace wb::model;
using wb::device_preset;

namespace {

SymvModelLaunch launch(int threads, int nb, int y = 1, bool atomics = false) {
    SymvModelLaunch l;
    l.block_threads = threads;
    l.nb = nb;
    l.y_blocks = y;
    l.atomics = atomics;
    return l;
}

}  // namespace

TEST_CASE("SYMV model: useful bytes, the triangle and the optimality bound", "[model][symv]") {
    const auto h200 = device_preset("h200");
    const long long n = 4096;
    for (int e : {4, 8}) {
        const auto p = predict_symv(wb::Stage::kTuned, n, e, {}, h200);
        CHECK(p.useful_bytes == Approx(wb::roofline::symv_bytes(n, e)));
        CHECK(p.triangle_bytes == Approx(e * n * (n + 1) / 2.0));
        CHECK(p.optimal_ms == Approx(p.useful_bytes / (h200.bandwidth_gbs * 1e6)));
        CHECK(p.optimal_gflops == Approx(4.0 * h200.bandwidth_gbs / e));  // Nath §7.2: 1 flop per byte in float
        CHECK(p.predicted_ms >= p.optimal_ms);
    }
}

TEST_CASE("SYMV model: bytes of A per design", "[model][symv]") {
    const auto h200 = device_preset("h200");
    const long long n = 2048;
    const double tri = 4.0 * n * (n + 1) / 2, mirror = n * (n - 1) / 2.0;
    const auto naive = predict_symv(wb::Stage::kNaive, n, 4, {}, h200);
    CHECK(naive.matrix_bytes == Approx(tri + 32.0 * mirror));      // the mirror: one sector per element
    CHECK(naive.matrix_bytes_cached == Approx(tri + 4.0 * mirror));  // both triangles, sectors reused
    CHECK(naive.workspace_bytes == 0);
    const auto shared = predict_symv(wb::Stage::kShared, n, 4, {}, h200);
    CHECK(shared.matrix_bytes == Approx(tri + 4.0 * mirror));  // storage oblivious: n^2 elements
    CHECK(shared.workspace_bytes == 0);
    for (const wb::Stage s : {wb::Stage::kPattern, wb::Stage::kAccess, wb::Stage::kTuned}) {
        INFO(wb::stage_name(s));
        CHECK(predict_symv(s, n, 4, {}, h200).matrix_bytes == Approx(tri));  // storage aware: once
    }
    CHECK(naive.transactions == static_cast<long long>(naive.matrix_bytes / 32));
}

TEST_CASE("SYMV model: workspace and reduction traffic (Nath §5), atomics", "[model][symv]") {
    const auto h200 = device_preset("h200");
    const long long n = 4096;
    const auto pattern = predict_symv(wb::Stage::kPattern, n, 4, {}, h200);  // nb = 32: nt = 128
    CHECK(pattern.partials == n * 127 / 2 + n);
    CHECK(pattern.workspace_bytes == Approx(2.0 * 4 * pattern.partials));  // written, then read
    const auto access = predict_symv(wb::Stage::kAccess, n, 8, {}, h200);  // nb = 64: nt = 64
    CHECK(access.partials == n * 63 / 2 + 2 * n);
    CHECK(access.workspace_bytes == Approx(2.0 * 8 * access.partials));
    const auto det = predict_symv(wb::Stage::kTuned, n, 4, launch(256, 64, 4), h200);
    CHECK(det.partials == n * 63 / 2 + 4 * n);
    CHECK(det.workspace_bytes == Approx(2.0 * 4 * det.partials));
    CHECK(det.atomic_adds == 0);
    const auto atom = predict_symv(wb::Stage::kTuned, n, 4, launch(256, 64, 4, true), h200);
    CHECK(atom.atomic_adds == det.partials);
    CHECK(atom.workspace_bytes == Approx(2.0 * 4 * n));  // the beta pass reads and writes y
    CHECK(predict_symv(wb::Stage::kTuned, n, 4, launch(256, 64, 4, true), h200, false).workspace_bytes == Approx(4.0 * n));
    CHECK(atom.dram_bytes < det.dram_bytes);
    // The workspace is a few percent of the triangle: 2 n (nt - 1) / 2 / (n^2 / 2) ~ 2 / nb.
    CHECK(pattern.workspace_bytes / pattern.triangle_bytes == Approx(2.0 / 32).epsilon(0.05));
}

TEST_CASE("SYMV model: Y blocks per column cut the longest walk", "[model][symv]") {
    const auto h200 = device_preset("h200");
    const long long n = 8192;  // nb = 64: nt = 128
    const auto y1 = predict_symv(wb::Stage::kTuned, n, 4, launch(256, 64, 1), h200);
    const auto y8 = predict_symv(wb::Stage::kTuned, n, 4, launch(256, 64, 8), h200);
    CHECK(y1.longest_walk == 127 + 1);
    CHECK(y8.longest_walk == 16 + 1);
    CHECK(y8.grid.total_blocks == 8 * y1.grid.total_blocks);
    // Y = 1 waits on the first column's 127 tiles after the others have finished; Y = 8 walks
    // while the bus is busy and ends with 17-tile walks (the walk counts the shared bus too, so
    // it shrinks less than the 7.5x of the longest walk).
    CHECK(y8.walk_ms < 0.5 * y1.walk_ms);
    CHECK(y8.predicted_ms < 0.6 * y1.predicted_ms);
    CHECK_THAT(y1.note, Catch::Matchers::StartsWith("walk-bound"));
    CHECK_THAT(y8.note, Catch::Matchers::StartsWith("bandwidth-bound"));
    CHECK(predict_symv(wb::Stage::kPattern, 32768, 4, {}, h200).longest_walk == 1024);  // the last block row
}

TEST_CASE("SYMV model: blocks' ends cost the (64, 8) tile, not the 256-thread layouts, as Y grows", "[model][symv]") {
    // Measured (tests/data/h200-launches-page-symv-r20.csv, 16384 double): the (64, 8) tile, one
    // resident block of 512 threads per SM, slowed from 0.3021 ms at Y = 1 to 0.3519 at Y = 32,
    // its blocks 32 x shorter, each still ending with a tile used after its loads and the column
    // sums; the 256-thread vector layout (two resident blocks) stayed at 0.2752-0.2851 from Y = 2
    // on. Nsight Compute (float 16384, docs/notes/symv.md): DRAM throughput fell from 84% to 67%
    // of peak from Y = 2 to 32 in the (64, 8) tile, with its warps resident all along.
    const auto h200 = device_preset("h200");
    const long long n = 16384;
    const double wide1 = predict_symv(wb::Stage::kTuned, n, 8, launch(512, 64, 2), h200).predicted_ms;
    const double wide32 = predict_symv(wb::Stage::kTuned, n, 8, launch(512, 64, 32), h200).predicted_ms;
    const double vec2 = predict_symv(wb::Stage::kTuned, n, 8, launch(256, 64, 2), h200).predicted_ms;
    const double vec32 = predict_symv(wb::Stage::kTuned, n, 8, launch(256, 64, 32), h200).predicted_ms;
    CHECK(wide32 > 1.05 * wide1);
    CHECK(vec32 < 1.05 * vec2);
    CHECK(wide32 > vec32);
}

TEST_CASE("SYMV model: the warp-rows layout's small requests bind in float, not in double", "[model][symv]") {
    // Measured (tests/data/h200-launches-page-symv-r24.csv, 16384, Y = 8): float warp-rows 0.1770
    // ms against the vector layout's 0.1441; Nsight Compute: 21 M L2 requests against 8.6 M.
    const auto h200 = device_preset("h200");
    SymvModelLaunch wr = launch(256, 64, 8);
    wr.warp_rows = true;
    const auto vec = predict_symv(wb::Stage::kTuned, 16384, 4, launch(256, 64, 8), h200);
    const auto rows = predict_symv(wb::Stage::kTuned, 16384, 4, wr, h200);
    CHECK(rows.predicted_ms > 1.05 * vec.predicted_ms);
    CHECK_THAT(rows.note, Catch::Matchers::StartsWith("L2-request-bound"));
    CHECK_THAT(vec.note, Catch::Matchers::StartsWith("bandwidth-bound"));
    // Double: two sectors per request, half as many for the same bytes: the bytes bind.
    const auto vec_d = predict_symv(wb::Stage::kTuned, 16384, 8, launch(256, 64, 8), h200);
    const auto rows_d = predict_symv(wb::Stage::kTuned, 16384, 8, wr, h200);
    CHECK(rows_d.predicted_ms == Approx(vec_d.predicted_ms).epsilon(0.01));
}

TEST_CASE("SYMV model: the ladder's order on the h200 preset", "[model][symv]") {
    const auto h200 = device_preset("h200");
    for (int e : {4, 8})
        for (long long n : {8192LL, 16384LL, 32768LL}) {
            INFO("elem " << e << " n " << n);
            const auto shared = predict_symv(wb::Stage::kShared, n, e, {}, h200);
            const auto pattern = predict_symv(wb::Stage::kPattern, n, e, {}, h200);
            const double naive = predict_symv(wb::Stage::kNaive, n, e, {}, h200).predicted_gbs;
            const double access = predict_symv(wb::Stage::kAccess, n, e, {}, h200).predicted_gbs;
            // Chapter 5's tuned launch at these n: the derivation's 256-thread vector layout (nb = 64,
            // Y = 8 or 16; tests/data/h200-launches-page-symv-r20.csv). The (64, 8) tile of 512
            // threads is not it: one resident block per SM in double, whose ends the model now
            // charges (model/kernel_time.hpp, bare_rounds), runs at the access step's speed
            // (16384 double: 0.3155 ms against 0.3200, the same run and docs/results/h200/symv-ladder.csv).
            const double tuned = predict_symv(wb::Stage::kTuned, n, e, launch(256, 64, 8), h200).predicted_gbs;
            CHECK(naive < shared.predicted_gbs);
            // Nath §5.4: the pattern step halves the bytes, but its longest block row (nt tiles,
            // two round trips each, a reduction after each) takes about as long as every block
            // row of the shared step: no gain until the bytes, not the walk, set the time. The
            // H200 measured pattern at 0.82x shared (float, lower, n = 16384: 0.7396 against
            // 0.6101 ms, docs/results/h200/symv-ladder.csv).
            CHECK(pattern.dram_bytes < 0.6 * shared.dram_bytes);
            CHECK(pattern.predicted_gbs >= 0.7 * shared.predicted_gbs);
            if (n <= 16384) CHECK(pattern.predicted_gbs <= 1.1 * shared.predicted_gbs);
            else CHECK(pattern.predicted_gbs > 1.3 * shared.predicted_gbs);  // the bytes decide
            CHECK(access > pattern.predicted_gbs);
            CHECK(tuned >= access);
            CHECK(tuned <= h200.bandwidth_gbs);
            if (n >= 16384) CHECK(tuned > 0.85 * h200.bandwidth_gbs);
        }
}

TEST_CASE("SYMV model: empty problems and bad arguments", "[model][symv]") {
    const auto h200 = device_preset("h200");
    const auto z = predict_symv(wb::Stage::kAccess, 0, 4, {}, h200);
    CHECK(z.useful_bytes == 0);
    CHECK(z.predicted_ms == Approx(kLaunchOverheadUs * 1e-3));
    CHECK_THROWS_WITH(predict_symv(wb::Stage::kTuned, -1, 4, {}, h200), Catch::Matchers::Contains("n (-1) must be >= 0"));
    CHECK_THROWS_WITH(predict_symv(wb::Stage::kTuned, 8, 2, {}, h200), Catch::Matchers::Contains("elem_bytes (2) must be 4 or 8"));
    CHECK_THROWS_WITH(predict_symv(wb::Stage::kNaive, 8, 4, launch(100, 0), h200),
                      Catch::Matchers::Contains("launch.block_threads (100) must be a multiple of 32"));
    // A stage the table gains before the model does throws, never guesses.
    CHECK_THROWS_AS(predict_symv(static_cast<wb::Stage>(99), 8, 4, {}, h200), std::invalid_argument);
    CHECK(symv_default_launch(wb::Stage::kTuned, 8).block_threads == 512);
}
