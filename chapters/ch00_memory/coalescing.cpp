// coalescing.cpp — chapter 0, experiment 2: a warp reading 32 floats with a stride, or from a
// misaligned start, against the sector model (model::warp_access: the 32-byte sectors one request
// touches; on the t10 preset, White's half-warp segments).
#include "context.hpp"

#include "ceilings.hpp"
#include "memory_lab.hpp"

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
    say("prediction", unit + "; useful bandwidth = efficiency x the " +
                          (ctx.measure ? "measured read ceiling (" + fmt(ceiling, 0) + " GB/s)"
                                       : "theoretical bandwidth (" + fmt(ceiling, 0) + " GB/s)") +
                          ".");

    Report t("Warp reads of float: thread i reads element offset + i x stride (footprint fixed, so the bytes moved "
             "stay put while the useful bytes shrink)",
             {"stride", "offset (B)", "segments/request", "efficiency", "predicted GB/s", "ms", "useful GB/s",
              "moved GB/s", "checked"});
    for (const auto& r : rows) {
        t.add_row({std::to_string(r.stride), std::to_string(4 * r.offset), std::to_string(r.sectors),
                   fmt_pct(r.efficiency), fmt(r.predicted_gbs, 0), fmt(r.ms, 3), fmt(r.useful_gbs, 0),
                   fmt(r.moved_gbs, 0), ctx.measure ? (r.verified ? "yes" : "NO") : "-"});
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
    const lab::CoalescingRow* s32 = nullptr;
    const lab::CoalescingRow* worst_off = nullptr;
    for (const auto& r : rows) {
        if (r.offset == 0 && r.stride == 1) s1 = &r;
        if (r.offset == 0 && r.stride == 32) s32 = &r;
        if (r.offset != 0 && (!worst_off || r.useful_gbs < worst_off->useful_gbs)) worst_off = &r;
    }
    std::string reading;
    if (s1 && s32)
        reading += "stride 32 delivers " + fmt_pct(s32->useful_gbs / s1->useful_gbs) + " of stride 1's useful bandwidth (model: " +
                   fmt_pct(s32->efficiency / s1->efficiency) + "): " +
                   (s32->useful_gbs / s1->useful_gbs < 1.5 * s32->efficiency / s1->efficiency
                        ? "the sector model holds. "
                        : "better than the model: DRAM or the L2 fetched fewer bytes than the sectors counted. ");
    if (s1 && worst_off)
        reading += "The worst misaligned start (" + std::to_string(4 * worst_off->offset) + " B) keeps " +
                   fmt_pct(worst_off->useful_gbs / s1->useful_gbs) + " (model: " + fmt_pct(worst_off->efficiency) +
                   "): the neighbouring warp reads the extra sector anyway, and the L2 serves it the second time.";
    say("reading", reading);
}

}  // namespace wb::ch00
