/// \file cli.hpp
/// \brief Command-line options shared by every chapter binary (CLI11).
#pragma once

#include <string>
#include <vector>

namespace CLI { class App; }

namespace wb {

struct ChapterOptions {
    std::string op = "gemv";              ///< which computation (gemv today; more later)
    std::vector<int> sizes;               ///< n values (square m = n); empty = the chapter's defaults
    std::string precision = "both";       ///< float | double | both
    std::string trans = "both";           ///< N | T | both
    std::string csv;                      ///< write the table(s) to this CSV file
    int device = 0;                       ///< CUDA device ordinal
    std::string device_preset;            ///< t10 | h100-sxm | h200: predictions only, no measuring
    bool quick = false;                   ///< fewer repetitions (tests, smoke runs)
};

/// Adds the common options to `app` and binds them to `opt` (chapters may add their own first).
void add_chapter_options(CLI::App& app, ChapterOptions& opt);

/// Checks the values after parsing; throws std::invalid_argument naming the option and the rule.
void validate_chapter_options(const ChapterOptions& opt);

/// Convenience: parse argv into options for chapter `name`. Returns -1 to continue, or the
/// exit code to return (0 after --help, 2 after a usage error, message printed).
int parse_chapter_cli(int argc, char** argv, const std::string& name, const std::string& description,
                      ChapterOptions& opt);

}  // namespace wb
