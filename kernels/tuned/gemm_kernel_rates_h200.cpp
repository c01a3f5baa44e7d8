/// \file tuned/gemm_kernel_rates_h200.cpp
/// \brief The kernels' rates tuned::measure_gemm_kernel_rates gave on an H200 (chapter 6 prints
///        them before its GEMM cases; \ref notes_gemm): the default rule's without a GPU, as the
///        `h200` profile preset is the profile's. Generated from that output by
///        scripts/gemm_kernel_rates_table.py; each entry {op(A) = A^T, element copies, epilogue GB/s,
///        the op(A) = A call's ms, NT, TT} (0: not measured in that run).
#include "tuned/gemm_kernel_rates.hpp"

namespace wb::tuned {

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<float>() {
    return {
        {0.966, 0.912, 2544, 1.1531, 1.014, 0.969},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.962, 0.958, 3505, 0.6009, 1.036, 1.018},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.932, 0.900, 3413, 0.2118, 1.070, 0.971},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.789, 0.925, 3269, 0.3057, 1.015, 0.813},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {0.823, 0.873, 3227, 0.3124, 1.043, 0.842},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.821, 0.839, 2404, 0.1281, 1.070, 0.894},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.909, 0.721, 1336, 0.1426, 1.195, 1.120},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.848, 1.020, 3380, 1.6823, 1.291, 0.988},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.861, 1.039, 2821, 0.7088, 1.287, 1.001},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.575, 0.893, 2902, 0.3129, 1.095, 0.595},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.941, 0.990, 2457, 0.4160, 2.049, 1.923},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.095, 0.813, 2536, 0.1465, 0.985, 0.976},  // tile=64x64x16 FP64 tensor cores
        {0.972, 0.693, 2679, 0.1166, 1.017, 1.041},  // tile=128x16x16 FP64 tensor cores
        {0.897, 0.781, 2696, 0.1160, 0.942, 0.942},  // tile=16x128x16 FP64 tensor cores
    };
}

}  // namespace wb::tuned
