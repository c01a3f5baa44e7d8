/// \file derived_options.hpp
/// \brief Chapter 6's reading of the options every chapter shares (cli.hpp): which cases a run
///        covers, the usage errors particular to it, and a note for each option that a run of
///        this chapter cannot apply (so that none is accepted and silently ignored).
#pragma once

#include "cli.hpp"

#include <string>
#include <vector>

namespace wb::ch06 {

/// The cases compare_op builds (derived_comparison.hpp).
struct CaseSelection {
    std::vector<std::string> ops;  ///< --op: the ops to run, each once, in the order given ("all": compared_ops())
    std::vector<long long> sizes;  ///< --sizes: square sizes n replacing each op's shapes (empty: the page's)
    bool op_n = true;              ///< --trans N or both: GEMV's y = A x cases
    bool op_t = true;              ///< --trans T or both: GEMV's y = A^T x cases
    bool quick = false;            ///< --quick: fewer repetitions of each timing (runs on a GPU)
    bool shapes = false;           ///< --shapes: each op's held-out set (derived_shapes.hpp) in place of the page's
    bool wave_tail = false;        ///< --wave-tail: GEMV and SYMV at n = 64 k across a wave boundary
};

/// The largest n --sizes takes here: GEMM's three n x n operands in double then need 96 GiB.
inline constexpr int kMaxSize = 65536;

/// Reads `opt` (already through validate_chapter_options) and the chapter's own flags `shapes`
/// (--shapes) and `wave_tail` (--wave-tail) as chapter 6's cases (compare_op reads all but `ops`).
/// Throws std::invalid_argument "chapter 6 options: ..." naming the option, the value and the
/// rule: --op must be "all" or a comma list of compared_ops(); each --sizes entry must be in
/// [1, kMaxSize]; --shapes, --wave-tail and --sizes each replace the page's shapes, so at most one
/// of them; --wave-tail runs GEMV and SYMV, so --op must name one of them (with "all": both).
CaseSelection case_selection(const ChapterOptions& opt, bool shapes = false, bool wave_tail = false);

/// --launches-csv `path` (empty: not given): the file takes the launches a sweep times, so it needs
/// --sweep or --wave-tail (`sweep`, `wave_tail`), and it must be writable (require_writable_output),
/// both checked before anything is measured. Throws std::invalid_argument "chapter 6 options: ..."
/// naming the option, the value and the rule.
void check_launches_csv(const std::string& path, bool sweep, bool wave_tail);

/// One line for each option given that this run cannot apply: --full (chapter 6 has one set of
/// cases), --sweep and --quick without a GPU (`live` false: nothing is timed), --device with a
/// preset or without a GPU, --trans with GEMM's cases (op(A) = N), --wave-tail without a GPU (the
/// launches only) or without --csv (no file for the plot), --launches-csv (`launches_csv`) without
/// a GPU (the header only). Empty when every option applies.
std::vector<std::string> option_notes(const ChapterOptions& opt, bool live, bool sweep, bool wave_tail = false,
                                      const std::string& launches_csv = "");

}  // namespace wb::ch06
