/// \file conv2d_problem.hpp
/// \brief One convolution problem on the device — a seeded random image and filter (never
///        zeros, NaN in the pitch padding and before the offset base pointer), its float64
///        reference, and the two things every consumer does with a step: check it against the
///        reference (output poisoned with NaN first) and time it (L2 flushed: the op is
///        memory-bound at small filters). Chapters, gpu tests and perf tests all go through here.
#pragma once

#include "bench.hpp"
#include "buffer.hpp"
#include "compare.hpp"
#include "memory_fit.hpp"
#include "conv2d.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// The shape of one convolution: a rows x cols image, an FS x FS filter.
struct Conv2dShape {
    int rows = 0, cols = 0, fs = 1;
    int in_pitch = 0, out_pitch = 0;  ///< 0: tight (max(1, cols))
    int offset = 0;                   ///< elements the image's and the output's base pointers are offset by
    /// e.g. "8192x8192 FS=7" or "37x53 FS=5 in_pitch=60 out_pitch=57 offset=1" (non-tight parts only).
    std::string str() const;
};

template <class T>
struct Conv2dProblem {
    Conv2dShape shape;  ///< pitches resolved (never 0)
    std::uint64_t seed = 0;
    /// Host copies as allocated: `offset` leading elements, then rows of the pitch. Every element
    /// outside the image (the offset prefix, the pitch padding) is NaN.
    std::vector<T> hin, hfilter;
    DeviceBuffer<T> in, filter, out;

    Conv2dArgs<T> args();
    double useful_flops() const;  ///< 2 rows cols FS^2
    double useful_bytes() const;  ///< size(T) (2 rows cols + FS^2): image in, image out, filter
    /// The rows the check compares: all while rows cols FS^2 <= 2^31, otherwise a seeded sample
    /// of about 2^30 / (cols FS^2) rows (at least 8; the first and the last always).
    const std::vector<int>& checked_rows() const;
    /// The float64 reference over checked_rows() (cols values each); fills error_scale() too.
    std::vector<double> reference() const;
    /// |filter| (x) |in| in float64 over checked_rows(): the scale of the error bound.
    const std::vector<double>& error_scale() const;

private:
    mutable std::vector<int> rows_;
    mutable bool rows_set_ = false;
    mutable std::vector<double> scale_;
    mutable bool scale_set_ = false;
};

/// Allocates and fills a problem: the image (seed) and the filter (seed + 1) seeded random, full
/// mantissas, never zero; NaN in the padding and the offset prefix. Throws std::invalid_argument
/// on a negative size, an fs the op rejects, a pitch below cols or a negative offset.
template <class T>
Conv2dProblem<T> make_conv2d_problem(const Conv2dShape& shape, std::uint64_t seed);

/// Reduction length the check's tolerance grows with for `step`: FS^2 products per output for
/// the direct steps; for the transform-based peers (cufft, and cudnn whose fastest algorithm may
/// be an FFT or Winograd one) the error grows with the transform instead: (2 log2(P_r P_c))^2
/// when that is larger.
std::size_t conv2d_reduction_length(const std::string& stage, int rows, int cols, int fs);

/// Poisons the whole output array (NaN), runs `step` once with `launch`, and compares the checked
/// rows with `ref` (compare_output). Also fails when anything outside the rows x cols window of
/// the output array (pitch padding, the offset prefix) was written.
template <class T>
CheckResult check_conv2d(const Step<Conv2dArgs<T>>& step, const Conv2dLaunch& launch, Conv2dProblem<T>& p,
                         const std::vector<double>& ref);

/// Times `step` with the harness (opt as given: the L2 flush on by default; working_set_bytes
/// from the useful bytes).
template <class T>
BenchStats time_conv2d(const Step<Conv2dArgs<T>>& step, const Conv2dLaunch& launch, Conv2dProblem<T>& p,
                       BenchOptions opt);

/// The memory make_conv2d_problem, check_conv2d, time_conv2d and the chapter-0 peer need at their
/// peak for elements of `elem` bytes: the image and the output as allocated, the filter, and the
/// peer's workspaces (NPP's bordered image and output: 2 padded images); the other peers' rows
/// check their own (chapters/runner/conv2d_op.cpp). On the host: the image, the downloaded
/// output, and the float64 reference and error scale of the checked rows. Nothing is allocated.
MemoryNeed conv2d_memory_need(std::size_t elem, const Conv2dShape& shape);

}  // namespace wb
