/// \file split_warm.cpp
/// \brief Copies of data the host's threads just read (split_warm.hpp).
#include "split_warm.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "host_timing.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <regex>
#include <stdexcept>

namespace wb::ch07 {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

/// A stream and two events, released however the measurement ends (a CUDA error throws).
struct CopyTimer {
    cudaStream_t s = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    CopyTimer() {
        WB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        WB_CUDA(cudaEventCreate(&e0));
        WB_CUDA(cudaEventCreate(&e1));
    }
    ~CopyTimer() {
        if (e0) cudaEventDestroy(e0);
        if (e1) cudaEventDestroy(e1);
        if (s) cudaStreamDestroy(s);
    }
    CopyTimer(const CopyTimer&) = delete;
    CopyTimer& operator=(const CopyTimer&) = delete;
    /// One host-to-device copy of `bytes`, GB/s by the events around it.
    double h2d_gbs(void* dst, const void* src, std::size_t bytes) {
        WB_CUDA(cudaEventRecord(e0, s));
        WB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
        WB_CUDA(cudaEventRecord(e1, s));
        WB_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        WB_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        return static_cast<double>(bytes) / (1e6 * static_cast<double>(ms));
    }
};
}  // namespace

std::vector<double> warm_copy_sizes() { return {4 * kMiB, 16 * kMiB, 64 * kMiB, 256 * kMiB}; }

WarmCopies measure_warm_copies(int threads, int rounds) {
    if (threads < 1 || rounds < 1)
        throw std::invalid_argument("measure_warm_copies: threads (" + std::to_string(threads) + ") and rounds (" +
                                    std::to_string(rounds) + ") must be >= 1");
    const std::vector<double> sizes = warm_copy_sizes();
    const std::size_t most = static_cast<std::size_t>(sizes.back());
    PinnedBuffer<double> host(most / sizeof(double));
    DeviceBuffer<unsigned char> dev(most);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = 1.0 + static_cast<double>(i % 7);
    CopyTimer timer;
    auto copy_gbs = [&](std::size_t bytes) { return timer.h2d_gbs(dev.data(), host.data(), bytes); };
    std::vector<std::vector<double>> warm(sizes.size()), cold(sizes.size());
    copy_gbs(most);  // the copy engine and the pages warmed up
    for (int r = 0; r < rounds; ++r)
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            const std::size_t bytes = static_cast<std::size_t>(sizes[k]);
            model::read_gbs(host.data(), bytes / sizeof(double), threads, 1, 1);  // the cores read it once
            warm[k].push_back(copy_gbs(bytes));
            cold[k].push_back(copy_gbs(bytes));
        }
    WarmCopies w;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        w.warm_gbs.push_back({sizes[k], cpu::quantile(warm[k], 0.5)});
        w.cold_gbs.push_back({sizes[k], cpu::quantile(cold[k], 0.5)});
    }
    return w;
}

std::string warm_copies_line(const WarmCopies& w) {
    std::string s = "host-to-device copies of data the host's threads just read:";
    for (std::size_t k = 0; k < w.warm_gbs.size() && k < w.cold_gbs.size(); ++k) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "%s %.6g MiB %.4g GB/s (as the copy engine left it %.4g)", k ? "," : "",
                      w.warm_gbs[k].ws_bytes / kMiB, w.warm_gbs[k].value, w.cold_gbs[k].value);
        s += buf;
    }
    return s;
}

WarmCopies warm_copies_of_line(const std::string& line) {
    WarmCopies w;
    if (line.find("host-to-device copies of data the host's threads just read:") == std::string::npos) return w;
    static const std::regex point(R"(([\d.eE+]+) MiB ([\d.eE+]+) GB/s \(as the copy engine left it ([\d.eE+]+)\))");
    for (auto it = std::sregex_iterator(line.begin(), line.end(), point); it != std::sregex_iterator(); ++it) {
        const double bytes = std::stod((*it)[1]) * kMiB;
        w.warm_gbs.push_back({bytes, std::stod((*it)[2])});
        w.cold_gbs.push_back({bytes, std::stod((*it)[3])});
    }
    return w;
}

double warm_copy_extra_ms(const WarmCopies& w, double bytes) {
    if (!w.measured() || !(bytes > 0)) return 0;
    const double warm = model::interpolate_ws(w.warm_gbs, bytes), cold = model::interpolate_ws(w.cold_gbs, bytes);
    if (!(warm > 0) || !(cold > 0)) return 0;
    return std::max(0.0, bytes / (1e6 * warm) - bytes / (1e6 * cold));
}

}  // namespace wb::ch07
