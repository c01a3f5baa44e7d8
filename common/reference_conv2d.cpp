/// \file reference_conv2d.cpp
/// \brief The float64 convolution reference (reference_conv2d.hpp).
#include "reference_conv2d.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

namespace wb::ref {
namespace {

void bad(const std::string& what) { throw std::invalid_argument("ref::conv2d: " + what); }

/// One output row (its cols values, and their scale when `sc` is set).
template <class T>
void one_row(const Conv2dOperands<T>& o, int r, bool flip, double* out, double* sc) {
    const int h = o.fs / 2;
    const std::vector<T>& in = *o.in;
    const std::vector<T>& f = *o.filter;
    for (int c = 0; c < o.cols; ++c) {
        out[c] = 0;
        if (sc) sc[c] = 0;
    }
    for (int k = 0; k < o.fs; ++k) {
        const int y = r + k - h;
        if (y < 0 || y >= o.rows) continue;
        const T* row = in.data() + o.offset + static_cast<std::size_t>(y) * o.in_pitch;
        for (int l = 0; l < o.fs; ++l) {
            const std::size_t fi = flip ? static_cast<std::size_t>(o.fs - 1 - k) * o.fs + (o.fs - 1 - l)
                                        : static_cast<std::size_t>(k) * o.fs + l;
            const double w = static_cast<double>(f[fi]), aw = std::abs(w);
            // Columns c whose tap l lands inside the image: 0 <= c + l - h < cols.
            const int c_lo = std::max(0, h - l), c_hi = std::min(o.cols, o.cols + h - l);
            for (int c = c_lo; c < c_hi; ++c) {
                const double v = static_cast<double>(row[c + l - h]);
                out[c] += w * v;
                if (sc) sc[c] += aw * std::abs(v);
            }
        }
    }
}

}  // namespace

template <class T>
std::vector<double> conv2d_rows(const Conv2dOperands<T>& o, const std::vector<int>& rows_wanted, bool flip,
                                std::vector<double>* scale) {
    if (o.rows < 0 || o.cols < 0) bad("rows, cols (" + std::to_string(o.rows) + ", " + std::to_string(o.cols) + ") must be >= 0");
    if (o.fs < 1 || o.fs % 2 == 0) bad("fs (" + std::to_string(o.fs) + ") must be odd and >= 1");
    if (o.in_pitch < std::max(1, o.cols))
        bad("in_pitch (" + std::to_string(o.in_pitch) + ") must be >= max(1, cols) (" + std::to_string(std::max(1, o.cols)) + ")");
    if (!o.in || !o.filter) bad("in and filter must not be null");
    if (o.filter->size() < static_cast<std::size_t>(o.fs) * o.fs)
        bad("filter holds " + std::to_string(o.filter->size()) + " values, fewer than fs^2 (" + std::to_string(o.fs * o.fs) + ")");
    if (o.rows > 0 && o.cols > 0 &&
        o.in->size() < o.offset + static_cast<std::size_t>(o.rows - 1) * o.in_pitch + o.cols)
        bad("in holds " + std::to_string(o.in->size()) + " values, too few for the image");
    for (int r : rows_wanted)
        if (r < 0 || r >= o.rows) bad("row " + std::to_string(r) + " must be in [0, rows) (rows " + std::to_string(o.rows) + ")");
    const std::size_t n = rows_wanted.size(), cols = static_cast<std::size_t>(o.cols);
    std::vector<double> out(n * cols);
    if (scale) scale->assign(n * cols, 0.0);
    const double work = static_cast<double>(n) * cols * o.fs * o.fs;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t nthreads = work < 4e6 ? 1 : std::min<std::size_t>({static_cast<std::size_t>(hw), std::size_t{32}, n});
    auto run = [&](std::size_t t) {
        for (std::size_t q = t; q < n; q += nthreads)
            one_row(o, rows_wanted[q], flip, out.data() + q * cols, scale ? scale->data() + q * cols : nullptr);
    };
    if (nthreads <= 1) {
        run(0);
    } else {
        std::vector<std::thread> pool;
        for (std::size_t t = 0; t < nthreads; ++t) pool.emplace_back(run, t);
        for (auto& th : pool) th.join();
    }
    return out;
}

template <class T>
std::vector<double> conv2d(const Conv2dOperands<T>& o, bool flip, std::vector<double>* scale) {
    std::vector<int> all(static_cast<std::size_t>(std::max(0, o.rows)));
    for (int r = 0; r < o.rows; ++r) all[r] = r;
    return conv2d_rows(o, all, flip, scale);
}

template std::vector<double> conv2d_rows<float>(const Conv2dOperands<float>&, const std::vector<int>&, bool,
                                                std::vector<double>*);
template std::vector<double> conv2d_rows<double>(const Conv2dOperands<double>&, const std::vector<int>&, bool,
                                                 std::vector<double>*);
template std::vector<double> conv2d<float>(const Conv2dOperands<float>&, bool, std::vector<double>*);
template std::vector<double> conv2d<double>(const Conv2dOperands<double>&, bool, std::vector<double>*);

}  // namespace wb::ref
