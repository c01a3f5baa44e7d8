/// \file tuned/gemm_kernel_rates.cpp
/// \brief The tuned GEMM configurations' measured main-loop rates (gemm_kernel_rates.hpp).
#include "tuned/gemm_kernel_rates.hpp"

#include "bench.hpp"
#include "buffer.hpp"
#include "check.hpp"
#include "gemm.hpp"
#include "gemm_epilogue_source.hpp"
#include "launch_checks.hpp"
#include "tuned/dgemm_tc_rule.hpp"
#include "tuned/dgemm_tensor_core.hpp"
#include "tuned/gemm_default_rule.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace wb::tuned {
namespace {

/// The median of three timed calls of `a` with launch `l` after one untimed (the bench harness;
/// by default no L2 flush: the rates' products are compute-bound, and all three calls of a ratio
/// run alike; the epilogue's, which streams C from DRAM, flushes it).
template <class T>
double median_ms(const GemmArgs<T>& a, const GemmLaunch& l, bool flush_l2 = false) {
    BenchOptions o;
    o.warmup = 1;
    o.min_reps = o.max_reps = 3;
    o.flush_l2 = flush_l2;
    return benchmark([&](cudaStream_t s) { tuned::gemm<T>(a, l, s); }, o).median_ms;
}

/// C = A B + beta C, m x n x k, op(A) = A, op(B) = B, tight leading dimensions (the rates' calls).
template <class T>
GemmArgs<T> tight_call(long long m, long long n, long long k, T beta, T* A, T* B, T* C) {
    GemmArgs<T> a;
    a.m = static_cast<int>(m);
    a.n = static_cast<int>(n);
    a.k = static_cast<int>(k);
    a.alpha = T(1);
    a.beta = beta;
    a.A = A;
    a.lda = a.m;
    a.B = B;
    a.ldb = a.k;
    a.C = C;
    a.ldc = a.m;
    return a;
}

/// `a` with op(A) = A^T (A stored k x m, tight).
template <class T>
GemmArgs<T> with_a_transposed(GemmArgs<T> a) {
    a.op_a = Op::T;
    a.lda = a.k;
    return a;
}

/// Bytes per second (GB/s) the launch `l` alone moves on C = alpha A B + beta C with k one of its
/// k-tiles (beta = 0.5: C read and written, as the chapters' calls), m x n of whole tiles, the L2
/// flushed before each call: the epilogue is nearly the whole kernel.
template <class T>
double epilogue_gbs(const GemmLaunch& l, int m, int n, T* A, T* B, T* C) {
    const GemmArgs<T> a = tight_call<T>(m, n, std::max(1, l.tile_k), T(0.5), A, B, C);
    const double ms = median_ms(a, l, true);
    const double bytes = sizeof(T) * (2.0 * m * n + static_cast<double>(m) * a.k + static_cast<double>(a.k) * n);
    return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

// k = 33 x 32: whole k-tiles of every configuration, and leading dimensions that are no power of
// two (k x 4 bytes = 33 lines of 128 bytes): columns a power of two apart share cache sets, which
// would time the sets, not the kernels.
constexpr long long kRateK = 1056;

/// Rounds of the whole set of timings (measure_gemm_kernel_rates): each figure is the median of them.
constexpr int kRateRounds = 3;

/// The ratios' calls: side x side tiles, about four waves of one-block-per-SM tiles (more for
/// the configurations that keep several blocks per SM; the three calls of a launch have the same
/// shape, so whatever the tail costs, it costs all three alike).
GemmTimedCall ratio_shape(const GemmLaunch& c, int sm_count) {
    const long long side = static_cast<long long>(std::ceil(std::sqrt(4.0 * std::max(1, sm_count))));
    return {side * c.tile_m, side * c.tile_n, kRateK, 0};
}

}  // namespace

// The one-row call: 3 x SMs blocks, each k = 1056 as in the other calls. Where C is a tile or two
// tall (64 x 8192 x 8192, 128 x 8192 x 8192) the 64 x 128 kernel reads A^T 5-8% slower than A
// (H200), while on the ratio call, where each block row reads its own rows, it ran as fast (\ref
// notes_gemm).
GemmTimedCall gemm_one_row_shape(const GemmLaunch& c, int sm_count) {
    return {c.tile_m, static_cast<long long>(std::max(1, sm_count)) * c.tile_n, kGemmOneRowSplit * kRateK, 0};
}

GemmTimedCall gemm_rate_shape(const GemmLaunch& c, int sm_count) {
    // Six tiles per SM in whole rounds whether 1, 2, 3 or 6 blocks of the kernel are resident: a
    // time per FMA without a partial round in it (the ratios' four waves are one block past four
    // rounds of 132 on an H200).
    return {static_cast<long long>(std::max(1, sm_count)) * c.tile_m, 6LL * c.tile_n, kRateK, 0};
}

template <class T>
std::vector<GemmLaunch> gemm_rate_launches() {
    std::vector<GemmLaunch> v = gemm_configs<T>();
    if constexpr (std::is_same_v<T, double>)
        for (int i = 0; i < kDgemmTcTileCount; ++i) {
            GemmLaunch g = dgemm_tc_launch(i, 0);
            g.tile_m = kDgemmTcTiles[i].tile_m;  // named in full, also for the 64 x 64 tile
            g.tile_n = kDgemmTcTiles[i].tile_n;
            g.tile_k = kDgemmTcTiles[i].tile_k;
            v.push_back(g);
        }
    return v;
}

template <class T>
std::vector<GemmKernelRates> measure_gemm_kernel_rates() {
    // Whatever the caller has in flight finishes first: the timings below are the kernels' alone
    // (the first default launch may come from a worker thread whose copies are still running).
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<GemmLaunch> configs = gemm_rate_launches<T>();
    int device = 0;
    WB_CUDA(cudaGetDevice(&device));
    const bool tensor_cores = std::is_same_v<T, double> && dgemm_tensor_core_supported(device);
    const int sms = launch_checks::sm_count();
    std::size_t most_a = 0, most_b = 0;  // elements of the largest A and B, leading dimensions one longer
    std::size_t most_c = 0;              // and of the largest C
    for (const GemmLaunch& c : configs)
        for (const GemmTimedCall& s : {ratio_shape(c, sms), gemm_rate_shape(c, sms), gemm_one_row_shape(c, sms)}) {
            most_a = std::max(most_a, static_cast<std::size_t>((s.m + 1) * (s.k + 1)));
            most_b = std::max(most_b, static_cast<std::size_t>((s.n + 1) * (s.k + 1)));
            most_c = std::max(most_c, static_cast<std::size_t>(s.m * s.n));
        }
    DeviceBuffer<T> A(most_a), B(most_b), C(most_c);
    A.fill_bytes(0);
    B.fill_bytes(0);
    // The epilogue's call: C of four times the L2 (so that it streams from DRAM, as a large C
    // does), 8192 rows, whole tiles of every launch; A and B one k-tile deep (32: every tile_k).
    int l2 = 0;
    WB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    const int ep_m = 8192;
    const int ep_n = static_cast<int>(std::max<long long>(
        256, (4LL * std::max(l2, 1 << 20) / (static_cast<long long>(ep_m) * sizeof(T)) + 255) / 256 * 256));
    DeviceBuffer<T> EA(static_cast<std::size_t>(ep_m) * 32), EB(static_cast<std::size_t>(ep_n) * 32),
        EC(static_cast<std::size_t>(ep_m) * ep_n);
    EA.fill_bytes(0);
    EB.fill_bytes(0);
    EC.fill_bytes(0);
    // One round: every launch's ten timings, launch after launch.
    auto round = [&] {
        std::vector<GemmKernelRates> out;
        for (const GemmLaunch& c : configs) {
            if (c.math == 2 && !tensor_cores) {  // no such kernel here: nothing to weigh
                out.push_back({1, 1});
                continue;
            }
            auto call = [&](const GemmTimedCall& s) { return tight_call<T>(s.m, s.n, s.k, T(0), A.data(), B.data(), C.data()); };
            const GemmArgs<T> a = call(ratio_shape(c, sms));
            const GemmLaunch l = c;  // the configuration alone: read in place, no split, no copies
            const double nn = median_ms(a, l);
            const GemmArgs<T> tn = with_a_transposed(a);
            // op(A) = A^T over op(A) = A on the ratio call and on the one-row call (every block
            // reading the same rows of A): the rule reads A^T in place at the slower of the two.
            const GemmArgs<T> row = call(gemm_one_row_shape(c, sms));
            GemmLaunch split = l;
            split.split_k = kGemmOneRowSplit;
            const double row_ratio = median_ms(row, split) / median_ms(with_a_transposed(row), split);
            const double t = median_ms(tn, l);
            GemmArgs<T> el = a;  // odd leading dimensions: columns off 16-byte boundaries, as most unaligned calls
            el.lda = a.m + 1;
            el.ldb = a.k + 1;
            const double e = median_ms(el, l);
            const double main = median_ms(call(gemm_rate_shape(c, sms)), l);  // the main loop's own call: whole rounds
            GemmArgs<T> nt = a;  // B stored n x k: copied straight into place
            nt.op_b = Op::T;
            nt.ldb = a.n;
            GemmArgs<T> tt = tn;  // op(A) = A^T as in tn
            tt.op_b = Op::T;
            tt.ldb = a.n;
            const double t_nt = median_ms(nt, l), t_tt = median_ms(tt, l);
            // Each op pair with odd leading dimensions (element copies), measured, not multiplied.
            GemmArgs<T> tn_el = tn, nt_el = nt, tt_el = tt;
            tn_el.lda = tt_el.lda = a.k + 1;
            tn_el.ldb = a.k + 1;
            nt_el.lda = a.m + 1;
            nt_el.ldb = tt_el.ldb = a.n + 1;
            const double t_tn_el = median_ms(tn_el, l), t_nt_el = median_ms(nt_el, l), t_tt_el = median_ms(tt_el, l);
            out.push_back({std::min(nn / t, row_ratio), nn / e, epilogue_gbs(c, ep_m, ep_n, EA.data(), EB.data(), EC.data()), main, nn / t_nt,
                           nn / t_tt, nn / t_tn_el, nn / t_nt_el, nn / t_tt_el});
        }
        return out;
    };
    // Three rounds across the launches, each figure the median of its rounds: a launch's timings
    // take tens of milliseconds together, and a drift of the clock while one launch is timed
    // (the first calls after an idle or a power-heavy stretch) would otherwise land in its figures
    // alone, and move the derivation's picks and the model with them (the GEMM notes).
    std::vector<std::vector<GemmKernelRates>> rounds;
    for (int r = 0; r < kRateRounds; ++r) rounds.push_back(round());
    static_assert(sizeof(GemmKernelRates) == 9 * sizeof(double), "every field of GemmKernelRates is a median below");
    std::vector<GemmKernelRates> out(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) {
        auto median = [&](double GemmKernelRates::*f) {
            std::vector<double> v;
            for (const auto& r : rounds) v.push_back(r[i].*f);
            std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
            return v[v.size() / 2];
        };
        for (double GemmKernelRates::*f :
             {&GemmKernelRates::transposed_a, &GemmKernelRates::element, &GemmKernelRates::epilogue_gbs,
              &GemmKernelRates::main_ms, &GemmKernelRates::op_nt, &GemmKernelRates::op_tt,
              &GemmKernelRates::tn_element, &GemmKernelRates::nt_element, &GemmKernelRates::tt_element})
            out[i].*f = median(f);
    }
    return out;
}

std::string gemm_kernel_rates_line(const GemmKernelRates& r) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "main loop %.4f ms, TN %.3f, NT %.3f, TT %.3f, element copies %.3f", r.main_ms,
                  r.transposed_a, r.op_nt, r.op_tt, r.element);
    return buf;
}

