/// \file ch07_split/main.cpp
/// \brief Chapter 7 — the CPU/GPU split (White §4.6, Listing 4.18): for each op, size and
///        precision, data that starts in host memory and whose result must end there, run on the
///        CPU (the CPU peers: OpenBLAS, our OpenMP convolution, CG from BLAS calls), on the GPU with
///        its transfers, or on both at once (the hybrid: rows of the output split in proportion to
///        the predicted rates); the model's three times, its choice, and the measured CPU time.
/// Run: ./workbook run ch07   (or build/bin/ch07_split --help)
///
/// The CPU column is measured on every machine (the peers need no GPU). The machines the model
/// predicts with: this host, measured at the start (model/cpu.hpp), and the GPU of --device-preset
/// with a link that is fitted to measured copies where there is a GPU (split_cases.hpp). On a GPU
/// the GEMV rows also time the GPU-with-transfers and hybrid ways (kernels/cpu/hybrid_gemv.hpp);
/// the other ops' GPU columns are the model's until their hybrid runners exist.
#include "split_cases.hpp"
#include "split_options.hpp"

#include "cpu_peers.hpp"
#include "device.hpp"
#include "device_profile.hpp"
#include "memory_fit.hpp"
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace wb;
using ch07::SplitOptions;

int run(const SplitOptions& opt) {
    std::cout << "Chapter 7 — the CPU/GPU split (White §4.6, Listing 4.18)\n"
              << "Data starts in host memory and the result must end there. Three ways to run each call:\n"
              << "  CPU     the host peer (OpenBLAS for GEMV/GEMM/SYMV, our OpenMP convolution, CG from BLAS calls)\n"
              << "  GPU     copy in, the tuned kernel, copy out: T_gpu + T_comm (White Eq. 3.14-3.15)\n"
              << "  hybrid  the GPU takes a share f of the rows, the CPU the rest, both at once;\n"
              << "          f = (C0 + C1 - G0) / (C1 + G1) ends both together (CG: White §5.2, vectors on the CPU)\n\n";

    ch07::Machines m;
    m.chunks = opt.chunks;
    m.cg_iterations = opt.cg_iterations;
    std::cout << "Measuring the host (read bandwidth, FMA rate) ...\n";
    m.cpu = model::measure_cpu_machine(cpu::threads());  // the peers' threads (OMP_NUM_THREADS), not every core
    std::cout << "  " << model::to_string(m.cpu) << '\n';
    const bool gpu = has_cuda_device() && !opt.predict_only;
    if (gpu) select_device(opt.device);
    // The model predicts for the GPU the run measures (its hybrid shares come from it), unless a
    // preset is named; without a GPU, for the H200 preset.
    m.gpu = !opt.preset.empty() ? device_preset(opt.preset)
            : gpu               ? device_profile_from_device(opt.device)
                                : device_preset("h200");
    if (gpu) std::cout << "Measuring the host <-> device copies (pinned) ...\n";
    m.links = gpu ? ch07::measured_pinned_links() : ch07::h200_pinned_links();
    std::cout << "  GPU: " << m.gpu.name << ", " << fmt(m.gpu.bandwidth_gbs, 0) << " GB/s, "
              << fmt(m.gpu.fp32_peak_gflops(), 0) << " / " << fmt(m.gpu.fp64_peak_gflops(), 0)
              << " GFLOP/s float / double (roofline of the kernels)\n"
              << "  link: " << m.links.source << '\n'
              << "  CPU peers: " << (cpu::have_cblas() ? "OpenBLAS" : "no CBLAS in this build (conv2d only)") << ", "
              << cpu::threads() << " threads\n";
    if (gpu)
        std::cout << "  GPU columns measured for GEMV (pinned host memory); for the other ops they are the model's.\n";
    else
        std::cout << "  No CUDA device (or --predict-only): the GPU and hybrid columns are the model's predictions"
                  << (opt.device != 0 ? " (--device " + std::to_string(opt.device) + " is not read)" : std::string())
                  << ".\n";
    std::cout << '\n';

    Report table("Where each call runs (ms; CG: a solve of " + std::to_string(opt.cg_iterations) + " iterations)",
                 {"op", "T", "n", "CPU model", "CPU measured", "GPU+comm model", "GPU+comm measured", "hybrid model",
                  "hybrid measured", "GPU share", "White 4.18", "model's choice", "measured best"});
    int rc = 0;
    std::size_t skipped = 0;
    for (const auto& op : opt.ops) {
        const std::vector<int> sizes = opt.sizes.empty() ? ch07::default_sizes(op, opt.quick) : opt.sizes;
        for (const auto& prec : opt.precisions) {
            const std::size_t elem = prec == "float" ? 4 : 8;
            for (int n : sizes) {
                const ch07::CasePrediction p = ch07::predict_case(op, n, elem, m);
                double measured = NAN;
                ch07::GpuTimes g;
                // A case the host cannot hold is skipped, in words, before anything is allocated
                // (the rows measured so far are kept; the exit code says cases were skipped).
                const double need = ch07::host_bytes_needed(op, n, elem, gpu);
                const std::string shortfall =
                    opt.predict_only ? std::string() : memory_shortfall({0, need}, {-1, host_available_bytes()});
                const std::string what = "ch07_split: " + op + " " + prec + " n=" + std::to_string(n) + ": ";
                if (!shortfall.empty()) {
                    std::cerr << what << "not measured: " << shortfall << '\n';
                    ++skipped;
                } else if (!opt.predict_only) {
                    try {
                        measured = ch07::measure_cpu_case(op, n, elem, opt.cg_iterations);
                        if (gpu) g = ch07::measure_gpu_case(op, n, elem, p.split.gpu_share, opt.chunks);
                    } catch (const std::bad_alloc&) {
                        std::cerr << what << "not measured: the host could not allocate its operands ("
                                  << fmt_decimal_bytes(need) << ")\n";
                        ++skipped;
                    } catch (const std::runtime_error& e) {
                        std::cerr << what << e.what() << '\n';
                        rc = 1;
                    }
                }
                // The fastest measured way; with only the CPU measured there is nothing to choose.
                std::string best = "-";
                if (!std::isnan(g.gpu_ms) && !std::isnan(measured)) {
                    const double lo = std::min({measured, g.gpu_ms, g.hybrid_ms});
                    best = lo == measured ? "CPU" : lo == g.gpu_ms ? "GPU" : "hybrid";
                }
                const std::string share = std::isnan(p.split.gpu_share) ? p.hybrid_kind : fmt_pct(p.split.gpu_share);
                table.add_row({op, prec, std::to_string(n), fmt(p.cpu_model_ms, 4), fmt(measured, 4),
                               fmt(p.split.gpu_ms, 4), fmt(g.gpu_ms, 4), fmt(p.split.hybrid_ms, 4),
                               fmt(g.hybrid_ms, 4), share,
                               split::where_name(p.split.white), split::where_name(p.split.choice), best});
            }
        }
    }
    table.print(std::cout);
    if (!opt.csv.empty()) {  // the metadata name the GPU whose GEMV columns were measured
        const DeviceInfo di = gpu ? query_device(opt.device) : DeviceInfo{};
        table.write_csv(opt.csv, run_metadata(gpu ? &di : nullptr));
    }
    std::cout << "\nReading: 'White 4.18' is his rule (CPU when T_cpu <= T_gpu + T_comm); the model's choice adds the "
                 "hybrid where it predicts a gain of 5% or more over the better single side. The CPU model is this "
                 "host's limit (max of bytes / bandwidth and flops / FMA rate): the measured column shows how close "
                 "each peer comes.\n";
    if (skipped > 0)
        std::cerr << "ch07_split: " << skipped << " case(s) not measured: not enough host memory (the lines above "
                     "say how much)\n";
    return rc != 0 ? rc : skipped > 0 ? 3 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    SplitOptions opt;
    if (const int rc = ch07::parse_split_cli(argc, argv, opt); rc >= 0) return rc;
    try {
        return run(opt);
    } catch (const std::exception& e) {
        std::cerr << "ch07_split: error: " << e.what() << '\n';
        return 1;
    }
}
