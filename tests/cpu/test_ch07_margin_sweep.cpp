// The hybrid's margin swept over kept chapter 7 runs (an offline tool, hidden from the default
// run: "[.]"). The margin is the gain over the better single side the model must predict before it
// chooses the hybrid (Machines::hybrid_margin; the run's own is the median of its classes'
// misses). A margin does not move any share, so each run's measured hybrid, timed at that share,
// judges every margin exactly: this tool replays each run at its own margin and at fixed ones, and
// prints the counts pooled over the runs (the choice within 5% of the measured best, the hybrids
// chosen and slower than a single side, the runs with any such loss, the runs whose choice falls
// below 95%). At the run's own margin each run's choice line must be the one it printed (the
// replay's check), so a table of this tool is one of the runs as they ran.
//
//   cmake --build build --target wb_cpu_tests && build/bin/wb_cpu_tests "[ch07_margin_sweep]"
//       # by default the 48 kept full runs of the 16-core host since the GEMM share's class (not
//       # the 32-core host's, nor the run with --price-issue); the last 16 balanced their GEMV, GEMM
//       # and convolution rows, the last 5 of them at the balanced rows' margin (their own "run")
//   WB_CH07_RUNS=/path/A1:/path/A2 WB_CH07_MARGINS=run,0.2,0.25 build/bin/wb_cpu_tests "[ch07_margin_sweep]"
//
// WB_CH07_RUNS: stems (RUN.txt and RUN.csv beside each other), ':' apart; a bare name is a file
// of tests/data. WB_CH07_MARGINS: "run" (each run's own), fractions (every run's), "cap:F" and
// "floor:F" (the run's own, at most / at least F), "balanced:F" (F for the rows the balanced call
// runs, Machines::balanced_margin; the run's own for the others), ',' apart.
#include "catch.hpp"
#include "ch07_run_files.hpp"

#include "split_replay.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split_on(const std::string& s, char sep) {
    std::vector<std::string> v;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, sep);)
        if (!item.empty()) v.push_back(item);
    return v;
}

/// The run's printed choice line ("model's choice is ...: k of n (p%)"), empty where it has none.
std::string printed_choice(const std::string& stem) {
    const auto lines = wb::test::ch07_printed_summary(stem);
    return lines.empty() ? std::string() : lines.front();
}

const char* const kDefaultRuns =
    "h200-ch07-9cac1fe:h200-ch07-98e7470-a:h200-ch07-98e7470-b:h200-ch07-8cfc21d:h200-ch07-full:h200-ch07-482068b:h200-ch07-8f8c0b4:h200-ch07-969e9fd:h200-ch07-bafb6e4:"
    "h200-ch07-9a7322f:h200-ch07-908b4d4:h200-ch07-2601459:h200-ch07-bb68909:h200-ch07-24c988e:h200-ch07-6a162cc:"
    "h200-ch07-d6c5d0d:h200-ch07-2939479:h200-ch07-6b2bd11-a:h200-ch07-6b2bd11-b:h200-ch07-b4b48f1:"
    "h200-ch07-405d758-a:h200-ch07-405d758-b:h200-ch07-a617f6d:h200-ch07-8864f0f-a:h200-ch07-8864f0f-b:"
    "h200-ch07-b5ff3e8-a:h200-ch07-b5ff3e8-b:h200-ch07-b5ff3e8-c:h200-ch07-5615892-a:h200-ch07-5615892-b:"
    "h200-ch07-e618d9e-a:h200-ch07-e618d9e-b:"
    "h200-ch07-5a6da3f:h200-ch07-5a6da3f-c:h200-ch07-5a6da3f-d:h200-ch07-cd0345f-e:h200-ch07-cd0345f-f:h200-ch07-fc9a856:"
    "h200-ch07-98ccc44:h200-ch07-4a96a5c:h200-ch07-efc20b7:h200-ch07-289f311:h200-ch07-289f311-b:h200-ch07-7112b5d:"
    "h200-ch07-7112b5d-b:h200-ch07-7112b5d-c:h200-ch07-07d78b2:h200-ch07-9f6746d";

}  // namespace

