/// \file tuned/gemm_kernel_rates_h200.cpp
/// \brief The kernels' rates tuned::measure_gemm_kernel_rates gave on an H200 (chapter 6 prints
///        them before its GEMM cases; \ref notes_gemm): the default rule's without a GPU, as the
///        `h200` profile preset is the profile's. Generated from that output by
///        scripts/gemm_kernel_rates_table.py; each entry {op(A) = A^T, element copies}.
#include "tuned/gemm_kernel_rates.hpp"

namespace wb::tuned {

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<float>() {
    return {
        {0.965, 0.911},  // tile=256x128x16
        {0.960, 0.960},  // tile=128x128x16
        {0.939, 0.901},  // tile=64x64x16
        {0.798, 0.930},  // tile=128x64x16
        {0.819, 0.874},  // tile=64x128x16
        {0.830, 0.835},  // tile=128x16x32
        {0.912, 0.721},  // tile=16x128x32
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.848, 1.021},  // tile=128x128x8
        {0.861, 1.040},  // tile=64x64x16
        {0.579, 0.888},  // tile=128x16x16
        {0.941, 0.993},  // tile=16x128x16
    };
}

}  // namespace wb::tuned
