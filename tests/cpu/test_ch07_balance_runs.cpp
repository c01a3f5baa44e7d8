// Chapter 7's --balance runs kept in tests/data (docs/notes/split.md, session 42): the lines the run
// printed under "Balanced hybrid" are computed again from its log and CSV (the model replayed from
// the calibration it printed, the measured columns as written), so that the A/B's counts in the
// notes are the run's own and the reader of the balanced columns is checked.
#include "catch.hpp"

#include "ch07_run_files.hpp"
#include "split_replay.hpp"
#include "split_summary.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace {
/// The kept --balance runs, by stem (bd67240's with the arms trading places every other round).
const char* const kBalanceRuns[] = {"h200-ch07-balance-c2df34b",   "h200-ch07-balance-166ac27-a", "h200-ch07-balance-166ac27-b",
                                    "h200-ch07-balance-cd0345f-a", "h200-ch07-balance-cd0345f-b", "h200-ch07-balance-bd67240-a",
                                    "h200-ch07-balance-bd67240-b"};
}  // namespace

TEST_CASE("ch07 --balance runs: the balanced lines again from the run's files", "[cpu][split]") {
    for (const char* stem : kBalanceRuns) {
        INFO("run " << stem);
        const wb::test::Ch07Run run = wb::test::read_ch07_run(stem);
        int balanced = 0;
        for (const auto& r : run.rows) balanced += !std::isnan(r.m.balanced_ms);
        CHECK(balanced > 0);
        const std::vector<std::string> printed = wb::test::ch07_printed_summary(stem, "Balanced hybrid");
        REQUIRE(!printed.empty());
        CHECK(wb::ch07::balanced_lines(wb::ch07::replay(run.rows, run.m)) == printed);
    }
}

TEST_CASE("ch07 --first-issue-ab runs: the lines again from the run's files", "[cpu][split]") {
    // session 43: the balanced call as it is (hybrid_ms) beside the same call issuing 1.5 pieces'
    // worth first (balanced_ms), the arms in one order; then an A/A control (2 pieces' worth in both
    // arms), the arms trading places every other round
    const std::pair<const char*, double> runs[] = {
        {"h200-ch07-first-issue-fc9a856-a", 1.5}, {"h200-ch07-first-issue-fc9a856-b", 1.5}, {"h200-ch07-aa-bd67240", 2.0}};
    for (const auto& [stem, first_issue] : runs) {
        INFO("run " << stem);
        const wb::test::Ch07Run run = wb::test::read_ch07_run(stem);
        const std::vector<std::string> printed = wb::test::ch07_printed_summary(stem, "Balanced hybrid, its first issue");
        REQUIRE(printed.size() == 6);
        CHECK(wb::ch07::balanced_lines(wb::ch07::replay(run.rows, run.m), wb::ch07::first_issue_names(first_issue)) == printed);
    }
}

TEST_CASE("ch07 --first-issue-ab at fc9a856: at which rows its arms were different calls", "[cpu][split]") {
    // The second reader's count (docs/notes/split.md, session 43), from the rows' plans and the
    // pieces the run wrote: 11 of the 16 rows in run a and 10 in run b. At the others (every GEMV
    // row, and the FS 9 float convolution at 4096 in run b) both arms were the same call.
    const std::pair<const char*, const char*> runs[] = {{"h200-ch07-first-issue-fc9a856-a", ": 11 of 16 (69%)"},
                                                        {"h200-ch07-first-issue-fc9a856-b", ": 10 of 16 (62%)"}};
    for (const auto& [stem, count] : runs) {
        INFO("run " << stem);
        const wb::test::Ch07Run run = wb::test::read_ch07_run(stem);
        CHECK(wb::ch07::first_issue_rows_line(wb::ch07::replay(run.rows, run.m), 1.5) ==
              std::string("balanced rows whose two arms differ in their first issue (rounded up to whole chunks)") + count);
        // the pieces the run wrote are the ones its plan derives
        for (const auto& r : wb::ch07::replay(run.rows, run.m))
            if (r.m.balanced_pieces > 1) CHECK(r.m.balanced_pieces == wb::ch07::balanced_pieces(r.c, r.p.gpu_part, r.p.split.hybrid_ms, run.m));
    }
}

TEST_CASE("ch07 balanced_lines: nothing where no balanced call ran", "[cpu][split]") {
    const wb::test::Ch07Run run = wb::test::read_ch07_run("h200-ch07-9cac1fe");
    CHECK(wb::ch07::balanced_lines(wb::ch07::replay(run.rows, run.m)).empty());
}
