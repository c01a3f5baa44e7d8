/// \file peer_rates.hpp
/// \brief The rate each CPU peer class reaches on this host, measured at the start of chapter 7's
///        run (model/cpu.hpp: T = t0 + roofline / e(ws), per regime). For OpenBLAS's classes
///        (GEMV, SYMV, GEMM) both regimes of its threading rule (model::openblas_single_thread_*):
///        the single-thread one from a tiny call (t0) and the largest call the rule keeps on one
///        thread (e), the threaded one from the smallest call the rule threads (t0: the hand-off to
///        the thread pool and back, timed as the table's rows are) and a grid of working sets a
///        factor 2 apart up to several LLCs with the LLC's bracket (e(ws)), all of them timed in
///        turn as the table's rows are, on the memory the rows use. CG's vector calls, the hybrid
///        GEMM's CPU share (kGemmShareClass) and our convolution (always threaded) have the
///        threaded regime alone. Like chapter 0's GPU ceilings, these are
///        properties of the machine and its library, measured once per run; no size of the
///        chapter's table is fitted.
#pragma once

#include "host_array.hpp"
#include "model/cpu.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wb::cpu {

/// The class of the hybrid GEMM's CPU share (an n x n/16 x n product: peer_rates.cpp), beside the
/// square "gemm" class; chapter 7 predicts a threaded share with it where a run measured it.
inline constexpr const char* kGemmShareClass = "gemm share";

/// Where each class is measured.
struct CalibrationSizes {
    double ws_dram = 0;       ///< the largest working set: model::default_max_working_set (several LLCs)
    double step = 2;          ///< the grid's working sets grow by this factor ...
    double start = 3;         ///< ... from this many times the smallest threaded call's
    double max_call_s = 0.05; ///< no grid point whose call the model expects to take longer
    int tiny_n = 8;           ///< the tiny call of every class (the vector calls: 64)
    int vec_max_n = 16384;    ///< CG's vector calls up to n elements (the largest CG of the chapter)
    int align = 32;           ///< the grid's n are multiples of this (a matrix with aligned columns)
    double llc_bytes = 0;     ///< the LLC: the threaded grid also holds its bracket (llc_bracket; 0: none)
    /// SYMV's grid on a matrix of its own per size, as each of the table's rows has its own
    /// arrays; false: every size's matrix at the start of the one array all classes share, where
    /// the other sizes' batches leave part of it in the LLC (docs/notes/split.md: 1.1 - 1.5x fast
    /// from 30 MiB on against arrays of their own). Each matrix lives until the calibration of its
    /// precision ends (the recheck calls one of them): about twice the largest one's bytes.
    bool symv_own_arrays = false;
    /// How many times a class the host disturbed (disturbed_classes) is timed again: 2; the tests
    /// that count the calibration's arrays and lines set 0 (a busy build machine disturbs calls).
    int disturbed_retries = 2;
};
/// The sizes above for the machine's LLC.
CalibrationSizes default_calibration_sizes(const model::CpuMachine& m);

/// The n whose call works on `ws_bytes` bytes: GEMV's n x n matrix (sqrt(ws / elem)), SYMV's
/// stored triangle (sqrt(2 ws / elem)); at least 8.
int gemv_n_for(double ws_bytes, std::size_t elem);
int symv_n_for(double ws_bytes, std::size_t elem);

/// The grid of working sets of one class: start x ws_first x step^k up to ws_last (and ws_last
/// itself where the last point is more than 1.5x below it). Throws std::invalid_argument unless
/// 0 < ws_first, start >= 1, step > 1.
std::vector<double> grid_working_sets(double ws_first, double ws_last, double start, double step);
/// The sizes the single-thread regime's e is measured at: the working sets of grid_working_sets
/// from the tiny call's (x start, step apart) up to the largest call the library keeps on one
/// thread, as n (n_for, rounded), each above tiny and below single_max, once; then single_max
/// itself, always the last. Throws std::invalid_argument unless 1 <= tiny < single_max.
std::vector<int> single_thread_sizes(int tiny, int single_max, const std::function<double(int)>& ws_of,
                                     const std::function<double(double)>& n_for, double start, double step);
/// n rounded to a multiple of `align` once it is at least 4 align (smaller n as they are).
int aligned_n(double n, int align);

/// The grid's extent rule: how long (ms) the call of the next grid point is expected to take,
/// from the threaded regime's fixed cost `t_min_ms`, the points timed so far (each its fastest
/// of three calls and its roofline time, ms) and the next point's roofline time: the fixed cost
/// plus the next roofline time at the best rate a point reached, t_min + roof x min_i (t_i -
/// t_min) / roof_i. The best, not the last point's: on the GPU machine's host a call that meets
/// a preempted thread waits out a scheduler slice (4 ms there: docs/notes/split.md), and three
/// such calls at one point used to end a GEMM grid at 2 MiB, whose e was then extrapolated to
/// 400 MiB (its rows' model 2.4 - 4.6x the measured). A rate that falls with the size (a
/// memory-bound class leaving the LLC) makes the bound optimistic by that fall, a point at most
/// a few times longer than the cap. 0 when no point was timed; throws std::invalid_argument on a
/// point or roofline time that is not > 0.
double expected_point_ms(double t_min_ms, const std::vector<std::pair<double, double>>& timed_and_roof_ms,
                         double next_roof_ms);

