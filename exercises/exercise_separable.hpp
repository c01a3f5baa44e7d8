/// \file exercise_separable.hpp
/// \brief Chapter 2's convolution exercise: a separable filter applied as a row pass and a
///        column pass (the contract, the rules the launcher checks, the float64 reference).
///
/// The workbook's convolution (chapter 1's page): a row-major `rows x cols` image `in` (element
/// (r, c) at `in[r * in_pitch + c]`), zeros outside it, an output of the same size (`out[r *
/// out_pitch + c]`), a cross-correlation with a filter of odd size `fs`. Here the filter is
/// separable, `filter(k, l) = col_taps[k] * row_taps[l]`, so
///   tmp(r, c) = sum_l row_taps[l] in(r, c + l - h),   out(r, c) = sum_k col_taps[k] tmp(r + k - h, c)
/// with `h = fs / 2` and tmp zero outside the image: 2 fs products per output instead of fs^2.
/// `tmp` is a device workspace of `rows x cols` floats (pitch cols) that the caller provides.
/// The taps are host arrays of fs floats each; the launcher puts them in constant memory.
///
/// Each file defines, in `namespace wb::ex::WB_EX_NS`:
/// \code
///   void separable(const SeparableArgs& args, cudaStream_t stream);
/// \endcode
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef WB_EX_NS
/// The namespace a compiled exercise file lands in (exercise_transpose.hpp says why).
#define WB_EX_NS submission
#endif

namespace wb::ex {

/// The largest filter: its taps fit in the constant memory the launcher reserves.
constexpr int kSeparableMaxFs = 63;

/// Arguments of one separable convolution (see the file comment).
struct SeparableArgs {
    int rows = 0, cols = 0;          ///< >= 0
    int fs = 1;                      ///< odd, 1 <= fs <= kSeparableMaxFs
    const float* row_taps = nullptr; ///< host, fs taps (along a row)
    const float* col_taps = nullptr; ///< host, fs taps (down a column)
    const float* in = nullptr;       ///< device
    int in_pitch = 1;                ///< >= max(1, cols)
    float* tmp = nullptr;            ///< device workspace, rows x cols, pitch cols
    float* out = nullptr;            ///< device
    int out_pitch = 1;               ///< >= max(1, cols)
};

/// The launcher every separable.cu defines.
using SeparableFn = void (*)(const SeparableArgs&, cudaStream_t);

/// Checks `a` before anything touches the GPU; throws std::invalid_argument naming the
/// function, the argument, its value and the rule, e.g. "ch02 separable: fs (4) must be odd".
inline void check_separable_args(const char* fn, const SeparableArgs& a) {
    auto fail = [fn](const std::string& what) { throw std::invalid_argument(std::string(fn) + ": " + what); };
    if (a.rows < 0) fail("rows (" + std::to_string(a.rows) + ") must be >= 0");
    if (a.cols < 0) fail("cols (" + std::to_string(a.cols) + ") must be >= 0");
    if (a.fs < 1 || a.fs > kSeparableMaxFs || a.fs % 2 == 0)
        fail("fs (" + std::to_string(a.fs) + ") must be odd and in [1, " + std::to_string(kSeparableMaxFs) + "]");
    const int min_pitch = a.cols > 1 ? a.cols : 1;
    if (a.in_pitch < min_pitch) fail("in_pitch (" + std::to_string(a.in_pitch) + ") must be >= max(1, cols) (" + std::to_string(min_pitch) + ")");
    if (a.out_pitch < min_pitch) fail("out_pitch (" + std::to_string(a.out_pitch) + ") must be >= max(1, cols) (" + std::to_string(min_pitch) + ")");
    if (a.row_taps == nullptr || a.col_taps == nullptr) fail("row_taps and col_taps must point to fs host floats each");
    if (a.rows == 0 || a.cols == 0) return;
    if (a.in == nullptr || a.tmp == nullptr || a.out == nullptr)
        fail("in, tmp and out must point to device memory when rows and cols are > 0");
}

/// The float64 reference on a host copy of the image (laid out as on the device): returns the
/// rows x cols outputs row after row (pitch cols), both passes in double.
inline std::vector<double> separable_reference(const SeparableArgs& a, const std::vector<float>& in) {
    check_separable_args("separable_reference", a);
    const long long rows = a.rows, cols = a.cols, h = a.fs / 2;
    if (rows > 0 && cols > 0 && static_cast<long long>(in.size()) < (rows - 1) * a.in_pitch + cols)
        throw std::invalid_argument("separable_reference: in (" + std::to_string(in.size()) + " entries) must hold the image");
    std::vector<double> tmp(static_cast<std::size_t>(rows * cols)), out(tmp.size());
    for (long long r = 0; r < rows; ++r)
        for (long long c = 0; c < cols; ++c) {
            double s = 0;
            for (long long l = 0; l < a.fs; ++l)
                if (c + l - h >= 0 && c + l - h < cols) s += static_cast<double>(a.row_taps[l]) * in[static_cast<std::size_t>(r * a.in_pitch + c + l - h)];
            tmp[static_cast<std::size_t>(r * cols + c)] = s;
        }
    for (long long r = 0; r < rows; ++r)
        for (long long c = 0; c < cols; ++c) {
            double s = 0;
            for (long long k = 0; k < a.fs; ++k)
                if (r + k - h >= 0 && r + k - h < rows) s += static_cast<double>(a.col_taps[k]) * tmp[static_cast<std::size_t>((r + k - h) * cols + c)];
            out[static_cast<std::size_t>(r * cols + c)] = s;
        }
    return out;
}

}  // namespace wb::ex
