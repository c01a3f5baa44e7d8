/// \file reference_conv2d.hpp
/// \brief The float64 CPU reference of the 2-D convolution op (kernels/conv2d.hpp): the
///        cross-correlation out(i, j) = sum_{k, l} filter(k, l) in(i + k - h, j + l - h), zeros
///        outside the image, "same" size; or, with `flip`, the true convolution (the filter flipped
///        in both directions) that the tests set against it.
#pragma once

#include <cstddef>
#include <vector>

namespace wb::ref {

/// One convolution's operands as host arrays: image element (r, c) at in[offset + r * in_pitch + c],
/// filter (k, l) at filter[k * fs + l].
template <class T>
struct Conv2dOperands {
    int rows = 0, cols = 0, fs = 1;
    const std::vector<T>* in = nullptr;
    int in_pitch = 1;
    std::size_t offset = 0;
    const std::vector<T>* filter = nullptr;
};

/// Rows `rows_wanted` of the result in float64, row after row (cols values each: result row q at
/// [q cols, (q + 1) cols)). Each output sums its FS^2 products in a fixed order (filter row by
/// filter row), so the result does not depend on the number of host threads the rows are spread
/// over. With `flip`, the true convolution (filter(FS-1-k, FS-1-l) in place of filter(k, l)).
/// With `scale`, the same rows of |filter| (x) |in| (the right-hand side of the error bound
/// |out - ref| <= c FS^2 eps (|filter| (x) |in|)) are written there in the same pass.
/// Throws std::invalid_argument on a negative size, an even or non-positive fs, a pitch below
/// cols, arrays too short for the image, or a requested row outside [0, rows).
template <class T>
std::vector<double> conv2d_rows(const Conv2dOperands<T>& o, const std::vector<int>& rows_wanted, bool flip = false,
                                std::vector<double>* scale = nullptr);

/// Every row (rows x cols values).
template <class T>
std::vector<double> conv2d(const Conv2dOperands<T>& o, bool flip = false, std::vector<double>* scale = nullptr);

}  // namespace wb::ref
