// transfer_model.cpp — White's piecewise communication model, T(b) = b/Tx + c0 b + c1
// (White §3.4, Eq. 3.14-3.15), declared in transfer_model.hpp.
//
// Fitting in three layers: (1) one segment: a weighted least-squares line through the residual
// time r = T - b/Tx with weights 1/T^2 (so the squared *relative* error is minimized), under the
// constraints c1 >= 0 and c0 >= -1/Tx; (2) a dynamic programme over the sorted points finds, for
// each number of segments k, the split with the least total squared relative error; (3) the k
// with the best penalized score ln(MSE + floor) + penalty (k - 1) is kept. Pure CPU code.
#include "transfer_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace wb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// Result of fitting one segment.
struct SegmentFit {
    double c0 = 0, c1 = 0;  // ms per byte, ms
    double sse = kInf;      // sum of squared relative errors
};

/// Fits points [s, e) (sorted) with Tx in bytes per ms. See the file comment.
SegmentFit fit_segment(const std::vector<TransferPoint>& p, std::size_t s, std::size_t e, double tx_bpms) {
    // Scale sizes by the segment's largest so the normal equations stay well conditioned.
    const double scale = p[e - 1].bytes;
    double sw = 0, swx = 0, swxx = 0, swr = 0, swxr = 0;
    for (std::size_t i = s; i < e; ++i) {
        const double w = 1.0 / (p[i].ms * p[i].ms);
        const double x = p[i].bytes / scale;
        const double r = p[i].ms - p[i].bytes / tx_bpms;
        sw += w;
        swx += w * x;
        swxx += w * x * x;
        swr += w * r;
        swxr += w * x * r;
    }
    const double a_min = -scale / tx_bpms;  // c0 >= -1/Tx, in scaled units

    auto sse_of = [&](double a, double c1) {
        double sse = 0;
        for (std::size_t i = s; i < e; ++i) {
            const double pred = p[i].bytes / tx_bpms + a * (p[i].bytes / scale) + c1;
            const double rel = (pred - p[i].ms) / p[i].ms;
            sse += rel * rel;
        }
        return sse;
    };

    SegmentFit best;
    auto consider = [&](double a, double c1) {
        if (!(a >= a_min - 1e-15 * std::abs(a_min)) || !(c1 >= 0) || !std::isfinite(a) || !std::isfinite(c1))
            return;
        const double sse = sse_of(a, c1);
        if (sse < best.sse) {
            best.sse = sse;
            best.c0 = a / scale;
            best.c1 = c1;
        }
    };

    // (1) unconstrained, when the sizes differ enough to define a slope
    const double det = sw * swxx - swx * swx;
    if (det > 1e-12 * sw * swxx) consider((sw * swxr - swx * swr) / det, (swxx * swr - swx * swxr) / det);
    // (2) c1 = 0 active
    if (swxx > 0) consider(std::max(a_min, swxr / swxx), 0.0);
    // (3) c0 = -1/Tx active (time flat in b)
    consider(a_min, std::max(0.0, (swr - a_min * swx) / sw));
    // (4) both active
    consider(a_min, 0.0);
    return best;
}

