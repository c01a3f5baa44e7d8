// transfers.cu — chapter 0, host <-> device transfers (White §3.4, Eq. 3.14-3.15) and White's
// fitted T10 model (declared in memory_lab.hpp; the model itself is transfer_model.hpp).
#include "memory_lab.hpp"

#include "lab/lab_internal.cuh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

namespace wb::lab {

using namespace detail;

// ================================================================================================
// Transfers
// ================================================================================================

std::vector<double> transfer_sizes(Scale s) {
    std::vector<double> sizes;
    switch (s) {
    case Scale::full:
        for (int k = 0; k <= 18; ++k) sizes.push_back(4096.0 * std::pow(2.0, k));
        break;
    case Scale::quick:  // every octave: the fit needs >= 3 points in each of up to 3 segments
        for (int k = 0; k <= 14; ++k) sizes.push_back(4096.0 * std::pow(2.0, k));
        break;
    case Scale::tiny: sizes = {4096.0, 65536.0, 1048576.0}; break;
    }
    return sizes;
}

std::string transfer_kind(bool pinned, bool h2d) {
    return std::string(pinned ? "pinned " : "pageable ") + (h2d ? "H2D" : "D2H");
}

std::vector<TransferRow> predict_transfers(Scale s) {
    std::vector<TransferRow> rows;
    const TransferModel h2d = white::t10_transfer_model(true), d2h = white::t10_transfer_model(false);
    for (bool pinned : {false, true})
        for (bool dir : {true, false})
            for (double b : transfer_sizes(s)) {
                TransferRow r;
                r.pinned = pinned;
                r.h2d = dir;
                r.bytes = b;
                r.t10_ms = (dir ? h2d : d2h).predict(b);
                rows.push_back(r);
            }
    return rows;
}

int transfer_passes(Scale s) { return s == Scale::tiny ? 1 : 3; }

std::vector<TransferRow> run_transfers(Scale s) {
    std::vector<TransferRow> rows = predict_transfers(s);
    double biggest = 0;
    for (const auto& r : rows) biggest = std::max(biggest, r.bytes);
    const std::size_t want = (static_cast<std::size_t>(biggest) + kMiB - 1) / kMiB * kMiB;
    const std::size_t dev_bytes = fit_device_bytes("run_transfers", want, std::min(want, 4 * kMiB), 1);
    DeviceBuffer<unsigned char> d(dev_bytes);
    d.fill_bytes(0x3c);
    PinnedBuffer<unsigned char> pinned(dev_bytes);
    std::memset(pinned.data(), 0x5a, dev_bytes);
    std::unique_ptr<unsigned char[]> pageable(new unsigned char[dev_bytes]);
    std::memset(pageable.get(), 0xa5, dev_bytes);  // touch every page before timing
    // Several passes over every (kind, size), each a median of several copies; a row's time is the
    // median of its passes. Host-side noise (the CPU copy of pageable transfers, clocks, other
    // processes) comes in bursts: spreading a row's copies over passes keeps one burst from
    // setting a point, which the piecewise fit would then chase. Long copies (> 50 ms expected)
    // average over themselves and run in the first pass only.
    std::vector<std::vector<double>> medians(rows.size());
    for (int pass = 0; pass < transfer_passes(s); ++pass)
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const TransferRow& r = rows[i];
            if (r.bytes > static_cast<double>(dev_bytes)) continue;  // left NaN: did not fit
            const double expected_ms = r.bytes / 5e6;  // about 5 GB/s: only to trim repetitions
            if (pass > 0 && expected_ms > 50) continue;
            const std::size_t n = static_cast<std::size_t>(r.bytes);
            unsigned char* host = r.pinned ? pinned.data() : pageable.get();
            BenchOptions o = bench_options(s, n, expected_ms);
            o.flush_l2 = false;
            const auto st = benchmark(
                [&](cudaStream_t strm) {
                    if (r.h2d) WB_CUDA(cudaMemcpyAsync(d.data(), host, n, cudaMemcpyHostToDevice, strm));
                    else WB_CUDA(cudaMemcpyAsync(host, d.data(), n, cudaMemcpyDeviceToHost, strm));
                },
                o);
            WB_CUDA(cudaDeviceSynchronize());
            medians[i].push_back(st.median_ms);
        }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::vector<double>& m = medians[i];
        if (m.empty()) continue;
        std::sort(m.begin(), m.end());
        const std::size_t h = m.size() / 2;
        rows[i].ms = m.size() % 2 == 1 ? m[h] : 0.5 * (m[h - 1] + m[h]);
        rows[i].gbs = rows[i].bytes / (rows[i].ms * 1e6);
    }
    return rows;
}

TransferModel fit_transfers(const std::vector<TransferRow>& rows, bool pinned, bool h2d) {
    std::vector<TransferPoint> pts;
    for (const auto& r : rows)
        if (r.pinned == pinned && r.h2d == h2d && std::isfinite(r.ms) && r.ms > 0) pts.push_back({r.bytes, r.ms});
    return TransferModel::fit(pts);
}

// ================================================================================================
// White's T10 transfer model
// ================================================================================================

TransferModel white::t10_transfer_model(bool h2d) {
    const double KB = 1024, MB = 1024 * 1024, per_GB = 1e-9, inf = std::numeric_limits<double>::infinity();
    if (h2d)
        return TransferModel(3.5, {{0, 256 * KB, 525 * per_GB, 0.014, 0},
                                   {256 * KB, MB, 3.2 * per_GB, 0.061, 0},
                                   {MB, inf, 3.2 * per_GB, 0.19, 0}});
    return TransferModel(3.1, {{0, MB, 210 * per_GB, 0.02, 0}, {MB, inf, 6.9 * per_GB, 0.21, 0}});
}

}  // namespace wb::lab
