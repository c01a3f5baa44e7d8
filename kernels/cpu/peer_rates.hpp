/// \file peer_rates.hpp
/// \brief The rate each CPU peer class reaches on this host, measured at the start of chapter 7's
///        run (model/cpu.hpp: T = t0 + roofline / e): t0 from a tiny call, e from a mid-size call
///        at one working set in the last-level cache and one beyond it for the memory-bound classes
///        (OpenBLAS's GEMV and SYMV, CG's vector calls), from one mid-size call for the
///        compute-bound ones (GEMM, our convolution at each FS). Like chapter 0's GPU ceilings,
///        these are properties of the machine and its library, measured once per run; no size of
///        the chapter's table is fitted.
#pragma once

#include "model/cpu.hpp"

#include <string>
#include <vector>

namespace wb::cpu {

/// Where each class is measured.
struct CalibrationSizes {
    double ws_cache = 0;  ///< working set (bytes) of the in-cache GEMV/SYMV call: a quarter of the LLC
    double ws_dram = 0;   ///< and of the beyond-cache one: model::default_max_working_set
    int gemm_n = 2048;    ///< GEMM n x n x n
    int conv_n = 2048;    ///< convolution n x n image
    int vec_n = 16384;    ///< CG's vector calls on n elements (the largest CG of the chapter)
    int tiny_n = 8;       ///< the tiny call of every class (64 for the vector calls)
};
/// The sizes above for the machine's LLC (at least 1 MiB in the cache).
CalibrationSizes default_calibration_sizes(const model::CpuMachine& m);

/// The n whose call works on `ws_bytes` bytes: GEMV's n x n matrix (sqrt(ws / elem)), SYMV's
/// stored triangle (sqrt(2 ws / elem)); at least 8.
int gemv_n_for(double ws_bytes, std::size_t elem);
int symv_n_for(double ws_bytes, std::size_t elem);

/// Measures every class in float and double and stores it in m.peers (model::peer_key: "gemv",
/// "symv", "gemm", "cg vectors", "conv2d FSk" for each k of conv_fs). The BLAS classes need
/// CBLAS (have_cblas()); without it only the convolution is measured. Returns one line per class
/// measured (t0 and e at each working set), for the run's log. Takes a few seconds: the largest
/// call reads ws_dram bytes (1 GiB at most).
std::vector<std::string> calibrate_peer_rates(model::CpuMachine& m, const std::vector<int>& conv_fs,
                                              const CalibrationSizes& sizes);

}  // namespace wb::cpu