void validate_options(const TransferFitOptions& o) {
    auto fail = [](const std::string& what) { throw std::invalid_argument("TransferModel::fit: " + what); };
    if (o.max_segments < 1 || o.max_segments > 8)
        fail("max_segments (" + std::to_string(o.max_segments) + ") must be in [1, 8]");
    if (o.min_points_per_segment < 2)
        fail("min_points_per_segment (" + std::to_string(o.min_points_per_segment) + ") must be >= 2");
    if (!(o.segment_penalty >= 0) || !std::isfinite(o.segment_penalty))
        fail("segment_penalty (" + num(o.segment_penalty) + ") must be finite and >= 0");
    if (!(o.error_floor > 0) || !std::isfinite(o.error_floor))
        fail("error_floor (" + num(o.error_floor) + ") must be finite and > 0");
    if (!(o.tx_gbs >= 0) || !std::isfinite(o.tx_gbs))
        fail("tx_gbs (" + num(o.tx_gbs) + ") must be finite and >= 0 (0: the highest measured rate)");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
TransferModel::TransferModel(double tx_gbs, std::vector<TransferSegment> segments)
    : tx_gbs_(tx_gbs), segments_(std::move(segments)) {
    const std::string f = "TransferModel: ";
    if (!(tx_gbs_ > 0) || !std::isfinite(tx_gbs_))
        throw std::invalid_argument(f + "tx_gbs (" + num(tx_gbs_) + ") must be finite and > 0");
    if (segments_.empty()) throw std::invalid_argument(f + "segments (0) must not be empty");
    if (segments_.front().lo_bytes != 0)
        throw std::invalid_argument(f + "segments[0].lo_bytes (" + num(segments_.front().lo_bytes) +
                                    ") must be 0");
    if (segments_.back().hi_bytes != kInf)
        throw std::invalid_argument(f + "segments.back().hi_bytes (" + num(segments_.back().hi_bytes) +
                                    ") must be +inf");
    for (std::size_t i = 0; i < segments_.size(); ++i) {
        const auto& sg = segments_[i];
        const std::string at = "segments[" + std::to_string(i) + "]";
        if (!(sg.hi_bytes > sg.lo_bytes))
            throw std::invalid_argument(f + at + ".hi_bytes (" + num(sg.hi_bytes) + ") must be > lo_bytes (" +
                                        num(sg.lo_bytes) + ")");
        if (i + 1 < segments_.size() && segments_[i + 1].lo_bytes != sg.hi_bytes)
            throw std::invalid_argument(f + "segments[" + std::to_string(i + 1) + "].lo_bytes (" +
                                        num(segments_[i + 1].lo_bytes) + ") must equal " + at +
                                        ".hi_bytes (" + num(sg.hi_bytes) + ")");
        if (!std::isfinite(sg.c0_ms_per_byte) || !std::isfinite(sg.c1_ms) || sg.c1_ms < 0)
            throw std::invalid_argument(f + at + " (c0 " + num(sg.c0_ms_per_byte) + ", c1 " + num(sg.c1_ms) +
                                        ") must be finite with c1 >= 0");
    }
}

TransferModel TransferModel::fit(std::vector<TransferPoint> points, const TransferFitOptions& opt) {
    validate_options(opt);
    const std::size_t n = points.size();
    if (n < 2)
        throw std::invalid_argument("TransferModel::fit: points (" + std::to_string(n) + ") must be >= 2");
    for (std::size_t i = 0; i < n; ++i) {
        const auto& q = points[i];
        if (!(q.bytes > 0) || !(q.ms > 0) || !std::isfinite(q.bytes) || !std::isfinite(q.ms))
            throw std::invalid_argument("TransferModel::fit: points[" + std::to_string(i) + "] (" + num(q.bytes) +
                                        " bytes, " + num(q.ms) + " ms) must have finite bytes > 0 and ms > 0");
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const TransferPoint& a, const TransferPoint& b) { return a.bytes < b.bytes; });

    double tx_gbs = opt.tx_gbs;
    if (tx_gbs == 0)
        for (const auto& q : points) tx_gbs = std::max(tx_gbs, q.bytes / q.ms / 1e6);
    const double tx_bpms = tx_gbs * 1e6;

    // Segment [s, e) is allowed when long enough and its ends fall between different sizes.
    const std::size_t minp = static_cast<std::size_t>(opt.min_points_per_segment);
    auto cut_ok = [&](std::size_t c) { return c == 0 || c == n || points[c - 1].bytes < points[c].bytes; };
    std::vector<std::vector<SegmentFit>> cost(n + 1, std::vector<SegmentFit>(n + 1));
    std::vector<std::vector<bool>> have(n + 1, std::vector<bool>(n + 1, false));
    auto seg = [&](std::size_t s, std::size_t e) -> const SegmentFit& {
        if (!have[s][e]) {
            cost[s][e] = fit_segment(points, s, e, tx_bpms);
            have[s][e] = true;
        }
        return cost[s][e];
    };

    // best[k][e]: least total SSE covering points [0, e) with k segments; from[k][e]: last cut.
    const std::size_t kmax = static_cast<std::size_t>(opt.max_segments);
    std::vector<std::vector<double>> best(kmax + 1, std::vector<double>(n + 1, kInf));
    std::vector<std::vector<std::size_t>> from(kmax + 1, std::vector<std::size_t>(n + 1, 0));
    best[0][0] = 0;
    for (std::size_t k = 1; k <= kmax; ++k)
        for (std::size_t e = minp; e <= n; ++e) {
            if (!cut_ok(e)) continue;
            for (std::size_t s = 0; s + minp <= e; ++s) {
                if (!cut_ok(s) || best[k - 1][s] == kInf) continue;
                const double total = best[k - 1][s] + seg(s, e).sse;
                if (total < best[k][e]) {
                    best[k][e] = total;
                    from[k][e] = s;
                }
            }
        }

    std::size_t k_best = 0;
    double score_best = kInf;
    for (std::size_t k = 1; k <= kmax; ++k) {
        if (best[k][n] == kInf) continue;
        const double score = std::log(best[k][n] / static_cast<double>(n) + opt.error_floor) +
                             opt.segment_penalty * static_cast<double>(k - 1);
        if (score < score_best) {
            score_best = score;
            k_best = k;
        }
    }
    if (k_best == 0)
        throw std::invalid_argument("TransferModel::fit: points (" + std::to_string(n) +
                                    ") must be >= min_points_per_segment (" +
                                    std::to_string(opt.min_points_per_segment) + ")");

    // Reconstruct the cuts, then the segments with break points halfway (geometrically)
    // between the last size of one segment and the first of the next.
    std::vector<std::size_t> cuts{n};
    for (std::size_t k = k_best, e = n; k > 0; --k) {
        e = from[k][e];
        cuts.push_back(e);
    }
    std::reverse(cuts.begin(), cuts.end());  // 0 = cuts[0] < cuts[1] < ... < cuts[k] = n
    std::vector<TransferSegment> segs;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
        const std::size_t s = cuts[i], e = cuts[i + 1];
        const SegmentFit& f = seg(s, e);
        TransferSegment sg;
        sg.lo_bytes = (s == 0) ? 0.0 : std::sqrt(points[s - 1].bytes * points[s].bytes);
        sg.hi_bytes = (e == n) ? kInf : std::sqrt(points[e - 1].bytes * points[e].bytes);
        sg.c0_ms_per_byte = f.c0;
        sg.c1_ms = f.c1;
        sg.points = e - s;
        segs.push_back(sg);
    }

    TransferModel m(tx_gbs, std::move(segs));
    double sum = 0, mx = 0;
    for (const auto& q : points) {
        const double err = std::abs(m.predict(q.bytes) - q.ms) / q.ms * 100.0;
        sum += err;
        mx = std::max(mx, err);
    }
    m.points_ = std::move(points);
    m.max_err_pct_ = mx;
    m.avg_err_pct_ = sum / static_cast<double>(n);
    return m;
}

