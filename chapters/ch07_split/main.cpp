/// \file ch07_split/main.cpp
/// \brief Chapter 7 — the CPU/GPU split (White §4.6, Listing 4.18): for each op, size and
///        precision, data that starts in host memory and whose result must end there, run on the
///        CPU (the CPU peers: OpenBLAS, our OpenMP convolution, CG from BLAS calls), on the GPU with
///        its transfers, or on both at once (the hybrid: rows of the output split in proportion to
///        the predicted rates; CG: White's §5.2 split); the model's three times and its choice
///        beside the three measured, the measured best, the hit rate and the crossovers.
/// Run: ./workbook run ch07   (or build/bin/ch07_split --help)
///      build/bin/ch07_split --replay docs/results/h200/ch07-full.txt docs/results/h200/ch07-full.csv
///      (the chapter's table replayed: no device needed)
///
/// The machines the model predicts with are measured at the start: the host (model/cpu.hpp:
/// bandwidth in and beyond the last-level cache, FMA rate), its peer classes' rates
/// (kernels/cpu/peer_rates.hpp), the link (chapter 0's transfer model) and the tuned kernels'
/// rates (split_calibrate.hpp). Without a GPU the CPU column is still measured and the other two
/// are the model's.
#include "split_calibrate.hpp"
#include "split_cases.hpp"
#include "split_cpu_again.hpp"
#include "split_crossover_table.hpp"
#include "split_measure.hpp"
#include "split_options.hpp"
#include "split_paths.hpp"
#include "split_replay_run.hpp"
#include "split_summary.hpp"
#include "split_vendor.hpp"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "device.hpp"
#include "device_profile.hpp"
#include "hybrid_balance.hpp"
#include "hybrid_common.hpp"
#include "hybrid_conv2d.hpp"
#include "memory_fit.hpp"
#include "peer_rates.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "xt_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace wb;
using ch07::SplitOptions;

/// The rows a run covers, in table order.
std::vector<ch07::Case> cases_of(const SplitOptions& opt) {
    const ch07::SizeSet set = opt.quick ? ch07::SizeSet::quick : opt.full ? ch07::SizeSet::full : ch07::SizeSet::normal;
    std::vector<ch07::Case> out;
    for (const auto& op : opt.ops)
        for (const auto& prec : opt.precisions)
            for (int fs : op == "conv2d" ? opt.filter_sizes : std::vector<int>{0})
                for (int n : opt.sizes.empty() ? ch07::default_sizes(op, set) : opt.sizes)
                    out.push_back({op, n, prec == "float" ? std::size_t{4} : std::size_t{8}, fs, opt.ld_pad});
    return out;
}

/// A link's model in full, for the log (a replay reads it: split_replay.hpp): "Tx 55.46 GB/s;
/// [0, 262144) c0 1.2e-09 ms/B c1 0.0081 ms; [262144, inf) ...".
std::string link_line(const TransferModel& t) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "Tx %.6g GB/s", t.tx_gbs());
    std::string s = buf;
    for (const auto& g : t.segments()) {
        std::snprintf(buf, sizeof buf, "; [%.6g, %.6g) c0 %.6g ms/B c1 %.6g ms", g.lo_bytes, g.hi_bytes, g.c0_ms_per_byte,
                      g.c1_ms);
        s += buf;
    }
    return s;
}

/// Where the CPU peers' classes are measured, at the start and when a group's are timed again.
cpu::CalibrationSizes peer_sizes(const SplitOptions& opt, const model::CpuMachine& cpu) {
    cpu::CalibrationSizes sizes = cpu::default_calibration_sizes(cpu);
    sizes.symv_own_arrays = opt.symv_own_arrays;
    return sizes;
}

