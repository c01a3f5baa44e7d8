/// \file grading.hpp
/// \brief The grader's logic, free of CUDA so the CPU tests cover all of it (architecture §10):
///        the graded size classes, the measurement record the GPU runner writes and its strict
///        parser, the performance thresholds (file format, defaults, calibration), the scoring
///        rules, and the outputs (rubric table, Gradescope results.json, JUnit XML).
///
/// The flow: the GPU runner (runner_main.cpp + harness.cu) runs the graded cases and timings and
/// writes a *record* (a small line-oriented text file); `score` parses the record, applies the
/// thresholds and writes the outputs. Everything after the record is plain C++ and is tested on
/// recorded files, malformed ones included (tests/grading/).
#pragma once

#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::grade {

/// Thrown when a record, calibration or thresholds file is malformed (message names the line).
class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------------
// Graded cases
// ---------------------------------------------------------------------------------------------

/// One graded transpose: A is rows x cols (leading dimension lda), B is cols x rows (ldb).
struct GradedCase {
    std::string size_class;  ///< small | odd | large | rectangular
    int rows = 0, cols = 0, lda = 0, ldb = 0;
    std::string label() const;  ///< "1000x37 lda=1000 ldb=1000"
    bool operator==(const GradedCase& o) const {
        return size_class == o.size_class && rows == o.rows && cols == o.cols && lda == o.lda && ldb == o.ldb;
    }
};

/// The four size classes, in rubric order.
const std::vector<std::string>& size_classes();

/// Every graded case. Each class mixes rows < cols, rows > cols, padded leading dimensions and
/// sizes that are not multiples of any tile, so that a size-specific defect (an unguarded edge,
/// a hard-coded size, a guard on the wrong dimension) fails every class, not only one.
const std::vector<GradedCase>& graded_cases();

/// The shapes timed for the performance points (rows, cols; lda = cols, ldb = rows).
struct PerfShape {
    int rows = 0, cols = 0;
    std::string label() const;  ///< "8192x8192"
};
const std::vector<PerfShape>& perf_shapes();

/// Useful bytes of one transpose: every element read once and written once.
double transpose_bytes(int rows, int cols);

/// How the graded runs launch a submission's grid: as its launcher computes it, or capped (via
/// the contract's grid_for(), see grid_hook.hpp) so that every block loops over several tiles.
/// Each graded case runs once of each; the sanitizer runs use both too.
enum class GridMode { as_written, looped };
const char* grid_mode_name(GridMode m);  ///< "as written" | "looped"
/// The capped grid of GridMode::looped: about a quarter of the blocks (at least 1), so each block
/// walks about four tiles (or 4x its elements) and the tile count exceeds one pass of the grid.
long long looped_grid(long long blocks);

// ---------------------------------------------------------------------------------------------
// Sanitizer classes (compute-sanitizer: memcheck, racecheck, synccheck, initcheck)
// ---------------------------------------------------------------------------------------------

/// The tools, in rubric order.
const std::vector<std::string>& sanitizer_tools();

/// The small shapes run under each tool (class "sanitizer"), chosen so that every code path of
/// the solutions runs (chapter 5's vectorized interior tiles with even lda, scalar interior tiles
/// with odd lda, edge tiles) and, under the looped grid, every block walks several tiles.
/// Under the sanitizers A and B are allocated to their exact extent (no guard bands: an
/// out-of-bounds access is a memcheck finding) and A's padding and all of B are left
/// uninitialized (a read of them is an initcheck finding).
const std::vector<GradedCase>& sanitizer_cases();

/// Outcome of one tool over sanitizer_cases().
struct SanitizerResult {
    std::string tool;    ///< memcheck | racecheck | synccheck | initcheck
    std::string result;  ///< pass | fail | error | notrun
    int findings = 0;    ///< errors the tool reported (fail)
    bool has_case = false;  ///< `c` and `grid` name where the first finding (or wrong output) was seen
    GradedCase c;
    std::string grid;    ///< "as_written" | "looped"
    std::string kernel;  ///< the kernel of the first finding (no spaces; empty: unknown)
    std::string msg;     ///< the tool's first message, or why it failed / errored / did not run
};

