/// \file launches_csv.hpp
/// \brief Reading chapter 6's launches CSV (ch06_derived --launches-csv) in the offline rank
///        checkers (test_model_*_launch_ranks.cpp): the cells of a row and the `params` cell's
///        "name=value" fields, which each checker writes into its op's launch struct.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb::test {

/// The fields of `line` between `sep` (no quoting: the launches CSV has none).
inline std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::string f;
    std::istringstream in(line);
    while (std::getline(in, f, sep)) out.push_back(f);
    return out;
}

/// The "name=value" words of a `params` cell ("block_x=32 block_y=4 nb=32"), in order; words
/// without '=' are skipped. std::stoi throws std::invalid_argument on a value that is no number.
inline std::vector<std::pair<std::string, int>> params_fields(const std::string& text) {
    std::vector<std::pair<std::string, int>> out;
    for (const std::string& tok : split(text, ' ')) {
        const auto eq = tok.find('=');
        if (eq != std::string::npos) out.emplace_back(tok.substr(0, eq), std::stoi(tok.substr(eq + 1)));
    }
    return out;
}

/// The rows of `op` in the launches CSV at `path`, each cell under its header's name. Throws
/// std::runtime_error where the file cannot be read.
inline std::vector<std::map<std::string, std::string>> read_launch_rows(const std::string& path, const std::string& op) {
    std::ifstream in(path);
    if (!in.good()) throw std::runtime_error("read_launch_rows: cannot read '" + path + "'");
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> head = split(line, ',');
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line, ',');
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < head.size() && i < f.size(); ++i) row[head[i]] = f[i];
        if (f.size() >= head.size() && row["op"] == op) rows.push_back(row);
    }
    return rows;
}

}  // namespace wb::test