/// Measures the machines the model predicts with (the file comment), printing what it found.
ch07::Machines measure_machines(const SplitOptions& opt, bool gpu) {
    ch07::Machines m;
    m.chunks = opt.chunks;
    m.derived_chunks = !opt.chunks_given;
    m.price_issue = opt.price_issue;
    m.symv_balanced = opt.balanced_symv;
    m.cpu_again = opt.cpu_again && !opt.predict_only;
    m.warm_gemm_a = !opt.cold_a;
    m.measured_depths = opt.measured_depths;
    // --balance-ab compares the balanced call with the chapter at its fixed share: the calibration
    // then times the fixed share, as that chapter would
    m.balanced = !opt.fixed_share && !opt.balance_ab;
    m.balanced_margin = m.balanced ? 0 : -1;  // the rows the balanced call runs: any gain that saves its fixed cost
    m.cg_iterations = opt.cg_iterations;
    const bool conv = std::find(opt.ops.begin(), opt.ops.end(), "conv2d") != opt.ops.end();
    const std::vector<int> fs = conv ? opt.filter_sizes : std::vector<int>{};
    std::cout << "Measuring the host (last-level cache, read bandwidth in and beyond it, FMA rate) ...\n";
    m.cpu = model::measure_cpu_machine(cpu::threads());  // the peers' threads (OMP_NUM_THREADS)
    std::cout << "  " << model::to_string(m.cpu) << '\n' << "  " << model::curve_to_string(m.cpu) << '\n';
    if (gpu) select_device(opt.device);
    if (opt.predict_only && opt.symv_own_arrays)
        std::cout << "  --symv-own-arrays does nothing with --predict-only (no CPU peer is calibrated)\n";
    if (opt.predict_only && opt.cpu_again)
        std::cout << "  --cpu-again does nothing with --predict-only (no CPU peer is calibrated)\n";
    if (!opt.predict_only) {
        std::cout << "Measuring the CPU peers' rates in each regime of their library (1t: a call OpenBLAS keeps on "
                     "the calling thread; t0: the fixed cost, e: the share of the roofline reached at each working "
                     "set) ...\n";
        const cpu::HostAlloc pinned = ch07::host_alloc(gpu);
        const cpu::CalibrationSizes sizes = peer_sizes(opt, m.cpu);
        if (sizes.symv_own_arrays) std::cout << "  SYMV's grid: a matrix of its own per size (--symv-own-arrays)\n";
        try {
            for (const auto& line : cpu::calibrate_peer_rates(m.cpu, fs, sizes, pinned))
                std::cout << "  " << line << '\n';
        } catch (const std::exception& e) {  // the classes measured so far are kept; the others are the roofline
            std::cout << "  the peers' calibration stopped (" << e.what() << "): "
                      << m.cpu.peers.size() << " classes measured\n";
        }
    }
    // The model predicts for the GPU the run measures (its hybrid shares come from it), unless a
    // preset is named; without a GPU, for the H200 preset.
    m.gpu = !opt.preset.empty() ? device_preset(opt.preset)
            : gpu               ? device_profile_from_device(opt.device)
                                : device_preset("h200");
    if (gpu) std::cout << "Measuring the host <-> device copies (pinned) ...\n";
    m.links = gpu ? ch07::measured_pinned_links() : ch07::h200_pinned_links();
    if (gpu && opt.preset.empty()) {
        std::cout << "Measuring the tuned kernels' rates (t0: a tiny call; e: the share of the roofline a mid-size "
                     "call reaches) ...\n";
        std::vector<std::string> log;
        m.gpu_rates = ch07::measure_gpu_rates(m.gpu, fs, opt.cg_iterations, {}, m.links, &log);
        for (const auto& line : log) std::cout << "  " << line << '\n';
    }
    if (gpu) {
        m.hybrid_overhead_ms = hybrid::measure_hybrid_overhead_ms();
        m.hybrid_conv_threads = hybrid::conv2d_cpu_side_threads();
        std::cout << "  an empty hybrid call (its GPU side issued and waited for on the calling thread, the return): "
                  << fmt(m.hybrid_overhead_ms * 1e3, 1) << " us; the convolution's CPU side runs on "
                  << m.hybrid_conv_threads << " of " << cpu::threads()
                  << " threads (a core left to the thread that wakes when the GPU is done)\n";
        m.cg_product_without_a = true;
        std::cout << "  " << ch07::kCgProductLine << '\n';
    }
    if (gpu && !opt.predict_only) {
        std::cout << "Measuring the host memory both sides of a hybrid read (the CPU's threads while pinned copies "
                     "run both ways) ...\n";
        std::string line;
        try {
            m.host_shared_gbs =
                ch07::measure_host_shared_gbs(cpu::threads(), model::default_max_working_set(m.cpu.llc_bytes), &line);
        } catch (const std::exception& e) {  // the hybrid is then not bounded by it; the run goes on
            m.host_shared_gbs = 0;
            line = std::string("host memory both sides share: not measured (") + e.what() + ")";
        }
        std::cout << "  " << line << '\n';
        // Only the GEMM hybrid's model reads them (Machines::warm_gemm_a).
        if (m.warm_gemm_a && std::find(opt.ops.begin(), opt.ops.end(), "gemm") != opt.ops.end()) {
            std::cout << "Measuring host-to-device copies of data the host's threads just read, beside the same copies "
                         "as the copy engine left them ...\n";
            try {
                m.warm = ch07::measure_warm_copies(cpu::threads());
                std::cout << "  " << ch07::warm_copies_line(m.warm) << '\n';
            } catch (const std::exception& e) {  // the GEMM hybrid's A then moves at the link's rate
                m.warm = {};
                std::cout << "  copies of data the host just read: not measured (" << e.what() << ")\n";
            }
        }
        std::cout << "Measuring each class's all-GPU path as the rows time it (t0: its fixed costs at a tiny size, in "
                     "one chunk and in the hybrid's, every class's calls timed in turn; pipeline: the chunked call's proportional time over the model's "
                     "serial one; residual: a real hybrid beyond the model of its two sides) ...\n";
        std::vector<ch07::Case> classes;
        auto add = [&](const std::string& op) {
            for (const auto& prec : opt.precisions)
                for (int f : op == "conv2d" ? opt.filter_sizes : std::vector<int>{0})
                    classes.push_back({op, 0, prec == "float" ? std::size_t{4} : std::size_t{8}, f});
        };
        for (const auto& op : opt.ops)
            if (op != "cg") add(op);
        // CG's split pays a SYMV path's fixed cost every iteration.
        if (std::find(opt.ops.begin(), opt.ops.end(), "cg") != opt.ops.end() &&
            std::find(opt.ops.begin(), opt.ops.end(), "symv") == opt.ops.end())
            add("symv");
        std::vector<std::string> log;
        ch07::calibrate_paths(m, classes, ch07::GpuCalibrationSizes{}.tiny_n, ch07::GpuCalibrationSizes{}, &log);
        for (const auto& l : log) std::cout << "  " << l << '\n';
    }
    std::cout << "  GPU: " << m.gpu.name << ", " << fmt(m.gpu.bandwidth_gbs, 1) << " GB/s, "
              << fmt(m.gpu.fp32_peak_gflops(), 1) << " / " << fmt(m.gpu.fp64_peak_gflops(), 1)
              << " GFLOP/s float / double (the kernels' roofline); kernel rates " << m.gpu_rates.source << '\n'
              << "  link: " << m.links.source << " (H2D max error " << fmt(m.links.h2d.max_error_pct(), 1)
              << "%, D2H " << fmt(m.links.d2h.max_error_pct(), 1) << "% over the copies fitted)\n"
              << "  link H2D: " << link_line(m.links.h2d) << "\n  link D2H: " << link_line(m.links.d2h) << '\n'
              << "  CPU peers: " << cpu::blas_library() << "; " << cpu::threads() << " threads\n"
              << "  hybrid CPU share: each call priced at the share's footprint (the working set of all its calls)\n"
              << "  hybrid SYMV: the CPU's share is one SYMV of its diagonal block (the GPU adds the block beside it)\n"
              << "  hybrid floor: chosen only where it also saves its GPU side's fixed cost (the class's t0 in K chunks)\n"
              << "  hybrid SYMV: the GPU's share priced as what it copies (g whole stored columns, g n - g^2 / 2 elements, "
                 "and each chunk's diagonal block)\n";
    if (m.balanced)
        std::cout << "  hybrid GEMV, GEMM and convolution: balanced while they run (the model's share the plan; the "
                     "GPU's chunks issued between the CPU's pieces from the other end; --fixed-share: the fixed share)\n";
    if (m.warm_gemm_a && m.warm.measured())
        std::cout << "  hybrid GEMM: A's copy priced at the rate of data the host's threads just read (its CPU share reads "
                     "A while A is copied; --cold-a: the link's rate)\n";
    if (m.cpu_again)
        std::cout << "  CPU peer classes: each group's timed again just before its rows (the start's grid and regimes; "
                     "--cpu-again)\n";
    if (m.balanced && m.symv_balanced)
        std::cout << "  hybrid SYMV: balanced while it runs (its stored columns claimed from both ends in units of "
                     "equal work; the CPU's pieces read each stored element once)\n";
    if (m.balanced_margin >= 0)
        std::cout << "  hybrid margin of the balanced rows: " << fmt(100 * m.balanced_margin, 1)
                  << "% (a balanced call moves its split to the sides' measured rates while it runs; the run's margin "
                     "for the other hybrids, the floor on the saving for every one)\n";
    if (m.price_issue)
        std::cout << "  hybrid CPU side: begins once the calling thread has issued the GPU's chunks (priced per chunk "
                     "as measured, --price-issue)\n";
    if (m.derived_chunks)
        std::cout << "  pipeline depth: derived per call, the model's fastest hybrid (a share inside 0 - 100%) at "
                  << ch07::depths_list() << " chunks where the class's path was measured (anchored at " << m.chunks
                  << ")\n";
    else
        std::cout << "  pipeline depth: every hybrid in " << m.chunks << " chunks (--chunks)\n";
    if (opt.fixed_order)
        std::cout << "  rows' rounds: every round in one order, each hybrid right after its CPU peer (--fixed-order)\n";
    else
        std::cout << "  rows' rounds: each size's CPU peer and its hybrid (an A/B's two arms) trade places every other round\n";
    if (!gpu)
        std::cout << "  No CUDA device (or --predict-only): the GPU and hybrid columns are the model's predictions"
                  << (opt.device != 0 ? " (--device " + std::to_string(opt.device) + " is not read)" : std::string())
                  << ".\n";
    std::cout << '\n';
    return m;
}