/// What a compute-sanitizer log says: the number of errors, its first message and the kernel.
struct SanitizerLog {
    int errors = 0;      ///< from "ERROR SUMMARY: N errors" / "RACECHECK SUMMARY: ... (N errors"
    int warnings = 0;    ///< racecheck's "(..., N warnings)": hazards between lanes of one warp
                         ///< (e.g. a missing __syncwarp) are warnings; the grader counts them
    bool summary = false;   ///< a summary line was seen (the tool ran to its end)
    std::string first;   ///< the first report's headline, e.g. "Invalid __global__ read of size 4 bytes"
                         ///< (the first error's; the first warning's when there is no error)
    std::string detail;  ///< the lines under it that say where (at ..., by thread ..., Address ...), joined
    std::string kernel;  ///< e.g. wb::ex::sub_ch02_shared::(anonymous)::transpose_tiled
};
/// Parses compute-sanitizer's text output (`--log-file`); lines without the "========= " prefix
/// (the program's own output) are ignored. Never throws on unexpected text.
SanitizerLog parse_sanitizer_log(std::istream& is);
/// "void ns::(anonymous namespace)::k<(bool)0>(float const*, int)" -> "ns::(anonymous)::k<(bool)0>".
std::string short_kernel_name(const std::string& symbol);

// ---------------------------------------------------------------------------------------------
// The measurement record (written by the GPU runner, read by the scorer)
// ---------------------------------------------------------------------------------------------

/// Outcome of one graded case (all repetitions of it).
struct CaseResult {
    GradedCase c;
    std::string result;  ///< pass | fail | error
    std::string msg;     ///< why it failed (empty when it passed)
};

/// Timing of one performance shape, medians in milliseconds, measured in the same run.
struct PerfResult {
    PerfShape shape;
    double sub_ms = 0;   ///< the graded submission
    double ref_ms = 0;   ///< this chapter's reference solution
    double prev_ms = 0;  ///< the previous chapter's reference solution (0: none)
    double copy_ms = 0;  ///< cudaMemcpy device-to-device of the same bytes (0: not measured)
};

/// An extra entry point that is reported but not scored (chapter 4's diagonal order).
struct ExtraResult {
    std::string name;    ///< e.g. transpose_diagonal
    std::string result;  ///< pass | fail | error
    double ms = 0;       ///< median on the first perf shape (0: not timed)
    double ref_ms = 0;   ///< the reference's same entry point
    std::string msg;
};

/// Everything one grading run measured.
struct Record {
    std::string chapter;    ///< e.g. ch03_pattern
    std::string variant;    ///< e.g. sub_ch03_pattern
    std::string reference;  ///< e.g. ref_ch03_pattern
    std::string device;     ///< e.g. "NVIDIA H200 (132 SMs)"
    std::string date;       ///< UTC, ISO 8601
    std::string seed;       ///< the input seed (replay with WB_SEED)
    std::vector<CaseResult> cases;
    std::vector<PerfResult> perf;
    std::vector<ExtraResult> extras;
    std::vector<SanitizerResult> sanitizers;  ///< one per tool that was tried or skipped
    std::string abort_msg;  ///< set when the run stopped early (e.g. an illegal address)
    bool complete = false;  ///< the record ended with its "end" line
};

/// Writes the record format:
/// \code
///   wbgrade-record 1
///   chapter ch03_pattern
///   variant sub_ch03_pattern
///   reference ref_ch03_pattern
///   device NVIDIA H200 (132 SMs)
///   date 2026-11-22T10:00:00Z
///   seed 1234
///   case class=small rows=3 cols=5 lda=5 ldb=3 result=fail msg=free text to the end of the line
///   perf shape=8192x8192 sub_ms=0.21 ref_ms=0.20 prev_ms=0.30 copy_ms=0.13
///   extra name=transpose_diagonal result=pass ms=0.21 ref_ms=0.20
///   sanitize tool=memcheck result=pass
///   sanitize tool=racecheck result=fail findings=3 rows=130 cols=197 lda=200 ldb=136 grid=looped kernel=k msg=first
///   sanitize tool=initcheck result=notrun msg=compute-sanitizer not found
///   abort msg=free text
///   end
/// \endcode
/// Fields are `key=value` without spaces, except `msg=`, which takes the rest of the line.
void write_record_header(std::ostream& os, const Record& r);  ///< the lines before the cases
void write_case(std::ostream& os, const CaseResult& c);
void write_perf(std::ostream& os, const PerfResult& p);
void write_extra(std::ostream& os, const ExtraResult& e);
void write_sanitizer(std::ostream& os, const SanitizerResult& s);
void write_abort(std::ostream& os, const std::string& msg);
void write_end(std::ostream& os);
void write_record(std::ostream& os, const Record& r);  ///< all of the above, in order

