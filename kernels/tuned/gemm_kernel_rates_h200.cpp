/// \file tuned/gemm_kernel_rates_h200.cpp
/// \brief The kernels' rates tuned::measure_gemm_kernel_rates gave on an H200 (chapter 6 prints
///        them before its GEMM cases; \ref notes_gemm): the default rule's without a GPU, as the
///        `h200` profile preset is the profile's. Generated from that output by
///        scripts/gemm_kernel_rates_table.py; each entry {op(A) = A^T, element copies, epilogue GB/s,
///        the op(A) = A call's ms, NT, TT, TN with element copies} (0: not measured in that run).
#include "tuned/gemm_kernel_rates.hpp"

namespace wb::tuned {

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<float>() {
    return {
        {0.967, 0.913, 2566, 1.1548, 1.014, 0.969, 0.837},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.963, 0.960, 3509, 0.6023, 1.037, 1.019, 0.927},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.935, 0.904, 3465, 0.2119, 1.072, 0.968, 0.825},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.917, 0.917, 3244, 0.2952, 1.005, 0.960, 0.803},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {1.040, 0.982, 3234, 0.3076, 1.116, 1.093, 0.881},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.820, 0.827, 2400, 0.1168, 1.071, 0.892, 0.639},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.918, 0.728, 1371, 0.1428, 1.196, 1.123, 0.556},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.847, 1.019, 3398, 1.6819, 1.285, 0.982, 0.894},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.856, 1.031, 2833, 0.7061, 1.279, 0.997, 0.912},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.573, 0.888, 2897, 0.3123, 1.086, 0.594, 0.579},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.938, 0.991, 2472, 0.4144, 2.036, 1.924, 0.963},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.093, 0.811, 2536, 0.1462, 0.986, 0.977, 0.925},  // tile=64x64x16 FP64 tensor cores
        {0.976, 0.698, 2721, 0.1168, 1.027, 1.032, 0.818},  // tile=128x16x16 FP64 tensor cores
        {0.892, 0.771, 2729, 0.1173, 0.945, 0.942, 0.789},  // tile=16x128x16 FP64 tensor cores
    };
}

}  // namespace wb::tuned