TEST_CASE("chapter 7 tool: the hybrid's margin swept over kept runs", "[.][ch07_margin_sweep]") {
    const char* runs_env = std::getenv("WB_CH07_RUNS");
    const char* margins_env = std::getenv("WB_CH07_MARGINS");
    const auto stems = split_on(runs_env && *runs_env ? runs_env : kDefaultRuns, ':');
    const auto margins = split_on(margins_env && *margins_env ? margins_env : "run,0.15,0.2,0.25,0.3", ',');
    REQUIRE(!stems.empty());
    REQUIRE(!margins.empty());

    struct Read {
        std::string stem, printed;
        wb::test::Ch07Run run;
    };
    std::vector<Read> runs;
    for (const std::string& stem : stems) runs.push_back({stem, printed_choice(stem), wb::test::read_ch07_run(stem)});

    std::printf("%zu runs; pooled over them:\n%-8s %20s %22s %16s %18s\n", runs.size(), "margin", "choice within 5%",
                "hybrids chosen, slower", "runs with a loss", "runs with choice < 95%");
    for (const std::string& mg : margins) {
        // "run": each run's own; "F": F for every run; "cap:F" / "floor:F": the run's own, at most /
        // at least F; "balanced:F": F for the balanced rows.
        const bool own = mg == "run";
        const bool cap = mg.rfind("cap:", 0) == 0, floor = mg.rfind("floor:", 0) == 0;
        const bool balanced = mg.rfind("balanced:", 0) == 0;
        double fixed = -1;
        if (!own) {
            const std::string num = cap ? mg.substr(4) : floor ? mg.substr(6) : balanced ? mg.substr(9) : mg;
            char* end = nullptr;
            fixed = std::strtod(num.c_str(), &end);
            if (end == num.c_str() || *end != '\0' || !(fixed >= 0 && fixed < 1))
                FAIL("WB_CH07_MARGINS: '" << mg << "' is neither 'run', a fraction in [0, 1), nor a cap:, floor: or balanced: one");
        }
        INFO("margin " << mg);
        int hits = 0, rows = 0, lost = 0, chosen = 0, runs_lost = 0, runs_low = 0;
        std::vector<std::string> per_run;
        for (const Read& r : runs) {
            wb::ch07::Machines m = r.run.m;
            if (cap) m.hybrid_margin = std::min(m.hybrid_margin, fixed);
            else if (floor) m.hybrid_margin = std::max(m.hybrid_margin, fixed);
            else if (balanced) m.balanced_margin = fixed;
            else if (!own) m.hybrid_margin = fixed;
            INFO(r.stem);
            const auto lines = wb::ch07::summary_lines(wb::ch07::replay(r.run.rows, m));
            REQUIRE(lines.size() >= 6);
            if (own && !r.printed.empty()) CHECK(lines[0] == r.printed);  // the run as it ran
            REQUIRE(lines[0].rfind("model's choice is the measured best", 0) == 0);
            REQUIRE(lines[5].rfind("hybrid chosen by the model but slower", 0) == 0);
            const auto choice_line = wb::test::ch07_count(lines[0]), slower_line = wb::test::ch07_count(lines[5]);
            const int h = choice_line.k, n = choice_line.n, l = slower_line.k, c = slower_line.n;
            REQUIRE((h >= 0 && n > 0 && l >= 0 && c >= 0));
            hits += h, rows += n, lost += l, chosen += c;
            runs_lost += l > 0;
            runs_low += 100 * h < 95 * n;
            per_run.push_back("choice " + std::to_string(h) + " of " + std::to_string(n) + ", slower " + std::to_string(l) +
                              " of " + std::to_string(c));
        }
        std::printf("%-8s %12d of %5d %14d of %5d %9d of %4zu %11d of %4zu\n", mg.c_str(), hits, rows, lost, chosen,
                    runs_lost, runs.size(), runs_low, runs.size());
        if (std::getenv("WB_CH07_PER_RUN"))  // each run's choice and losses at this margin
            for (std::size_t i = 0; i < per_run.size(); ++i) std::printf("  %-28s %s\n", runs[i].stem.c_str(), per_run[i].c_str());
    }
}
