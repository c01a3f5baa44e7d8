/// \file derived_comparison.hpp
/// \brief Chapter 6's rows: for one op and shape, the launch derived from the machine
///        (common/derive) beside chapter 5's default launch, each with the model's predicted time.
#pragma once

#include "derive/derivation.hpp"
#include "derived_options.hpp"
#include "device_profile.hpp"

#include <string>
#include <vector>

namespace wb::ch06 {

/// One launch of a case's sweep, as --launches-csv writes it (launch_rows.hpp).
struct SweptLaunch {
    std::string launch;        ///< its str()
    std::string params;        ///< every field of the launch, "name=value" words (launch_params)
    bool is_derived = false;   ///< the derived launch
    bool is_default = false;   ///< chapter 5's default launch
    double predicted_ms = -1;  ///< the model's time (negative: the model has no design for it)
    double measured_ms = -1;   ///< the harness's median
};

/// One case: the derivation, the two launches in the op's own words and the model's times
/// (negative where the model has no design for that launch).
struct Comparison {
    derive::Derivation derived;
    std::string derived_launch;   ///< the derived launch as the tuned kernel would take it
    double derived_ms = -1;
    std::string default_launch;   ///< chapter 5's default launch (its rules, on this profile)
    double default_ms = -1;
    std::string note;             ///< what differs, or why a time is missing
    // Measured on the live GPU (--measure; negative: not measured). Each launch is checked against
    // the float64 reference first; a failed check is reported in `measured_note` and not timed.
    double derived_measured_ms = -1;
    double default_measured_ms = -1;
    std::string measured_note;
    // The sweep (--sweep; 0 launches: not swept): every legal launch of the tuned step for this
    // call timed as the two above, and the derived and the default launch where the list lacks them.
    int swept = 0;
    std::string best_launch, worst_launch;
    double best_ms = -1, worst_ms = -1;
    std::string sweep_note;  ///< launches the step's list lacks (a defect), or why the sweep stopped
    /// Spearman's rho between the model's predicted and the measured times over the swept launches
    /// the model predicts (`ranked` of them; NaN: fewer than two, or no order to compare).
    double rho = -2;
    int ranked = 0;
    double bytes = 0;        ///< useful bytes of the call (GEMV, SYMV: the wave-tail plot's GB/s)
    int elem_bytes = 0;      ///< the precision: 4 float, 8 double
    std::vector<SweptLaunch> swept_launches;  ///< every launch the sweep timed, in the order timed

    /// The sweep's best over the derived launch's time (1: the derived launch is the best; -1:
    /// not both measured), and the same for chapter 5's default. Both times from the sweep, one
    /// campaign of timings: the separately timed derived_measured_ms would compare two timings of
    /// one launch where the derived launch is the best (at a few us per call they differ by several
    /// percent); without a sweep time, the separate one.
    double derived_vs_best() const { return best_ms > 0 && derived_time() > 0 ? best_ms / derived_time() : -1; }
    double default_vs_best() const { return best_ms > 0 && default_time() > 0 ? best_ms / default_time() : -1; }
    double derived_time() const {
        const double swept = swept_ms(&SweptLaunch::is_derived);
        return swept > 0 ? swept : derived_measured_ms;
    }
    double default_time() const {
        const double swept = swept_ms(&SweptLaunch::is_default);
        return swept > 0 ? swept : default_measured_ms;
    }
    /// The sweep's own time of the launch marked `which` (the sweep times the derived launch and
    /// the default: they are among its launches, or added to them); -1 where it has none.
    double swept_ms(bool SweptLaunch::*which) const {
        for (const SweptLaunch& l : swept_launches)
            if (l.*which) return l.measured_ms;
        return -1;
    }
};

/// One op's cases summed up: the mean and the worst of derived / best (the sweep's best over the
/// derived launch's time), and of rho, over the cases that were swept.
struct OpSummary {
    std::string op;
    int cases = 0;              ///< cases with both times (derived, sweep's best)
    double mean = -1, worst = -1;
    std::string worst_shape;
    double default_mean = -1, default_worst = -1;  ///< the same for chapter 5's default
    int ranked_cases = 0;       ///< cases with a rho
    double rho_mean = -2, rho_worst = -2;
};
OpSummary summarize(const std::string& op, const std::vector<Comparison>& rows);

/// The cases of op `op` ("gemv", "gemm", "conv2d", "symv", "cg") on `dev` for the precisions
/// `precisions` (4 and/or 8 bytes): the cases `cases` selects (derived_shapes.hpp: the page's,
/// --sizes, --shapes, --wave-tail). With `measure` (a live GPU, dev read from it), each op also
/// checks and times the derived launch and chapter 5's default on the device (median of the
/// harness, L2 flushed, fewer repetitions with `cases.quick`; CG: ms per iteration of a checked
/// solve); with `sweep` too, every legal launch of the tuned step (the sweep's best and worst;
/// SYMV: its deterministic launches) and Spearman's rho between the model's predicted and the
/// measured times over them. Throws std::invalid_argument on an unknown op.
std::vector<Comparison> compare_op(const std::string& op, const DeviceProfile& dev, const std::vector<int>& precisions,
                                   bool measure = false, bool sweep = false, const CaseSelection& cases = {});

/// The ops compare_op knows, in the ladder's order.
const std::vector<std::string>& compared_ops();

}  // namespace wb::ch06