/// `grid` with the LLC's bracket: the working sets llc / 2, llc and 2 llc where they lie within
/// the grid's range, each replacing the grid's inner points within a factor sqrt(2) of it (its
/// first and last point stay); sorted. The
/// bracket is where the share of a call's bytes that comes from DRAM changes (model::dram_share:
/// none up to half the LLC, all from twice it): a grid a factor 2 apart puts at most two points
/// there, and e interpolated across the edge cannot say where it falls. `grid` unchanged where
/// llc_bytes <= 0 or the grid is empty.
std::vector<double> llc_bracket(std::vector<double> grid, double llc_bytes);


/// Measures every class in float and double and stores it in m.peers (model::peer_key: "gemv",
/// "symv", "gemm", "cg vectors", "cg iteration" (the SYMV and the vector calls of one CG
/// iteration in sequence, as a solve calls them), "conv2d FSk" for each k of conv_fs; the
/// single-thread regimes as model::single_thread_key of the BLAS ones, "cg iteration" included). The BLAS classes need CBLAS (have_cblas());
/// without it only the convolution is measured. Returns one line per class and regime measured
/// (t0 and e at each working set), for the run's log. Takes several seconds: the largest call
/// reads ws_dram bytes (1 GiB at most). The threaded regime's t0 call and grid are timed in turn,
/// as the chapter's rows are (time_interleaved: rounds of one batch per size, the median batch):
/// a drift of the host's rate lands in each point's spread, not between the points, and each
/// point finds the caches as the other sizes left them, as a row does. The "cg iteration" class is
/// the exception: a CG row is a solve, its iterations back to back on one matrix, so each of its
/// sizes is timed on its own, call after call. The arrays come from `alloc`. A class the host
/// disturbed (disturbed_classes) is timed again, up to s.disturbed_retries times; the log names it.
std::vector<std::string> calibrate_peer_rates(model::CpuMachine& m, const std::vector<int>& conv_fs,
                                              const CalibrationSizes& sizes, const HostAlloc& alloc = {});

/// A class the host disturbed while it was timed: a calibration on a busy host (a preempted thread
/// that a team of threads waits for a scheduler slice at a time) once gave one CG iteration of
/// n = 200 a fixed cost of 3 ms (its other runs: 5 us), e jumping 100-fold between neighbouring
/// points, and a middle point that took 36 times as long at the end; its rows' model then
/// predicted 300 ms for a 0.8 ms solve (docs/notes/split.md). A library's rate steps with the size
/// (OpenBLAS's regimes, the caches), by up to 8x between neighbouring points on the H200 host, and
/// the host drifts by tens of percent over a calibration: the bounds below sit far outside both.
inline constexpr double kDisturbedJump = 30;      ///< e between neighbouring grid points, either way
inline constexpr double kDisturbedFixedMs = 1.0;  ///< a regime's t0 (a tiny call: microseconds)
inline constexpr double kDisturbedRecheck = 3;    ///< the middle point timed again at the end, either way

/// The classes among `keys` (model::peer_key) that the host disturbed: a regime (the class's or its
/// single-thread one, model::single_thread_key) with t0 above kDisturbedFixedMs or e changing by
/// more than kDisturbedJump between neighbouring points (or not > 0), or a recheck ratio (the
/// class's middle point timed again at the end over its first timing) outside [1/3, 3]. A key
/// not in `peers` is skipped. calibrate_peer_rates times such classes again (CalibrationSizes::
/// disturbed_retries times at most).
std::vector<std::string> disturbed_classes(const std::map<std::string, model::PeerRate>& peers,
                                           const std::vector<std::string>& keys,
                                           const std::map<std::string, double>& recheck);

/// Which classes (model::peer_key, e.g. "gemv float", "conv2d FS9 double") a calibration measures.
using ClassFilter = std::function<bool(const std::string& key)>;
/// calibrate_peer_rates for the classes of one precision (elem 4 or 8) that `want` accepts, each
/// measured as there (both regimes, the same grid, in turn), replacing its entries in m.peers;
/// the others untouched. Chapter 7 times a group's classes again just before its rows (the host's
/// rate moves within a run: docs/notes/split.md). Returns the classes' lines (no drift line).
/// Throws std::invalid_argument on another elem or an empty `want`.
std::vector<std::string> calibrate_peer_classes(model::CpuMachine& m, std::size_t elem, const std::vector<int>& conv_fs,
                                                const CalibrationSizes& s, const ClassFilter& want,
                                                const HostAlloc& alloc = {});

}  // namespace wb::cpu
