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
        {0.964, 0.910, 2539, 1.1541, 1.012, 0.967, 0.833, 0.919, 0.836},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.962, 0.959, 3521, 0.6013, 1.038, 1.020, 0.927, 0.949, 0.948},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.935, 0.909, 3432, 0.2121, 1.073, 0.966, 0.826, 0.980, 0.905},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.917, 0.907, 3232, 0.2936, 1.007, 0.958, 0.806, 0.936, 0.873},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {0.995, 0.948, 3200, 0.3082, 1.076, 1.053, 0.846, 0.996, 0.949},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.820, 0.833, 2383, 0.1172, 1.078, 0.893, 0.638, 0.894, 0.667},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.913, 0.730, 1330, 0.1429, 1.184, 1.119, 0.566, 0.979, 0.863},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.848, 1.023, 3351, 1.6848, 1.292, 0.989, 0.896, 1.239, 0.999},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.854, 1.037, 2836, 0.7072, 1.283, 0.996, 0.912, 1.202, 1.026},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.573, 0.894, 2887, 0.3122, 1.090, 0.593, 0.582, 0.939, 0.598},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.937, 0.991, 2450, 0.4153, 2.051, 1.918, 0.968, 1.666, 1.599},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.096, 0.808, 2528, 0.1480, 0.979, 0.973, 0.927, 0.721, 0.802},  // tile=64x64x16 FP64 tensor cores
        {0.975, 0.688, 2672, 0.1168, 1.015, 1.026, 0.811, 0.662, 0.786},  // tile=128x16x16 FP64 tensor cores
        {0.911, 0.778, 2681, 0.1166, 0.941, 0.940, 0.774, 0.625, 0.632},  // tile=16x128x16 FP64 tensor cores
    };
}

}  // namespace wb::tuned
