/// \file model/cpu.hpp
/// \brief The CPU model of chapter 7 (White §3.5, generalized): the host measured at the start of a
///        run like chapter 0's GPU ceilings (its read bandwidth at working sets in and beyond the
///        last-level cache, its FMA rate, and the rate each CPU peer class reaches), and each op's
///        predicted CPU time from them.
///
/// White fitted the CPU time of each op to measured BLAS timings (an effective bandwidth per op
/// and size). Here the machine is measured once and every op is predicted from its own work:
///
///     T_cpu = t0 + max(bytes / B(ws), flops / F) / e(ws)
///
/// - bytes and flops are the op's useful work (common/roofline.hpp), ws its working set: the bytes
///   a timing loop (or an application) touches again and again; for these ops, its operands;
/// - B(ws) is the read-stream bandwidth of all threads over a buffer of ws bytes read again and
///   again: cache bandwidth while ws fits in the last-level cache (LLC), DRAM bandwidth far beyond
///   it, measured at working sets from 1 MiB to several LLCs and interpolated in log(ws);
/// - F is the FMA rate of all threads in the op's precision (2 flops per FMA);
/// - t0 and e(ws) belong to the peer class (OpenBLAS's GEMV, SYMV, GEMM, the vector calls of CG,
///   our convolution at one FS) and to the regime the library runs the call in:
///   * OpenBLAS runs a small call on the calling thread alone (its own rule, in its interface
///     files: openblas_single_thread_* below) and a larger one on its thread pool. The two regimes
///     have different fixed costs: a single-threaded call costs a function call (a tenth of a
///     microsecond), a threaded one the hand-off to the pool and the wait for its slowest thread
///     (microseconds). So each class is measured in both: "gemv float 1t" (t0 from a tiny call, e
///     from the largest call the rule keeps on one thread) and "gemv float" (t0 from the smallest
///     call the rule threads, timed as the table's rows are: threads settled, then calls);
///   * e(ws) of the threaded regime is measured at working sets a factor 2 apart, from the
///     smallest threaded call up to several LLCs (compute-bound classes: until a call takes tens
///     of milliseconds), and interpolated in log(ws): the library's share of the roofline changes
///     with the level its operands live in (a GEMV reaches a third of the L2's read bandwidth and
///     four fifths of DRAM's), which two points cannot follow; nor can points a factor 4 apart,
///     which missed a GEMV's rise between the L2s and the LLC (docs/notes/split.md, session 38).
///   These are properties of the host and its library, measured once, like a GPU's ceilings: no
///   size of the table is fitted (the calibration's sizes follow the LLC, and their n are
///   multiples of 32, not the table's powers of two).
///
/// Without a calibration (a class not measured) t0 = 0 and e = 1: the host's roofline.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace wb::model {

/// A quantity measured at one working-set size.
struct WsPoint {
    double ws_bytes = 0;
    double value = 0;
};

/// The value at `ws_bytes`: linear in log(ws) between the two measured points around it, the
/// nearest point's value outside their range. Throws std::invalid_argument when `points` is empty
/// or not sorted by strictly increasing ws_bytes > 0.
double interpolate_ws(const std::vector<WsPoint>& points, double ws_bytes);

/// One peer class's measured rate (the model above): T = fixed_ms + roofline / e(ws).
struct PeerRate {
    double fixed_ms = 0;             ///< a tiny call's time
    std::vector<WsPoint> efficiency; ///< e at the working sets it was measured at (empty: 1)
};

/// The host as the CPU model sees it.
struct CpuMachine {
    std::string name;          ///< "measured (N threads)" or a preset's name
    int threads = 1;           ///< threads the measurement (and the peers) ran
    double llc_bytes = 0;      ///< the last-level cache the threads share (all instances), 0: unknown
    std::string llc_source;    ///< where llc_bytes came from ("sysfs", "sysconf", "assumed")
    std::vector<WsPoint> bandwidth;  ///< read-stream GB/s (1e9 B/s) of all threads at working sets
    double bandwidth_gbs = 0;  ///< the figure at the largest working set (DRAM)
    double fp32_gflops = 0;    ///< FMA rate of all threads, float, GFLOP/s (2 flops per FMA)
    double fp64_gflops = 0;    ///< likewise, double
    std::map<std::string, PeerRate> peers;  ///< by peer_key()
    double gflops(std::size_t elem_bytes) const { return elem_bytes == 4 ? fp32_gflops : fp64_gflops; }
    /// B(ws): the curve where measured, else bandwidth_gbs.
    double bandwidth_at(double ws_bytes) const;
};

/// The key of a peer class: "gemv float", "conv2d FS9 double" (fs > 0 only for the convolution).
std::string peer_key(const std::string& cls, std::size_t elem_bytes, int fs = 0);

/// The last-level cache the host's threads share: the highest cache level sysfs lists for the
/// CPUs this process may run on, each distinct instance counted once; else glibc's
/// sysconf(_SC_LEVEL3_CACHE_SIZE); else 32 MiB, "assumed".
struct LlcInfo {
    double bytes = 0;
    std::string source;
};
LlcInfo host_llc();

/// The working sets the bandwidth is measured at: 1 MiB, 2 MiB, ... up to max_ws_bytes (the last
/// one max_ws_bytes itself). Throws std::invalid_argument on max_ws_bytes < 1 MiB.
std::vector<double> bandwidth_working_sets(double max_ws_bytes);
/// The largest working set measured by default: 4 LLCs, at least 256 MiB, at most 1 GiB.
double default_max_working_set(double llc_bytes);

