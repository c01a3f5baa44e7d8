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
        {0.965, 0.912},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.963, 0.961},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.932, 0.901},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.796, 0.917},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {0.822, 0.878},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.815, 0.828},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.905, 0.729},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.841, 1.017},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.857, 1.036},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.570, 0.896},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.938, 0.992},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.089, 0.819},  // tile=64x64x16 FP64 tensor cores
        {0.970, 0.689},  // tile=128x16x16 FP64 tensor cores
        {0.909, 0.779},  // tile=16x128x16 FP64 tensor cores
    };
}

}  // namespace wb::tuned
