/// \file launches_csv.hpp
/// \brief Reading chapter 6's CSVs (ch06_derived --launches-csv, --wave-tail --csv) in the
///        offline rank checkers (test_model_*_launch_ranks.cpp): each row's cells by their
///        header's names, and the `params` cell's "name=value" fields, which each checker writes
///        into its op's launch struct.
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

/// The "name=value" words of a `params` cell ("block_x=32 block_y=4 nb=32"), in order. Throws
/// std::invalid_argument on a word without '=' or a value that is no number.
inline std::vector<std::pair<std::string, int>> params_fields(const std::string& text) {
    std::vector<std::pair<std::string, int>> out;
    for (const std::string& tok : split(text, ' ')) {
        if (tok.empty()) continue;
        const auto eq = tok.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("params_fields: '" + tok + "' is not name=value");
        out.emplace_back(tok.substr(0, eq), std::stoi(tok.substr(eq + 1)));
    }
    return out;
}

/// Every row of the CSV at `path`, each cell under its header's name (read a cell with .at(), so
/// that a column the file lacks throws). Throws std::runtime_error where the file cannot be read
/// or a row has fewer cells than the header.
inline std::vector<std::map<std::string, std::string>> read_csv_rows(const std::string& path) {
    std::ifstream in(path);
    if (!in.good()) throw std::runtime_error("read_csv_rows: cannot read '" + path + "'");
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> head = split(line, ',');
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line, ',');
        if (f.size() < head.size())
            throw std::runtime_error("read_csv_rows: a row of '" + path + "' has " + std::to_string(f.size()) +
                                     " cells, the header " + std::to_string(head.size()));
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < head.size(); ++i) row[head[i]] = f[i];
        rows.push_back(std::move(row));
    }
    return rows;
}

/// The rows of `op` in the launches CSV at `path` (read_csv_rows, those whose `op` cell is `op`).
inline std::vector<std::map<std::string, std::string>> read_launch_rows(const std::string& path, const std::string& op) {
    std::vector<std::map<std::string, std::string>> rows;
    for (auto& row : read_csv_rows(path))
        if (row.at("op") == op) rows.push_back(std::move(row));
    return rows;
}

}  // namespace wb::test