/// WB_GEMM_RATES=preset: the rule reads the H200's table instead of timing the rates. Racecheck's
/// run of the tests sets it (tests/support/sanitize.sh, scripts/gpu-carried.sh): racecheck
/// instruments every shared-memory access, and the rates time every configuration on about four
/// waves of blocks, so on an H200 one process's first default GEMM call was still measuring after
/// 545 s. The timed kernels are the ladder's, which racecheck checks on small shapes; the rates'
/// own code runs under the other sanitizers.
bool gemm_rates_preset_asked() {
    const char* v = std::getenv("WB_GEMM_RATES");
    return v != nullptr && std::string(v) == "preset";
}

template <class T>
const std::vector<GemmKernelRates>& gemm_kernel_rates(bool live) {
    static const std::vector<GemmKernelRates> preset = gemm_kernel_rates_h200<T>();
    if (!live || gemm_rates_preset_asked()) return preset;
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return preset;
    }
    static std::mutex mu;
    static std::map<int, std::vector<GemmKernelRates>> measured;
    std::lock_guard<std::mutex> lock(mu);
    auto it = measured.find(device);
    if (it == measured.end()) {
        it = measured.emplace(device, measure_gemm_kernel_rates<T>()).first;
        // A diagnostic: which rates this process measured (chapter 5's and chapter 6's processes
        // have picked differently from the same rule, the GEMM notes), in the report's words.
        if (std::getenv("WB_GEMM_RATES_LOG") != nullptr) {
            const std::vector<GemmLaunch>& ls = gemm_rate_launches<T>();
            for (std::size_t i = 0; i < it->second.size() && i < ls.size(); ++i)
                std::fprintf(stderr, "gemm kernel rates (%s, this process): %s: %s\n",
                             sizeof(T) == 4 ? "float" : "double", ls[i].str().c_str(),
                             gemm_kernel_rates_line(it->second[i]).c_str());
        }
    }
    return it->second;
}

