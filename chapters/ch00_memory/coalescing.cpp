// coalescing.cpp — chapter 0, experiment 2: a warp reading 32 floats with a stride, or from a
// misaligned start, against the sector model (model::warp_access: the 32-byte sectors one request
// touches; on the t10 preset, White's half-warp segments).
#include "context.hpp"

#include "ceilings.hpp"
#include "memory_lab.hpp"

#include <algorithm>
#include <string>

namespace wb::ch00 {

void show_coalescing(Context& ctx) {
    heading("2. Coalescing: strided and misaligned warp reads");
    const double ceiling = ctx.measure ? measured_ceilings().read_gbs : ctx.dev.bandwidth_gbs;
    const auto rows = ctx.measure ? lab::run_coalescing(ctx.dev, ctx.scale, ceiling)
                                  : lab::predict_coalescing(ctx.dev, ctx.scale, ceiling);
    const std::string unit = ctx.dev.transaction_threads < ctx.dev.warp_size
                                 ? "each half-warp is served by 32-, 64- or 128-byte segments (White §3.3.1)"
                                 : "one warp request moves every " + std::to_string(ctx.dev.segment_bytes) +
                                       "-byte sector its 32 addresses touch";
    const int fetch = ctx.measure ? lab::l2_fetch_granularity_bytes() : 0;
    say("prediction", unit + "; useful bandwidth = efficiency x the " +
                          (ctx.measure ? "measured read ceiling (" + fmt(ceiling, 0) + " GB/s)"
                                       : "theoretical bandwidth (" + fmt(ceiling, 0) + " GB/s)") +
                          "." +
                          (fetch > 0 ? " The driver reports an L2 fetch granularity of " + std::to_string(fetch) +
                                           " B (cudaLimitMaxL2FetchGranularity: what the L2 may fetch from DRAM per miss)."
                                     : ""));

    Report t("Warp reads of float, thread i reading element offset + i x stride (requested: sectors asked of the L2; "
             "footprint: distinct sectors, the least DRAM moves)",
             {"stride", "offset (B)", "segments/request", "efficiency", "predicted GB/s", "ms", "useful GB/s",
              "requested GB/s", "footprint GB/s", "checked"});
    for (const auto& r : rows) {
        t.add_row({std::to_string(r.stride), std::to_string(4 * r.offset), std::to_string(r.sectors),
                   fmt_pct(r.efficiency), fmt(r.predicted_gbs, 0), fmt(r.ms, 3), fmt(r.useful_gbs, 0),
                   fmt(r.moved_gbs, 0), fmt(r.footprint_gbs, 0), ctx.measure ? (r.verified ? "yes" : "NO") : "-"});
        if (ctx.measure)
            note_check(ctx, r.verified, "coalescing stride " + std::to_string(r.stride) + " offset " + std::to_string(r.offset));
    }
    emit(ctx, t, "coalescing");

    if (!ctx.measure) {
        std::string r = "nothing measured. The model:";
        for (const auto& row : rows)
            if ((row.offset == 0 && (row.stride == 2 || row.stride == 32)) || (row.stride == 1 && row.offset == 1))
                r += " " + (row.offset ? "start 4 B off" : "stride " + std::to_string(row.stride)) + " keeps " +
                     fmt_pct(row.efficiency) + " of the bytes moved;";
        r.back() = '.';
        say("reading", r);
        return;
    }
    const lab::CoalescingRow* s1 = nullptr;
    const lab::CoalescingRow* s16 = nullptr;
    const lab::CoalescingRow* s32 = nullptr;
    for (const auto& r : rows)
        if (r.offset == 0) {
            if (r.stride == 1) s1 = &r;
            if (r.stride == 16) s16 = &r;
            if (r.stride == 32) s32 = &r;
        }
    std::string reading;
    if (s1 && s32) {
        const double got = s32->useful_gbs / s1->useful_gbs, model = s32->efficiency / s1->efficiency;
        reading += "stride 32 delivers " + fmt_pct(got) + " of stride 1's useful bandwidth (sector model: " +
                   fmt_pct(model) + "): " +
                   (got < 0.75 * model   ? "worse than the model. "
                    : got > 1.25 * model ? "better than the model: DRAM or the L2 fetched fewer bytes than the sectors counted. "
                                         : "as the sector model predicts. ");
    }
    if (s1 && s16 && s16->footprint_gbs > 0) {
        // DRAM bytes per touched sector at stride 16, assuming both rows run at the DRAM rate.
        const double per_sector = 32.0 * s1->footprint_gbs / s16->footprint_gbs;
        reading += "At stride 16 DRAM moved about " + fmt(per_sector, 0) + " bytes per 32-byte sector touched" +
                   (per_sector > 48 ? " (sectors fetched in pairs: sparse reads cost up to twice what the sector model counts)"
                                    : " (one sector per sector touched, as the model counts)") +
                   ". ";
    }
    // Misaligned starts: the request touches one more sector (4-28 B off), or none (multiples of 32 B).
    double keep_lo = 1e300, keep_hi = 0, req_hi = 0, foot_hi = 0, al_lo = 1e300, al_hi = 0;
    for (const auto& r : rows) {
        if (r.offset == 0 || r.stride != 1 || !s1) continue;
        const double keep = r.useful_gbs / s1->useful_gbs;
        if ((4 * r.offset) % 32 != 0) {
            keep_lo = std::min(keep_lo, keep), keep_hi = std::max(keep_hi, keep);
            req_hi = std::max(req_hi, r.moved_gbs), foot_hi = std::max(foot_hi, r.footprint_gbs);
        } else {
            al_lo = std::min(al_lo, keep), al_hi = std::max(al_hi, keep);
        }
    }
    if (keep_hi > 0)
        reading += "Starts off a 32-byte boundary keep " + fmt_pct(keep_lo) + " to " + fmt_pct(keep_hi) +
                   " of stride 1 (model: one more sector per request); their requests ask the L2 for up to " +
                   fmt(req_hi, 0) + " GB/s of sectors (" + (req_hi > ceiling ? "above" : "below") +
                   " the read ceiling) while the footprint stays at " + fmt(foot_hi, 0) +
                   " GB/s at most: the extra sector is the next warp's first one, and the L2 serves it the second time. ";
    if (al_hi > 0)
        reading += "Starts on a 32-byte boundary keep " + fmt_pct(al_lo) + " to " + fmt_pct(al_hi) +
                   " (model: 100%).";
    say("reading", reading);
}

}  // namespace wb::ch00
