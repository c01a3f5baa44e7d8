// split_replay_run.cpp — `ch07_split --replay` (split_replay_run.hpp).
#include "split_replay_run.hpp"

#include "split_crossover_table.hpp"
#include "split_replay.hpp"
#include "split_summary.hpp"

#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::ch07 {

namespace {

/// How far a replayed column `a` is from the one the run wrote, `b` (known to half its last decimal,
/// 5e-5 ms), relative to b: 0 within the rounding, or where the run wrote none.
double rel_diff(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return 0;
    const double beyond = std::max(0.0, std::fabs(a - b) - 5e-5);
    return beyond == 0 ? 0 : b > 0 ? beyond / b : INFINITY;
}

}  // namespace

int replay_run(const std::string& log_path, const std::string& csv_path, double margin, std::ostream& out) {
    std::ifstream log(log_path), csv(csv_path);
    if (!log.good()) throw std::invalid_argument("--replay: cannot read the run's log '" + log_path + "'");
    if (!csv.good()) throw std::invalid_argument("--replay: cannot read the run's CSV '" + csv_path + "'");
    Machines m = machines_from_log(log);
    const std::vector<CsvRow> rows = rows_from_csv(csv);
    if (rows.empty()) throw std::invalid_argument("--replay: the CSV '" + csv_path + "' holds no row");
    const double run_margin = m.hybrid_margin;
    if (margin >= 0) m.hybrid_margin = margin;
    const std::vector<RowResult> res = replay(rows, m);

    out << "Chapter 7's model replayed on a finished run (no device, no timing)\n"
        << "  the machines: " << log_path << " (the lines the run printed as it measured them)\n"
        << "  the rows:     " << csv_path << " (" << rows.size() << " rows; their measured columns as the run wrote them)\n"
        << "  the hybrid's margin: " << fmt(100 * min_gain_of(m), 1) << "%"
        << (margin >= 0 ? " (--margin; the run's own " + fmt(100 * run_margin, 1) + "%)" : std::string(" (the run's own)"));
    if (m.balanced && m.balanced_margin >= 0)
        out << "; the rows the balanced call runs: " << fmt(100 * m.balanced_margin, 1) << "%";
    out << "\n\n";

    Report t("Where each call runs, replayed (ms; 'run's choice': the model's choice as the run printed it)",
             {"op", "T", "FS", "n", "CPU model", "CPU measured", "GPU+comm model", "GPU+comm measured", "hybrid model",
              "hybrid measured", "model's choice", "measured best", "choice / best", "run's choice"});
    double worst = 0;        // the replayed model columns against the ones the run wrote
    int choices_moved = 0;  // rows whose replayed choice is not the run's
    for (std::size_t i = 0; i < res.size(); ++i) {
        const RowResult& r = res[i];
        const CsvRow& w = rows[i];
        worst = std::max({worst, rel_diff(r.p.split.cpu_ms, w.cpu_model_ms), rel_diff(r.p.split.gpu_ms, w.gpu_model_ms),
                          rel_diff(r.p.split.hybrid_ms, w.hybrid_model_ms)});
        const std::string choice = split::where_name(r.p.split.choice);
        choices_moved += choice != w.choice;
        const double q = choice_over_best(r);
        const double hybrid = std::isnan(r.m.gpu_ms) ? NAN : hybrid_or_its_side(r);
        std::vector<std::string> cells = case_cells(r.c);
        cells.insert(cells.end(), {std::to_string(r.c.n), fmt(r.p.split.cpu_ms, 4), fmt(r.m.cpu_ms, 4),
                                   fmt(r.p.split.gpu_ms, 4), fmt(r.m.gpu_ms, 4), fmt(r.p.split.hybrid_ms, 4),
                                   fmt(hybrid, 4), choice, measured_best(r), std::isnan(q) ? "-" : fmt(q, 2) + "x",
                                   w.choice});
        t.add_row(cells);
    }
    t.print(out);
    out << "\nThe replay against the run: the model's columns within " << fmt(100 * worst, 2)
        << "% of the ones it wrote (beyond their 4 decimals in ms); " << choices_moved << " of " << res.size()
        << " choices differ from the run's" << (margin >= 0 ? " (the margin moved them)" : "")
        << "\n(the measured columns as the CSV rounds them, to 4 decimals in ms: a count may differ from the run's "
           "own at rows of a few microseconds; the CPU timings' errors are not in the CSV)\n\nSummary\n";
    for (const auto& line : summary_lines(res))
        if (line.rfind("CPU timings whose median", 0) != 0) out << "  " << line << '\n';
    out << '\n';
    crossover_table(res).print(out);
    return 0;
}

}  // namespace wb::ch07
