/// \file split_cases.hpp
/// \brief Chapter 7's cases: for one op, size and precision, the work the CPU model needs, what the
///        GPU side moves and computes (the Offload of common/split.hpp), the model's prediction of
///        the three ways to run it, and the CPU peer run for real (it needs no GPU).
#pragma once

#include "device_profile.hpp"
#include "model/cpu.hpp"
#include "split.hpp"
#include "transfer_model.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace wb::ch07 {

/// The ops of this chapter, in table order.
const std::vector<std::string>& split_ops();
/// Default sizes of an op (n: GEMV/SYMV/GEMM/CG n x n, the convolution an n x n image), spanning the
/// crossover on today's machines; `quick` gives a short set.
std::vector<int> default_sizes(const std::string& op, bool quick);

constexpr int kConvFilter = 5;  ///< the convolution's FS in this chapter

/// The links the GPU side uses (host -> device, device -> host) and what they are.
struct Links {
    TransferModel h2d, d2h;
    std::string source;  ///< "measured, pinned" or the preset's description
};
/// The link without a GPU: one segment per direction, Tx the pinned rates chapter 0 measured on
/// the H200 (55.5 GB/s up, 55.4 GB/s down) and a set-up time c1 of 10 us (the order of one
/// cudaMemcpyAsync's latency): an assumption, replaced by the fit of the measured copies on a GPU.
Links h200_pinned_links();

/// One case's prediction.
struct CasePrediction {
    double cpu_model_ms = 0;
    split::Prediction split;  ///< cpu_ms, gpu_ms (with transfers), hybrid_ms, share, choices
    std::string hybrid_kind;  ///< "rows" (the output's rows split) or "vectors on CPU" (CG, White §5.2)
};

/// The link fitted to this GPU's pinned copies (chapter 0's measurement at the quick scale, both
/// directions). Needs a CUDA device.
Links measured_pinned_links();

/// What to predict with.
struct Machines {
    model::CpuMachine cpu;
    DeviceProfile gpu;
    Links links;
    int chunks = 4;          ///< the hybrid's GPU share runs in this many pipelined chunks
    int cg_iterations = 100; ///< CG: iterations per solve (the tables time whole solves)
};

/// The model's three times for `op` at size n in float (elem 4) or double (elem 8).
CasePrediction predict_case(const std::string& op, int n, std::size_t elem, const Machines& m);

/// Runs the CPU peer of `op` at size n on seeded data: the median of a few timed calls after a
/// warm-up (ms). Throws what the peer throws (std::runtime_error without CBLAS).
double measure_cpu_case(const std::string& op, int n, std::size_t elem, int cg_iterations);

/// CG on the host (cpu::cg, tol 0) from x = 0 until `iterations` iterations are done in all: a
/// small system stops early at an exactly zero residual (n = 8 in float: after 35 of 100), so the
/// solve restarts until the model's iterations are done. Returns the iterations done.
template <class T>
int cpu_cg_iterations(int n, const T* A, const T* b, T* x, int iterations);

/// Host bytes one measured case holds at its peak: the CPU peer's operands (the inputs generated on
/// the host, the output, CG's three work vectors) and, with `gpu`, GEMV's pinned copies beside the
/// generated matrix. In double, as memory_fit.hpp's needs. Throws std::invalid_argument on an
/// unknown op.
double host_bytes_needed(const std::string& op, int n, std::size_t elem, bool gpu);

/// The GPU's measured columns of one case (NaN where this build does not time them).
struct GpuTimes {
    double gpu_ms = NAN;     ///< all on the GPU: copies in, kernel, copy out (one chunk: in sequence)
    double hybrid_ms = NAN;  ///< the hybrid with gpu_rows rows on the GPU in `chunks` chunks
};
/// Times the GPU-with-transfers and hybrid ways of `op` at size n from pinned host memory (median of a
/// few calls after a warm-up). GEMV only so far (kernels/cpu/hybrid_gemv.hpp); other ops: NaN.
GpuTimes measure_gpu_case(const std::string& op, int n, std::size_t elem, double gpu_share, int chunks);

}  // namespace wb::ch07
