/// \file split_vendor.hpp
/// \brief Chapter 7's GEMM beside the vendor's host-memory GEMM (cuBLASXt: kernels/cpu/xt_gemm.hpp),
///        timed in the same rounds: ours on the GPU with its transfers and our hybrid as the table's
///        row ran it, cuBLASXt alone and cuBLASXt with the CPU share our model gave the CPU. The
///        other ops have no such vendor call (cuBLASXt is Level 3 only). Pure host arithmetic here
///        (cpu tests); the timing is measure_vendor_gemm (split_measure.hpp).
#pragma once

#include "split_cases.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace wb::ch07 {

/// One GEMM size, ours and the vendor's, each the median batch of calls timed in turn (ms; NaN:
/// not run).
struct VendorRow {
    Case c;
    double gpu_ms = NAN;     ///< ours: copy in, the tuned kernel, copy out (the table's GPU+comm way)
    double hybrid_ms = NAN;  ///< ours: the hybrid at the row's share, as the table ran it (NaN: no share inside (0, n))
    double xt_ms = NAN;      ///< cuBLASXt, its tiles on the GPU alone
    double xt_cpu_ms = NAN;  ///< cuBLASXt with cpu_ratio (NaN: no CPU share)
    double cpu_ratio = NAN;  ///< the CPU's share given to cuBLASXt: ours, 1 - gpu columns / n
};

/// The better of ours (GPU+comm, the hybrid) and of the vendor's (cuBLASXt alone, with the CPU),
/// NaN where neither was timed.
double ours_best_ms(const VendorRow& r);
double vendor_best_ms(const VendorRow& r);

/// The run's lines under the vendor's table: per precision, ours over the vendor's (the better of
/// each) as the median over its sizes, how many sizes ours was faster at, and (where any size gave
/// the CPU a share) where the vendor's CPU share beat its GPU alone. Rows without both sides timed
/// are left out; no line for a precision without such a row.
std::vector<std::string> vendor_lines(const std::vector<VendorRow>& rows);

}  // namespace wb::ch07
