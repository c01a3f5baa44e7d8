/// \file transfer_model.hpp
/// \brief White's host<->device communication model (White §3.4, Eq. 3.14-3.15),
///        T(b) = b / Tx + c0 b + c1, fitted piecewise by least squares to measured copies.
///
/// Why a file of its own: chapter 0 fits it to the copies it measures, chapter 7 asks it how
/// long a transfer will take before deciding where to compute (White, Listing 4.18). The fit is
/// pure CPU code, so it is tested everywhere.
///
/// The model. `Tx` is the highest transfer rate the link reaches (White: "the maximum transfer
/// rate ... measured"); the set-up time T_su = c0 b + c1 (Eq. 3.15) absorbs everything else.
/// Because b / Tx and c0 b are both linear in b, Tx cannot be fitted together with c0: it is
/// fixed first (the highest measured rate b / T, or a value the caller gives) and c0, c1 are
/// fitted for each segment of sizes. White found different (c0, c1) below 256 KB, between
/// 256 KB and 1 MB and above 1 MB on the T10; here the break points are chosen from the data.
///
/// The fit. Points are sorted by size; every split into 1..max_segments contiguous runs of at
/// least min_points_per_segment points (splitting only between different sizes) is scored by
/// its total squared *relative* error (a 4 KB copy matters as much as a 1 GB one, as in White's
/// percent errors). Within a segment the weighted least-squares problem is solved in closed form
/// with the constraints c1 >= 0 and c0 >= -1/Tx (no negative times, no time falling with size).
/// Among the best splits for each number of segments k the fit keeps the k that minimizes
///   ln(mean squared relative error + floor) + segment_penalty x (k - 1),
/// i.e. with the default penalty ln 2 one more segment must at least halve the error; the floor
/// (0.1% RMS) stops noise-free data from buying segments for rounding-level gains.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace wb {

/// One measured copy: `bytes` moved in `ms` milliseconds.
struct TransferPoint {
    double bytes = 0;
    double ms = 0;
};

/// One piece of the model: sizes in [lo_bytes, hi_bytes) use T(b) = b / Tx + c0 b + c1.
struct TransferSegment {
    double lo_bytes = 0;               ///< inclusive lower bound (0 for the first segment)
    double hi_bytes = std::numeric_limits<double>::infinity();  ///< exclusive upper bound (+inf for the last segment)
    double c0_ms_per_byte = 0;         ///< set-up time per byte (White quotes ms/GB: x 1e9)
    double c1_ms = 0;                  ///< constant set-up time
    std::size_t points = 0;            ///< measured points the segment was fitted to (0: given)
};

/// Knobs of TransferModel::fit (the defaults suit 1-4 points per octave from 4 KB to 1 GB).
struct TransferFitOptions {
    int max_segments = 3;              ///< 1..8
    int min_points_per_segment = 3;    ///< >= 2 (a line needs two points)
    double segment_penalty = 0.6931471805599453;  ///< ln 2: one more segment must halve the error
    double error_floor = 1e-6;         ///< mean squared relative error below which gains are noise
    double tx_gbs = 0;                 ///< Tx in GB/s (1e9 B/s); 0: the highest measured b / T
};

/// The fitted (or given) piecewise model. Immutable once built.
class TransferModel {
public:
    TransferModel() = default;

    /// A model with given parameters (e.g. White's published T10 fit). Segments must be sorted,
    /// contiguous (each hi_bytes equals the next lo_bytes), start at 0 and end at +inf;
    /// tx_gbs > 0. Throws std::invalid_argument naming the rule broken.
    TransferModel(double tx_gbs, std::vector<TransferSegment> segments);

    /// Least-squares fit to measured points (see the file comment). Needs at least two points,
    /// every bytes > 0 and ms > 0 and finite; throws std::invalid_argument otherwise.
    static TransferModel fit(std::vector<TransferPoint> points, const TransferFitOptions& opt = {});

    /// Predicted time in milliseconds for `bytes` (>= 0) bytes.
    double predict(double bytes) const;

    double tx_gbs() const { return tx_gbs_; }
    const std::vector<TransferSegment>& segments() const { return segments_; }
    /// The sizes where one segment ends and the next begins (segments().size() - 1 values).
    std::vector<double> break_points() const;

    /// Percent errors |predict - measured| / measured x 100 over the fitted points (0 for a
    /// model built from given parameters, which has none).
    double max_error_pct() const { return max_err_pct_; }
    double avg_error_pct() const { return avg_err_pct_; }
    /// The points the model was fitted to, sorted by size.
    const std::vector<TransferPoint>& points() const { return points_; }

    /// Several lines: Tx, then one line per segment (range, c0 in ms/GB, c1 in us, points),
    /// then the errors when the model was fitted.
    std::string to_string() const;

private:
    double tx_gbs_ = 0;
    std::vector<TransferSegment> segments_;
    std::vector<TransferPoint> points_;
    double max_err_pct_ = 0, avg_err_pct_ = 0;
};

/// Human-readable size: "4 KB", "256 KB", "1 MB", "1.5 GB" (powers of 1024, as sizes are chosen).
std::string format_bytes(double bytes);

}  // namespace wb
