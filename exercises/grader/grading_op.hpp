/// \file grading_op.hpp
/// \brief The rubric of the op exercises (op_exercises(): gemv_batched, syrk, separable, gbmv,
///        spmv, cg_jacobi ...): the same classes as the transpose track's (grading.hpp) —
///        correctness per shape class, the four sanitizer classes, speed against the reference
///        solution — where each exercise brings its own shape classes (its edge classes: odd
///        sizes, leading dimensions larger than the rows, offsets, beta == 0 over a poisoned
///        output, both triangles ...), its cases, its kernel runner and its float64 check. Plain C++: the CPU tests cover all of it.
///
/// The flow is transpose's: the op runner (tests/grading/op_runner_main.cpp, built beside the
/// checks) runs every case of the exercise against its float64 reference, the sanitizers and the
/// timing, and writes an *op record*; `wb_grade_score score-op` parses it, applies the thresholds
/// and writes the rubric, results.json, junit.xml and items.tsv.
#pragma once

#include "grading.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace wb::grade {

/// One registered op exercise: its name, its chapter and its shape classes in rubric order
/// (names without spaces; each class is scored on every case the exercise puts in it).
struct OpExerciseInfo {
    std::string name;     ///< e.g. gemv_batched
    std::string chapter;  ///< e.g. ch01_global
    std::vector<std::string> classes;
};
const std::vector<OpExerciseInfo>& op_exercises();
/// The exercise called `name`; std::invalid_argument naming the value and the known ones.
const OpExerciseInfo& find_op_exercise(const std::string& name);

/// One case of one class (a case counted in two classes appears twice).
struct OpCaseResult {
    std::string shape_class;
    std::string result;  ///< pass | fail | error
    std::string text;    ///< the case's label, then ": <finding>" when it did not pass
};

/// What one grading run of an op exercise measured.
struct OpRecord {
    std::string exercise, variant, reference, device, date, seed;
    std::vector<OpCaseResult> cases;
    std::vector<SanitizerResult> sanitizers;  ///< has_case is always false: the shape is in msg
    std::string timed;       ///< the timed case's label (empty: not timed)
    double sub_ms = 0, ref_ms = 0;
    std::string abort_msg;
    bool complete = false;
};

/// The op record format:
/// \code
///   wbgrade-op-record 1
///   exercise gemv_batched
///   variant sub
///   reference solution
///   device NVIDIA H200 (132 SMs)
///   date 2026-11-22T10:00:00Z
///   seed 1234
///   case class=beta0_poisoned result=fail msg=trans=N m=3 ...: wrong values: ...
///   perf sub_ms=1.20 ref_ms=1.10 msg=16 products of 2048 x 2048
///   sanitize tool=memcheck result=fail findings=2 kernel=k msg=first message
///   abort msg=free text
///   end
/// \endcode
void write_op_record_header(std::ostream& os, const OpRecord& r);
void write_op_case(std::ostream& os, const OpCaseResult& c);
void write_op_perf(std::ostream& os, const std::string& timed, double sub_ms, double ref_ms);
void write_op_sanitizer(std::ostream& os, const SanitizerResult& s);
void write_op_record(std::ostream& os, const OpRecord& r);  ///< all of it, in order (end when complete)

/// Parses an op record; FormatError naming the line on a missing or wrong header, an unknown
/// line, key, exercise, class, result or tool, a tool given twice, a bad or second perf line.
OpRecord parse_op_record(std::istream& is);

/// The rubric: each shape class earns its op_class_points() when every case of
/// it passed (a class without any recorded case failed: not run); the sanitizer classes as
/// transpose's; performance points (speed = ref_ms / sub_ms under the exercise's thresholds)
/// only when every shape class passed and no sanitizer class that ran failed.
Rubric score_op(const OpRecord& r, const Thresholds& t);

/// The correctness points of each of `classes` classes: the transpose track's 40, shared in
/// tenths so that they add up to exactly 40 (6 classes: 6.7 x 4 and 6.6 x 2).
std::vector<double> op_class_points(std::size_t classes);

/// The rubric when the submission did not compile: every item of the exercise's rubric at 0.
Rubric score_op_build_failure(const std::string& exercise, const std::string& build_log);

/// The pass mark: every correctness and sanitizer class (60) and a quarter of the performance
/// points. The known-wrong submissions must score below it (a slow but right one scores 60).
constexpr double kPassMark = 70.0;

/// The threshold for one exercise from its calibration: full_at = 1 - max(0.10, 3 x noise),
/// clamped to [0.5, 0.95]; zero_at = 0.5 (no previous step to compare with).
Threshold derive_op_threshold(double noise);

}  // namespace wb::grade
