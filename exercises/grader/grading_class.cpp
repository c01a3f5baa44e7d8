// Grading a whole class (grading_class.hpp): per-student summaries, run outcomes, the class CSV.
#include "grading_class.hpp"
#include "grading_parse.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace wb::grade {

namespace {

std::string one_line(const std::string& s) {
    std::string out;
    for (char ch : s) out += (ch == '\t' || ch == '\r') ? ' ' : ch;
    return out;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string finding_of(const RubricItem& i) {
    if (i.name == "build") {
        std::istringstream lines(i.output);
        std::string line;
        while (std::getline(lines, line))
            if (line.find("error") != std::string::npos) return one_line(line);
    }
    return one_line(first_line(i.output));
}

std::vector<std::string> split_tabs(const std::string& s) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t p = s.find('\t'); p != std::string::npos; p = s.find('\t', start)) {
        parts.push_back(s.substr(start, p - start));
        start = p + 1;
    }
    parts.push_back(s.substr(start));
    return parts;
}

}  // namespace

void write_items_tsv(std::ostream& os, const Rubric& r) {
    os << "# wb-grade items of " << r.chapter << ": name, score, max_score, finding (tab-separated)\n";
    for (const auto& i : r.items)
        os << one_line(i.name) << '\t' << fixed(i.score, 1) << '\t' << fixed(i.max_score, 1) << '\t'
           << finding_of(i) << '\n';
}

std::vector<ItemSummary> parse_items_tsv(std::istream& is) {
    std::vector<ItemSummary> items;
    std::string line;
    int n = 0;
    while (detail::getline_clean(is, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        const auto f = split_tabs(line);
        if (f.size() != 4) detail::bad("an item line needs 4 tab-separated fields", n, line);
        if (f[0].empty()) detail::bad("an item needs a name", n, line);
        ItemSummary s;
        s.name = f[0];
        s.score = detail::number(f[1], "score", n, line);
        s.max_score = detail::number(f[2], "max_score", n, line);
        if (s.score > s.max_score && s.max_score > 0) detail::bad("score must be <= max_score", n, line);
        s.finding = f[3];
        items.push_back(s);
    }
    return items;
}

RunOutcome run_outcome(int exit_code, bool has_summary) {
    if (exit_code < 0) return RunOutcome::not_run;
    if (exit_code == 124 || exit_code == 137) return RunOutcome::timed_out;
    if (exit_code == 0) return has_summary ? RunOutcome::graded : RunOutcome::grader_error;
    if (exit_code == 1) return RunOutcome::no_compile;
    if (exit_code == 2) return RunOutcome::grader_error;
    if (exit_code == 77) return RunOutcome::no_gpu;
    if (exit_code > 128) return RunOutcome::crashed;
    return RunOutcome::stopped;
}

std::string outcome_text(RunOutcome o, int exit_code, int timeout_s) {
    switch (o) {
        case RunOutcome::graded: return "graded";
        case RunOutcome::no_compile: return "did not compile";
        case RunOutcome::timed_out: return "timed out after " + std::to_string(timeout_s) + " s";
        case RunOutcome::crashed: return "crashed (signal " + std::to_string(exit_code - 128) + ")";
        case RunOutcome::no_gpu: return "no GPU: not graded";
        case RunOutcome::grader_error:
            return exit_code == 0 ? "grader error (no results written): rerun"
                                  : "grader error (exit " + std::to_string(exit_code) + "): rerun";
        case RunOutcome::stopped: return "stopped (exit " + std::to_string(exit_code) + ")";
        case RunOutcome::not_run: return "not run";
    }
    return "unknown";
}

bool outcome_scores_zero(RunOutcome o) {
    return o == RunOutcome::no_compile || o == RunOutcome::timed_out || o == RunOutcome::crashed ||
           o == RunOutcome::stopped;
}

std::string csv_cell(const std::string& s) {
    std::string v = s;
    if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@')) v = "'" + v;
    if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

void write_class_csv(std::ostream& os, const std::vector<ClassRow>& rows, int timeout_s) {
    std::vector<std::string> columns;  // the scored items, in order of first appearance
    for (const auto& r : rows)
        for (const auto& i : r.items)
            if (i.max_score > 0 && std::find(columns.begin(), columns.end(), i.name) == columns.end())
                columns.push_back(i.name);
    os << "student,status";
    for (const auto& c : columns) os << ',' << csv_cell(c);
    os << ",total,max,findings\n";
    for (const auto& r : rows) {
        const RunOutcome o = run_outcome(r.exit_code, r.has_summary);
        const std::string status = outcome_text(o, r.exit_code, timeout_s);
        os << csv_cell(r.student) << ',' << csv_cell(status);
        double total = 0, max_total = 0;
        std::string findings;
        for (const auto& c : columns) {
            os << ',';
            for (const auto& i : r.items) {
                if (i.name != c) continue;
                os << fixed(i.score, 1);
                total += i.score;
                max_total += i.max_score;
            }
        }
        for (const auto& i : r.items) {
            const bool lost = i.max_score > 0 && i.score < i.max_score;
            const bool why_no_build = i.name == "build" && o == RunOutcome::no_compile;
            if (o == RunOutcome::no_compile && !why_no_build) continue;  // every item reads "not run"
            if (!lost && !why_no_build) continue;
            findings += (findings.empty() ? "" : " | ") + i.name + ": " + i.finding;
        }
        if (o != RunOutcome::graded && o != RunOutcome::no_compile)
            findings = status + (findings.empty() ? "" : " | " + findings);
        if (r.has_summary) {
            os << ',' << fixed(total, 1) << ',' << fixed(max_total, 1);
        } else {
            os << ',' << (outcome_scores_zero(o) ? "0.0" : "") << ',';
        }
        os << ',' << csv_cell(findings) << '\n';
    }
}

}  // namespace wb::grade