/// Measures the host: the LLC (host_llc), then `threads` threads (0: hardware_concurrency) each
/// reading its share of a buffer again and again at every working set of bandwidth_working_sets
/// (max_ws_mib MiB; 0: default_max_working_set), the best of `repeats`; then independent FMA
/// chains held in registers, in float and double (the best of `repeats`). The peers' classes are
/// measured separately (kernels/cpu/peer_rates.hpp: they run the peers). About a second.
/// Throws std::invalid_argument on threads < 0, max_ws_mib < 0 or repeats < 1.
CpuMachine measure_cpu_machine(int threads = 0, int max_ws_mib = 0, int repeats = 3);

/// A machine from given figures (tests, presets): one bandwidth at every working set. Throws
/// std::invalid_argument unless all are > 0.
CpuMachine cpu_machine(const std::string& name, int threads, double bandwidth_gbs, double fp32_gflops,
                       double fp64_gflops);

/// One op's useful work on the CPU; its working set is its bytes (the operands it touches).
/// single_thread: the library runs this call on the calling thread alone (openblas_single_thread_*).
struct CpuWork {
    double bytes = 0;
    double flops = 0;
    bool single_thread = false;
};

/// OpenBLAS's rule for running a call on the calling thread alone (its interface/gemv.c, symv.c
/// and gemm.c, 0.3.x, with the default GEMM_MULTITHREAD_THRESHOLD of 4): GEMV when m n < 2304 x 4,
/// SYMV when n < 200, GEMM when m n k <= 65536 x 4. Larger calls run on its thread pool.
bool openblas_single_thread_gemv(long long m, long long n);
bool openblas_single_thread_symv(long long n);
bool openblas_single_thread_gemm(long long m, long long n, long long k);
/// The key of a class's single-thread regime: peer_key + " 1t" ("gemv float 1t").
std::string single_thread_key(const std::string& key);
/// GEMV's, GEMM's and SYMV's set single_thread by OpenBLAS's rule.
CpuWork cpu_work_gemv(bool trans, long long m, long long n, std::size_t elem, bool beta_nonzero);
/// size(T)(m k + k n + m n [+ m n when beta != 0]) and 2 m n k.
CpuWork cpu_work_gemm(long long m, long long n, long long k, std::size_t elem, bool beta_nonzero);
/// The stored triangle and three vectors; 2 n^2 flops.
CpuWork cpu_work_symv(long long n, std::size_t elem);
CpuWork cpu_work_conv2d(long long rows, long long cols, int fs, std::size_t elem);
/// The vector operations of one CG iteration on the host (cpu::cg: two dots, three axpys, one
/// scal): 15 n elements moved, 11 n flops.
CpuWork cpu_work_cg_vectors(long long n, std::size_t elem);
/// One CG iteration: one SYMV of the lower triangle and the vector operations.
CpuWork cpu_work_cg_iteration(long long n, std::size_t elem);

/// The host's roofline: max(bytes / B(ws), flops / F) in ms, with B read at the working set ws
/// the call finds the caches in: its own bytes (ws < 0, the default: a call repeated alone), or
/// the footprint of the calls it runs among on other data (a hybrid's CPU share of several calls).
double predict_cpu_ms(const CpuMachine& cpu, const CpuWork& w, std::size_t elem_bytes, double ws = -1);
/// The model above for the peer class `key` (peer_key): its t0 + roofline / e(ws), in the
/// regime the call runs in (w.single_thread: the class single_thread_key(key), where measured);
/// a class not measured is the roofline alone. ws as for predict_cpu_ms.
double predict_peer_ms(const CpuMachine& cpu, const std::string& key, const CpuWork& w, std::size_t elem_bytes,
                       double ws = -1);

/// One line: "host: 16 threads, LLC 32 MiB (sysfs), read 412 GB/s at 8 MiB ... 59 GB/s at 1 GiB,
/// FMA 662 / 537 GFLOP/s float / double (measured (16 threads))".
std::string to_string(const CpuMachine& cpu);
/// The whole bandwidth curve, for the run's log (a replay of the run reads it: chapters/ch07_split/split_replay.hpp):
/// "read GB/s by working set: 1 MiB 474.2, 2 MiB 479.9, ...".
std::string curve_to_string(const CpuMachine& cpu);

/// The share of a working set's bytes that a call reading it again and again fetches from DRAM:
/// 0 while it fits in half the LLC (it stays there from one call to the next), 1 from twice the
/// LLC on (a sweep larger than the cache evicts what the next sweep needs first), linear in
/// log(ws) between. 1 where the LLC is unknown (0).
double dram_share(double llc_bytes, double ws_bytes);

/// Read bandwidth (GB/s) of `threads` threads, each summing its share of p[0, n) `passes` times
/// (the share stays in the caches that hold it, as an operand read by repeated calls does): the
/// best of `repeats`, timed from the moment all threads have started.
double read_gbs(const double* p, std::size_t n, int threads, int passes, int repeats);

/// `threads` threads reading a buffer of `ws_bytes` (each share's pages first touched by the
/// thread that reads it) again and again: the CPU's side of chapter 7's measurement of the host
/// memory both sides of a hybrid share. Throws std::invalid_argument on threads < 1 or
/// ws_bytes < 1 MiB.
class ReadLoad {
public:
    ReadLoad(int threads, double ws_bytes);
    /// Reads for about `seconds` (whole passes, at least two) and returns the GB/s of all threads.
    double run(double seconds);

private:
    int threads_;
    std::vector<double> buf_;
};

}  // namespace wb::model
