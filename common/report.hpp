/// \file report.hpp
/// \brief A result table: printed aligned on stdout and written as CSV where every row carries
///        the run metadata (GPU, SMs, clocks, driver, CUDA, commit, date).
#pragma once

#include "device.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace wb {

class Report {
public:
    /// `columns` are the header names; `title` is printed above the table.
    Report(std::string title, std::vector<std::string> columns);

    /// Append a row; throws std::invalid_argument when its size differs from the header's.
    void add_row(std::vector<std::string> cells);

    /// Aligned table (numbers right-aligned) on `os`.
    void print(std::ostream& os) const;

    /// CSV with header: metadata columns first, then the table columns. Appends when `append`
    /// and the file exists (one CSV can collect several tables of the same columns).
    void write_csv(const std::string& path, const RunMetadata& meta, bool append = false) const;

    const std::vector<std::string>& columns() const { return columns_; }
    const std::vector<std::vector<std::string>>& rows() const { return rows_; }

private:
    std::string title_;
    std::vector<std::string> columns_;
    std::vector<std::vector<std::string>> rows_;
};

/// Fixed-point formatting helpers for table cells ("-" for NaN).
std::string fmt(double v, int decimals = 1);
std::string fmt_ratio(double v);  ///< "1.23x"
std::string fmt_pct(double v);    ///< "92.4%"

/// CSV escaping of one field (quotes when it holds a comma, quote or newline).
std::string csv_escape(const std::string& s);

}  // namespace wb
