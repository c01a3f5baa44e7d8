/// \file ch07_run_files.hpp
/// \brief A kept chapter 7 run's files in the offline tests (test_ch07_replay.cpp,
///        test_ch07_margin_sweep.cpp, test_ch07_warm.cpp): where a stem's RUN.txt and RUN.csv are,
///        the run read back (its calibration and rows, or with lines of later runs inserted), the
///        summary lines it printed, and a summary line's count.
#pragma once

#include "split_replay.hpp"

#include <cstdio>
#include <fstream>
#include <istream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb::test {

/// A stem's path: a bare name is a file of tests/data, anything with a '/' a path as given.
inline std::string ch07_stem_path(const std::string& stem) {
    return stem.find('/') == std::string::npos ? std::string(WB_SOURCE_DIR) + "/tests/data/" + stem : stem;
}

/// A run read back: the machines its calibration lines describe and the rows of its CSV.
struct Ch07Run {
    wb::ch07::Machines m;
    std::vector<wb::ch07::CsvRow> rows;
};
/// The run of `stem` (ch07_stem_path); throws std::runtime_error naming the file where one is missing.
inline Ch07Run read_ch07_run(const std::string& stem) {
    const std::string path = ch07_stem_path(stem);
    std::ifstream txt(path + ".txt"), csv(path + ".csv");
    if (!txt.good()) throw std::runtime_error("no chapter 7 log " + path + ".txt");
    if (!csv.good()) throw std::runtime_error("no chapter 7 CSV " + path + ".csv");
    return Ch07Run{wb::ch07::machines_from_log(txt), wb::ch07::rows_from_csv(csv)};
}

/// A kept run's machines read back from its log as it ran (first) and with `lines`, lines later
/// runs print, inserted after the first line that begins with `after` (second). Throws
/// std::runtime_error where the log is missing or no line begins with `after`.
inline std::pair<wb::ch07::Machines, wb::ch07::Machines> ch07_machines_with_lines(const std::string& stem,
                                                                                  const std::string& after,
                                                                                  const std::string& lines) {
    const std::string path = ch07_stem_path(stem) + ".txt";
    std::ifstream txt(path);
    if (!txt.good()) throw std::runtime_error("no chapter 7 log " + path);
    std::ostringstream as_run, with_lines;
    bool inserted = false;
    for (std::string s; std::getline(txt, s);) {
        as_run << s << '\n';
        with_lines << s << '\n';
        if (!inserted && s.rfind(after, 0) == 0) {
            with_lines << lines << '\n';
            inserted = true;
        }
    }
    if (!inserted) throw std::runtime_error(path + ": no line begins with \"" + after + "\"");
    std::istringstream a(as_run.str()), b(with_lines.str());
    return {wb::ch07::machines_from_log(a), wb::ch07::machines_from_log(b)};
}

/// The lines of `in` under `heading` ("Summary", or a line that starts with it) up to the first
/// blank line, without their indent.
inline std::vector<std::string> ch07_lines_under(std::istream& in, const std::string& heading = "Summary") {
    std::vector<std::string> out;
    bool under = false;
    for (std::string s; std::getline(in, s);) {
        if (!under && s.rfind(heading, 0) == 0) under = true;
        else if (under && s.empty()) break;
        else if (under) out.push_back(s.substr(s.find_first_not_of(' ')));
    }
    return out;
}

/// The lines a run printed under `heading` (ch07_lines_under); empty where its log has none.
inline std::vector<std::string> ch07_printed_summary(const std::string& stem, const std::string& heading = "Summary") {
    std::ifstream txt(ch07_stem_path(stem) + ".txt");
    return ch07_lines_under(txt, heading);
}

/// A summary line "text: k of n (p%)" read back: its text, k and n (-1 where it has no count).
struct Ch07Count {
    std::string text;
    int k = -1, n = -1;
};
inline Ch07Count ch07_count(const std::string& line) {
    Ch07Count c;
    const auto colon = line.rfind(": ");
    c.text = line.substr(0, colon);
    if (colon != std::string::npos) std::sscanf(line.c_str() + colon + 2, "%d of %d", &c.k, &c.n);
    return c;
}

}  // namespace wb::test