std::string share_cell(const ch07::CasePrediction& p) {
    return std::isnan(p.split.gpu_share) ? p.hybrid_kind : fmt_pct(p.split.gpu_share);
}

/// The hybrid's pipeline depth, where it has a share inside (0, 1) ('-': no hybrid, or CG).
std::string chunks_cell(const ch07::CasePrediction& p) {
    return p.chunks > 0 && p.has_hybrid_share() ? std::to_string(p.chunks) : "-";
}

/// The table's GEMM rows beside the vendor's host-memory GEMM (split_vendor.hpp), per precision,
/// each GEMM row that was measured at its share, depth and pieces; nothing without GEMM rows.
/// False where a call failed (its line on stderr).
bool print_vendor_gemm(const std::vector<ch07::RowResult>& results) {
    std::vector<ch07::VendorRow> rows;
    bool ok = true;
    for (std::size_t elem : {std::size_t{4}, std::size_t{8}}) {
        std::vector<ch07::Case> cases;
        std::vector<int> parts, depths, pieces;
        for (const ch07::RowResult& r : results)
            if (r.c.op == "gemm" && r.c.elem == elem && !std::isnan(r.m.gpu_ms)) {
                cases.push_back(r.c);
                parts.push_back(r.p.gpu_part);
                depths.push_back(std::max(1, r.p.chunks));
                pieces.push_back(r.m.balanced_pieces);
            }
        if (cases.empty()) continue;
        try {
            for (const ch07::VendorRow& v : ch07::measure_vendor_gemm(cases, parts, depths, pieces)) rows.push_back(v);
        } catch (const std::exception& e) {
            std::cerr << "ch07_split: the vendor's GEMM (" << (elem == 4 ? "float" : "double") << "): " << e.what() << '\n';
            ok = false;
        }
    }
    if (rows.empty()) return ok;
    Report t("The vendor's host-memory GEMM beside ours (ms; cuBLASXt: C in square tiles of " +
                 std::to_string(xt::default_block_dim()) +
                 " (its default) streamed to the GPU by the library; '+ CPU': its CPU share set to our hybrid's, "
                 "OpenBLAS its CPU routine; every call timed in turn, ours and the vendor's trading places)",
             {"T", "n", "GPU+comm", "hybrid", "cuBLASXt", "cuBLASXt + CPU", "CPU share", "ours / cuBLASXt"});
    for (const ch07::VendorRow& v : rows) {
        const double q = ch07::ours_best_ms(v) / ch07::vendor_best_ms(v);
        t.add_row({v.c.elem == 4 ? "float" : "double", std::to_string(v.c.n), fmt(v.gpu_ms, 4), fmt(v.hybrid_ms, 4),
                   fmt(v.xt_ms, 4), fmt(v.xt_cpu_ms, 4), std::isnan(v.cpu_ratio) ? std::string("-") : fmt_pct(v.cpu_ratio),
                   std::isnan(q) ? std::string("-") : fmt(q, 2) + "x"});
    }
    std::cout << '\n';
    t.print(std::cout);
    std::cout << "  ('ours / cuBLASXt': the better of our two GPU ways over the better of the vendor's two)\n";
    for (const auto& line : ch07::vendor_lines(rows)) std::cout << "  " << line << '\n';
    return ok;
}

