/// \file tuned/gemm_kernel_rates_h200.cpp
/// \brief The kernels' rates tuned::measure_gemm_kernel_rates gave on an H200 (chapter 6 prints
///        them before its GEMM cases; \ref notes_gemm): the default rule's without a GPU, as the
///        `h200` profile preset is the profile's. Generated from that output by
///        scripts/gemm_kernel_rates_table.py; each entry {op(A) = A^T, element copies, epilogue GB/s}.
#include "tuned/gemm_kernel_rates.hpp"

namespace wb::tuned {

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<float>() {
    return {
        {0.966, 0.912, 2562},  // tile=256x128x16 thread=16x8 warp=64x64 stages=3 block=256x1
        {0.962, 0.961, 3521},  // tile=128x128x16 thread=8x8 warp=64x32 stages=3 block=256x1
        {0.933, 0.900, 3475},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.794, 0.914, 3296},  // tile=128x64x16 thread=8x8 warp=64x32 stages=3 block=128x1
        {0.818, 0.872, 3256},  // tile=64x128x16 thread=8x8 warp=32x64 stages=3 block=128x1
        {0.819, 0.831, 2403},  // tile=128x16x32 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.919, 0.743, 1373},  // tile=16x128x32 thread=4x4 warp=16x32 stages=3 block=128x1
    };
}

template <>
std::vector<GemmKernelRates> gemm_kernel_rates_h200<double>() {
    return {
        {0.842, 1.015, 3391},  // tile=128x128x8 thread=8x8 warp=64x32 stages=4 block=256x1
        {0.854, 1.023, 2838},  // tile=64x64x16 thread=4x4 warp=32x16 stages=3 block=256x1
        {0.572, 0.885, 2905},  // tile=128x16x16 thread=4x4 warp=32x16 stages=3 block=128x1
        {0.945, 0.989, 2446},  // tile=16x128x16 thread=4x4 warp=16x32 stages=3 block=128x1
        {1.087, 0.813, 2535},  // tile=64x64x16 FP64 tensor cores
        {0.975, 0.692, 2693},  // tile=128x16x16 FP64 tensor cores
        {0.902, 0.777, 2709},  // tile=16x128x16 FP64 tensor cores
    };
}

}  // namespace wb::tuned
