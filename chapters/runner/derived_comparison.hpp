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
    std::string sweep_note;  ///< launches added to the step's list, or why the sweep stopped
};

/// The cases of op `op` ("gemv", "gemm", "conv2d", "symv", "cg") on `dev` for the precisions
/// `precisions` (4 and/or 8 bytes): the page's shapes, or with `cases.sizes` each size n as the
/// op's square case (GEMV n x n, GEMM n^3, the convolution an n x n image with each filter size,
/// SYMV and CG n); GEMV's cases of op N and T as `cases` selects them. With `measure` (a live GPU,
/// dev read from it), GEMV, GEMM, the convolution and SYMV also check and time the derived launch
/// and chapter 5's default on the device (median of the harness, L2 flushed, fewer repetitions
/// with `cases.quick`; CG's derived launch is its default: not timed); with `sweep` too, every
/// legal launch of the tuned step (the sweep's best and worst). Throws std::invalid_argument on an
/// unknown op.
std::vector<Comparison> compare_op(const std::string& op, const DeviceProfile& dev, const std::vector<int>& precisions,
                                   bool measure = false, bool sweep = false, const CaseSelection& cases = {});

/// The ops compare_op knows, in the ladder's order.
const std::vector<std::string>& compared_ops();

}  // namespace wb::ch06