double TransferModel::predict(double bytes) const {
    if (segments_.empty()) throw std::invalid_argument("TransferModel::predict: the model is empty (fit it first)");
    if (!(bytes >= 0) || !std::isfinite(bytes))
        throw std::invalid_argument("TransferModel::predict: bytes (" + num(bytes) + ") must be finite and >= 0");
    const TransferSegment* sg = &segments_.back();
    for (const auto& s : segments_)
        if (bytes < s.hi_bytes) {
            sg = &s;
            break;
        }
    return bytes / (tx_gbs_ * 1e6) + sg->c0_ms_per_byte * bytes + sg->c1_ms;
}

std::vector<double> TransferModel::break_points() const {
    std::vector<double> b;
    for (std::size_t i = 0; i + 1 < segments_.size(); ++i) b.push_back(segments_[i].hi_bytes);
    return b;
}

std::string TransferModel::to_string() const {
    std::ostringstream os;
    char buf[256];
    std::snprintf(buf, sizeof buf, "Tx = %.2f GB/s\n", tx_gbs_);
    os << buf;
    for (const auto& s : segments_) {
        const std::string range = "[" + format_bytes(s.lo_bytes) + ", " +
                                  (std::isinf(s.hi_bytes) ? std::string("inf") : format_bytes(s.hi_bytes)) + ")";
        std::snprintf(buf, sizeof buf, "  %-22s c0 = %9.3f ms/GB   c1 = %9.2f us", range.c_str(),
                      s.c0_ms_per_byte * 1e9, s.c1_ms * 1e3);
        os << buf;
        if (s.points > 0) os << "   (" << s.points << " points)";
        os << '\n';
    }
    if (!points_.empty()) {
        std::snprintf(buf, sizeof buf, "  fit error over %zu points: max %.1f%%, average %.1f%%\n", points_.size(),
                      max_err_pct_, avg_err_pct_);
        os << buf;
    }
    return os.str();
}

std::string format_bytes(double bytes) {
    static const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    double v = bytes;
    while (std::abs(v) >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g %s", v, units[u]);
    return buf;
}

}  // namespace wb
