// split_cases.cpp — chapter 7's cases (split_cases.hpp): per op, the CPU work, the GPU side's
// copies and kernel time (a roofline on the device profile: the tuned kernels reach most of it),
// the three predicted times, and the CPU peers timed for real.
#include "split_cases.hpp"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "hybrid_gemv.hpp"
#include "memory_lab.hpp"
#include "random.hpp"
#include "reference_cg.hpp"
#include "roofline.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

namespace wb::ch07 {

namespace {

constexpr double kLaunchMs = 0.0025;  // model/occupancy.hpp's kLaunchOverheadUs

/// The GPU's roofline time for the whole call (ms): max(bytes / bandwidth, flops / FMA peak).
double gpu_roofline_ms(const DeviceProfile& dev, double bytes, double flops, std::size_t elem) {
    const double peak = elem == 4 ? dev.fp32_peak_gflops() : dev.fp64_peak_gflops();
    return std::max(bytes / (dev.bandwidth_gbs * 1e6), flops / (peak * 1e6));
}

}  // namespace

const std::vector<std::string>& split_ops() {
    static const std::vector<std::string> ops{"gemv", "gemm", "symv", "conv2d", "cg"};
    return ops;
}

std::vector<int> default_sizes(const std::string& op, bool quick) {
    if (op == "gemm") return quick ? std::vector<int>{64, 256, 1024} : std::vector<int>{64, 128, 256, 512, 1024, 2048};
    if (op == "conv2d") return quick ? std::vector<int>{256, 1024} : std::vector<int>{256, 512, 1024, 2048, 4096};
    if (op == "cg") return quick ? std::vector<int>{256, 1024} : std::vector<int>{256, 512, 1024, 2048, 4096};
    return quick ? std::vector<int>{256, 1024, 4096} : std::vector<int>{256, 512, 1024, 2048, 4096, 8192};
}

Links h200_pinned_links() {
    const double inf = std::numeric_limits<double>::infinity();
    return {TransferModel(55.5, {{0, inf, 0, 0.010, 0}}), TransferModel(55.4, {{0, inf, 0, 0.010, 0}}),
            "assumed: chapter 0's pinned rates on the H200 (55.5 / 55.4 GB/s), 10 us set-up"};
}

Links measured_pinned_links() {
    const auto rows = lab::run_transfers(lab::Scale::quick);
    return {lab::fit_transfers(rows, true, true), lab::fit_transfers(rows, true, false),
            "fitted to this GPU's pinned copies (chapter 0's model)"};
}

CasePrediction predict_case(const std::string& op, int n, std::size_t elem, const Machines& m) {
    const double N = n, e = static_cast<double>(elem);
    CasePrediction out;
    out.hybrid_kind = "rows";
    split::Offload o;
    model::CpuWork w;
    if (op == "gemv") {  // y = A x, op N: the GPU's rows of A and of y; x whole
        w = model::cpu_work_gemv(false, n, n, elem, false);
        o.in_split = {N * N * e};
        o.in_whole = {N * e};
        o.out_split = {N * e};
        o.kernel_ms = gpu_roofline_ms(m.gpu, w.bytes, w.flops, elem);
    } else if (op == "gemm") {  // C = A B: the GPU's rows of A and of C; B whole
        w = model::cpu_work_gemm(n, n, n, elem, false);
        o.in_split = {N * N * e};
        o.in_whole = {N * N * e};
        o.out_split = {N * N * e};
        o.kernel_ms = gpu_roofline_ms(m.gpu, w.bytes, w.flops, elem);
    } else if (op == "symv") {  // the GPU's rows of the symmetric A (its band, both triangles' parts)
        w = model::cpu_work_symv(n, elem);
        o.in_split = {N * N * e};
        o.in_whole = {N * e};
        o.out_split = {N * e};
        o.kernel_ms = gpu_roofline_ms(m.gpu, w.bytes, w.flops, elem);
    } else if (op == "conv2d") {  // the GPU's band of image rows, plus the halo and the filter
        w = model::cpu_work_conv2d(n, n, kConvFilter, elem);
        o.in_split = {N * N * e};
        o.in_whole = {kConvFilter * kConvFilter * e, (kConvFilter - 1) * N * e};
        o.out_split = {N * N * e};
        o.kernel_ms = gpu_roofline_ms(m.gpu, w.bytes, w.flops, elem);
    } else if (op == "cg") {
        // Three solves of I iterations. All-CPU; all-GPU (A, b, x0 in once, x out once); White's
        // §5.2 split: the Mv on the GPU (A sent once), p in and q out every iteration, the vector
        // operations on the CPU.
        const double I = m.cg_iterations;
        out.hybrid_kind = "vectors on CPU";
        const model::CpuWork it = model::cpu_work_cg_iteration(n, elem);
        const double cpu = I * model::predict_cpu_ms(m.cpu, it, elem);
        const model::CpuWork mv = model::cpu_work_symv(n, elem);
        const double gpu_mv = gpu_roofline_ms(m.gpu, mv.bytes, mv.flops, elem) + kLaunchMs;
        const double gpu_vec = gpu_roofline_ms(m.gpu, 10 * N * e, 10 * N, elem) + 3 * kLaunchMs;
        const double a_in = m.links.h2d.predict(N * N * e), v_in = m.links.h2d.predict(N * e),
                     v_out = m.links.d2h.predict(N * e);
        const double all_gpu = a_in + 2 * v_in + v_out + I * (gpu_mv + gpu_vec);
        const double cpu_vec = model::predict_cpu_ms(m.cpu, {10 * N * e, 10 * N}, elem);
        const double split52 = a_in + v_in + v_out + I * (v_in + gpu_mv + v_out + cpu_vec);
        out.cpu_model_ms = cpu;
        auto& p = out.split;
        p.cpu_ms = cpu;
        p.gpu_ms = all_gpu;
        p.hybrid_ms = split52;
        p.gpu_share = std::numeric_limits<double>::quiet_NaN();
        p.white = split::white_rule(cpu, 0, all_gpu);
        p.choice = p.white;
        if (split52 <= (1 - split::kMinHybridGain) * std::min(cpu, all_gpu)) p.choice = split::Where::Hybrid;
        return out;
    } else {
        throw std::invalid_argument("ch07: op (" + op + ") must be one of gemv, gemm, symv, conv2d, cg");
    }
    o.launch_ms = kLaunchMs;
    out.cpu_model_ms = model::predict_cpu_ms(m.cpu, w, elem);
    const split::LinearCost cpu{0.0, out.cpu_model_ms};
    const split::LinearCost gpu = split::gpu_side(o, m.links.h2d, m.links.d2h, m.chunks);
    out.split = split::predict(cpu, gpu, split::all_gpu_ms(o, m.links.h2d, m.links.d2h));
    return out;
}

template <class T>
int cpu_cg_iterations(int n, const T* A, const T* b, T* x, int iterations) {
    int done = 0;
    while (done < iterations) {
        std::fill(x, x + n, T(0));
        CgResult res;
        cpu::cg(CgArgs<T>{n, A, n, b, x, 0.0, iterations - done, &res});
        done += std::max(1, res.iterations);  // b == 0 converges at once: counted, so the loop ends
    }
    return done;
}

template int cpu_cg_iterations<float>(int, const float*, const float*, float*, int);
template int cpu_cg_iterations<double>(int, const double*, const double*, double*, int);

namespace {

using Clock = std::chrono::steady_clock;

/// Median of `reps` timed calls of f after one warm-up call (ms); fewer reps for slow calls.
template <class F>
double median_ms(F f) {
    f();
    std::vector<double> t;
    const auto start = Clock::now();
    for (int r = 0; r < 7; ++r) {
        const auto t0 = Clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (r >= 2 && std::chrono::duration<double>(Clock::now() - start).count() > 1.0) break;
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class T>
double measure_typed(const std::string& op, int n, int cg_iterations) {
    const std::size_t un = static_cast<std::size_t>(n), nn = un * un;
    if (op == "gemv" || op == "symv") {
        const auto A = random_vector<T>(nn, 71);
        const auto x = random_vector<T>(un, 72);
        std::vector<T> y(un);
        if (op == "gemv")
            return median_ms([&] { cpu::gemv(GemvArgs<T>{Op::N, n, n, T(1), A.data(), n, x.data(), T(0), y.data()}); });
        const SymvArgs<T> s{Uplo::Lower, n, T(1), A.data(), n, x.data(), 1, T(0), y.data(), 1};
        return median_ms([&] { cpu::symv(s); });
    }
    if (op == "gemm") {
        const auto A = random_vector<T>(nn, 73), B = random_vector<T>(nn, 74);
        std::vector<T> C(nn);
        return median_ms([&] {
            cpu::gemm(GemmArgs<T>{Op::N, Op::N, n, n, n, T(1), A.data(), n, B.data(), n, T(0), C.data(), n});
        });
    }
    if (op == "conv2d") {
        const auto in = random_vector<T>(nn, 75), f = random_vector<T>(kConvFilter * kConvFilter, 76);
        std::vector<T> out(nn);
        return median_ms([&] { cpu::conv2d(Conv2dArgs<T>{n, n, kConvFilter, in.data(), n, f.data(), out.data(), n}); });
    }
    if (op == "cg") {  // cg_iterations iterations, restarted where a small system converges first
        std::vector<T> A(nn);
        ref::spd_matrix(n, 100.0, 77, A.data(), n);
        const auto b = random_vector<T>(un, 78);
        std::vector<T> x(un);
        return median_ms([&] { cpu_cg_iterations(n, A.data(), b.data(), x.data(), cg_iterations); });
    }
    throw std::invalid_argument("ch07: op (" + op + ") must be one of gemv, gemm, symv, conv2d, cg");
}

template <class T>
GpuTimes measure_gpu_typed(int n, double share, int chunks) {
    const std::size_t un = static_cast<std::size_t>(n), nn = un * un;
    PinnedBuffer<T> A(nn), x(un), y(un);
    const auto a0 = random_vector<T>(nn, 81), x0 = random_vector<T>(un, 82);
    std::copy(a0.begin(), a0.end(), A.data());
    std::copy(x0.begin(), x0.end(), x.data());
    const GemvArgs<T> a{Op::N, n, n, T(1), A.data(), n, x.data(), T(0), y.data()};
    GpuTimes t;
    t.gpu_ms = median_ms([&] { hybrid::gemv(a, n, n); });  // one chunk: copy in, kernel, copy out
    const int g = split::gpu_rows(n, share, 1);
    const int chunk = std::max(1, (g + chunks - 1) / chunks);
    t.hybrid_ms = median_ms([&] { hybrid::gemv(a, g, chunk); });
    return t;
}

}  // namespace

double host_bytes_needed(const std::string& op, int n, std::size_t elem, bool gpu) {
    const double N = n, nn = N * N, e = static_cast<double>(elem);
    if (op == "gemv") return e * std::max(nn + 2 * N, gpu ? 2 * nn + 4 * N : 0.0);  // A, x, y; pinned A, x, y + A, x
    if (op == "symv") return e * (nn + 2 * N);
    if (op == "gemm") return e * 3 * nn;
    if (op == "conv2d") return e * (2 * nn + kConvFilter * kConvFilter);
    if (op == "cg") return e * (nn + 5 * N);  // A, b, x and the solver's r, p, q
    throw std::invalid_argument("ch07 host_bytes_needed: op (" + op + ") must be one of gemv, gemm, symv, conv2d, cg");
}

GpuTimes measure_gpu_case(const std::string& op, int n, std::size_t elem, double gpu_share, int chunks) {
    if (op != "gemv") return {};
    return elem == 4 ? measure_gpu_typed<float>(n, gpu_share, chunks) : measure_gpu_typed<double>(n, gpu_share, chunks);
}

double measure_cpu_case(const std::string& op, int n, std::size_t elem, int cg_iterations) {
    return elem == 4 ? measure_typed<float>(op, n, cg_iterations) : measure_typed<double>(op, n, cg_iterations);
}

}  // namespace wb::ch07
