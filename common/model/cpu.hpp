/// \file model/cpu.hpp
/// \brief The CPU model of chapter 7 (White §3.5, generalized): the host's effective memory
///        bandwidth and FMA rate, measured at the start of a run like chapter 0's GPU ceilings,
///        and each op's predicted CPU time from them.
///
/// White fitted the CPU time of each op to measured BLAS timings (an effective bandwidth per op
/// and size). Here the machine is measured once, with two small multithreaded loops, and every op
/// is predicted from its own work, as the GPU side is (a roofline):
///
///     T_cpu = max(bytes / B_cpu, flops / F_cpu)
///
/// with bytes and flops the op's useful work (common/roofline.hpp: what a perfect code must move
/// and compute), B_cpu the read-stream bandwidth of all cores and F_cpu the FMA rate of all cores
/// in the op's precision (2 flops per FMA). No efficiency is fitted: the prediction is the
/// machine's limit, and chapter 7 prints the measured time beside it, so the gap is what the
/// learner reads (a BLAS GEMM reaches most of F_cpu; a GEMV, most of B_cpu; our own convolution
/// less, and the table says how much).
#pragma once

#include <cstddef>
#include <string>

namespace wb::model {

/// The host as the CPU model sees it.
struct CpuMachine {
    std::string name;          ///< "measured (N threads)" or a preset's name
    int threads = 1;           ///< threads the measurement (and the peers) ran
    double bandwidth_gbs = 0;  ///< read-stream bandwidth of all threads, GB/s (1e9 B/s)
    double fp32_gflops = 0;    ///< FMA rate of all threads, float, GFLOP/s (2 flops per FMA)
    double fp64_gflops = 0;    ///< likewise, double
    double gflops(std::size_t elem_bytes) const { return elem_bytes == 4 ? fp32_gflops : fp64_gflops; }
};

/// Measures the host: `threads` threads (0: std::thread::hardware_concurrency()) each summing its
/// share of a buffer of `buffer_mib` MiB (larger than the last-level cache for a true DRAM figure;
/// the best of `repeats` passes), then each running independent FMA chains held in registers, in
/// float and in double (the best of `repeats`). Takes about repeats x (a pass over the buffer +
/// 2 x 20 ms). Throws std::invalid_argument on threads < 0, buffer_mib < 1 or repeats < 1.
CpuMachine measure_cpu_machine(int threads = 0, int buffer_mib = 256, int repeats = 3);

/// A machine from given figures (tests, presets); throws std::invalid_argument unless all are > 0.
CpuMachine cpu_machine(const std::string& name, int threads, double bandwidth_gbs, double fp32_gflops,
                       double fp64_gflops);

/// One op's useful work on the CPU.
struct CpuWork {
    double bytes = 0;
    double flops = 0;
};
CpuWork cpu_work_gemv(bool trans, long long m, long long n, std::size_t elem, bool beta_nonzero);
/// size(T)(m k + k n + m n [+ m n when beta != 0]) and 2 m n k.
CpuWork cpu_work_gemm(long long m, long long n, long long k, std::size_t elem, bool beta_nonzero);
/// The stored triangle and three vectors; 2 n^2 flops.
CpuWork cpu_work_symv(long long n, std::size_t elem);
CpuWork cpu_work_conv2d(long long rows, long long cols, int fs, std::size_t elem);
/// One CG iteration on the host: one SYMV of the lower triangle, and the vector updates (x, r, p
/// updated: 3 axpy-like passes; two dots; 10 n elements moved, 10 n flops).
CpuWork cpu_work_cg_iteration(long long n, std::size_t elem);

/// Predicted milliseconds: max(bytes / B_cpu, flops / F_cpu) (the model above).
double predict_cpu_ms(const CpuMachine& cpu, const CpuWork& w, std::size_t elem_bytes);

/// One line: "host: 8 threads, 24.1 GB/s, 410 GFLOP/s float, 205 double (measured)".
std::string to_string(const CpuMachine& cpu);

}  // namespace wb::model
