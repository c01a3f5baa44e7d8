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
        {0.965, 0.912, 2553, 1.1532, 1.045, 0.812, 0.833, 0.967, 0.830},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.961, 0.958, 3517, 0.6027, 1.035, 1.018, 0.925, 0.947, 0.947},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.935, 0.905, 3394, 0.2117, 1.077, 0.974, 0.824, 0.981, 0.900},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.859, 0.906, 3242, 0.2933, 1.006, 0.956, 0.801, 0.934, 0.870},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {0.954, 0.932, 3192, 0.3059, 1.054, 1.031, 0.831, 0.978, 0.930},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.820, 0.835, 2388, 0.1302, 1.077, 0.896, 0.636, 0.890, 0.663},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.915, 0.727, 1328, 0.1425, 1.195, 1.124, 0.559, 0.979, 0.866},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.812, 1.014, 3395, 1.6826, 1.285, 0.980, 0.888, 1.231, 0.991},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.855, 1.037, 2814, 0.7060, 1.285, 0.997, 0.912, 1.206, 1.026},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.573, 0.889, 2887, 0.3136, 1.089, 0.595, 0.581, 0.940, 0.597},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.938, 0.992, 2458, 0.4148, 2.048, 1.926, 0.969, 1.675, 1.605},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.052, 0.814, 2523, 0.1473, 0.985, 1.001, 0.935, 0.728, 0.802},  // tile=64x64x16 FP64 tensor cores
        {0.948, 0.674, 2701, 0.1170, 0.975, 1.007, 0.779, 0.663, 0.775},  // tile=128x16x16 FP64 tensor cores
        {0.882, 0.776, 2696, 0.1142, 0.940, 0.941, 0.772, 0.640, 0.633},  // tile=16x128x16 FP64 tensor cores
        {0.975, 0.350, 2475, 0.4478, 1.025, 0.957, 0.333, 0.365, 0.332},  // tile=96x128x32 FP64 tensor cores
    };
}

}  // namespace wb::tuned
