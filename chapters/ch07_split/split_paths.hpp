/// \file split_paths.hpp
/// \brief What chapter 7 measures at the start beyond the two processors' own rates: each class's
///        all-GPU path as the rows time it (GpuPath: its fixed costs in one chunk and in the
///        hybrid's chunks, its pipeline's gain, the hybrid's residual) and the host memory both
///        sides of a hybrid share. Needs a CUDA device.
#pragma once

#include "split_cases.hpp"
#include "split_measure.hpp"

#include <string>
#include <vector>

namespace wb::ch07 {

/// Measures the GpuPath of each class in `classes` (op, precision, FS; n ignored) into m.paths,
/// in the order the model needs them: at `tiny_n` the all-GPU call in one chunk and in m.chunks
/// chunks (t0, t0_chunked), every class's two calls timed in turn (measure_paths_in_turn); then
/// class by class, at its mid size (mid_n_of) the CPU peer, the all-GPU call in
/// one chunk and in chunks (pipeline), then the hybrid at the share the model predicts there
/// (which no residual moves; clamped to [5%, 95%]; timed twice, the threads settled between, the
/// faster kept) and the residual: its measured time beyond the model's, and its miss
/// (hybrid_miss); then the same hybrid and residual at a third of the mid size (GpuPath::small_n;
/// where that step throws, the class keeps its mid-size anchors and its line says "not
/// measured"). Then m.hybrid_margin = hybrid_margin_of(m). Each class's line, and one for the
/// margin, is appended to *log. CG is skipped (its solves are timed whole).
void calibrate_paths(Machines& m, const std::vector<Case>& classes, int tiny_n, const GpuCalibrationSizes& mid,
                     std::vector<std::string>* log);
/// The anchors of the class of `cls` (op, precision, FS) timed again: its tiny all-GPU call in one
/// chunk and in m.chunks chunks, in turn (measure_paths_in_turn), replacing the path's t0_ms and
/// t0_chunked_ms. Called just before a group's rows are predicted and timed (main): an anchor timed
/// minutes earlier, in the calibration, carries the host's issue cost of that moment, and the
/// rows' all-GPU times at small sizes followed the moment they ran (docs/notes/split.md, session
/// 45). Returns the run's line for it ("<class>: anchor timed again before its rows: t0 X us (one
/// chunk), Y us (K chunks); calibration A, B"), or "" where the class has no measured path (a
/// class the calibration could not measure); on an error the calibration's anchors stay and the
/// line says so. CG: its solve's fixed cost through the rows' path ("cg solve", cg_path_fixed_ms)
/// timed again ("cg solve float: anchor timed again before its rows: t0 X us; calibration A"),
/// none where the run did not measure it; and where each product of the split is the SYMV path's
/// call (Machines::cg_product_without_a), that path's tiny call timed again for CG's rows alone
/// (the class "cg product", cg_product_line): the SYMV rows ran minutes before, their anchor
/// timed in the moment they ran.
std::vector<std::string> reanchor_path(Machines& m, const Case& cls);
/// The line of CG's product anchor (ms): "cg product float: the SYMV path timed again before CG's
/// rows: t0 X us; calibration A" (the replay reads it).
std::string cg_product_line(std::size_t elem, double t0_ms, double was_t0_ms);
/// reanchor_path's line for class `key`: the anchors now (ms), in `chunks` chunks, and the
/// calibration's before them (ms); printed in us (the replay reads it: machines_from_log).
std::string reanchor_line(const std::string& key, double t0_ms, double t0_chunked_ms, int chunks, double was_t0_ms,
                          double was_chunked_ms);

/// A class's miss (GpuPath::miss) from its hybrid at the mid size: |measured / model - 1|, at
/// least twice the timing's relative error (NaN: not known); -1 where either time is not > 0.
double hybrid_miss(double measured_ms, double model_ms, double timing_error);
/// The path line's depth factors, every one but K0's ("; the hybrid in K chunks over its model, to
/// that at 4: 1 x0.98, 2 x1.01, 8 x1.07, 16 x1.18"): machines_from_log reads them back, K0 at 1.
std::string depth_factors_text(const GpuPath& p, int k0);
/// The small size of the calibration's second hybrid: a third of the mid size, rounded down to a
/// multiple of 32 (off the table's powers of two: 2048 -> 672, 4096 -> 1344).
constexpr int small_n_of(int mid_n) { return mid_n / 3 / 32 * 32; }
/// The mid size of an op in the GPU calibration (GEMV, SYMV: gemv_n, symv_n; GEMM gemm_n; the
/// convolution conv_n).
int mid_n_of(const std::string& op, const GpuCalibrationSizes& s);

/// The host memory's rate when both sides of a hybrid use it at once (GB/s): `threads` threads
/// read a buffer of ws_bytes (model::ReadLoad) while pinned copies run both ways; the sum of
/// what the threads read and what the copies moved in the same interval. Appends a line to *log.
double measure_host_shared_gbs(int threads, double ws_bytes, std::string* log);

}  // namespace wb::ch07
