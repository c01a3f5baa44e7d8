/// \file split_replay.hpp
/// \brief Chapter 7's model replayed on a finished run: everything the model predicts with is read
///        back from the lines the run printed at its start (the host's bandwidth curve and FMA
///        rates, each CPU peer class's t0 and e per working set, the tuned kernels' rates, the
///        link's segments, each class's all-GPU path, the host memory both sides share), and the
///        measured columns from its CSV. predict_case on those Machines gives the model's columns
///        again, so a change of the model can be judged on a measured run without a GPU.
#pragma once

#include "split_summary.hpp"

#include <istream>
#include <string>
#include <vector>

namespace wb::ch07 {

/// The Machines of a run, from its text output (the lines main.cpp prints while it measures). The
/// GPU's profile is the h200 preset with the bandwidth and FMA peaks the run printed. Throws
/// std::invalid_argument naming the line that is missing (the host, the curve, the link).
Machines machines_from_log(std::istream& log);

/// One row of a run's CSV: the case, the model's columns as the run wrote them, the measured ones.
struct CsvRow {
    Case c;
    double cpu_model_ms = 0, gpu_model_ms = 0, hybrid_model_ms = 0;
    std::string choice;  ///< the run's model's choice ("CPU", "GPU", "hybrid")
    int chunks = 0;      ///< the hybrid's pipeline depth where the run wrote one (0: no column, or '-')
    Measured m;          ///< cpu_ms, gpu_ms; hybrid_ms where the hybrid itself ran (its share in (0, 100%));
                         ///< balanced_ms where a --balance run timed it; balanced_pieces where the run
                         ///< wrote its "pieces" column
};
/// Every row of the run's CSV (the last run where several were appended). Throws
/// std::invalid_argument on a missing column.
std::vector<CsvRow> rows_from_csv(std::istream& csv);

/// The rows with the model's predictions recomputed from `m` beside the CSV's measured columns.
/// The measured hybrid ran at the run's share: where the recomputed share differs, its column
/// is still the run's (the replay judges the model's time at the recomputed share against it).
std::vector<RowResult> replay(const std::vector<CsvRow>& rows, const Machines& m);

}  // namespace wb::ch07
