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
        lng.add_row({lab::transfer_kind(r.pinned, r.h2d), fmt(r.bytes, 0), fmt(r.ms, 4), fmt(r.gbs, 2), fmt(fitted, 4),
                     std::isfinite(fitted) ? fmt_pct(std::abs(fitted - r.ms) / r.ms) : "-", fmt(r.t10_ms, 4)});
    }
    emit(ctx, lng, "transfers", /*print=*/false);

    // Wide: bytes down, the four kinds across (ms and GB/s), White's model last.
    std::vector<double> sizes = lab::transfer_sizes(ctx.scale);
    Report wide(ctx.measure ? "Transfer time (ms) and rate (GB/s), measured" : "Transfer time (ms) predicted by White's T10 model",
                ctx.measure ? std::vector<std::string>{"bytes", "pageable H2D ms", "GB/s", "pinned H2D ms", "GB/s",
                                                       "pageable D2H ms", "GB/s", "pinned D2H ms", "GB/s", "T10 H2D ms",
                                                       "T10 D2H ms"}
                            : std::vector<std::string>{"bytes", "T10 H2D ms", "T10 D2H ms"});
    for (double b : sizes) {
        std::vector<std::string> cells{format_bytes(b)};
        if (ctx.measure)
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
    }
    emit(ctx, wide, "transfers_table", true);

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