namespace {

/// gemm_rate_launches<T>(), built once (the model asks per predicted launch).
template <class T>
const std::vector<GemmLaunch>& rate_launches() {
    static const std::vector<GemmLaunch> v = gemm_rate_launches<T>();
    return v;
}

/// The index in gemm_rate_launches<T>() of the launch that `l` runs (the configuration its fields
/// name, gemm_launch_matches, or its tensor-core tile; split or not); -1 for a launch that names
/// no configuration.
template <class T>
int rate_index(const GemmLaunch& l) {
    if (l.math != 2 && l.tile_m == 0) return -1;
    const std::vector<GemmLaunch>& launches = rate_launches<T>();
    const int tc = l.math == 2 ? (l.tile_m > 0 ? dgemm_tc_tile_index(l.tile_m, l.tile_n) : 0) : -1;
    GemmLaunch whole = l;
    whole.split_k = 0;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        const GemmLaunch& c = launches[i];
        const bool same = l.math == 2 ? c.math == 2 && dgemm_tc_tile_index(c.tile_m, c.tile_n) == tc
                                      : c.math != 2 && gemm_launch_matches(whole, c);
        if (same) return static_cast<int>(i);
    }
    return -1;
}

/// The epilogue bandwidth of the launch `l` runs; 0 for a split launch (its epilogue writes
/// partials) or a launch that names no configuration.
template <class T>
double epilogue_of(const GemmLaunch& l, bool live) {
    const int i = l.split_k > 1 ? -1 : rate_index<T>(l);
    const std::vector<GemmKernelRates>& rates = gemm_kernel_rates<T>(live);
    return i >= 0 && i < static_cast<int>(rates.size()) ? rates[i].epilogue_gbs : 0;
}

