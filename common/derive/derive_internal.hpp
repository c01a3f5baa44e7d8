/// \file derive/derive_internal.hpp
/// \brief Helpers the ops' derivations share (derive/OP.cpp): not part of the interface.
#pragma once

#include "device_profile.hpp"
#include "model/white.hpp"

#include <string>

namespace wb::derive::detail {

/// True where White's own procedure applies: the `t10` preset (a linear partition map) and a
/// square problem whose side is a power of two >= 512 (White Eq. 4.1).
inline bool white_case(const DeviceProfile& dev, long long rows, long long cols) {
    return dev.partitions > 0 && rows == cols && rows >= 512 && (rows & (rows - 1)) == 0;
}

/// "float" or "double".
inline std::string precision(int elem_bytes) { return elem_bytes == 8 ? "double" : "float"; }

/// Smallest power of two >= v (1 for v < 1).
inline long long pow2_ceil(long long v) {
    long long p = 1;
    while (p < v) p *= 2;
    return p;
}

/// Largest power of two <= v (1 for v < 2).
inline long long pow2_floor(long long v) {
    long long p = 1;
    while (2 * p <= v) p *= 2;
    return p;
}

/// Throws std::invalid_argument unless elem_bytes is 4 or 8 and every size is >= 1.
void check_shape(const std::string& fn, int elem_bytes, long long a, long long b, long long c = 1);

/// Rule 4 (White Eq. 3.12-3.13): partitions the active blocks of a White launch touch on `dev`.
double white_partitions(const DeviceProfile& dev, const model::WhiteLaunch& l, int threads_per_block, int regs,
                        int smem);

}  // namespace wb::derive::detail
