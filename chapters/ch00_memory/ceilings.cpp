// ceilings.cpp — chapter 0, experiment 1: the ceilings (copy, read, FMA in float and double)
// against the theoretical bandwidth and the FP32 and FP64 peaks. The numbers printed are the ones every later chapter divides by
// (measured_ceilings(), cached per run).
#include "context.hpp"

#include "ceilings.hpp"
#include "memory_lab.hpp"

#include <cmath>
#include <string>

namespace wb::ch00 {

void show_ceilings(Context& ctx) {
    heading("1. Ceilings: what this card can move and compute");
    const double theo = ctx.dev.bandwidth_gbs;
    const double peak = ctx.dev.fp32_peak_gflops();
    const double peak64 = ctx.dev.fp64_peak_gflops();
    say("prediction", "DRAM " + fmt(theo, 0) + " GB/s theoretical (2 x memory clock x bus width); FP32 " +
                          fmt(peak / 1e3, 1) + " TFLOP/s (" + std::to_string(ctx.dev.sm_count) + " SMs x " +
                          std::to_string(ctx.dev.fp32_lanes_per_sm) + " lanes x 2 x " + fmt(ctx.dev.sm_clock_mhz, 0) +
                          " MHz); FP64 " + fmt(peak64 / 1e3, 1) + " TFLOP/s (" +
                          std::to_string(ctx.dev.fp64_lanes_per_sm) +
                          " FP64 lanes per SM; the FP64 tensor cores are not counted). A good copy or read "
                          "kernel reaches 85-95% of the bandwidth (refresh, page switches, read/write "
                          "turnarounds); FMA chains reach 90%+ of the peak.");

    Report summary("Ceilings (every chapter's \"% of ceiling\" divides by these)",
                   {"ceiling", "value", "unit", "of theoretical/peak"});
    if (!ctx.measure) {
        summary.add_row({"theoretical DRAM", fmt(theo, 0), "GB/s", fmt_pct(1.0)});
        summary.add_row({"FP32 peak", fmt(peak, 0), "GFLOP/s", fmt_pct(1.0)});
        summary.add_row({"FP64 peak", fmt(peak64, 0), "GFLOP/s", fmt_pct(1.0)});
        for (const char* n : {"copy (memcpy)", "copy (kernel)", "read", "FP32 FMA", "FP64 FMA"})
            summary.add_row({n, "-", "-", "-"});
        emit(ctx, summary, "ceilings");
        say("reading", "nothing measured: the copy, read and FMA ceilings need a GPU.");
        return;
    }

    const auto& rows = lab::measured_ceiling_rows();
    const Ceilings& c = measured_ceilings();
    Report detail("Ceiling measurements (median of several calls, result of each checked)",
                  {"what", "shape", "amount", "ms", "rate", "unit", "of theoretical/peak", "checked"});
    for (const auto& r : rows) {
        const bool fp64 = r.what == "FP64 FMA" || r.what == "FP64 tensor cores";
        const bool clock = r.what.rfind("SM clock", 0) == 0;  // the rate is MHz, the amount the load's flops
        const bool flops = fp64 || r.what == "FMA" || clock;
        const double of = clock ? c.sm_clock_mhz : fp64 ? c.fp64_peak_gflops : flops ? c.fp32_peak_gflops : c.theoretical_gbs;
        detail.add_row({r.what, r.shape, flops ? fmt(r.amount / 1e9, 1) + " GFLOP" : fmt(r.amount / 1e9, 2) + " GB",
                        fmt(r.ms, 3), fmt(r.rate, 0), clock ? "MHz" : flops ? "GFLOP/s" : "GB/s", fmt_pct(r.rate / of),
                        r.verified ? "yes" : "NO"});
        note_check(ctx, r.verified, "ceilings: " + r.what + " " + r.shape);
    }
    emit(ctx, detail, "ceilings_detail");

    summary.add_row({"theoretical DRAM", fmt(c.theoretical_gbs, 0), "GB/s", fmt_pct(1.0)});
    summary.add_row({"copy (memcpy)", fmt(c.copy_memcpy_gbs, 0), "GB/s", fmt_pct(c.copy_memcpy_gbs / c.theoretical_gbs)});
    summary.add_row({"copy (kernel)", fmt(c.copy_kernel_gbs, 0), "GB/s", fmt_pct(c.copy_kernel_gbs / c.theoretical_gbs)});
    summary.add_row({"copy", fmt(c.copy_gbs, 0), "GB/s", fmt_pct(c.copy_gbs / c.theoretical_gbs)});
    summary.add_row({"read", fmt(c.read_gbs, 0), "GB/s", fmt_pct(c.read_gbs / c.theoretical_gbs)});
    summary.add_row({"FP32 peak", fmt(c.fp32_peak_gflops, 0), "GFLOP/s", fmt_pct(1.0)});
    summary.add_row({"FP32 FMA", fmt(c.fp32_fma_gflops, 0), "GFLOP/s", fmt_pct(c.fp32_fma_gflops / c.fp32_peak_gflops)});
    summary.add_row({"FP64 peak", fmt(c.fp64_peak_gflops, 0), "GFLOP/s", fmt_pct(1.0)});
    summary.add_row({"FP64 FMA", fmt(c.fp64_fma_gflops, 0), "GFLOP/s", fmt_pct(c.fp64_fma_gflops / c.fp64_peak_gflops)});
    if (c.fp64_tensor_gflops > 0)  // % of the FP64 FMA lanes' peak: how far the tensor cores move a DGEMM's ceiling
        summary.add_row({"FP64 tensor cores", fmt(c.fp64_tensor_gflops, 0), "GFLOP/s",
                         fmt_pct(c.fp64_tensor_gflops / c.fp64_peak_gflops)});
    if (c.sgemm_clock_mhz > 0) {  // % of the boost clock the microbenchmarks ran at
        summary.add_row({"SM clock under an SGEMM", fmt(c.sgemm_clock_mhz, 0), "MHz", fmt_pct(c.gemm_clock_share(false))});
        summary.add_row({"SM clock under a DGEMM", fmt(c.dgemm_clock_mhz, 0), "MHz", fmt_pct(c.gemm_clock_share(true))});
    }
    emit(ctx, summary, "ceilings");

    std::string r = "copies reach " + fmt_pct(c.copy_gbs / c.theoretical_gbs) + " and reads " +
                    fmt_pct(c.read_gbs / c.theoretical_gbs) + " of the theoretical bandwidth; ";
    r += c.read_gbs >= c.copy_gbs ? "a read-only stream beats a copy (no write turnarounds), so GEMV/SYMV are judged "
                                    "against the read ceiling. "
                                  : "here a copy moves more bytes per second than the read-only stream; GEMV/SYMV "
                                    "are still judged against the read ceiling, so a good one may pass 100% of it. ";
    r += "FMA chains reach " + fmt_pct(c.fp32_fma_gflops / c.fp32_peak_gflops) + " of the FP32 peak and " +
         fmt_pct(c.fp64_fma_gflops / c.fp64_peak_gflops) + " of the FP64 peak (a compute-bound op is judged by "
         "min(FMA peak, bandwidth x arithmetic intensity) in its precision).";
    if (c.fp64_tensor_gflops > 0)
        r += " The FP64 tensor cores (mma.sync .f64) run at " + fmt(c.fp64_tensor_gflops / c.fp64_fma_gflops, 2) +
             "x the FP64 FMA lanes: a DGEMM that feeds them is judged against their rate.";
    if (c.dgemm_clock_mhz > 0)
        r += " Under the vendor's GEMM the SMs hold " + fmt_pct(c.gemm_clock_share(false)) + " of the boost clock in "
             "float and " + fmt_pct(c.gemm_clock_share(true)) + " in double: the microbenchmarks keep their operands in "
             "registers, a GEMM also moves its tiles, and where that reaches the board's power limit the clock "
             "falls; the GEMM ceilings and the GEMM model run at that clock.";
    say("reading", r);
}

}  // namespace wb::ch00
