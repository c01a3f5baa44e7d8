// split_summary.cpp — chapter 7's verdicts on its model (split_summary.hpp).
#include "split_summary.hpp"

#include "host_timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wb::ch07 {

namespace {

bool hybrid_ran(const RowResult& r) { return !std::isnan(r.m.hybrid_ms); }

/// The issue's two decision tests, for a hybrid time `hybrid_ms` measured at row r (the fixed
/// share's or the balanced call's): the model predicts a gain of at least 15% over its better
/// single side; the measured hybrid is at least 10% faster than the better single side as
/// measured (the gain held); it is slower than that side (a loss, where the model chose it).
bool predicts_large_gain(const RowResult& r) {
    return r.p.split.hybrid_ms <= 0.85 * std::min(r.p.split.cpu_ms, r.p.split.gpu_ms);
}
bool holds_gain(const RowResult& r, double hybrid_ms) { return hybrid_ms <= 0.90 * std::min(r.m.cpu_ms, r.m.gpu_ms); }
bool loses(const RowResult& r, double hybrid_ms) { return hybrid_ms > std::min(r.m.cpu_ms, r.m.gpu_ms); }

/// A CPU timing still this uncertain at the end of its batches (three times the workbook's 1%,
/// cpu::TimingPlan::repeat_above) did not settle: the host's rate moved during its rounds.
constexpr double kUnsettledError = cpu::TimingPlan{}.repeat_above;

std::string count_line(const std::string& what, int k, int n) {
    char buf[64];
    std::snprintf(buf, sizeof buf, ": %d of %d (%.0f%%)", k, n, n > 0 ? 100.0 * k / n : 0.0);
    return what + buf;
}

}  // namespace

double hybrid_or_its_side(const RowResult& r) {
    if (hybrid_ran(r)) return r.m.hybrid_ms;
    return r.p.gpu_part <= 0 ? r.m.cpu_ms : r.m.gpu_ms;
}

std::string measured_best(const RowResult& r) {
    if (std::isnan(r.m.cpu_ms) || std::isnan(r.m.gpu_ms)) return "-";
    std::string best = r.m.cpu_ms <= r.m.gpu_ms ? "CPU" : "GPU";
    if (hybrid_ran(r) && r.m.hybrid_ms < std::min(r.m.cpu_ms, r.m.gpu_ms)) best = "hybrid";
    return best;
}

double measured_of(const RowResult& r, const std::string& where) {
    if (where == "CPU") return r.m.cpu_ms;
    if (where == "GPU") return r.m.gpu_ms;
    if (where == "hybrid") return hybrid_or_its_side(r);
    return NAN;
}

double choice_over_best(const RowResult& r) {
    const std::string best = measured_best(r);
    if (best == "-") return NAN;
    return measured_of(r, split::where_name(r.p.split.choice)) / measured_of(r, best);
}

bool is_hit(const RowResult& r, double tol) {
    const double q = choice_over_best(r);
    return !std::isnan(q) && q <= 1 + tol;
}

bool within(double model_ms, double measured_ms, double tol) {
    if (!(model_ms > 0) || !(measured_ms > 0)) return false;
    return std::abs(model_ms / measured_ms - 1) <= tol;
}

int crossover(const std::vector<RowResult>& group, bool predicted) {
    for (const RowResult& r : group) {
        const std::string way = predicted ? split::where_name(r.p.split.choice) : measured_best(r);
        if (way == "-") return -1;
        if (way != "CPU") return r.c.n;
    }
    return -1;
}

std::vector<std::string> case_cells(const Case& c) {
    return {c.op, c.elem == 4 ? "float" : "double", c.fs > 0 ? std::to_string(c.fs) : "-"};
}

std::vector<std::vector<RowResult>> groups(const std::vector<RowResult>& rows) {
    std::vector<std::vector<RowResult>> out;
    for (const RowResult& r : rows) {
        auto it = std::find_if(out.begin(), out.end(), [&](const std::vector<RowResult>& g) {
            return g[0].c.op == r.c.op && g[0].c.elem == r.c.elem && g[0].c.fs == r.c.fs;
        });
        if (it == out.end()) out.push_back({r});
        else it->push_back(r);
    }
    for (auto& g : out) std::stable_sort(g.begin(), g.end(), [](const RowResult& a, const RowResult& b) { return a.c.n < b.c.n; });
    return out;
}

