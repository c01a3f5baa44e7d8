// model/cpu.cpp — the CPU model (model/cpu.hpp): the host's last-level cache, its read bandwidth at
// working sets in and beyond that cache and its FMA rate measured by small multithreaded loops, and
// each op's time from its useful work and its peer class's measured rate.
#include "model/cpu.hpp"

#include "roofline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

namespace wb::model {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kMiB = 1024.0 * 1024.0;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Runs body(t) on `threads` threads at once and returns the wall time in seconds from the moment
/// all of them have started (thread creation is not timed: it costs more than a small pass).
template <class F>
double timed_parallel(int threads, F body) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            body(t);
        });
    while (ready.load() < threads) std::this_thread::yield();
    const auto t0 = Clock::now();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    return seconds_since(t0);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define WB_WIDEST_VECTORS __attribute__((target_clones("avx512f", "avx2,fma", "default")))
#else
#define WB_WIDEST_VECTORS
#endif

/// Independent FMA chains (`Chains` accumulators, which the compiler packs into vector registers),
/// `iters` steps: 2 x Chains x iters flops. The chains' results are returned so nothing is
/// optimized away. Compiled for the widest FMA the host has (target_clones picks at run time).
template <class T, int Chains>
WB_WIDEST_VECTORS T fma_chains(long long iters, T seed) {
    T acc[Chains];
    for (int c = 0; c < Chains; ++c) acc[c] = seed + static_cast<T>(c) * T(1e-3);
    const T a = T(0.999999), b = T(1e-7);
    for (long long i = 0; i < iters; ++i)
        for (int c = 0; c < Chains; ++c) acc[c] = acc[c] * a + b;
    T s = 0;
    for (int c = 0; c < Chains; ++c) s += acc[c];
    return s;
}

/// The FMA rate of `threads` threads running fma_chains<T, Chains>, the best of `repeats` passes of
/// about 20 ms.
template <class T, int Chains>
double fma_gflops_with(int threads, int repeats) {
    const long long iters = (1LL << 25) / Chains;
    double best = 0;
    std::vector<T> sink(static_cast<std::size_t>(threads));
    for (int r = 0; r < repeats; ++r) {
        const double s = timed_parallel(threads, [&](int t) {
            sink[static_cast<std::size_t>(t)] = fma_chains<T, Chains>(iters, T(1) + T(t));
        });
        best = std::max(best, 2.0 * Chains * static_cast<double>(iters) * threads / s / 1e9);
    }
    volatile T keep = sink[0];
    (void)keep;
    return best;
}

/// The FMA rate in T: the better of chains that fill 8 and 16 vector registers of 64 bytes. A core
/// keeps (FMA latency x FMA ports) independent FMAs in flight, 8 on a core with two 4-cycle AVX-512
/// units: 8 registers of chains leave no slack for the loop's own instructions, and on the H200's
/// host they measured float at 1.5x double (868 / 586 GFLOP/s) while its SGEMM ran at 1145
/// GFLOP/s, twice its DGEMM. 16 registers cover the latency in both precisions; on a host with 16
/// AVX2 registers they spill, and the 8-register count is then the better one.
template <class T>
double measure_fma_gflops(int threads, int repeats) {
    constexpr int kPerRegister = 64 / static_cast<int>(sizeof(T));
    return std::max(fma_gflops_with<T, 8 * kPerRegister>(threads, repeats),
                    fma_gflops_with<T, 16 * kPerRegister>(threads, repeats));
}

/// The sum of p[0, n): 32 partial sums, which the compiler keeps in vector registers, so the loop
/// is bound by loads (a single scalar sum would be bound by the add latency, far below a cache's
/// bandwidth).
constexpr int kLanes = 32;
WB_WIDEST_VECTORS double sum_pass(const double* p, std::size_t n) {
    double acc[kLanes] = {};
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int j = 0; j < kLanes; ++j) acc[j] += p[i + j];
    double s = 0;
    for (; i < n; ++i) s += p[i];
    for (double a : acc) s += a;
    return s;
}

