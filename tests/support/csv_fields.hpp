// csv_fields.hpp — the cells of one line of the runs' CSVs (no quoting: the chapters write none)
// for the cpu tests that read them back (the launch-rank checkers).
#pragma once

#include <string>
#include <vector>

namespace wb::test {

/// `line` cut at each `sep`; an empty cell stays (a trailing separator gives no extra cell).
inline std::vector<std::string> csv_fields(const std::string& line, char sep = ',') {
    std::vector<std::string> out;
    std::string::size_type start = 0;
    while (start < line.size()) {
        const auto end = line.find(sep, start);
        out.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

}  // namespace wb::test
