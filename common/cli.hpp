/// \file cli.hpp
/// \brief Command-line options shared by every chapter binary (CLI11).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI { class App; }

namespace wb {

struct ChapterOptions {
    std::string op = "all";               ///< the computations: "all" or a comma list ("gemv,gemm")
    std::vector<int> sizes;               ///< square sizes n (every op); empty = each op's defaults
    std::string precision = "both";       ///< float | double | both
    std::string trans = "both";           ///< op(A): N | T | both (GEMM: op(B) = N)
    std::string csv;                      ///< write the table(s) to this CSV file
    int device = 0;                       ///< CUDA device ordinal
    std::string device_preset;            ///< t10 | h100-sxm | h200: predictions only, no measuring
    bool quick = false;                   ///< fewer repetitions and each op's smallest set (smoke runs)
    bool full = false;                    ///< each op's whole set: every size the pages' runs used
};

/// The set a run shows where --sizes does not name one: `quick` with --quick, `full` with
/// --full, `normal` otherwise (each op's default set, chosen so that a chapter's default run
/// stays about a minute per op on an H100 or H200; the op says beside its sets what each shows).
template <class Set>
Set pick_set(const ChapterOptions& opt, Set quick, Set normal, Set full) {
    return opt.quick ? quick : opt.full ? full : normal;
}

/// Adds the common options to `app` and binds them to `opt` (chapters may add their own first).
/// `ops`: the names --op accepts (the chapter runner passes the registered ops); empty: any
/// lowercase name.
void add_chapter_options(CLI::App& app, ChapterOptions& opt, const std::vector<std::string>& ops = {});

/// Checks the values after parsing; throws std::invalid_argument naming the option and the rule.
/// --op must be "all" or a comma list of names from `ops` (any lowercase names when empty);
/// --csv must be writable (require_writable_output), so that a bad path fails before measuring.
void validate_chapter_options(const ChapterOptions& opt, const std::vector<std::string>& ops = {});

/// Throws std::invalid_argument "chapter options: <option> (<path>) cannot be written: <why>" when
/// `path` is an existing folder or unwritable file, or when its folder does not exist or cannot
/// be written. Checks only (stat, access): creates and changes nothing. An empty path passes.
void require_writable_output(const char* option, const std::string& path);

/// A chapter's own on/off option, e.g. {"--sweep", "Time every legal launch", &sweep}.
struct ChapterFlag {
    std::string name;
    std::string description;
    bool* value = nullptr;
};

/// Convenience: parse argv into options for chapter `name`, and the chapter's own `flags`;
/// `add_own` (when set) adds the chapter's other options (a path, a number) before the common
/// ones. Returns -1 to continue, or the exit code to return (0 after --help, 2 after a usage
/// error, message printed).
int parse_chapter_cli(int argc, char** argv, const std::string& name, const std::string& description,
                      ChapterOptions& opt, const std::vector<ChapterFlag>& flags = {},
                      const std::function<void(CLI::App&)>& add_own = {});

}  // namespace wb
