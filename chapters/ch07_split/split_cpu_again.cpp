/// \file split_cpu_again.cpp
/// \brief A group's CPU peer classes timed again before its rows (split_cpu_again.hpp).
#include "split_cpu_again.hpp"

#include "model/cpu.hpp"

#include <algorithm>
#include <exception>

namespace wb::ch07 {

std::vector<std::string> cpu_classes_of(const Case& c) {
    const auto key = [&](const char* cls, int fs = 0) { return model::peer_key(cls, c.elem, fs); };
    if (c.op == "gemv") return {key("gemv")};
    if (c.op == "symv") return {key("symv")};
    if (c.op == "gemm") return {key("gemm"), key(cpu::kGemmShareClass)};
    if (c.op == "conv2d") return {key("conv2d", c.fs)};
    if (c.op == "cg") return {key("cg iteration"), key("cg vectors")};
    return {};
}

std::vector<std::string> retime_cpu_classes(Machines& m, const Case& c, const cpu::CalibrationSizes& s,
                                            const cpu::HostAlloc& alloc) {
    const std::vector<std::string> keys = cpu_classes_of(c);
    if (keys.empty()) return {};
    std::vector<std::string> out{kCpuAgainHeader};
    const std::vector<int> fs = c.op == "conv2d" ? std::vector<int>{c.fs} : std::vector<int>{};
    try {
        const auto want = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
        for (const std::string& line : cpu::calibrate_peer_classes(m.cpu, c.elem, fs, s, want, alloc))
            out.push_back(line);
    } catch (const std::exception& e) {
        out.push_back("  (stopped: " + std::string(e.what()) + "; the classes not timed again keep the start's rates)");
    }
    return out;
}

}  // namespace wb::ch07
