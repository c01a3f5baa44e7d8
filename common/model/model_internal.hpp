/// \file model/model_internal.hpp
/// \brief Helpers shared by the model files (common/model/*.cpp): argument errors, integer
///        rounding, number formatting. Internal: not part of the public model API.
#pragma once

#include "device_profile.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace wb::model::detail {

/// Throws std::invalid_argument "fn: arg (value) rule".
[[noreturn]] inline void invalid(const std::string& fn, const std::string& arg, long long value,
                                 const std::string& rule) {
    throw std::invalid_argument(fn + ": " + arg + " (" + std::to_string(value) + ") " + rule);
}

/// Throws std::invalid_argument "fn: what" unless `ok`.
inline void require(bool ok, const std::string& fn, const std::string& what) {
    if (!ok) throw std::invalid_argument(fn + ": " + what);
}

inline long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }
inline long long round_up(long long a, long long unit) { return unit <= 1 ? a : ceil_div(a, unit) * unit; }
inline bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

/// printf-formats one number.
inline std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

/// "42%": a fraction as a whole percentage.
inline std::string pct(double v) { return fmt("%.0f%%", v * 100); }

/// Throws unless the profile has a linear partition map (partitions > 0; modern GPUs hash).
inline void check_profile_partitions(const DeviceProfile& dev, const std::string& fn) {
    if (dev.partitions <= 0 || dev.partition_bytes <= 0)
        invalid(fn, "dev.partitions", dev.partitions,
                "must be > 0: \"" + dev.name +
                    "\" hashes addresses across channels, so no linear partition map exists");
}

}  // namespace wb::model::detail