int run(const SplitOptions& opt) {
    std::cout << "Chapter 7 — the CPU/GPU split (White §4.6, Listing 4.18)\n"
              << "Data starts in host memory and the result must end there. Three ways to run each call:\n"
              << "  CPU     the host peer (OpenBLAS for GEMV/GEMM/SYMV, our OpenMP convolution, CG from BLAS calls)\n"
              << "  GPU     copy in, the tuned kernel, copy out: T_gpu + T_comm (White Eq. 3.14-3.15)\n"
              << "  hybrid  the GPU takes a share f of the rows (GEMM: columns), the CPU the rest, both at once;\n"
              << "          f makes both sides end together (CG: White §5.2, the vector operations on the CPU)\n\n";
    const bool gpu = has_cuda_device() && !opt.predict_only;
    ch07::Machines m = measure_machines(opt, gpu);  // each group re-times its class's anchors (reanchor_path)
    ch07::AbPlan ab_plan;  // --balance-ab, --first-issue-ab: two arms timed in the same rounds
    ab_plan.arms = opt.balance_ab            ? ch07::AbPlan::Arms::fixed_vs_balanced
                   : opt.first_issue_ab > 0 ? ch07::AbPlan::Arms::first_issue
                   : opt.depth_ab > 0       ? ch07::AbPlan::Arms::depth
                                            : ch07::AbPlan::Arms::none;
    ab_plan.first_issue = opt.first_issue_ab;
    ab_plan.depth_scale = opt.depth_ab;
    const bool ab = ab_plan.arms != ch07::AbPlan::Arms::none;
    const bool balanced_rows = m.balanced || ab;  // the rows time a balanced call (an A/B: beside its other arm)

    std::vector<std::string> columns{"op", "T", "FS", "n", "CPU model", "CPU measured", "CPU min", "CPU max", "GPU+comm model",
                                     "GPU+comm measured", "hybrid model", "hybrid measured", "hybrid min", "hybrid max", "GPU share",
                                     "chunks", "White 4.18", "model's choice", "measured best", "choice / best"};
    // appended: a CSV reader of the columns above reads a run with them too
    if (ab)
        for (const char* b : {"balanced measured", "balanced min", "balanced max"}) columns.push_back(b);
    if (balanced_rows)
        for (const char* b : {"balanced GPU share", "pieces"}) columns.push_back(b);
    Report table("Where each call runs (ms; CG: a solve of " + std::to_string(opt.cg_iterations) + " iterations" +
                     (opt.ld_pad > 0 ? "; every matrix and image with leading dimension n + " + std::to_string(opt.ld_pad) : "") +
                     ")",
                 columns);
    const std::vector<ch07::Case> cases = cases_of(opt);
    std::vector<ch07::RowResult> results;
    int rc = 0;
    std::size_t skipped = 0;
    if (gpu && !opt.predict_only && m.reanchor)
        std::cout << "Timing the rows, group by group (each class's tiny all-GPU calls, its anchors, timed again just "
                     "before its rows are predicted and timed) ...\n";
    {
        Progress prog("ch07_split", cases.size());
        // A group (one op, precision and FS: consecutive cases) is measured at once, its sizes'
        // CPU and hybrid calls in turn (measure_group); its data are held together.
        for (std::size_t g0 = 0; g0 < cases.size();) {
            std::size_t g1 = g0 + 1;
            while (g1 < cases.size() && cases[g1].op == cases[g0].op && cases[g1].elem == cases[g0].elem &&
                   cases[g1].fs == cases[g0].fs)
                ++g1;
            // The group's CPU classes timed again now, before its rows are predicted (Machines::cpu_again).
            if (m.cpu_again)
                for (const std::string& line : ch07::retime_cpu_classes(m, cases[g0], peer_sizes(opt, m.cpu), ch07::host_alloc(gpu)))
                    std::cout << (line == ch07::kCpuAgainHeader ? "  " : "    ") << line << '\n';
            // The class's anchors timed again now, before its rows are predicted (Machines::reanchor).
            if (gpu && !opt.predict_only && m.reanchor)
                for (const std::string& line : ch07::reanchor_path(m, cases[g0])) std::cout << "  " << line << '\n';
            std::vector<ch07::RowResult> rows;
            std::vector<ch07::Case> to_measure;
            std::vector<int> parts, depths, pieces;  // each case's GPU rows, the pipeline's depth, the balanced pieces
            std::vector<std::size_t> slot;  // the row of each measured case
            std::vector<std::string> what;
            double held = 0;
            for (std::size_t i = g0; i < g1; ++i) {
                const ch07::Case& c = cases[i];
                rows.push_back({c, ch07::predict_case(c, m), {}});
                what.push_back("ch07_split: " + c.op + (c.elem == 4 ? " float" : " double") +
                               (c.fs > 0 ? " FS " + std::to_string(c.fs) : "") + " n=" + std::to_string(c.n) + ": ");
                if (opt.predict_only) continue;
                // A case the host cannot hold beside the group's others is skipped, in words,
                // before anything is allocated (the exit code says cases were skipped).
                const double need = ch07::host_bytes_needed(c);
                const std::string shortfall = memory_shortfall({0, held + need}, {-1, host_available_bytes()});
                if (!shortfall.empty()) {
                    std::cerr << what.back() << "not measured: " << shortfall << '\n';
                    ++skipped;
                    continue;
                }
                held += need;
                to_measure.push_back(c);
                parts.push_back(rows.back().p.gpu_part);
                depths.push_back(std::max(1, rows.back().p.chunks));
                pieces.push_back(balanced_rows ? ch07::balanced_pieces(c, rows.back().p.gpu_part, rows.back().p.split.hybrid_ms, m) : 0);
                slot.push_back(rows.size() - 1);
            }
            if (!to_measure.empty()) {
                const std::string group = what[slot.front()];
                try {
                    const std::vector<ch07::Measured> ms =
                        ch07::measure_group(to_measure, parts, depths, gpu, opt.cg_iterations, pieces, ab_plan, !opt.fixed_order);
                    for (std::size_t j = 0; j < ms.size(); ++j) rows[slot[j]].m = ms[j];
                } catch (const std::bad_alloc&) {
                    std::cerr << group << "not measured: the host could not allocate the operands of its group ("
                              << fmt_decimal_bytes(held) << ")\n";
                    skipped += to_measure.size();
                } catch (const std::runtime_error& e) {
                    std::cerr << group << "(its group) " << e.what() << '\n';
                    rc = 1;
                }
            }
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const ch07::RowResult& r = rows[i];
                const ch07::Case& c = r.c;
                const double hybrid_measured = std::isnan(r.m.gpu_ms) ? NAN : ch07::hybrid_or_its_side(r);
                const double q = ch07::choice_over_best(r);
                std::vector<std::string> cells = ch07::case_cells(c);
                cells.insert(cells.end(), {std::to_string(c.n), fmt(r.p.cpu_model_ms, 4), fmt(r.m.cpu_ms, 4), fmt(r.m.cpu_min_ms, 4),
                               fmt(r.m.cpu_max_ms, 4), fmt(r.p.split.gpu_ms, 4), fmt(r.m.gpu_ms, 4),
                               fmt(r.p.split.hybrid_ms, 4), fmt(hybrid_measured, 4), fmt(r.m.hybrid_min_ms, 4),
                               fmt(r.m.hybrid_max_ms, 4), share_cell(r.p), chunks_cell(r.p), split::where_name(r.p.split.white),
                               split::where_name(r.p.split.choice), ch07::measured_best(r),
                               std::isnan(q) ? "-" : fmt(q, 2) + "x"});
                if (ab)
                    for (const std::string& b : {fmt(r.m.balanced_ms, 4), fmt(r.m.balanced_min_ms, 4), fmt(r.m.balanced_max_ms, 4)})
                        cells.push_back(b);
                if (balanced_rows) {
                    cells.push_back(std::isnan(r.m.balanced_share) ? std::string("-") : fmt(100 * r.m.balanced_share, 1) + "%");
                    cells.push_back(r.m.balanced_pieces > 1 ? std::to_string(r.m.balanced_pieces) : std::string("-"));
                }
                table.add_row(cells);
                results.push_back(r);
                prog.step(what[i]);
            }
            g0 = g1;
        }
    }
    table.print(std::cout);
    for (const auto& line : ch07::cg_iteration_lines(results, opt.cg_iterations)) std::cout << line << '\n';
    if (!opt.csv.empty()) {  // the metadata name the GPU whose columns were measured
        const DeviceInfo di = gpu ? query_device(opt.device) : DeviceInfo{};
        table.write_csv(opt.csv, run_metadata(gpu ? &di : nullptr));
    }
    std::cout << "\nReading: 'White 4.18' is his rule (CPU when T_cpu <= T_gpu + T_comm); the model's choice adds the "
                 "hybrid where it predicts a gain over the better single side of at least the run's margin (the median "
                 "of how far each class's hybrid landed from its model at the start; "
              << fmt(split::kMinHybridGain * 100, 0)
              << "% where none was measured; a row the balanced call runs: the balanced rows' margin, where the run "
                 "prints one). 'hybrid measured' at a "
                 "GPU share of 0% or 100% is that side's time (the hybrid is then that side). 'CPU min / max', 'hybrid "
                 "min / max': the fastest and slowest batch of the call, timed in turn with the other sizes of its op "
                 "and precision ('-': the hybrid did not run). 'choice / best': the measured time of the model's choice "
                 "over the measured best.\n\nSummary\n";
    for (const auto& line : ch07::summary_lines(results)) std::cout << "  " << line << '\n';
    std::cout << '\n';
    if (const auto lines = ch07::place_lines(results); !lines.empty()) {
        std::cout << "The place in the round (each row's CPU peer and hybrid traded places every other round; the median "
                     "batch of each place)\n";
        for (const auto& line : lines) std::cout << "  " << line << '\n';
        std::cout << '\n';
    }
    if (ab) {
        const std::string order = opt.fixed_order ? "in one order, the first right after the CPU peer" : "trading places every other round";
        if (opt.depth_ab > 0) {
            std::cout << "The hybrid at another depth (--depth-ab " << fmt(opt.depth_ab, 3)
                      << ": each hybrid row as it runs, and the same call at that many times its depth, timed in the same "
                         "rounds, "
                      << order << ")\n";
            for (const auto& line : ch07::depth_ab_lines(results, opt.depth_ab)) std::cout << "  " << line << '\n';
        } else {
            if (opt.balance_ab)
                std::cout << "Balanced hybrid (--balance-ab: GEMV, GEMM, the convolution and, with --balanced-symv, SYMV; the "
                             "same plan, timed in the same rounds, "
                          << order << ")\n";
            else
                std::cout << "Balanced hybrid, its first issue (--first-issue-ab: the balanced call as it is, and with its "
                             "first issue "
                          << fmt(opt.first_issue_ab, 2) << " pieces, the same plan, timed in the same rounds, " << order << ")\n";
            const ch07::AbNames names = opt.balance_ab ? ch07::AbNames{} : ch07::first_issue_names(opt.first_issue_ab);
            for (const auto& line : ch07::balanced_lines(results, names)) std::cout << "  " << line << '\n';
            if (!opt.balance_ab) std::cout << "  " << ch07::first_issue_rows_line(results, opt.first_issue_ab) << '\n';
        }
        std::cout << '\n';
    }
    ch07::crossover_table(results).print(std::cout);
    if (gpu && !ab && !print_vendor_gemm(results)) rc = 1;
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
        if (!opt.replay_log.empty()) return ch07::replay_run(opt.replay_log, opt.replay_csv, opt.margin, std::cout);
        return run(opt);
    } catch (const std::exception& e) {
        std::cerr << "ch07_split: error: " << e.what() << '\n';
        return 1;
    }
}
