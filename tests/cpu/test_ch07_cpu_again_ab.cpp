// test_ch07_cpu_again_ab.cpp — a tool, not a check: chapter 7's runs replayed with each group's CPU
// classes as timed again before its rows (a run with --cpu-again, as printed) and with the start's
// alone (the lines after "CPU classes timed again before their rows:" dropped: what the run would
// have predicted without --cpu-again from the same calibration), the summary of both printed. The A/B of
// docs/notes/split.md, session 46: both arms judged on the same measured rows.
//
//   cmake --build build --target wb_cpu_tests &&
//   WB_CH07_RUNS=/path/run1:/path/run2 build/bin/wb_cpu_tests "[ch07_cpu_again_ab]"
//
// WB_CH07_RUNS: stems (RUN.txt and RUN.csv beside each other), ':' apart; a bare name is a file of
// tests/data. WB_CH07_DROP: drop instead the lines that begin (after their indent) with this text,
// e.g. "hybrid GEMM: A's copy priced" (the model's line for Machines::warm_gemm_a: session 46's
// second A/B). WB_CH07_AGAIN_UP_TO=k (a run with --cpu-again): a third arm, each class timed again
// up to k LLCs of working set and the start's e beyond (an offline look, docs/notes/split.md).
#include "catch.hpp"
#include "ch07_run_files.hpp"

#include "split_cpu_again.hpp"
#include "split_replay.hpp"
#include "split_summary.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// The run's log with every group's timed-again lines dropped (the header and the class lines
/// indented below it), or where `drop` is not empty the lines that begin with it.
std::string without_again(const std::string& stem, const std::string& drop) {
    std::ifstream txt(wb::test::ch07_stem_path(stem) + ".txt");
    REQUIRE(txt.good());
    std::ostringstream out;
    bool in = false;
    for (std::string s; std::getline(txt, s);) {
        const std::string t = s.substr(std::min(s.size(), s.find_first_not_of(' ')));
        if (!drop.empty()) {
            if (t.rfind(drop, 0) != 0) out << s << '\n';
            continue;
        }
        if (t.rfind(wb::ch07::kCpuAgainHeader, 0) == 0) {
            in = true;
            continue;
        }
        if (in && s.rfind("    ", 0) == 0) continue;  // a class line of the group
        in = false;
        out << s << '\n';
    }
    return out.str();
}

}  // namespace

TEST_CASE("chapter 7 tool: CPU classes timed again against the start's, on the same rows", "[.][ch07_cpu_again_ab]") {
    const char* env = std::getenv("WB_CH07_RUNS");
    REQUIRE(env);
    const char* drop_env = std::getenv("WB_CH07_DROP");
    const std::string drop = drop_env ? drop_env : "";
    std::stringstream ss(env);
    std::vector<std::vector<std::string>> again, once;
    for (std::string stem; std::getline(ss, stem, ':');) {
        if (stem.empty()) continue;
        const wb::test::Ch07Run run = wb::test::read_ch07_run(stem);
        if (drop.empty()) REQUIRE(run.m.cpu_again);
        const std::string without = without_again(stem, drop);
        std::istringstream log(without);
        const wb::ch07::Machines start = wb::ch07::machines_from_log(log);
        if (drop.empty()) REQUIRE_FALSE(start.cpu_again);
        const auto ra = wb::ch07::replay(run.rows, run.m), rb = wb::ch07::replay(run.rows, start);
        const auto a = wb::ch07::summary_lines(ra), b = wb::ch07::summary_lines(rb);
        std::printf("%s\n  as run:\n", stem.c_str());
        for (const auto& l : a) std::printf("    %s\n", l.c_str());
        std::printf("  without %s:\n", drop.empty() ? "the classes timed again" : drop.c_str());
        for (const auto& l : b) std::printf("    %s\n", l.c_str());
        if (const char* up = std::getenv("WB_CH07_AGAIN_UP_TO"); up && drop.empty()) {
            const double k = std::stod(up), edge = k * start.cpu.llc_bytes;
            wb::ch07::Machines mixed = run.m;
            for (auto& [key, r] : mixed.cpu.peers) {
                const auto it = start.cpu.peers.find(key);
                if (it == start.cpu.peers.end()) continue;
                std::vector<wb::model::WsPoint> e;
                for (const auto& p : r.efficiency)
                    if (p.ws_bytes <= edge) e.push_back(p);
                for (const auto& p : it->second.efficiency)
                    if (p.ws_bytes > edge) e.push_back(p);
                r.efficiency = e;
            }
            std::printf("  timed again up to %g LLCs, the start's e beyond:\n", k);
            for (const auto& l : wb::ch07::summary_lines(wb::ch07::replay(run.rows, mixed))) std::printf("    %s\n", l.c_str());
        }
        std::printf("  rows whose CPU model changed its verdict (model / measured: as run, without):\n");
        for (std::size_t i = 0; i < ra.size(); ++i) {
            const auto& x = ra[i];
            const double q = x.p.cpu_model_ms / x.m.cpu_ms, q0 = rb[i].p.cpu_model_ms / x.m.cpu_ms;
            if (wb::ch07::within(x.p.cpu_model_ms, x.m.cpu_ms) != wb::ch07::within(rb[i].p.cpu_model_ms, x.m.cpu_ms))
                std::printf("    %-6s %s FS %d n %5d  %.2f  %.2f\n", x.c.op.c_str(), x.c.elem == 4 ? "float " : "double",
                            x.c.fs, x.c.n, q, q0);
        }
    }
}