double epilogue_source(const GemmLaunch& l, int elem_bytes, bool live) {
    return elem_bytes == 8 ? epilogue_of<double>(l, live) : epilogue_of<float>(l, live);
}

constexpr int kH200Sms = 132;  // the device of gemm_kernel_rates_h200's table

/// The main loop's timed call of the launch `l` runs (its configuration, unsplit), on this device
/// where `live`, else the H200's (132 SMs).
template <class T>
GemmTimedCall main_loop_of(const GemmLaunch& l, bool live) {
    const int i = rate_index<T>(l);
    const std::vector<GemmKernelRates>& rates = gemm_kernel_rates<T>(live);
    if (i < 0 || i >= static_cast<int>(rates.size()) || !(rates[i].main_ms > 0)) return {};
    GemmTimedCall s = gemm_rate_shape(rate_launches<T>()[i], live ? launch_checks::sm_count() : kH200Sms);
    s.ms = rates[i].main_ms;
    s.transposed_a = rates[i].transposed_a;
    s.op_nt = rates[i].op_nt;
    s.op_tt = rates[i].op_tt;
    return s;
}

GemmTimedCall main_loop_source(const GemmLaunch& l, int elem_bytes, bool live) {
    return elem_bytes == 8 ? main_loop_of<double>(l, live) : main_loop_of<float>(l, live);
}

// Where this library is linked, the model reads its kernels' epilogues and main loops from here.
const bool g_epilogue_source_set = (set_gemm_epilogue_source(&epilogue_source), true);
const bool g_main_loop_source_set = (set_gemm_main_loop_source(&main_loop_source), true);

}  // namespace

template const std::vector<GemmKernelRates>& gemm_kernel_rates<float>(bool);
template const std::vector<GemmKernelRates>& gemm_kernel_rates<double>(bool);
template std::vector<GemmKernelRates> measure_gemm_kernel_rates<float>();
template std::vector<GemmKernelRates> measure_gemm_kernel_rates<double>();
template std::vector<GemmLaunch> gemm_rate_launches<float>();
template std::vector<GemmLaunch> gemm_rate_launches<double>();

}  // namespace wb::tuned
