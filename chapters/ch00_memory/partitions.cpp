// partitions.cpp — chapter 0, experiment 3: partition camping (White §3.1, Listing 3.1, Table 3.1)
// on this GPU beside White's T10 table, and a leading-dimension test (a power-of-two lda against
// lda + 32 and lda + 1) on a memory-bound column-sum kernel.
#include "context.hpp"

#include "memory_lab.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace wb::ch00 {

namespace {

/// Row of White's tables for v, or -1.
int white_row(int v) {
    for (int i = 0; i < 6; ++i)
        if (lab::white::kV[i] == v) return i;
    return -1;
}

}  // namespace

void show_partitions(Context& ctx) {
    heading("3a. Partition camping (White §3.1, Listing 3.1, Table 3.1)");
    const auto rows = ctx.measure ? lab::run_partition_camping(ctx.dev, ctx.scale)
                                  : lab::predict_partition_camping(ctx.dev, ctx.scale);
    if (ctx.dev.partitions > 0)
        say("prediction", ctx.dev.name + " maps each 256-byte column of a 2 KB row to one of " +
                              std::to_string(ctx.dev.partitions) +
                              " partitions: blocks camping on p of them get p/8 of the bandwidth (White measured exactly "
                              "that: 69 -> 35 -> 17 -> 8.7 GB/s).");
    else
        say("prediction", "this card hashes addresses across its memory channels (no linear map of 256-byte "
                          "partitions), so the model predicts no slowdown: the same bandwidth for 8, 4, 2 and 1 columns.");

    // Long format for the CSV: one row per (v, partitions).
    Report lng("Partition camping, one row per (v, partitions)",
               {"v", "partitions", "predicted slowdown", "ms", "GB/s", "T10 ms", "T10 GB/s", "checked"});
    for (const auto& r : rows) {
        const int w = white_row(r.v);
        int col = -1;
        for (int j = 0; j < 4; ++j)
            if (lab::white::kPartitions[j] == r.partitions) col = j;
        lng.add_row({std::to_string(r.v), std::to_string(r.partitions), fmt_ratio(r.predicted_slowdown), fmt(r.ms, 3),
                     fmt(r.gbs, 0), w >= 0 && col >= 0 ? fmt(lab::white::kTable31Ms[w][col], 1) : "-",
                     w >= 0 && col >= 0 ? fmt(lab::white::kTable31Gbs[w][col], 1) : "-",
                     ctx.measure ? (r.verified ? "yes" : "NO") : "-"});
        if (ctx.measure) note_check(ctx, r.verified, "partitions v " + std::to_string(r.v) + " p " + std::to_string(r.partitions));
    }
    emit(ctx, lng, "partitions", /*print=*/false);

    // Wide tables, White's shape: v down, partitions across, T10 beside this GPU.
    std::vector<int> vs;
    for (int v : lab::white::kV) vs.push_back(v);
    for (const auto& r : rows)
        if (white_row(r.v) < 0 && (vs.empty() || vs.back() != r.v)) vs.push_back(r.v);
    auto find = [&](int v, int p) -> const lab::PartitionRow* {
        for (const auto& r : rows)
            if (r.v == v && r.partitions == p) return &r;
        return nullptr;
    };
    const std::string here = ctx.measure ? "this GPU" : "predicted";
    Report ta("(a) time, ms: White's T10 beside " + here,
              {"v", "T10 p=8", "T10 p=4", "T10 p=2", "T10 p=1", "p=8", "p=4", "p=2", "p=1"});
    Report tb(std::string("(b) bandwidth, GB/s: White's T10 beside this GPU (and p=1 / p=8)") +
                  (ctx.measure ? "" : " - not measured"),
              {"v", "T10 p=8", "T10 p=4", "T10 p=2", "T10 p=1", "p=8", "p=4", "p=2", "p=1", "T10 1/8", "1/8"});
    for (int v : vs) {
        const int w = white_row(v);
        std::vector<std::string> a{std::to_string(v)}, b{std::to_string(v)};
        for (int j = 0; j < 4; ++j) {
            a.push_back(w >= 0 ? fmt(lab::white::kTable31Ms[w][j], 1) : "-");
            b.push_back(w >= 0 ? fmt(lab::white::kTable31Gbs[w][j], 1) : "-");
        }
        for (int p : lab::white::kPartitions) {
            const auto* r = find(v, p);
            a.push_back(r ? (ctx.measure ? fmt(r->ms, 3) : fmt_ratio(r->predicted_slowdown)) : "-");
            b.push_back(r && ctx.measure ? fmt(r->gbs, 0) : "-");
        }
        b.push_back(w >= 0 ? fmt_pct(lab::white::kTable31Gbs[w][3] / lab::white::kTable31Gbs[w][0]) : "-");
        const auto *r1 = find(v, 1), *r8 = find(v, 8);
        b.push_back(r1 && r8 && ctx.measure ? fmt_pct(r1->gbs / r8->gbs) : "-");
        ta.add_row(a);
        tb.add_row(b);
    }
    if (!ctx.measure) std::cout << "(columns p=8..1 of table (a) hold the predicted slowdown against p=8)\n";
    emit(ctx, ta, "partitions_table_a", true);
    emit(ctx, tb, "partitions_table_b", true);

    if (!ctx.measure) {
        say("reading", "nothing measured: on the T10, White's 1-partition runs took 7.9x as long as the 8-partition runs.");
        return;
    }
    double worst = 1e300;
    for (int v : vs) {
        const auto *r1 = find(v, 1), *r8 = find(v, 8);
        if (r1 && r8) worst = std::min(worst, r1->gbs / r8->gbs);
    }
    say("reading", worst > 0.85
                       ? "blocks camping on one 256-byte column of eight still get " + fmt_pct(worst) +
                             " of the eight-column bandwidth (T10: about 12.5%): the addresses are hashed across the memory "
                             "channels, so White's partition camping does not show on this card."
                       : "one 256-byte column of eight gets only " + fmt_pct(worst) +
                             " of the eight-column bandwidth (T10: about 12.5%): some camping shows on this card — "
                             "the address hash does not spread this pattern evenly.");
}