std::vector<std::string> summary_lines(const std::vector<RowResult>& rows) {
    int judged = 0, hits = 0, cpu_ok = 0, cpu_n = 0, gpu_ok = 0, hyb_ok = 0, hyb_n = 0;
    int gain_rows = 0, gain_kept = 0, chosen = 0, chosen_lost = 0, faster = 0, in_margin = 0, unsettled = 0;
    int floored = 0, with_floor = 0;
    for (const RowResult& r : rows) {
        if (!std::isnan(r.m.cpu_ms)) {
            ++cpu_n;
            cpu_ok += within(r.p.split.cpu_ms, r.m.cpu_ms);
            unsettled += r.m.cpu_error > kUnsettledError;
        }
        const double gain = r.p.split.gain();
        if (gain > 0) {  // the hybrid predicted faster: chosen, or kept out by the run's margin
            ++faster;
            in_margin += gain < r.p.split.margin;
            const double best = std::min(r.p.split.cpu_ms, r.p.split.gpu_ms);
            floored += gain >= r.p.split.margin && best - r.p.split.hybrid_ms < r.p.split.min_saving_ms;
        }
        with_floor += r.p.split.min_saving_ms > 0;
        if (measured_best(r) == "-") continue;
        ++judged;
        hits += is_hit(r);
        gpu_ok += within(r.p.split.gpu_ms, r.m.gpu_ms);
        if (hybrid_ran(r)) {
            ++hyb_n;
            hyb_ok += within(r.p.split.hybrid_ms, r.m.hybrid_ms);
            if (predicts_large_gain(r)) {
                ++gain_rows;
                gain_kept += holds_gain(r, r.m.hybrid_ms);
            }
            if (r.p.split.choice == split::Where::Hybrid) {
                ++chosen;
                chosen_lost += loses(r, r.m.hybrid_ms);
            }
        }
    }
    std::vector<std::string> out;
    out.push_back(count_line("model's choice is the measured best or within 5% of it", hits, judged));
    out.push_back(count_line("CPU model within 15% of the measured CPU", cpu_ok, cpu_n));
    out.push_back(count_line("GPU+comm model within 15% of the measured", gpu_ok, judged));
    out.push_back(count_line("hybrid model within 15% of the measured hybrid", hyb_ok, hyb_n));
    out.push_back(count_line("hybrid predicted >= 15% faster than both sides: measured >= 10% faster", gain_kept, gain_rows));
    out.push_back(count_line("hybrid chosen by the model but slower than a single side", chosen_lost, chosen));
    out.push_back(count_line("hybrid predicted faster, but by less than the run's margin (the single side chosen)",
                             in_margin, faster));
    if (with_floor > 0)  // runs from before the floor print what they printed
        out.push_back(count_line("hybrid predicted faster by the margin, but saving less than its fixed cost (the single side chosen)",
                                 floored, faster));
    out.push_back(count_line("CPU timings whose median kept an error above 3%", unsettled, cpu_n));
    if (judged < static_cast<int>(rows.size()))
        out.push_back(std::to_string(rows.size() - static_cast<std::size_t>(judged)) +
                      " row(s) without measured GPU columns are not judged");
    return out;
}

std::vector<std::string> cg_iteration_lines(const std::vector<RowResult>& rows, int cg_iterations) {
    std::vector<std::string> out;
    std::string small;
    for (const RowResult& r : rows)
        if (r.c.op == "cg" && cg_solve_iterations(r.c.n, cg_iterations) < cg_iterations)
            small += (small.empty() ? "" : ", ") + std::string(r.c.elem == 4 ? "float" : "double") + " n=" + std::to_string(r.c.n);
    if (!small.empty())
        out.push_back("CG below n = " + std::to_string(cg_iterations) + " (" + small +
                      "): a solve of n iterations in every column and in the model (CG solves an n x n system in at "
                      "most n; more would only grind its rounding)");
    for (const RowResult& r : rows)
        for (const Measured::CgStop& s : r.m.cg_stopped_at)
            out.push_back("cg " + std::string(r.c.elem == 4 ? "float" : "double") + " n=" + std::to_string(r.c.n) + ": the " +
                          s.solve + " solve stopped after " + std::to_string(s.done) + " of " + std::to_string(s.planned) +
                          " iterations (its residual exactly zero, or a breakdown): its time is scaled to " +
                          std::to_string(s.planned));
    return out;
}

std::vector<std::string> place_lines(const std::vector<RowResult>& rows) {
    std::vector<double> cpu_ratio, hybrid_ratio;
    int first_ok = 0, after_ok = 0;
    for (const RowResult& r : rows) {
        const Measured& m = r.m;
        if (!std::isnan(m.cpu_first_ms) && m.cpu_first_ms > 0) {
            cpu_ratio.push_back(m.cpu_after_hybrid_ms / m.cpu_first_ms);
            first_ok += within(r.p.split.cpu_ms, m.cpu_first_ms);
            after_ok += within(r.p.split.cpu_ms, m.cpu_after_hybrid_ms);
        }
        if (!std::isnan(m.hybrid_after_cpu_ms) && m.hybrid_after_cpu_ms > 0)
            hybrid_ratio.push_back(m.hybrid_first_ms / m.hybrid_after_cpu_ms);
    }
    if (cpu_ratio.empty()) return {};
    const int n = static_cast<int>(cpu_ratio.size());
    char buf[160];
    std::vector<std::string> out;
    std::snprintf(buf, sizeof buf, "CPU peer right after its hybrid / first in its row: median %.3f over %d rows",
                  cpu::quantile(cpu_ratio, 0.5), n);
    out.push_back(buf);
    out.push_back(count_line("CPU model within 15% of the CPU peer first in its row", first_ok, n));
    out.push_back(count_line("CPU model within 15% of the CPU peer right after its hybrid", after_ok, n));
    if (!hybrid_ratio.empty()) {
        std::snprintf(buf, sizeof buf, "hybrid first in its row / right after its CPU peer: median %.3f over %d rows",
                      cpu::quantile(hybrid_ratio, 0.5), static_cast<int>(hybrid_ratio.size()));
        out.push_back(buf);
    }
    return out;
}

