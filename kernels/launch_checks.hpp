/// \file launch_checks.hpp
/// \brief Host-side checks every op's launchers share (architecture §3): argument errors that
///        name the function, argument, value and rule; grid sizes checked against the hardware
///        limits; launch tunables checked against their rules; the SM count the default launches
///        are derived for. Each op's `<op>_detail` namespace brings these in by `using`.
#pragma once

#include <string>

namespace wb::launch_checks {

/// Throws std::invalid_argument "fn: what".
[[noreturn]] void fail(const char* fn, const std::string& what);

/// `v` as text (for messages).
inline std::string num(long long v) { return std::to_string(v); }

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// Grid size in one dimension, checked against the hardware limit (2^31-1 in x, 65535 in y, z):
/// throws std::invalid_argument "fn: problem too large for one launch" above it.
unsigned grid_dim(long long blocks, long long limit, const char* fn);

/// Checks a launch field against its rule; throws std::invalid_argument naming both, e.g.
/// "tuned::gemm: launch.tile_m (96) must be one of the instantiated tiles (128, 64)".
void require_launch(bool ok, const char* fn, const char* field, int value, const std::string& rule);

/// SMs of the current device (cached per host thread and device); without a GPU (the chapters'
/// predict-only mode) 132, the h200 preset's, the device the predictions are printed for.
int sm_count();

}  // namespace wb::launch_checks
