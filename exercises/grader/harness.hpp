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

/// The grid mode graded_grid_for() (grid_hook.hpp) applies, for the lifetime of this object.
class GridModeScope {
public:
    explicit GridModeScope(GridMode m);
    ~GridModeScope();
    GridModeScope(const GridModeScope&) = delete;
    GridModeScope& operator=(const GridModeScope&) = delete;

private:
    GridMode prev_;
};

/// Runs `fn` on case `c` `repeats` times (fresh poison and shared-memory scrub before each) with
/// inputs from `seed`; odd-numbered runs (the 2nd, 4th, ...) with GridMode::looped. Checks B
/// bit-exactly against A, B's padding and guard bands, and that A is unchanged. Exceptions from
/// `fn` become result "error". Throws FatalDeviceError when the context is lost.
CaseResult run_graded_case(ex::TransposeFn fn, const GradedCase& c, std::uint64_t seed, int repeats = 2);

/// One run of `fn` for the sanitizers: A and B allocated to their exact extent (no guard
/// bands), A's elements copied in and its padding left uninitialized, B left uninitialized, the
/// grid in `mode`. With `check_output`, B's elements are then copied back (only the elements:
/// under initcheck, an element the kernel never wrote is then itself a finding) and compared
/// bit-exactly. Exceptions from `fn` become "error"; FatalDeviceError when the context is lost.
CaseResult run_sanitized_case(ex::TransposeFn fn, const GradedCase& c, std::uint64_t seed, GridMode mode,
                              bool check_output);

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
