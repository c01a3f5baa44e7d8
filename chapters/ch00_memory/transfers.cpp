// transfers.cpp — chapter 0, experiment 5: host <-> device copies (pageable and pinned, both
// directions, 4 KB .. 1 GB) and White's communication model T(b) = b/Tx + c0 b + c1 (§3.4,
// Eq. 3.14-3.15) fitted piecewise to them, beside White's T10 fit and its errors.
#include "context.hpp"

#include "memory_lab.hpp"
#include "transfer_model.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace wb::ch00 {

namespace {

std::string breaks_string(const TransferModel& m) {
    std::string s;
    for (double b : m.break_points()) s += (s.empty() ? "" : "; ") + format_bytes(b);
    return s.empty() ? "none" : s;
}

}  // namespace

void show_transfers(Context& ctx) {
    heading("5. Host transfers and White's communication model (§3.4, Eq. 3.14-3.15)");
    const TransferModel t10_h2d = lab::white::t10_transfer_model(true);
    const TransferModel t10_d2h = lab::white::t10_transfer_model(false);
    say("prediction", "a copy costs a fixed set-up time plus bytes / link rate. White's T10 (PCIe 2, " +
                          std::string("Tx 3.5 GB/s up, 3.1 GB/s down) fitted:"));
    std::cout << "  T10 CPU->GPU: " << t10_h2d.to_string() << "  T10 GPU->CPU: " << t10_d2h.to_string()
              << "  White's errors: CPU->GPU max " << fmt(lab::white::kH2DMaxErrPct, 1) << "%, average "
              << fmt(lab::white::kH2DAvgErrPct, 1) << "%; GPU->CPU max " << fmt(lab::white::kD2HMaxErrPct, 1)
              << "%, average " << fmt(lab::white::kD2HAvgErrPct, 1) << "%.\n"
              << "  Today: a PCIe 5 x16 link moves about 50-55 GB/s from pinned memory; pageable memory adds a "
                 "CPU copy through a pinned staging buffer and runs at host-memcpy speed.\n";

    const auto rows = ctx.measure ? lab::run_transfers(ctx.scale) : lab::predict_transfers(ctx.scale);
    const bool kinds_pinned[] = {false, true, false, true};
    const bool kinds_h2d[] = {true, true, false, false};

    // The fits (measured runs only), then the table with the fitted times and errors.
    std::vector<TransferModel> fits;
    if (ctx.measure)
        for (int k = 0; k < 4; ++k) fits.push_back(lab::fit_transfers(rows, kinds_pinned[k], kinds_h2d[k]));

    Report lng("Transfers, one row per (kind, bytes)",
               {"kind", "bytes", "ms", "GB/s", "fitted ms", "fit error", "T10 model ms"});
    for (const auto& r : rows) {
        int k = 0;
        while (!(kinds_pinned[k] == r.pinned && kinds_h2d[k] == r.h2d)) ++k;
        const double fitted = ctx.measure && std::isfinite(r.ms) ? fits[static_cast<std::size_t>(k)].predict(r.bytes) : NAN;
        // CSV only: enough digits for a 4 KB copy of a few microseconds.
        lng.add_row({lab::transfer_kind(r.pinned, r.h2d), fmt(r.bytes, 0), fmt(r.ms, 6), fmt(r.gbs, 3), fmt(fitted, 6),
                     std::isfinite(fitted) ? fmt_pct(std::abs(fitted - r.ms) / r.ms) : "-", fmt(r.t10_ms, 6)});
    }
    emit(ctx, lng, "transfers", /*print=*/false);

    // CSV only: every segment of every model (the fits, then White's T10 fits), so that a plot
    // (scripts/plot_ch00.py) can draw the fitted curves between the measured sizes.
    Report segs("Transfer model segments: T(b) = b / Tx + c0 b + c1 for lo <= b < hi",
                {"kind", "Tx GB/s", "segment", "lo bytes", "hi bytes", "c0 ms/GB", "c1 us", "points"});
    auto add_segments = [&](const std::string& kind, const TransferModel& m) {
        for (std::size_t i = 0; i < m.segments().size(); ++i) {
            const TransferSegment& sg = m.segments()[i];
            segs.add_row({kind, fmt(m.tx_gbs(), 4), std::to_string(i), fmt(sg.lo_bytes, 0), fmt(sg.hi_bytes, 0),
                          fmt(sg.c0_ms_per_byte * 1e9, 6), fmt(sg.c1_ms * 1e3, 4), std::to_string(sg.points)});
        }
    };
    for (std::size_t k = 0; k < fits.size(); ++k) add_segments(lab::transfer_kind(kinds_pinned[k], kinds_h2d[k]), fits[k]);
    add_segments("T10 H2D", t10_h2d);
    add_segments("T10 D2H", t10_d2h);
    emit(ctx, segs, "transfer_segments", /*print=*/false);

    // Wide: bytes down, the four kinds across (ms and GB/s), White's model last. The CSV has the
    // same columns measured or not ("-" where nothing was measured), so runs of both kinds can
    // append to one file; without a measurement only the T10 columns are printed.
    const std::vector<double> sizes = lab::transfer_sizes(ctx.scale);
    Report wide(ctx.measure ? "Transfer time (ms) and rate (GB/s), measured" : "Transfer time (ms) predicted by White's T10 model",
                {"bytes", "pageable H2D ms", "GB/s", "pinned H2D ms", "GB/s", "pageable D2H ms", "GB/s", "pinned D2H ms",
                 "GB/s", "T10 H2D ms", "T10 D2H ms"});
    Report narrow("Transfer time (ms) predicted by White's T10 model", {"bytes", "T10 H2D ms", "T10 D2H ms"});
    for (double b : sizes) {
        std::vector<std::string> cells{format_bytes(b)};
        for (int k = 0; k < 4; ++k) {
            const lab::TransferRow* found = nullptr;
            for (const auto& r : rows)
                if (r.bytes == b && r.pinned == kinds_pinned[k] && r.h2d == kinds_h2d[k]) found = &r;
            cells.push_back(found ? fmt(found->ms, 4) : "-");
            cells.push_back(found ? fmt(found->gbs, 2) : "-");
        }
        cells.push_back(fmt(t10_h2d.predict(b), 4));
        cells.push_back(fmt(t10_d2h.predict(b), 4));
        wide.add_row(cells);
        narrow.add_row({format_bytes(b), fmt(t10_h2d.predict(b), 4), fmt(t10_d2h.predict(b), 4)});
    }
    if (!ctx.measure) {
        narrow.print(std::cout);
        std::cout << '\n';
    }
    emit(ctx, wide, "transfers_table", /*print=*/ctx.measure);

    if (!ctx.measure) {
        say("reading", "nothing measured: White's fit reproduced his T10 copies within 5.0% (max) / 1.0% (average) "
                       "CPU->GPU and 8.9% / 1.4% GPU->CPU.");
        return;
    }

    Report fitr("White's model fitted to this machine's copies (T10 errors from White §3.4)",
                {"kind", "Tx GB/s", "segments", "break points", "max error", "avg error", "T10 max", "T10 avg"});
    for (int k = 0; k < 4; ++k) {
        const TransferModel& m = fits[static_cast<std::size_t>(k)];
        fitr.add_row({lab::transfer_kind(kinds_pinned[k], kinds_h2d[k]), fmt(m.tx_gbs(), 2),
                      std::to_string(m.segments().size()), breaks_string(m), fmt(m.max_error_pct(), 1) + "%",
                      fmt(m.avg_error_pct(), 1) + "%",
                      fmt(kinds_h2d[k] ? lab::white::kH2DMaxErrPct : lab::white::kD2HMaxErrPct, 1) + "%",
                      fmt(kinds_h2d[k] ? lab::white::kH2DAvgErrPct : lab::white::kD2HAvgErrPct, 1) + "%"});
    }
    emit(ctx, fitr, "transfer_fit", true);
    for (int k = 0; k < 4; ++k)
        std::cout << "  " << lab::transfer_kind(kinds_pinned[k], kinds_h2d[k]) << ": "
                  << fits[static_cast<std::size_t>(k)].to_string();

    double worst_avg = 0;
    for (const auto& m : fits) worst_avg = std::max(worst_avg, m.avg_error_pct());
    const double pinned_up = fits[1].tx_gbs(), pageable_up = fits[0].tx_gbs();
    say("reading", "pinned copies peak at " + fmt(pinned_up, 1) + " GB/s host-to-device, " +
                       fmt_ratio(pinned_up / 3.5) + " White's T10, pageable ones at " + fmt(pageable_up, 1) +
                       " GB/s; the piecewise model still fits within " + fmt(worst_avg, 1) +
                       "% on average (White: 1.0-1.4%), so chapter 7 can use it to decide where to compute.");
}

}  // namespace wb::ch00