std::vector<WsPoint> measure_bandwidth_curve(int threads, double max_ws, int repeats) {
    const std::vector<double> sets = bandwidth_working_sets(max_ws);
    const std::size_t n_max = static_cast<std::size_t>(sets.back() / sizeof(double));
    std::vector<double> buf(n_max);
    const std::size_t share = (n_max + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
    // First touch by the thread that reads each share of the largest set (its memory node).
    timed_parallel(threads, [&](int t) {
        const std::size_t lo = std::min(n_max, share * static_cast<std::size_t>(t)), hi = std::min(n_max, lo + share);
        for (std::size_t i = lo; i < hi; ++i) buf[i] = 1.0 + static_cast<double>(i & 7);
    });
    std::vector<WsPoint> curve;
    for (double ws : sets) {
        const std::size_t n = static_cast<std::size_t>(ws / sizeof(double));
        // At least 256 MiB read per timing (a few ms at DRAM speed), at least two passes: the
        // first pass of a timing may still bring the set into the caches.
        const int passes = std::max(2, static_cast<int>(std::ceil(256 * kMiB / ws)));
        curve.push_back({ws, read_gbs(buf.data(), n, threads, passes, repeats)});
    }
    return curve;
}

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

/// "32768K" -> 33554432; "1M" -> 1048576; 0 when it does not parse.
double parse_cache_size(const std::string& s) {
    std::size_t pos = 0;
    double v = 0;
    try {
        v = std::stod(s, &pos);
    } catch (const std::exception&) {
        return 0;
    }
    const char unit = pos < s.size() ? s[pos] : ' ';
    if (unit == 'K' || unit == 'k') v *= 1024;
    else if (unit == 'M' || unit == 'm') v *= kMiB;
    else if (unit == 'G' || unit == 'g') v *= 1024 * kMiB;
    return v;
}

std::string read_line(const std::string& path) {
    std::ifstream f(path);
    std::string s;
    std::getline(f, s);
    return s;
}

/// The highest-level data/unified cache of each CPU this process may run on, from sysfs; each
/// instance (its shared_cpu_list) counted once. 0 when sysfs has none.
double sysfs_llc_bytes(int* instances) {
    *instances = 0;
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    int best_level = 0;
    std::set<std::string> seen;
    double total = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &set)) continue;
        const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/";
        int level = 0;
        double size = 0;
        std::string shared;
        for (int idx = 0; idx < 16; ++idx) {
            const std::string d = dir + "index" + std::to_string(idx) + "/";
            const std::string lv = read_line(d + "level");
            if (lv.empty()) break;
            const std::string type = read_line(d + "type");
            if (type == "Instruction") continue;
            const int l = std::atoi(lv.c_str());
            if (l > level) {
                level = l;
                size = parse_cache_size(read_line(d + "size"));
                shared = read_line(d + "shared_cpu_list");
            }
        }
        if (level == 0 || size <= 0) continue;
        if (level > best_level) {  // a higher level seen on this CPU: start the sum again
            best_level = level;
            seen.clear();
            total = 0;
        }
        if (level == best_level && seen.insert(shared.empty() ? std::to_string(cpu) : shared).second) total += size;
    }
    *instances = static_cast<int>(seen.size());
    return total;
#else
    return 0;
#endif
}

}  // namespace

