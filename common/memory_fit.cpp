// memory_fit.cpp — the free-memory figures and the shortfall line (declared in memory_fit.hpp).
#include "memory_fit.hpp"

#include "check.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace wb {

double parse_mem_available(const std::string& meminfo) {
    std::istringstream in(meminfo);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        double kb = -1;
        char unit[8] = {};
        if (std::sscanf(line.c_str() + 13, "%lf %7s", &kb, unit) < 1 || !(kb >= 0)) return -1;
        return kb * 1024.0;  // /proc/meminfo's "kB" are KiB
    }
    return -1;
}

double host_available_bytes() {
    std::ifstream f("/proc/meminfo");
    if (!f) return -1;
    std::stringstream s;
    s << f.rdbuf();
    return parse_mem_available(s.str());
}

MemoryFree memory_free_now() {
    MemoryFree f;
    std::size_t free_b = 0, total_b = 0;
    WB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    f.device_bytes = static_cast<double>(free_b);
    f.host_bytes = host_available_bytes();
    return f;
}

std::string device_shortfall_now(double device_bytes) {
    MemoryFree free = memory_free_now();
    free.host_bytes = -1;  // the host side was counted with the problem
    return memory_shortfall({device_bytes + kDeviceSlackBytes, 0}, free);
}

std::string fmt_decimal_bytes(double bytes) {
    char buf[64];
    if (bytes >= 1e9) std::snprintf(buf, sizeof buf, "%.1f GB (%.1f GiB)", bytes / 1e9, bytes / 1073741824.0);
    else std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
    return buf;
}

std::string memory_shortfall(const MemoryNeed& need, const MemoryFree& free) {
    auto line = [](const char* where, double needed, double have, const std::string& what) {
        char exact[64];
        std::snprintf(exact, sizeof exact, "%.0f", needed);
        return std::string("needs ") + fmt_decimal_bytes(needed) + " of " + where + " memory (" + exact + " bytes; " +
               fmt_decimal_bytes(have) + " " + what + ")";
    };
    std::string why;
    if (free.device_bytes >= 0 && !(need.device_bytes <= free.device_bytes))
        why = line("device", need.device_bytes, free.device_bytes, free.device_what);
    if (free.host_bytes >= 0 && !(need.host_bytes <= free.host_bytes))
        why += (why.empty() ? "" : " and ") + line("host", need.host_bytes, free.host_bytes, "available on the host");
    return why;
}

}  // namespace wb