std::string first_issue_rows_line(const std::vector<RowResult>& rows, double first_issue) {
    int n = 0, differ = 0;
    for (const RowResult& r : rows) {
        if (r.m.balanced_pieces <= 1) continue;
        ++n;
        differ += first_issue_arms_differ(r.c.n, r.p.gpu_part, std::max(1, r.p.chunks), r.m.balanced_pieces, first_issue);
    }
    return count_line("balanced rows whose two arms differ in their first issue (rounded up to whole chunks)", differ, n);
}

std::vector<std::string> depth_ab_lines(const std::vector<RowResult>& rows, double scale) {
    std::vector<std::string> out;
    std::vector<std::pair<std::string, std::vector<double>>> by_op;  // in the table's order
    std::vector<double> all;
    char buf[200];
    for (const RowResult& r : rows) {
        if (std::isnan(r.m.hybrid_ms) || std::isnan(r.m.balanced_ms) || !(r.m.hybrid_ms > 0)) continue;
        const int a = std::max(1, r.p.chunks), b = depth_b(a, scale);
        if (a == b) continue;
        const double q = r.m.balanced_ms / r.m.hybrid_ms;
        std::snprintf(buf, sizeof buf, "%s %s%s %d: %d chunks %.4f ms, %d chunks %.4f ms, x%.3f", r.c.op.c_str(),
                      r.c.elem == 4 ? "float" : "double", r.c.fs > 0 ? (" FS " + std::to_string(r.c.fs)).c_str() : "", r.c.n,
                      a, r.m.hybrid_ms, b, r.m.balanced_ms, q);
        out.push_back(buf);
        auto it = std::find_if(by_op.begin(), by_op.end(), [&](const auto& e) { return e.first == r.c.op; });
        if (it == by_op.end()) {
            by_op.push_back({r.c.op, {}});
            it = by_op.end() - 1;
        }
        it->second.push_back(q);
        all.push_back(q);
    }
    auto median_line = [&](const std::string& what, const std::vector<double>& v) {
        const int faster = static_cast<int>(std::count_if(v.begin(), v.end(), [](double x) { return x < 1; }));
        std::snprintf(buf, sizeof buf, "%s: the depth times %.3g over the row's own, median x%.3f over %zu rows, faster at %d",
                      what.c_str(), scale, cpu::quantile(v, 0.5), v.size(), faster);
        return std::string(buf);
    };
    for (const auto& [op, v] : by_op) out.push_back(median_line(op, v));
    if (!all.empty()) out.push_back(median_line("every op", all));
    return out;
}

AbNames first_issue_names(double first_issue) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "first issue %.2f pieces", first_issue);
    return {"balanced call as it is", "as it is", buf};
}

std::vector<std::string> balanced_lines(const std::vector<RowResult>& rows, const AbNames& names) {
    int both = 0, faster = 0, gain_rows = 0, kept_fixed = 0, kept_balanced = 0, chosen = 0, lost_fixed = 0, lost_balanced = 0;
    std::vector<double> ratio;
    for (const RowResult& r : rows) {
        if (std::isnan(r.m.balanced_ms) || std::isnan(r.m.hybrid_ms) || measured_best(r) == "-") continue;
        ++both;
        faster += r.m.balanced_ms < r.m.hybrid_ms;
        ratio.push_back(r.m.balanced_ms / r.m.hybrid_ms);
        if (predicts_large_gain(r)) {
            ++gain_rows;
            kept_fixed += holds_gain(r, r.m.hybrid_ms);
            kept_balanced += holds_gain(r, r.m.balanced_ms);
        }
        if (r.p.split.choice == split::Where::Hybrid) {
            ++chosen;
            lost_fixed += loses(r, r.m.hybrid_ms);
            lost_balanced += loses(r, r.m.balanced_ms);
        }
    }
    if (both == 0) return {};
    const double median = cpu::quantile(ratio, 0.5);
    std::vector<std::string> out;
    out.push_back(count_line(names.b + " faster than the " + names.a, faster, both));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", median);
    out.push_back("median " + names.b + " / " + names.a_short + ": " + buf);
    const std::string gain = "predicted >= 15% faster than both sides: ", chosen_line = "chosen by the model: ";
    out.push_back(count_line(gain + names.a + " measured >= 10% faster", kept_fixed, gain_rows));
    out.push_back(count_line(gain + names.b + " measured >= 10% faster", kept_balanced, gain_rows));
    out.push_back(count_line(chosen_line + names.a + " slower than a single side", lost_fixed, chosen));
    out.push_back(count_line(chosen_line + names.b + " slower than a single side", lost_balanced, chosen));
    return out;
}

}  // namespace wb::ch07