double read_gbs(const double* buf, std::size_t n, int threads, int passes, int repeats) {
    const std::size_t share = (n + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
    std::vector<double> sums(static_cast<std::size_t>(threads));
    double best = 0;
    for (int r = 0; r < repeats; ++r) {
        const double s = timed_parallel(threads, [&](int t) {
            const std::size_t lo = std::min(n, share * static_cast<std::size_t>(t)), hi = std::min(n, lo + share);
            double acc = 0;
            for (int p = 0; p < passes; ++p) acc += sum_pass(buf + lo, hi - lo);
            sums[static_cast<std::size_t>(t)] = acc;
        });
        best = std::max(best, static_cast<double>(n * sizeof(double)) * passes / s / 1e9);
    }
    volatile double keep = sums[0];
    (void)keep;
    return best;
}

double interpolate_ws(const std::vector<WsPoint>& pts, double ws) {
    if (pts.empty()) throw std::invalid_argument("interpolate_ws: points must not be empty");
    for (std::size_t i = 0; i < pts.size(); ++i)
        if (!(pts[i].ws_bytes > 0) || (i > 0 && !(pts[i].ws_bytes > pts[i - 1].ws_bytes)))
            throw std::invalid_argument("interpolate_ws: points must have ws_bytes > 0, strictly increasing (point " +
                                        std::to_string(i) + ": " + num(pts[i].ws_bytes) + ")");
    if (!(ws > pts.front().ws_bytes)) return pts.front().value;
    if (!(ws < pts.back().ws_bytes)) return pts.back().value;
    std::size_t i = 1;
    while (pts[i].ws_bytes < ws) ++i;
    const WsPoint& a = pts[i - 1];
    const WsPoint& b = pts[i];
    const double t = std::log(ws / a.ws_bytes) / std::log(b.ws_bytes / a.ws_bytes);
    return a.value + t * (b.value - a.value);
}

double CpuMachine::bandwidth_at(double ws_bytes) const {
    return bandwidth.empty() ? bandwidth_gbs : interpolate_ws(bandwidth, ws_bytes);
}

std::string peer_key(const std::string& cls, std::size_t elem_bytes, int fs) {
    return cls + (fs > 0 ? " FS" + std::to_string(fs) : std::string()) + (elem_bytes == 4 ? " float" : " double");
}

LlcInfo host_llc() {
    int instances = 0;
    const double sys = sysfs_llc_bytes(&instances);
    if (sys > 0) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "sysfs, %d instance%s", instances, instances == 1 ? "" : "s");
        return {sys, buf};
    }
#if defined(_SC_LEVEL3_CACHE_SIZE)
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) return {static_cast<double>(l3), "sysconf"};
#endif
    return {32 * kMiB, "assumed"};
}

std::vector<double> bandwidth_working_sets(double max_ws) {
    if (!(max_ws >= kMiB))
        throw std::invalid_argument("bandwidth_working_sets: max_ws_bytes (" + num(max_ws) + ") must be >= 1 MiB");
    std::vector<double> sets;
    for (double ws = kMiB; ws < max_ws * (1 - 1e-9); ws *= 2) sets.push_back(ws);
    if (!sets.empty() && sets.back() * 1.5 > max_ws) sets.pop_back();  // no two sets closer than 1.5x
    sets.push_back(max_ws);
    return sets;
}

double default_max_working_set(double llc_bytes) { return std::clamp(4 * llc_bytes, 256 * kMiB, 1024 * kMiB); }

CpuMachine cpu_machine(const std::string& name, int threads, double bandwidth_gbs, double fp32_gflops,
                       double fp64_gflops) {
    if (threads < 1) throw std::invalid_argument("cpu_machine: threads (" + std::to_string(threads) + ") must be >= 1");
    for (auto [what, v] : {std::pair<const char*, double>{"bandwidth_gbs", bandwidth_gbs}, {"fp32_gflops", fp32_gflops},
                           {"fp64_gflops", fp64_gflops}})
        if (!(v > 0) || !std::isfinite(v))
            throw std::invalid_argument(std::string("cpu_machine: ") + what + " (" + num(v) + ") must be finite and > 0");
    CpuMachine m;
    m.name = name;
    m.threads = threads;
    m.bandwidth_gbs = bandwidth_gbs;
    m.fp32_gflops = fp32_gflops;
    m.fp64_gflops = fp64_gflops;
    return m;
}

CpuMachine measure_cpu_machine(int threads, int max_ws_mib, int repeats) {
    if (threads < 0) throw std::invalid_argument("measure_cpu_machine: threads (" + std::to_string(threads) + ") must be >= 0");
    if (max_ws_mib < 0)
        throw std::invalid_argument("measure_cpu_machine: max_ws_mib (" + std::to_string(max_ws_mib) + ") must be >= 0");
    if (repeats < 1) throw std::invalid_argument("measure_cpu_machine: repeats (" + std::to_string(repeats) + ") must be >= 1");
    if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const LlcInfo llc = host_llc();
    const double max_ws = max_ws_mib > 0 ? max_ws_mib * kMiB : default_max_working_set(llc.bytes);
    CpuMachine m = cpu_machine("measured (" + std::to_string(threads) + " threads)", threads, 1, 1, 1);
    m.llc_bytes = llc.bytes;
    m.llc_source = llc.source;
    m.bandwidth = measure_bandwidth_curve(threads, max_ws, repeats);
    m.bandwidth_gbs = m.bandwidth.back().value;
    m.fp32_gflops = measure_fma_gflops<float>(threads, repeats);
    m.fp64_gflops = measure_fma_gflops<double>(threads, repeats);
    return m;
}