/// Parses a record. Throws FormatError (naming the line) on anything malformed: a missing or
/// wrong header, an unknown line or key, a number that does not parse or is negative, NaN or
/// infinite, a case that is not one of graded_cases() or appears twice, an unknown result, a
/// sanitize line for an unknown tool, for a tool given twice, or naming a shape that is not one
/// of sanitizer_cases().
/// A record without its "end" line parses with complete = false (the run crashed).
Record parse_record(std::istream& is);

// ---------------------------------------------------------------------------------------------
// Thresholds
// ---------------------------------------------------------------------------------------------

/// Performance thresholds of one chapter, as speeds relative to the reference solution measured
/// in the same run (speed = t_reference / t_submission: 1 = as fast as the reference). Full
/// points at speed >= full_at, none at speed <= zero_at, linear in between.
struct Threshold {
    double full_at = 0.85;
    double zero_at = 0.50;
};

struct Thresholds {
    std::string source = "built-in defaults";  ///< where they came from (file, device)
    std::map<std::string, Threshold> by_chapter;
    /// The chapter's thresholds, or the defaults when the file names none for it.
    Threshold for_chapter(const std::string& chapter) const;
    /// The op exercises' thresholds (grading_op.hpp), by exercise name (e.g. gemv_batched).
    std::map<std::string, Threshold> by_exercise;
    Threshold for_exercise(const std::string& exercise) const;
};

/// Thresholds file:
/// \code
///   # comments
///   wbgrade-thresholds 1
///   device NVIDIA H200 (132 SMs)
///   chapter ch02_shared full_at=0.90 zero_at=0.62
///   exercise gemv_batched full_at=0.90 zero_at=0.50
/// \endcode
/// (`exercise` names one of the op exercises, op_exercises() in grading_op.hpp.)
/// Throws FormatError on a malformed file: missing header, unknown key, a value outside (0, 2],
/// zero_at >= full_at, a chapter given twice.
Thresholds parse_thresholds(std::istream& is, const std::string& source);
/// The calibration comments of a thresholds file (its "# " lines after the fixed header, the
/// marks removed), without the block that opens with `own` ("Calibrated " for the transpose
/// track, "Op exercises calibrated " for the op exercises): what a calibration of one track keeps
/// of the other's when it rewrites the file.
std::vector<std::string> other_calibration_comments(std::istream& is, const std::string& own);
void write_thresholds(std::ostream& os, const Thresholds& t, const std::string& device,
                      const std::vector<std::string>& comments);

/// One chapter's calibration: its reference solution's median times, shape by shape, and the
/// relative noise seen between repeated rounds of the same measurement.
struct Calibration {
    std::string chapter;
    std::vector<double> ms;  ///< per perf_shapes() entry
    double noise = 0;        ///< e.g. 0.02 = 2% spread between rounds
};

/// Calibration file ("wbgrade-calibration 1", "device ...", then one line per chapter:
/// `calib chapter=ch02_shared ms=0.31,0.29 noise=0.012`). Same strictness as parse_record().
std::vector<Calibration> parse_calibration(std::istream& is, std::string* device = nullptr);
void write_calibration(std::ostream& os, const std::vector<Calibration>& cal, const std::string& device);

/// Thresholds from a calibration, chapters in track order (see docs/pages/instructor.md):
///   full_at = 1 - max(0.10, 3 x noise), clamped to [0.5, 0.95];
///   zero_at = (speed of the previous chapter's solution relative to this one) + 0.05, clamped to
///             [0.3, full_at - 0.15]; for the first chapter 0.5.
/// So a submission no faster than the previous step earns no performance points where the step
/// helps on this card, and thresholds never demand a speed-up the card does not show.
Thresholds derive_thresholds(const std::vector<Calibration>& cal, const std::string& source);

// ---------------------------------------------------------------------------------------------
// Scoring and outputs
// ---------------------------------------------------------------------------------------------

