// report.cpp — result tables (declared in report.hpp).
//
// A chapter collects rows of preformatted cells, prints them as an aligned table (numbers
// right-aligned so digits line up, text left-aligned) and writes the same rows as CSV, every
// row prefixed by the run metadata so a CSV line is self-describing when files are merged.
#include "report.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <utility>

namespace wb {

namespace {

const std::vector<std::string> kMetaColumns = {"gpu",    "sm_count", "sm_clock_mhz", "mem_clock_mhz",
                                               "driver", "cuda",     "commit",       "date"};

/// A cell that reads as a number: optional sign, digits with an optional point and exponent,
/// and an optional unit suffix "x" or "%"; "-" (a missing number) and "inf"/"nan" count too.
bool is_numeric(const std::string& s) {
    if (s == "-" || s == "inf" || s == "-inf" || s == "nan") return true;
    std::string t = s;
    if (!t.empty() && (t.back() == 'x' || t.back() == '%')) t.pop_back();
    if (t.empty()) return false;
    std::size_t used = 0;
    try {
        (void)std::stod(t, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used == t.size() && (std::isdigit(static_cast<unsigned char>(t.back())) || t.back() == '.');
}

std::string join_csv(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) line += ',';
        line += csv_escape(fields[i]);
    }
    return line;
}

}  // namespace

Report::Report(std::string title, std::vector<std::string> columns)
    : title_(std::move(title)), columns_(std::move(columns)) {
    if (columns_.empty()) throw std::invalid_argument("Report: columns (0 names) must not be empty");
}

void Report::add_row(std::vector<std::string> cells) {
    if (cells.size() != columns_.size())
        throw std::invalid_argument("Report::add_row: cells (" + std::to_string(cells.size()) +
                                    " values) must match the number of columns (" +
                                    std::to_string(columns_.size()) + ") in table '" + title_ + "'");
    rows_.push_back(std::move(cells));
}

void Report::print(std::ostream& os) const {
    const std::size_t nc = columns_.size();
    std::vector<std::size_t> width(nc);
    std::vector<bool> right(nc, true);  // a column of numbers only is right-aligned, header too
    for (std::size_t c = 0; c < nc; ++c) {
        width[c] = columns_[c].size();
        bool any = false;
        for (const auto& row : rows_) {
            width[c] = std::max(width[c], row[c].size());
            if (row[c].empty()) continue;
            any = true;
            if (!is_numeric(row[c])) right[c] = false;
        }
        if (!any) right[c] = false;
    }
    auto cell = [&](const std::string& s, std::size_t c, bool align_right) {
        const std::string pad(width[c] - s.size(), ' ');
        return align_right ? pad + s : s + pad;
    };
    auto line = [&](const std::vector<std::string>& cells, bool header) {
        std::string out;
        for (std::size_t c = 0; c < nc; ++c) {
            if (c) out += "  ";
            const bool r = header ? right[c] : (right[c] || is_numeric(cells[c]));
            out += cell(cells[c], c, r);
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();  // no trailing blanks
        return out;
    };
    if (!title_.empty()) os << title_ << '\n';
    os << line(columns_, true) << '\n';
    std::size_t total = 0;
    for (std::size_t c = 0; c < nc; ++c) total += width[c] + (c ? 2 : 0);
    os << std::string(total, '-') << '\n';
    for (const auto& row : rows_) os << line(row, false) << '\n';
}

void Report::write_csv(const std::string& path, const RunMetadata& meta, bool append) const {
    if (path.empty()) throw std::invalid_argument("Report::write_csv: path (\"\") must not be empty");
    std::vector<std::string> header = kMetaColumns;
    header.insert(header.end(), columns_.begin(), columns_.end());
    const std::string header_line = join_csv(header);

    bool write_header = true;
    if (append) {
        std::ifstream in(path);
        std::string first;
        if (in && std::getline(in, first)) {
            if (!first.empty() && first.back() == '\r') first.pop_back();
            if (!first.empty()) {
                if (first != header_line)
                    throw std::invalid_argument("Report::write_csv: cannot append table '" + title_ +
                                                "' to " + path + ": its header (" + first +
                                                ") differs from this table's (" + header_line + ")");
                write_header = false;
            }
        }
    }
    std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
    if (!out)
        throw std::runtime_error("Report::write_csv: cannot open " + path + " for writing: " +
                                 std::strerror(errno));
    if (write_header) out << header_line << '\n';
    const std::vector<std::string> prefix = {meta.gpu,    std::to_string(meta.sm_count),
                                             std::to_string(meta.sm_clock_mhz),
                                             std::to_string(meta.mem_clock_mhz),
                                             meta.driver, meta.cuda, meta.commit, meta.date};
    for (const auto& row : rows_) {
        std::vector<std::string> fields = prefix;
        fields.insert(fields.end(), row.begin(), row.end());
        out << join_csv(fields) << '\n';
    }
    out.flush();
    if (!out) throw std::runtime_error("Report::write_csv: writing " + path + " failed");
}

std::string fmt(double v, int decimals) {
    if (std::isnan(v)) return "-";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    decimals = std::clamp(decimals, 0, 17);
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    if (n < 0 || n >= static_cast<int>(sizeof buf)) return std::to_string(v);  // enormous values
    std::string s(buf);
    if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // no "-0.0"
    return s;
}

std::string fmt_ratio(double v) {
    if (std::isnan(v)) return "-";
    return fmt(v, 2) + "x";
}

std::string fmt_pct(double v) {
    if (std::isnan(v)) return "-";
    return fmt(100.0 * v, 1) + "%";
}

std::string csv_escape(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"') out += '"';
        out += ch;
    }
    out += '"';
    return out;
}

}  // namespace wb