// OpenBLAS 0.3.x: interface/gemv.c threads a call from m n >= 2304 GEMM_MULTITHREAD_THRESHOLD,
// interface/symv.c from n >= 200, interface/gemm.c from m n k > 65536 GEMM_MULTITHREAD_THRESHOLD
// (SMP_THRESHOLD_MIN); the threshold's default is 4.
constexpr double kOpenBlasThreshold = 4;
bool openblas_single_thread_gemv(long long m, long long n) {
    return static_cast<double>(m) * static_cast<double>(n) < 2304 * kOpenBlasThreshold;
}
bool openblas_single_thread_symv(long long n) { return n < 200; }
bool openblas_single_thread_gemm(long long m, long long n, long long k) {
    return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= 65536 * kOpenBlasThreshold;
}
std::string single_thread_key(const std::string& key) { return key + " 1t"; }

CpuWork cpu_work_gemv(bool trans, long long m, long long n, std::size_t elem, bool beta_nonzero) {
    return {roofline::gemv_bytes(trans, m, n, elem, beta_nonzero), roofline::gemv_flops(m, n),
            openblas_single_thread_gemv(m, n)};
}
CpuWork cpu_work_gemm(long long m, long long n, long long k, std::size_t elem, bool beta_nonzero) {
    const double e = static_cast<double>(elem);
    const double c = static_cast<double>(m) * static_cast<double>(n) * (beta_nonzero ? 2.0 : 1.0);
    return {e * (static_cast<double>(m) * k + static_cast<double>(k) * n + c), roofline::gemm_flops(m, n, k),
            openblas_single_thread_gemm(m, n, k)};
}
CpuWork cpu_work_symv(long long n, std::size_t elem) {
    return {roofline::symv_bytes(n, elem), 2.0 * static_cast<double>(n) * static_cast<double>(n),
            openblas_single_thread_symv(n)};
}
CpuWork cpu_work_conv2d(long long rows, long long cols, int fs, std::size_t elem) {
    return {roofline::conv_bytes(rows, cols, fs, elem), roofline::conv_flops(rows, cols, fs)};
}
CpuWork cpu_work_cg_vectors(long long n, std::size_t elem) {
    const double N = static_cast<double>(n);
    return {15.0 * N * static_cast<double>(elem), 11.0 * N};
}
CpuWork cpu_work_cg_iteration(long long n, std::size_t elem) {
    CpuWork w = cpu_work_symv(n, elem);
    const CpuWork v = cpu_work_cg_vectors(n, elem);
    w.bytes += v.bytes;
    w.flops += v.flops;
    return w;
}

double predict_cpu_ms(const CpuMachine& cpu, const CpuWork& w, std::size_t elem_bytes, double ws) {
    if (ws < 0) ws = w.bytes;
    if (!(cpu.bandwidth_at(ws) > 0) || !(cpu.gflops(elem_bytes) > 0))
        throw std::invalid_argument("predict_cpu_ms: the machine '" + cpu.name + "' has no bandwidth or FMA rate");
    if (!(w.bytes >= 0) || !(w.flops >= 0)) throw std::invalid_argument("predict_cpu_ms: bytes and flops must be >= 0");
    return std::max(w.bytes / (cpu.bandwidth_at(ws) * 1e6), w.flops / (cpu.gflops(elem_bytes) * 1e6));
}

double predict_peer_ms(const CpuMachine& cpu, const std::string& key, const CpuWork& w, std::size_t elem_bytes,
                       double ws) {
    if (ws < 0) ws = w.bytes;
    const double roof = predict_cpu_ms(cpu, w, elem_bytes, ws);
    auto it = w.single_thread ? cpu.peers.find(single_thread_key(key)) : cpu.peers.end();
    if (it == cpu.peers.end()) it = cpu.peers.find(key);
    if (it == cpu.peers.end()) return roof;
    const PeerRate& r = it->second;
    const double eff = r.efficiency.empty() ? 1.0 : interpolate_ws(r.efficiency, ws);
    if (!(eff > 0)) throw std::invalid_argument("predict_peer_ms: the efficiency of '" + key + "' must be > 0");
    return r.fixed_ms + roof / eff;
}

