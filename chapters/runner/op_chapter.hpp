/// \file op_chapter.hpp
/// \brief What the chapter binaries need from one registered op (see docs/pages/architecture.md):
///        its rows for a chapter (measured, or predicted only), and its launch sweep. The chapter
///        loop (ladder_chapter.cpp) iterates the list of ops (ops.hpp) through this interface;
///        op_runner.hpp implements it once for every op from the op's traits.
#pragma once

#include "bench.hpp"
#include "ceilings.hpp"
#include "cli.hpp"
#include "device_profile.hpp"
#include "progress.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wb {

/// One chapter run, as every op sees it.
struct ChapterRun {
    int chapter = 1;              ///< the chapter binary's step (1..5)
    bool whole_ladder = false;    ///< --ladder: every step up to this one, not only naive, previous and this one
    ChapterOptions opt;           ///< the command line
    const Ceilings* ceil = nullptr;  ///< measured ceilings (null when only predicting)
    DeviceProfile dev;            ///< live profile (bandwidth = measured read ceiling) or a preset
    BenchOptions bench;           ///< repetitions (fewer with --quick)
    bool shape_set = false;       ///< --shapes: predictions (no GPU) are of the op's shape set
};

/// The chapters whose steps a run shows: naive, the previous one and this one (or, with --ladder,
/// every one up to this one: the steps this chapter's binary links).
std::vector<int> chapters_to_run(int chapter, bool whole_ladder);

/// One row of an op's table, in the op's units. Cells are formatted already.
struct ChapterRow {
    std::string precision, variant, shape, step;
    std::vector<std::string> cells;  ///< the op's columns after the four above (OpTable::columns)
};

/// An op's table for one chapter run: printed with the op's column names; written to the CSV
/// with the generic names (OpTable::csv_columns) so that every op's rows share one file.
struct OpTable {
    std::string op;                      ///< "gemv", "gemm", ...
    std::string title;                   ///< printed above the table
    std::vector<std::string> columns;    ///< the op's names of the cells' columns ("GB/s", "% read", ...)
    std::vector<ChapterRow> rows;
    std::map<std::string, std::vector<double>> speedups;  ///< summary: geometric means printed after the table
    std::vector<std::string> notes;      ///< lines printed after the summary (the model's words)
    bool failed = false;                 ///< a step failed its correctness check
    std::vector<std::string> skipped;    ///< one line per case skipped because it does not fit in memory
};

/// The generic names of the measured columns (the CSV's header after op, precision, variant,
/// shape, step): the same for every op.
const std::vector<std::string>& measured_csv_columns();

/// A registered op as the chapter binaries see it.
class OpChapter {
public:
    virtual ~OpChapter() = default;
    virtual std::string name() const = 0;   ///< "gemv": what --op selects
    /// Rows the run will time (for the progress line).
    virtual std::size_t timed_rows(const ChapterRun& run) const = 0;
    /// Called after each case with the table so far and the index of the case's first row, so
    /// that a caller can write rows as they are measured (a run cut short keeps what it measured).
    using RowsDone = std::function<void(const OpTable&, std::size_t first_new_row)>;
    /// Measure this chapter's steps, the peer and the op's extra rows (needs a GPU).
    virtual OpTable measure(const ChapterRun& run, Progress& prog, const RowsDone& on_rows = {}) const = 0;
    /// The model's predictions only (no GPU needed).
    virtual OpTable predict(const ChapterRun& run) const = 0;
    /// Time every legal launch of this chapter's step; `every` collects every launch's row.
    virtual OpTable sweep(const ChapterRun& run, OpTable& every) const = 0;
    /// `--shapes`: this chapter's step against the peer on the op's own set of shapes (an op
    /// that has one supplies `shape_cases` in its traits, see op_runner.hpp). The default: no
    /// shape set, a table with no rows.
    virtual OpTable shapes(const ChapterRun& run, Progress& prog, const RowsDone& on_rows = {}) const {
        (void)run, (void)prog, (void)on_rows;
        OpTable t;
        t.op = name();
        return t;
    }
    /// The cases a run would show (the shape set with `shape_set`, where the op has one) and the
    /// skip line of each that does not fit in memory now (op_runner.hpp's memory check), so that a
    /// run whose every case is too large can say so before it measures anything.
    struct Fit {
        std::size_t cases = 0;
        std::vector<std::string> oversized;
    };
    virtual Fit memory_fit(const ChapterRun& run, bool shape_set) const {
        (void)run, (void)shape_set;
        return {};
    }
    /// Work this op's steps measure on the card before chapter 0's ceilings load it (called once
    /// per run, just before they are measured): the tuned GEMM's kernel rates, measured in the
    /// state a fresh process leaves the card in (the GEMM notes: measured after the ceilings they
    /// came out up to 12% apart and moved the rule's picks). The default: nothing.
    virtual void before_ceilings(const ChapterRun& run) const { (void)run; }
    /// Rows `shapes` times (for the progress line); 0 without a shape set.
    virtual std::size_t shape_rows(const ChapterRun& run) const {
        (void)run;
        return 0;
    }
};

}  // namespace wb
