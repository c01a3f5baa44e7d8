/// \file split_calibrate.hpp
/// \brief The GPU side's kernel times in chapter 7's model: each tuned kernel (chapter 5) as a
///        fixed time plus its roofline over a measured efficiency, measured at the start of the run
///        like the host's peer classes (kernels/cpu/peer_rates.hpp): t0 from a tiny call, e from a
///        mid-size call (e = roofline / (t - t0)). Without a GPU: t0 = one launch, e = 1.
#pragma once

#include "device_profile.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace wb::ch07 {

constexpr double kLaunchMs = 0.0025;  ///< one launch: model/occupancy.hpp's kLaunchOverheadUs

/// One kernel class on the GPU: T = fixed_ms + roofline / eff.
struct GpuRate {
    double fixed_ms = kLaunchMs;
    double eff = 1;
    /// A second point at a larger work, where measured (SYMV's class: its kernel reaches its
    /// streaming rate only on a matrix many times the L2, 38% of the ceiling at n = 4096 and 83% at
    /// 16384 in chapter 5's ladder): eff at mid_bytes, large_eff at large_bytes, log-linear in the
    /// bytes between them and flat outside. large_bytes 0: one point, eff at every size.
    double mid_bytes = 0, large_bytes = 0, large_eff = 0;
    /// The class's efficiency for a call that moves `bytes`.
    double eff_at(double bytes) const;
};

/// Every class's rate by model::peer_key ("gemv float", "conv2d FS9 double", "cg float": one CG
/// iteration of the tuned solve, "cg solve float": a solve's fixed cost beside its iterations, eff 1;
/// "cg product float": the SYMV path's call timed again before CG's rows, eff 1: split_paths.hpp);
/// a class not measured is the roofline and `launches` launches
/// (get's argument: one for a kernel; a CG iteration is four: SYMV's two kernels and the vector
/// kernels).
struct GpuRates {
    std::map<std::string, GpuRate> rates;
    std::string source = "assumed: the roofline and one launch per kernel";
    GpuRate get(const std::string& key, int launches = 1) const;
};
constexpr int kCgIterationLaunches = 4;

/// The GPU's roofline for bytes and flops (ms): max(bytes / bandwidth, flops / FMA peak) of the
/// device profile.
double gpu_roofline_ms(const DeviceProfile& dev, double bytes, double flops, std::size_t elem);
/// fixed_ms + roofline / eff of the class `key` for that work.
double gpu_kernel_ms(const GpuRates& r, const std::string& key, const DeviceProfile& dev, double bytes, double flops,
                     std::size_t elem);

/// Where each GPU class is measured (n; the convolution an n x n image; CG n x n, per iteration
/// of a solve of `cg_iterations`): the mid sizes read more than the H200's L2 holds.
/// symv_large_n: SYMV's second point (GpuRate::large_eff), the largest n of the chapter's tables,
/// halved while its matrix would take more than a quarter of the device's free memory.
struct GpuCalibrationSizes {
    int gemv_n = 4096, symv_n = 4096, gemm_n = 2048, conv_n = 2048, cg_n = 8192, tiny_n = 8, cg_tiny_n = 64;
    int symv_large_n = 16384;
};

struct Links;  // split_cases.hpp: the link's model

/// CG's all-GPU path from pinned host memory (hybrid::cg_gpu) at n for one iteration, timed as the
/// rows time it, less `iteration_ms` and the copies' model at n (cg_path_copies_ms): the class
/// "cg solve" (ms). Needs a CUDA device; throws std::invalid_argument on elem other than 4 or 8
/// or n < 1.
double cg_path_fixed_ms(std::size_t elem, int n, double iteration_ms, const Links& links);

/// Measures every class on the current device in float and double (the tuned steps on device
/// data, CUDA events, the L2 flushed before each call of the memory-bound ones; CG by wall clock,
/// per iteration, and "cg solve", a solve's fixed cost: cg_path_fixed_ms over `links`). Appends
/// one line per class to *log. Needs a CUDA device; takes a few seconds.
GpuRates measure_gpu_rates(const DeviceProfile& dev, const std::vector<int>& conv_fs, int cg_iterations,
                           const GpuCalibrationSizes& sizes, const Links& links, std::vector<std::string>* log);

}  // namespace wb::ch07