std::string curve_to_string(const CpuMachine& cpu) {
    std::string s = "read GB/s by working set:";
    char buf[64];
    for (std::size_t i = 0; i < cpu.bandwidth.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%s %.6g MiB %.1f", i ? "," : "", cpu.bandwidth[i].ws_bytes / kMiB,
                      cpu.bandwidth[i].value);
        s += buf;
    }
    if (cpu.bandwidth.empty()) s += (std::snprintf(buf, sizeof buf, " every set %.1f", cpu.bandwidth_gbs), buf);
    return s;
}

double dram_share(double llc, double ws) {
    if (!(llc > 0)) return 1;
    if (!(ws > llc / 2)) return 0;
    if (!(ws < 2 * llc)) return 1;
    return std::log(ws / (llc / 2)) / std::log(4.0);
}

ReadLoad::ReadLoad(int threads, double ws_bytes) : threads_(threads) {
    if (threads < 1) throw std::invalid_argument("ReadLoad: threads (" + std::to_string(threads) + ") must be >= 1");
    if (!(ws_bytes >= kMiB)) throw std::invalid_argument("ReadLoad: ws_bytes (" + num(ws_bytes) + ") must be >= 1 MiB");
    const std::size_t n = static_cast<std::size_t>(ws_bytes / sizeof(double));
    buf_.resize(n);
    const std::size_t share = (n + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
    timed_parallel(threads, [&](int t) {  // first touch by the thread that reads each share
        const std::size_t lo = std::min(n, share * static_cast<std::size_t>(t)), hi = std::min(n, lo + share);
        for (std::size_t i = lo; i < hi; ++i) buf_[i] = 1.0 + static_cast<double>(i & 7);
    });
}

double ReadLoad::run(double seconds) {
    const double once = static_cast<double>(buf_.size() * sizeof(double)) / read_gbs(buf_.data(), buf_.size(), threads_, 1, 1) / 1e9;
    const int passes = std::max(2, static_cast<int>(std::ceil(seconds / std::max(once, 1e-6))));
    return read_gbs(buf_.data(), buf_.size(), threads_, passes, 1);
}

std::string to_string(const CpuMachine& cpu) {
    auto bytes = [](double b) {
        char buf[32];
        if (b >= 1024 * kMiB) std::snprintf(buf, sizeof buf, "%.3g GiB", b / (1024 * kMiB));
        else std::snprintf(buf, sizeof buf, "%.3g MiB", b / kMiB);
        return std::string(buf);
    };
    std::string bw;
    char buf[256];
    if (cpu.bandwidth.size() > 1) {
        // The highest figure (a set in the caches) and the last (the largest set: DRAM).
        const auto hi = std::max_element(cpu.bandwidth.begin(), cpu.bandwidth.end(),
                                         [](const WsPoint& a, const WsPoint& b) { return a.value < b.value; });
        std::snprintf(buf, sizeof buf, "read %.0f GB/s at %s ... %.1f GB/s at %s", hi->value, bytes(hi->ws_bytes).c_str(),
                      cpu.bandwidth.back().value, bytes(cpu.bandwidth.back().ws_bytes).c_str());
        bw = buf;
    } else {
        std::snprintf(buf, sizeof buf, "%.1f GB/s", cpu.bandwidth_gbs);
        bw = buf;
    }
    const std::string llc = cpu.llc_bytes > 0 ? ", LLC " + bytes(cpu.llc_bytes) + " (" + cpu.llc_source + ")" : "";
    std::snprintf(buf, sizeof buf, "host: %d threads%s, %s, %.0f GFLOP/s float, %.0f double (%s)", cpu.threads,
                  llc.c_str(), bw.c_str(), cpu.fp32_gflops, cpu.fp64_gflops, cpu.name.c_str());
    return buf;
}

}  // namespace wb::model
