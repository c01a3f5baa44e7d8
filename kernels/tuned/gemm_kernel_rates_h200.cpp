/// \file tuned/gemm_kernel_rates_h200.cpp
/// \brief The kernels' rates tuned::measure_gemm_kernel_rates gave on an H200 (chapter 6 prints
///        them before its GEMM cases; \ref notes_gemm): the default rule's without a GPU, as the
///        `h200` profile preset is the profile's. Generated from that output by
///        scripts/gemm_kernel_rates_table.py; each entry {op(A) = A^T, element copies, epilogue GB/s,
///        the op(A) = A call's ms, NT, TT, and TN, NT, TT with element copies} (0: not measured in that run).
#include "tuned/gemm_kernel_rates.hpp"

namespace wb::tuned {

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<float>() {
    return {
        {0.964, 0.911, 2547, 1.1535, 1.012, 0.967, 0.833, 0.920, 0.835},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.962, 0.958, 3498, 0.6015, 1.036, 1.019, 0.925, 0.949, 0.947},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.932, 0.903, 3417, 0.2120, 1.076, 0.973, 0.826, 0.981, 0.900},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.916, 0.906, 3247, 0.2938, 1.006, 0.959, 0.805, 0.937, 0.874},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {1.004, 0.947, 3222, 0.3073, 1.075, 1.052, 0.848, 0.998, 0.946},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.819, 0.832, 2387, 0.1232, 1.075, 0.899, 0.639, 0.892, 0.667},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.911, 0.727, 1329, 0.1425, 1.182, 1.119, 0.554, 0.978, 0.863},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.848, 1.018, 3349, 1.6779, 1.291, 0.988, 0.894, 1.238, 0.996},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.857, 1.032, 2858, 0.7059, 1.284, 0.999, 0.906, 1.204, 1.032},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.574, 0.892, 2908, 0.3127, 1.089, 0.594, 0.583, 0.943, 0.596},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.941, 0.991, 2445, 0.4155, 2.043, 1.930, 0.969, 1.669, 1.602},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.095, 0.809, 2521, 0.1459, 0.984, 0.976, 0.925, 0.724, 0.803},  // tile=64x64x16 FP64 tensor cores
        {0.979, 0.692, 2684, 0.1164, 1.024, 1.026, 0.816, 0.663, 0.800},  // tile=128x16x16 FP64 tensor cores
        {0.896, 0.779, 2703, 0.1164, 0.946, 0.942, 0.783, 0.631, 0.635},  // tile=16x128x16 FP64 tensor cores
        {1.002, 0.351, 2476, 0.4473, 1.025, 0.956, 0.332, 0.366, 0.332},  // tile=96x128x32 FP64 tensor cores
    };
}

}  // namespace wb::tuned
