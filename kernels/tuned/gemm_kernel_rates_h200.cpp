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
        {0.966, 0.912, 2576, 1.1529, 0, 0},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.961, 0.959, 3513, 0.6013, 0, 0},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.932, 0.904, 3445, 0.2116, 0, 0},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.786, 0.915, 3289, 0.3063, 0, 0},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {0.820, 0.872, 3275, 0.3120, 0, 0},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.818, 0.828, 2403, 0.1301, 0, 0},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.905, 0.737, 1373, 0.1422, 0, 0},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.847, 1.019, 3375, 1.6786, 0, 0},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.849, 1.028, 2870, 0.7056, 0, 0},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.573, 0.894, 2936, 0.3124, 0, 0},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.938, 0.993, 2467, 0.4152, 0, 0},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.099, 0.813, 2535, 0.1465, 0, 0},  // tile=64x64x16 FP64 tensor cores
        {0.960, 0.687, 2699, 0.1156, 0, 0},  // tile=128x16x16 FP64 tensor cores
        {0.893, 0.782, 2708, 0.1157, 0, 0},  // tile=16x128x16 FP64 tensor cores
    };
}

}  // namespace wb::tuned
