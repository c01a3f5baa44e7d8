// partitions.cpp — chapter 0, experiment 3: partition camping (White §3.1, Listing 3.1, Table 3.1)
// on this GPU beside White's T10 table, and a leading-dimension test (a power-of-two lda against
// lda + 32 and lda + 1) on a memory-bound column-sum kernel.
#include "context.hpp"

#include "ceilings.hpp"
#include "memory_lab.hpp"
#include "transfer_model.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace wb::ch00 {

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
    // L2 size, for the reuse distance of each row (bytes the grid reads before an address returns).
    const double l2 = static_cast<double>(ctx.dev.l2_bytes);
    Report lng("Partition camping, one row per (v, partitions)",
               {"v", "partitions", "predicted slowdown", "ms", "GB/s", "T10 ms", "T10 GB/s", "reread after",
                "x L2", "checked"});
    for (const auto& r : rows) {
        const int w = white_row(r.v);
        int col = -1;
        for (int j = 0; j < 4; ++j)
            if (lab::white::kPartitions[j] == r.partitions) col = j;
        lng.add_row({std::to_string(r.v), std::to_string(r.partitions), fmt_ratio(r.predicted_slowdown), fmt(r.ms, 3),
                     fmt(r.gbs, 0), w >= 0 && col >= 0 ? fmt(lab::white::kTable31Ms[w][col], 1) : "-",
                     w >= 0 && col >= 0 ? fmt(lab::white::kTable31Gbs[w][col], 1) : "-",
                     std::isfinite(r.reuse_bytes) ? format_bytes(r.reuse_bytes) : "-",
                     std::isfinite(r.reuse_bytes) && l2 > 0 ? fmt(r.reuse_bytes / l2, 0) + "x" : "-",
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
    double worst = 1e300, best = 0, reuse = 1e300, above = 0;
    for (int v : vs) {
        const auto *r1 = find(v, 1), *r8 = find(v, 8);
        if (r1 && r8) worst = std::min(worst, r1->gbs / r8->gbs), best = std::max(best, r1->gbs / r8->gbs);
    }
    const double ceiling = measured_ceilings().read_gbs;
    for (const auto& r : rows) {
        if (std::isfinite(r.reuse_bytes)) reuse = std::min(reuse, r.reuse_bytes);
        above = std::max(above, r.gbs / ceiling);
    }
    // Every address comes back only after `reuse` bytes of other reads: far above the L2, the L2
    // cannot serve the rereads and every row measures DRAM (White's T10 had no L2 at all).
    const bool l2_safe = l2 > 0 && reuse >= 16 * l2;
    say("reading",
        "one 256-byte column of eight gets " + fmt_pct(worst) + " to " + fmt_pct(best) +
            " of the eight-column bandwidth (T10: about 12.5%): " +
            (worst > 0.85 ? "the addresses are hashed across the memory channels, so White's partition camping does "
                            "not show on this card. "
                          : "some camping shows on this card — the address hash does not spread this pattern evenly. ") +
            "An address is read again only after " + format_bytes(reuse) + " of other reads (" +
            (l2 > 0 ? fmt(reuse / l2, 0) + "x the L2" : "L2 size unknown") + ")" +
            (l2_safe ? ", so no row is served by the L2" : ": the L2 may serve part of the rereads, so rows can overstate DRAM") +
            "; the fastest row reached " + fmt_pct(above) + " of the read ceiling" +
            (above > 1.03 ? " — above it: something was served from cache, distrust those rows." : "."));
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
    // The claim under test is camping: a power-of-two lda against the same matrix with its columns
    // staggered by 128 B (lda + 32). lda + 1 is the unaligned control: every warp touches one more
    // sector, which the L2 absorbs (experiment 2), so it should cost a little or nothing.
    double pad_lo = 1e300, pad_hi = 0, un_lo = 1e300, un_hi = 0;
    long long un_hi_m = 0;
    for (const auto& r : rows)
        for (const auto& b : rows)
            if (b.m == r.m && b.lda == b.m && r.lda != r.m) {
                const double x = r.gbs / b.gbs;
                if (r.lda == r.m + 32) pad_lo = std::min(pad_lo, x), pad_hi = std::max(pad_hi, x);
                else {
                    un_lo = std::min(un_lo, x);
                    if (x > un_hi) un_hi = x, un_hi_m = r.m;
                }
            }
    std::string reading;
    if (pad_hi > 0)
        reading += "staggering the columns by 128 B (lda + 32) changes the bandwidth by " + fmt_ratio(pad_lo) + " to " +
                   fmt_ratio(pad_hi) + " against the power of two: " +
                   (pad_lo > 0.95 && pad_hi < 1.05 ? "a power-of-two leading dimension costs nothing measurable here. "
                    : pad_hi >= 1.05           ? "the power of two is slower here: padding the leading dimension helps. "
                                               : "the padded one is slower here. ");
    if (un_hi > 0)
        reading += "Unaligned columns (lda + 1) run at " + fmt_ratio(un_lo) + " to " + fmt_ratio(un_hi) +
                   " of it" +
                   (un_hi > 1.05 ? ": faster at m = " + std::to_string(un_hi_m) +
                                       ", which camping cannot explain (it would slow the power of two, not speed up an "
                                       "unaligned lda); each block there reads only " +
                                       format_bytes(4.0 * static_cast<double>(un_hi_m)) +
                                       ", so block scheduling weighs on the time: repeat the run before reading more into it."
                                 : ".");
    say("reading", reading);
}

}  // namespace wb::ch00
