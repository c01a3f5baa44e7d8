/// \file split_cpu_again.hpp
/// \brief The CPU peer classes of a group timed again just before its rows: the host's rate moves
///        within a run (a cache-resident GEMV ran at one rate or twice it from one minute to the
///        next: docs/notes/split.md), so a class measured at the run's start can describe another
///        host than the one its rows meet. The same calibration as at the start (kernels/cpu/
///        peer_rates.hpp: both regimes, the grid with the LLC's bracket, in turn), for the group's
///        classes alone; no size of the table is timed for it, and the rows are still predicted
///        before they are timed.
#pragma once

#include "peer_rates.hpp"
#include "split_cases.hpp"

#include <string>
#include <vector>

namespace wb::ch07 {

/// The peer classes (model::peer_key) the rows of case c's group are predicted with and that no
/// other group's rows use first: GEMV "gemv T" (its single-thread regime with it), SYMV "symv T",
/// GEMM "gemm T" and "gemm share T", the convolution "conv2d FSk T", CG "cg iteration T" and
/// "cg vectors T" (its initial product is SYMV's class, timed again in SYMV's group where the run
/// has one: the ops run in the table's order, SYMV's group before CG's). Each class belongs to one
/// group and is read by no group before it, so a replay that applies every group's lines at once
/// rebuilds the run's model. Empty for an op the chapter does not know.
std::vector<std::string> cpu_classes_of(const Case& c);

/// The header of the lines retime_cpu_classes returns; the replay (machines_from_log) reads the
/// class lines after it as the run's model for those classes.
inline constexpr const char* kCpuAgainHeader = "CPU classes timed again before their rows:";

/// Times the classes of case c's group again (cpu::calibrate_peer_classes with sizes `s` and host
/// memory from `alloc`), replacing them in m.cpu.peers. Returns the lines to print: the header and
/// one per class and regime, as the start's calibration prints them; on an error the classes
/// measured before it are kept, the others stay the start's, and the last line says so.
std::vector<std::string> retime_cpu_classes(Machines& m, const Case& c, const cpu::CalibrationSizes& s,
                                            const cpu::HostAlloc& alloc);

}  // namespace wb::ch07