void show_lda(Context& ctx) {
    heading("3b. Leading dimensions: a power of two against lda + 32 and lda + 1");
    const auto rows = ctx.measure ? lab::run_lda(ctx.dev, ctx.scale) : lab::predict_lda(ctx.dev, ctx.scale);
    say("prediction",
        ctx.dev.partitions > 0
            ? "column sums, one block per column, every block starting at row 0: with a power-of-two lda all columns "
              "start in the same partition (White Fig. 4.11a); lda + 32 staggers them by 128 B."
            : "column sums, one block per column, every block starting at row 0 of its column. With hashed channels "
              "the model predicts the same bandwidth for every lda.");
    Report t("Column sums of a column-major m x n float matrix (GEMV-T with x = 1)",
             {"m", "n", "lda", "partitions touched", "predicted slowdown", "ms", "GB/s", "vs lda = m", "checked"});
    for (const auto& r : rows) {
        double base = NAN;
        for (const auto& b : rows)
            if (b.m == r.m && b.lda == b.m) base = b.gbs;
        t.add_row({std::to_string(r.m), std::to_string(r.n), std::to_string(r.lda),
                   r.partitions_touched > 0 ? std::to_string(r.partitions_touched) : "hashed",
                   fmt_ratio(r.predicted_slowdown), fmt(r.ms, 3), fmt(r.gbs, 0),
                   ctx.measure ? fmt_ratio(r.gbs / base) : "-", ctx.measure ? (r.verified ? "yes" : "NO") : "-"});
        if (ctx.measure) note_check(ctx, r.verified, "lda " + std::to_string(r.lda));
    }
    emit(ctx, t, "lda");
    if (!ctx.measure) {
        say("reading", "nothing measured.");
        return;
    }
    double lo = 1e300, hi = 0;
    for (const auto& r : rows)
        for (const auto& b : rows)
            if (b.m == r.m && b.lda == b.m && r.lda != r.m) {
                lo = std::min(lo, r.gbs / b.gbs);
                hi = std::max(hi, r.gbs / b.gbs);
            }
    say("reading", "padding the leading dimension changes the bandwidth by a factor between " + fmt_ratio(lo) + " and " +
                       fmt_ratio(hi) +
                       (hi < 1.1 && lo > 0.9 ? ": a power-of-two lda costs nothing measurable here."
                                             : ": the leading dimension matters on this card; pad it."));
}

}  // namespace wb::ch00
