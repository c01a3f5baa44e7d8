/// \file grading_class.hpp
/// \brief Grading a whole class (`./workbook grade chNN --class DIR`): the per-student summary
///        the scorer leaves beside results.json, the status of each student's run, and the CSV.
///
/// scripts/grade-class.sh grades every student in a process of its own under a time limit and
/// writes the exit code into `<out>/<student>/exit`; the scorer writes `<out>/<student>/items.tsv`
/// whenever it scores. `wb_grade_score class-csv` reads both and writes one CSV row per student,
/// so a student whose run hung, crashed or did not compile still gets a row that says so.
#pragma once

#include "grading.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace wb::grade {

/// One rubric item as the class CSV needs it: the first line of its output is the finding.
struct ItemSummary {
    std::string name;
    double score = 0;
    double max_score = 0;
    std::string finding;  ///< one line, no tabs
};

/// `items.tsv`: a comment line, then `name<TAB>score<TAB>max_score<TAB>finding` per item.
/// The finding of the "build" item is the first compiler line that says "error" (else its first line).
void write_items_tsv(std::ostream& os, const Rubric& r);
/// Reads what write_items_tsv wrote; FormatError naming the line when it is malformed.
std::vector<ItemSummary> parse_items_tsv(std::istream& is);

/// Why a student's row reads as it does, from the exit code of its grading process.
enum class RunOutcome {
    graded,        ///< exit 0 with a summary: the scores are the rubric's
    no_compile,    ///< exit 1: the submission did not compile (scores 0)
    timed_out,     ///< killed by the time limit (timeout's 124, or 137 after its KILL)
    crashed,       ///< killed by another signal (exit > 128)
    no_gpu,        ///< exit 77: nothing graded on this machine (not the student's fault)
    grader_error,  ///< exit 2, or 0 without a summary: rerun (not the student's fault)
    stopped,       ///< any other exit code
    not_run,       ///< no exit code recorded
};

/// `exit_code` < 0 means none was recorded.
RunOutcome run_outcome(int exit_code, bool has_summary);
/// e.g. "graded", "timed out after 120 s", "crashed (signal 11)", "no GPU: not graded".
std::string outcome_text(RunOutcome o, int exit_code, int timeout_s);
/// Whether the row's total is 0 (the submission's doing) rather than empty (rerun it).
bool outcome_scores_zero(RunOutcome o);

/// One student's row.
struct ClassRow {
    std::string student;
    int exit_code = -1;
    bool has_summary = false;
    std::vector<ItemSummary> items;
};

/// The CSV: `student,status,<one column per scored item>,total,max,findings`, the item columns
/// in the order they first appear; cells quoted as RFC 4180 says, and text cells that a
/// spreadsheet would read as a formula (= + - @) prefixed with '.
void write_class_csv(std::ostream& os, const std::vector<ClassRow>& rows, int timeout_s);

/// One CSV cell.
std::string csv_cell(const std::string& s);

}  // namespace wb::grade
