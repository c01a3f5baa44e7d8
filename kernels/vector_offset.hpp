/// \file vector_offset.hpp
/// \brief Where a strided array's rows (or columns) start within a 16-byte vector: what the
///        kernels that read submatrix views at full width need from the pointer (the tuned
///        convolution's column origin, the persistent CG's shifted tile loads).
#pragma once

#include <cstdint>

namespace wb::detail {

/// Elements past a 16-byte boundary at which every row (or column) of a strided array starts,
/// where that is the same for all of them: the stride a multiple of the 16-byte vector's width
/// and the base element-aligned. -1 where they differ. A submatrix view one element into an
/// aligned allocation gives 1; the kernels that read it then start their tiles that many
/// elements early (KBLAS §6.6's aligned origin) and keep their 16-byte loads.
template <class T>
inline int vector_offset(const T* p, long long stride) {
    constexpr long long width = 16 / sizeof(T);
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    if (addr % sizeof(T) != 0 || stride % width != 0) return -1;
    return static_cast<int>(addr % 16 / sizeof(T));
}

}  // namespace wb::detail