/// Points of the rubric (100 in all).
constexpr double kClassPoints = 10.0;        ///< per size class (4 classes: 40)
constexpr double kSanitizerPoints = 5.0;     ///< per sanitizer class (4 tools: 20)
constexpr double kPerformancePoints = 40.0;  ///< against the reference, only when all classes pass

/// One line of the rubric (one Gradescope test, one JUnit test case).
struct RubricItem {
    std::string name;       ///< e.g. "correctness: small"
    double score = 0;
    double max_score = 0;   ///< 0 for informational items
    std::string output;     ///< what happened, one or more lines
};

struct Rubric {
    std::string chapter, variant, device, date;
    std::vector<RubricItem> items;
    std::vector<std::string> notes;  ///< thresholds used, seed, aborts
    double total() const;
    double max_total() const;
};

/// speed = t_ref / t_sub as the geometric mean over the perf shapes; NaN when there are none.
double relative_speed(const std::vector<PerfResult>& perf);

/// Performance points for `speed` under `t` (0..kPerformancePoints, rounded to 0.1).
double performance_points(double speed, const Threshold& t);

/// The rubric of one record: a size class earns its points only when every case of it passes
/// (missing cases count as failed); a sanitizer class only when its tool ran and reported
/// nothing and the output on the sanitized shapes was right (a tool that did not run scores 0
/// and says so: never passed); performance points only when every size class passed and no
/// sanitizer class failed or errored (classes not run are noted, they do not block).
Rubric score(const Record& r, const Thresholds& t);

/// One sanitizer class's rubric item from the tools' results (transpose's and the op exercises'):
/// `shapes` says what ran under the tool ("9 small shapes"); a tool without a result or not run
/// scores 0 and its name is appended to `not_run`.
RubricItem sanitizer_item(const std::vector<SanitizerResult>& results, const std::string& tool, bool complete,
                          const std::string& shapes, std::vector<std::string>* not_run);

/// Appends every sanitizer class's item (sanitizer_item, one per tool) to `rb`, and a note naming
/// the classes not run. True when no tool that ran reported a failure or error (classes not run
/// do not block the performance points).
bool add_sanitizer_items(Rubric& rb, const std::vector<SanitizerResult>& results, bool complete,
                         const std::string& shapes);

/// The performance item, not scored yet (transpose's and the op exercises').
RubricItem performance_item();

/// The performance rule's text: the speeds that earn full and no points, and where they come from.
std::string performance_rule(const Threshold& th, const std::string& source);

/// The rubric when the submission did not compile (all zero, the compiler's output attached).
Rubric score_build_failure(const std::string& chapter, const std::string& build_log);

/// Aligned rubric table for the terminal.
void print_rubric(std::ostream& os, const Rubric& r);

/// Gradescope's results.json: {"score", "output", "tests": [{"name","score","max_score","output"}]}.
void write_results_json(std::ostream& os, const Rubric& r);

/// JUnit XML: one testsuite per chapter, one testcase per rubric item; an item scoring less
/// than its max_score is a <failure>.
void write_junit_xml(std::ostream& os, const Rubric& r);

/// JSON string escaping (quotes, backslashes, control characters as \\uXXXX).
std::string json_escape(const std::string& s);
/// XML escaping of text and attribute values (& < > " ' and control characters dropped).
std::string xml_escape(const std::string& s);

/// "ch3", "ch03", "3" or "ch03_pattern" -> "ch03_pattern"; throws std::invalid_argument
/// naming the value and the known chapters when it matches none.
std::string resolve_chapter(const std::string& name);
/// The transpose track's chapters, in order.
const std::vector<std::string>& track_chapters();

/// `v` with `decimals` digits after the point (fixed notation): rubric and record text.
std::string fixed(double v, int decimals);

/// The item of `items` (each has a `name`) called `name`; std::invalid_argument
/// "<what> (<name>) must be one of: <every name>" when there is none.
template <class Items>
const typename Items::value_type& find_named(const Items& items, const std::string& name, const std::string& what) {
    std::string known;
    for (const auto& x : items) {
        if (x.name == name) return x;
        known += (known.empty() ? "" : ", ") + x.name;
    }
    throw std::invalid_argument(what + " (" + name + ") must be one of: " + known);
}

}  // namespace wb::grade
