/// \file exercise_separable_padded.hpp
/// \brief Chapter 4's convolution exercise: chapter 2's separable filter on padded, aligned rows
///        read with 16-byte loads (the contract and the rules the launcher checks; the float64
///        reference is chapter 2's).
///
/// The filter, the image, the zeros outside it and the two passes are those of
/// exercise_separable.hpp (SeparableArgs, separable_reference()). Here the rows are laid out for
/// vector access:
///   - `in_pitch` and `out_pitch` are multiples of 32 floats (128 bytes), and `in`, `tmp` and
///     `out` start on 128-byte boundaries: every row starts aligned, so a row can be read as
///     float4s (a warp's request: 512 contiguous bytes) with no test inside the row;
///   - the padding of `in`, columns [cols, in_pitch) of each row, may be read (a float4 that
///     straddles cols reads it) but holds anything, NaN say: it must not reach the output (the
///     image is zero there);
///   - `tmp` is the launcher's workspace of `rows x out_pitch` floats (pitch out_pitch, not
///     chapter 2's cols), so that its rows are aligned too: anything may be written in it;
///   - `out`: only the rows x cols entries are written, never its padding [cols, out_pitch).
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS` (chapter 2's launcher):
/// \code
///   void separable(const SeparableArgs& args, cudaStream_t stream);
/// \endcode
/// kernels/ has the two-dimensional convolution; chapter 2's exercise stages its tiles with
/// scalar, edge-tested loads.
#pragma once

#include "exercise_separable.hpp"

#include <cstdint>

namespace wb::ex {

/// The row alignment of the padded layout, in floats (128 bytes).
constexpr int kSeparableRowAlign = 32;

/// Chapter 2's rules (check_separable_args), then the pitches (multiples of 32) and the pointers
/// (128-byte aligned); throws std::invalid_argument naming the function, the argument, its value
/// and the rule, e.g. "ch04 separable_padded: in_pitch (100) must be a multiple of 32".
inline void check_separable_padded_args(const char* fn, const SeparableArgs& a) {
    check_separable_args(fn, a);
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.in_pitch % kSeparableRowAlign != 0) fail("in_pitch (" + std::to_string(a.in_pitch) + ") must be a multiple of 32");
    if (a.out_pitch % kSeparableRowAlign != 0) fail("out_pitch (" + std::to_string(a.out_pitch) + ") must be a multiple of 32");
    if (a.rows == 0 || a.cols == 0) return;
    const struct { const char* name; const void* ptr; } rows[] = {{"in", a.in}, {"tmp", a.tmp}, {"out", a.out}};
    for (const auto& r : rows)
        if (reinterpret_cast<std::uintptr_t>(r.ptr) % (4 * kSeparableRowAlign) != 0)
            fail(std::string(r.name) + " (at byte " + std::to_string(reinterpret_cast<std::uintptr_t>(r.ptr)) +
                 ") must be 128-byte aligned");
}

}  // namespace wb::ex
