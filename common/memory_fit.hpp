/// \file memory_fit.hpp
/// \brief Whether a case fits before anything is allocated: the bytes a case needs on the device
///        and on the host (each op's problem says how many), the bytes free (cudaMemGetInfo, the
///        host's MemAvailable, or a preset's memory), and the one line that says why a case that
///        does not fit is skipped. A size the machine cannot hold is answered at once, in words,
///        instead of by the out-of-memory killer after minutes of host data generation.
#pragma once

#include <string>

namespace wb {

/// Bytes one case needs at its peak, in double: sizes near INT_MAX squared overflow 64 bits.
struct MemoryNeed {
    double device_bytes = 0;  ///< operands, workspaces of every step and peer, the L2 flush buffer
    double host_bytes = 0;    ///< host copies of the inputs, the float64 reference, the checked output
};

/// Bytes free for a case. A negative field is unknown (not compared).
struct MemoryFree {
    double device_bytes = -1;
    double host_bytes = -1;
    std::string device_what = "free on the device";  ///< "free on H200 (preset)", ...
};

/// Device memory a case needs beyond its own buffers and that no op's formula counts: the CUDA
/// libraries' handles and workspaces (cuBLAS, cuDNN, cuFFT plans), the launchers' small
/// workspaces, and allocation granularity: 512 MiB.
inline constexpr double kDeviceSlackBytes = 512.0 * 1024 * 1024;

/// Host memory available now: /proc/meminfo's MemAvailable (Linux); -1 where it cannot be read.
double host_available_bytes();
/// MemAvailable from the text of /proc/meminfo, in bytes; -1 when the line is missing or bad.
double parse_mem_available(const std::string& meminfo);
/// Free device memory of the current device (cudaMemGetInfo) and the host's available memory.
MemoryFree memory_free_now();

/// "" when `need` fits in `free`, otherwise the reason in words, e.g. "needs 156.8 GB (146.0 GiB)
/// of device memory (156800000000 bytes; 139.0 GB (129.5 GiB) free on the device)". Only known
/// (non-negative) free figures are compared.
std::string memory_shortfall(const MemoryNeed& need, const MemoryFree& free);

/// memory_shortfall of `device_bytes` + kDeviceSlackBytes against the device's free memory now:
/// for an extra row that needs its own copy of an operand beside a problem already built.
std::string device_shortfall_now(double device_bytes);

/// "156.8 GB (146.0 GiB)": decimal gigabytes and binary GiB (datasheets and tools use both), or
/// "12.5 MB" below 1 GB.
std::string fmt_decimal_bytes(double bytes);

}  // namespace wb
