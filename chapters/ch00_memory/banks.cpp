// banks.cpp — chapter 0, experiment 4: shared-memory bank conflicts (White §3.2, Listing 3.2,
// Table 3.2) with 32 .. 1 banks touched per warp, beside White's T10 table (16 .. 1 banks per
// half-warp), and the +1 padding fix measured.
#include "context.hpp"

#include "memory_lab.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace wb::ch00 {

void show_banks(Context& ctx) {
    heading("4. Shared-memory bank conflicts (White §3.2, Listing 3.2, Table 3.2)");
    const auto rows = ctx.measure ? lab::run_bank_conflicts(ctx.dev, ctx.scale)
                                  : lab::predict_bank_conflicts(ctx.dev, ctx.scale);
    // The bank counts of this device's rows, in order (32 .. 1 today, 16 .. 1 on the t10).
    std::vector<int> banks;
    for (const auto& r : rows)
        if (!r.padded && std::find(banks.begin(), banks.end(), r.banks) == banks.end()) banks.push_back(r.banks);

    std::string ways;
    for (const auto& r : rows) {
        if (r.v != rows.front().v) break;
        ways += (ways.empty() ? "" : ", ") + (r.padded ? std::string("padded, 1 bank") : std::to_string(r.banks) + (r.banks == 1 ? " bank" : " banks")) +
                " -> " + std::to_string(r.ways) + "-way";
    }
    say("prediction", std::to_string(ctx.dev.banks) + " banks of 4 bytes; a request of " +
                          std::to_string(std::min(ctx.dev.banks, ctx.dev.transaction_threads)) +
                          " threads touching b distinct banks (distinct words) is replayed " +
                          std::to_string(std::min(ctx.dev.banks, ctx.dev.transaction_threads)) +
                          "/b times: " + ways + ". Time should grow with the ways once shared memory is the bottleneck.");

    Report lng("Bank conflicts, one row per (v, banks)",
               {"v", "banks", "padded", "predicted ways", "ms", "smem GB/s", "slowdown", "checked"});
    for (const auto& r : rows) {
        lng.add_row({std::to_string(r.v), std::to_string(r.banks), r.padded ? "yes" : "no", std::to_string(r.ways),
                     fmt(r.ms, 3), fmt(r.smem_gbs, 0), fmt_ratio(r.slowdown), ctx.measure ? (r.verified ? "yes" : "NO") : "-"});
        if (ctx.measure)
            note_check(ctx, r.verified, "banks v " + std::to_string(r.v) + " banks " + std::to_string(r.banks) +
                                            (r.padded ? " padded" : ""));
    }
    emit(ctx, lng, "banks", /*print=*/false);

    std::vector<int> vs(std::begin(lab::white::kV), std::end(lab::white::kV));
    for (const auto& r : rows)
        if (white_row(r.v) < 0 && std::find(vs.begin(), vs.end(), r.v) == vs.end()) vs.push_back(r.v);
    auto find = [&](int v, int b, bool padded) -> const lab::BankRow* {
        for (const auto& r : rows)
            if (r.v == v && r.banks == b && r.padded == padded) return &r;
        return nullptr;
    };
    std::vector<std::string> cols{"v"};
    for (int b : lab::white::kBanks) cols.push_back("T10 " + std::to_string(b));
    for (int b : banks) cols.push_back(std::to_string(b));
    cols.push_back("padded");
    const std::string here = ctx.measure ? "this GPU" : "predicted ways";
    Report ta("(a) time, ms: White's T10 (banks per half-warp) beside " + here + " (banks per warp)", cols);
    Report tb(std::string("(b) bandwidth, GB/s: White's T10 beside this GPU (shared-memory bytes read / time)") +
                  (ctx.measure ? "" : " - not measured"),
              cols);
    for (int v : vs) {
        const int w = white_row(v);
        std::vector<std::string> a{std::to_string(v)}, b{std::to_string(v)};
        for (int j = 0; j < 5; ++j) {
            a.push_back(w >= 0 ? fmt(lab::white::kTable32Ms[w][j], 1) : "-");
            b.push_back(w >= 0 ? fmt(lab::white::kTable32Gbs[w][j], 1) : "-");
        }
        for (int bk : banks) {
            const auto* r = find(v, bk, false);
            a.push_back(!r ? "-" : ctx.measure ? fmt(r->ms, 3) : std::to_string(r->ways));
            b.push_back(r && ctx.measure ? fmt(r->smem_gbs, 0) : "-");
        }
        const auto* p = find(v, 1, true);
        a.push_back(!p ? "-" : ctx.measure ? fmt(p->ms, 3) : std::to_string(p->ways));
        b.push_back(p && ctx.measure ? fmt(p->smem_gbs, 0) : "-");
        ta.add_row(a);
        if (ctx.measure || w >= 0) tb.add_row(b);
    }
    emit(ctx, ta, "banks_table_a", true);
    emit(ctx, tb, "banks_table_b", true);

    if (!ctx.measure) {
        say("reading", "nothing measured: on the T10, one bank per half-warp (16-way) cost White 3.6x the "
                       "conflict-free time, far below 16x — his loop also read global memory every step.");
        return;
    }
    // The largest v: the longest, most stable run.
    const int vmax = rows.back().v;
    const auto* free_ = find(vmax, banks.front(), false);
    const auto* one = find(vmax, 1, false);
    const auto* pad = find(vmax, 1, true);
    // Each halving of the banks doubles the ways: the time ratio of neighbouring columns.
    double step_lo = 1e300, step_hi = 0;
    for (std::size_t i = 1; i < banks.size(); ++i) {
        const auto *a = find(vmax, banks[i - 1], false), *b = find(vmax, banks[i], false);
        if (a && b) step_lo = std::min(step_lo, b->ms / a->ms), step_hi = std::max(step_hi, b->ms / a->ms);
    }
    if (free_ && one && pad)
        say("reading", std::to_string(one->ways) + "-way conflicts take " + fmt_ratio(one->ms / free_->ms) +
                           " the conflict-free time (model: " + std::to_string(one->ways) +
                           "x); padding the tile by one column brings the same column walk back to " +
                           fmt_ratio(pad->ms / free_->ms) + " of conflict-free. Each halving of the banks multiplies the time by " +
                           fmt_ratio(step_lo) + " to " + fmt_ratio(step_hi) + " (model: 2x)" +
                           (step_lo > 1.8 ? ": the bank pipe is the bottleneck from the first halving on, unlike on the T10, "
                                            "where global-memory reads in the same loop hid most of the conflicts."
                                          : ": the first halvings are partly hidden behind instruction issue."));
}

}  // namespace wb::ch00
