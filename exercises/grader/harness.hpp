/// \file harness.hpp
/// \brief The GPU side of the grader: runs one graded case of a transpose launcher with guard
///        bands, poisoned outputs and scrubbed shared memory, checks every bit, and times
///        launchers against each other in the same run.
#pragma once

#include "exercise_transpose.hpp"
#include "grading.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::grade {

/// A CUDA error that leaves the context unusable (an illegal address, a trap): the run must stop.
class FatalDeviceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Bit patterns the harness plants (all quiet NaNs, told apart by their payload):
constexpr std::uint32_t kGuardA = 0x7FC0A0A0u;   ///< around A and in A's padding: reads of it are OOB
constexpr std::uint32_t kGuardB = 0x7FC0B0B0u;   ///< around B and in B's padding: must stay intact
constexpr std::uint32_t kPoisonB = 0xFFFFFFFFu;  ///< B's elements before the call: "never written"

/// Runs `fn` on case `c` `repeats` times (fresh poison and shared-memory scrub before each) with
/// inputs from `seed`. Checks B bit-exactly against A, B's padding and guard bands, and that A is
/// unchanged. Exceptions from `fn` become result "error". Throws FatalDeviceError when the
/// context is lost.
CaseResult run_graded_case(ex::TransposeFn fn, const GradedCase& c, std::uint64_t seed, int repeats = 2);

/// Median times (ms) of several launchers on one shape, measured in interleaved rounds with the
/// L2 flushed before every call; entry k of the result belongs to fns[k] (null: skipped, 0).
/// The copy ceiling (cudaMemcpy of the same bytes) is timed too; `noise` gets the largest
/// relative spread between rounds of any launcher.
struct ShapeTimes {
    std::vector<double> ms;
    double copy_ms = 0;
    double noise = 0;
};
ShapeTimes time_shape(const std::vector<ex::TransposeFn>& fns, const PerfShape& shape, int rounds = 3);

/// "NVIDIA H200 (132 SMs)" of the current device.
std::string device_description();

}  // namespace wb::grade
