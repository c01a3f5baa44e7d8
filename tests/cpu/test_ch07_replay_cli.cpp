// CPU tests of `ch07_split --replay RUN.txt RUN.csv [--margin M]` (split_replay_run.hpp): the
// options it takes and refuses, and the chapter's table replayed from the kept H200 run it shows
// (tests/data/h200-ch07-64d6814-c): the replayed model columns are the ones the run wrote, its
// summary the one it printed, and a margin moves only the choice.
#include "catch.hpp"
#include "ch07_cli.hpp"
#include "ch07_run_files.hpp"

#include "split_replay_run.hpp"

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

const std::string kStem = "h200-ch07-64d6814-c";  // the chapter's table (README, "The run on an H200")

std::string replayed(double margin) {
    const std::string p = wb::test::ch07_stem_path(kStem);
    std::ostringstream out;
    REQUIRE(wb::ch07::replay_run(p + ".txt", p + ".csv", margin, out) == 0);
    return out.str();
}

/// The summary lines a replay printed, without their indent.
std::vector<std::string> summary_of(const std::string& text) {
    std::istringstream in(text);
    return wb::test::ch07_lines_under(in);
}

/// {k, n} of the first summary line that begins with `text`.
std::pair<int, int> count_of(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& l : lines)
        if (l.rfind(text, 0) == 0) {
            const wb::test::Ch07Count c = wb::test::ch07_count(l);
            return {c.k, c.n};
        }
    FAIL("no summary line begins with '" << text << "'");
    return {-1, -1};
}

}  // namespace

TEST_CASE("chapter 7 CLI: --replay takes a run's log and CSV, and --margin only with it", "[cpu][ch07][cli]") {
    const std::string p = wb::test::ch07_stem_path(kStem);
    wb::ch07::SplitOptions opt;
    REQUIRE(wb::test::parse_ch07({"--replay", p + ".txt", p + ".csv", "--margin", "0.2"}, opt) == -1);
    CHECK(opt.replay_log == p + ".txt");
    CHECK(opt.replay_csv == p + ".csv");
    CHECK(opt.margin == 0.2);
    wb::ch07::SplitOptions plain;
    REQUIRE(wb::test::parse_ch07({"--replay", p + ".txt", p + ".csv"}, plain) == -1);
    CHECK(plain.margin < 0);  // the run's own
    // usage errors, exit 2: one file, a file that is not there, an option that chooses what to
    // measure, a margin without a replay or outside [0, 1)
    CHECK(wb::test::parse_ch07({"--replay", p + ".txt"}) == 2);
    CHECK(wb::test::parse_ch07({"--replay", p + ".txt", p + ".nope"}) == 2);
    CHECK(wb::test::parse_ch07({"--replay", p + ".txt", p + ".csv", "--sizes", "64"}) == 2);
    CHECK(wb::test::parse_ch07({"--replay", p + ".txt", p + ".csv", "--op", "gemv"}) == 2);
    CHECK(wb::test::parse_ch07({"--replay", p + ".txt", p + ".csv", "--predict-only"}) == 2);
    CHECK(wb::test::parse_ch07({"--margin", "0.2"}) == 2);
    CHECK(wb::test::parse_ch07({"--replay", p + ".txt", p + ".csv", "--margin", "1"}) == 2);
    CHECK(wb::test::parse_ch07({"--replay", p + ".txt", p + ".csv", "--margin", "-0.1"}) == 2);
}

TEST_CASE("chapter 7 --replay: the chapter's table replayed is the run's", "[cpu][ch07][replay]") {
    const std::string text = replayed(-1);
    // every choice as the run printed it, the columns within the check the replay tests hold
    CHECK(text.find("0 of 100 choices differ from the run's") != std::string::npos);
    CHECK(text.find("% (the run's own)") != std::string::npos);
    // the summary the run printed, line for line, but the CPU timings' errors (not in the CSV); the
    // choice as printed (test_ch07_replay.cpp bounds the other counts, from 4-decimal columns)
    std::vector<std::string> printed;
    for (const std::string& l : wb::test::ch07_printed_summary(kStem))
        if (l.rfind("CPU timings whose median", 0) != 0) printed.push_back(l);
    const std::vector<std::string> lines = summary_of(text);
    REQUIRE(lines.size() == printed.size());
    for (std::size_t i = 0; i < lines.size(); ++i) CHECK(lines[i].substr(0, lines[i].rfind(": ")) == printed[i].substr(0, printed[i].rfind(": ")));
    CHECK(lines[0] == printed[0]);
    CHECK(count_of(lines, "model's choice is the measured best") == std::pair<int, int>{94, 100});
    // the crossovers: GEMV float's predicted and measured at 8192
    CHECK(text.find("Crossovers") != std::string::npos);
}

TEST_CASE("chapter 7 --replay --margin: a margin moves the choice, not the model's times", "[cpu][ch07][replay]") {
    const std::vector<std::string> own = summary_of(replayed(-1)), none = summary_of(replayed(0)),
                                   wide = summary_of(replayed(0.9));
    const std::string chosen = "hybrid chosen by the model but slower than a single side";
    // at no margin the model chooses every hybrid it predicts faster: more than at the run's 25.2%,
    // at 90% only the rows the balanced call runs (their own margin) are chosen
    CHECK(count_of(none, chosen).second > count_of(own, chosen).second);
    CHECK(count_of(wide, chosen).second < count_of(own, chosen).second);
    // a margin moves no share: the columns the model predicts are judged alike
    for (const char* line : {"CPU model within 15%", "GPU+comm model within 15%", "hybrid model within 15%"}) {
        CHECK(count_of(none, line) == count_of(own, line));
        CHECK(count_of(wide, line) == count_of(own, line));
    }
}

TEST_CASE("chapter 7 --replay: a missing or foreign file is an error that names it", "[cpu][ch07][replay]") {
    const std::string p = wb::test::ch07_stem_path(kStem);
    std::ostringstream out;
    CHECK_THROWS_WITH(wb::ch07::replay_run(p + ".nope", p + ".csv", -1, out), Catch::Contains(".nope"));
    // a CSV as the log: no calibration lines
    CHECK_THROWS_AS(wb::ch07::replay_run(p + ".csv", p + ".csv", -1, out), std::invalid_argument);
}
