/// \file ceilings.hpp
/// \brief The card's limits, measured once per run and cached: every "% of ceiling" in every
///        chapter divides by these numbers (architecture §5, chapter 0).
#pragma once

#include "device_profile.hpp"

namespace wb {

struct Ceilings {
    double theoretical_gbs = 0;   ///< 2 x memory clock x bus width / 8
    double copy_memcpy_gbs = 0;   ///< cudaMemcpy device-to-device, read + write bytes
    double copy_kernel_gbs = 0;   ///< best copy kernel (16-byte accesses), read + write bytes
    double copy_gbs = 0;          ///< max(copy_memcpy_gbs, copy_kernel_gbs)
    double read_gbs = 0;          ///< read-stream kernel (reads only): the ceiling for GEMV/SYMV
    double fp32_peak_gflops = 0;  ///< SMs x FP32 lanes x 2 x clock
    double fp32_fma_gflops = 0;   ///< FMA microbenchmark, float
    double fp64_peak_gflops = 0;  ///< SMs x FP64 lanes x 2 x clock (CUDA cores, no tensor cores)
    double fp64_fma_gflops = 0;   ///< FMA microbenchmark, double
    double fp64_tensor_gflops = 0;///< FP64 tensor-core microbenchmark (mma.m16n8k8.f64); 0 without them
    double sm_clock_mhz = 0;      ///< the boost clock the peaks and the microbenchmarks run at
    /// The SM clock under a dense GEMM's sustained power (lab/gemm_clock.cu; 0: not measured). The
    /// microbenchmarks keep operands in registers and run at the boost clock; a GEMM also moves its
    /// tiles, and where that reaches the board's power limit the clock falls (an H200's DGEMM).
    double sgemm_clock_mhz = 0, dgemm_clock_mhz = 0;
    /// The share of the boost clock a GEMM in this precision keeps (1 where not measured).
    double gemm_clock_share(bool fp64) const {
        return loaded_clock_share(fp64 ? dgemm_clock_mhz : sgemm_clock_mhz, sm_clock_mhz);
    }
    /// The ceiling of an SGEMM: the FMA microbenchmark at the clock an SGEMM's power leaves.
    double fp32_gemm_gflops() const { return fp32_fma_gflops * gemm_clock_share(false); }
    /// The ceiling of a DGEMM: the FP64 tensor cores where the device has them, else the FMA lanes,
    /// at the clock a DGEMM's power leaves.
    double fp64_gemm_gflops() const {
        return (fp64_tensor_gflops > 0 ? fp64_tensor_gflops : fp64_fma_gflops) * gemm_clock_share(true);
    }
};

/// Measure (first call) or return the cached ceilings of the current device.
const Ceilings& measured_ceilings();

}  // namespace wb
