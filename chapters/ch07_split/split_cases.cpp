// split_cases.cpp — chapter 7's cases (split_cases.hpp): per op, each side's time as a function of
// the GPU's share (the CPU's from its peer class, the GPU's from its copies and its kernel class),
// the three predicted times, and the three ways run on the same host data.
#include "split_cases.hpp"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "host_timing.hpp"
#include "hybrid_cg.hpp"
#include "hybrid_conv2d.hpp"
#include "hybrid_gemm.hpp"
#include "hybrid_gemv.hpp"
#include "hybrid_symv.hpp"
#include "memory_lab.hpp"
#include "random.hpp"
#include "reference_cg.hpp"
#include "roofline.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wb::ch07 {

namespace {

[[noreturn]] void unknown_op(const char* fn, const std::string& op) {
    throw std::invalid_argument(std::string(fn) + ": op (" + op + ") must be one of gemv, gemm, symv, conv2d, cg");
}

/// Powers of two from lo to hi; every other one when `sparse`.
std::vector<int> powers(int lo, int hi, bool sparse) {
    std::vector<int> v;
    for (int n = lo, i = 0; n <= hi; n *= 2, ++i)
        if (!sparse || i % 2 == 0 || n == hi) v.push_back(n);
    return v;
}

double peer_ms(const Machines& m, const char* cls, const model::CpuWork& w, std::size_t e, int fs = 0) {
    return model::predict_peer_ms(m.cpu, model::peer_key(cls, e, fs), w, e);
}

/// The rows (columns) the CPU keeps when the GPU takes the share f of n.
long long cpu_part(double f, int n) { return std::llround((1 - f) * n); }

/// Sets o's kernel time (proportional to the share: the roofline over the class's efficiency) and
/// its fixed part (`launches` x the class's t0).
void set_kernel(split::Offload& o, const Machines& m, const char* cls, double bytes, double flops, std::size_t e,
                int fs = 0, int launches = 1) {
    const GpuRate r = m.gpu_rates.get(model::peer_key(cls, e, fs));
    o.kernel_ms = gpu_roofline_ms(m.gpu, bytes, flops, e) / r.eff;
    o.launch_ms = launches * r.fixed_ms;
}

/// CG's three solves of I iterations (White §5.2): all on the CPU, all on the GPU (A, b and x0 in
/// once, x out once), and the split (A once; every product p in, the tuned SYMV, q out; the
/// vector operations on the CPU). The initial residual is one product more.
CasePrediction predict_cg(const Case& c, const Machines& m) {
    const double I = m.cg_iterations, N = c.n, e = static_cast<double>(c.elem);
    CasePrediction out;
    out.hybrid_kind = "vectors on CPU";
    const double cpu_mv = peer_ms(m, "symv", model::cpu_work_symv(c.n, c.elem), c.elem);
    const double cpu_vec = peer_ms(m, "cg vectors", model::cpu_work_cg_vectors(c.n, c.elem), c.elem);
    const double cpu = (I + 1) * cpu_mv + I * cpu_vec;
    const model::CpuWork it = model::cpu_work_cg_iteration(c.n, c.elem), mv = model::cpu_work_symv(c.n, c.elem);
    const GpuRate cg = m.gpu_rates.get(model::peer_key("cg", c.elem), kCgIterationLaunches);
    const double gpu_it = cg.fixed_ms + gpu_roofline_ms(m.gpu, it.bytes, it.flops, c.elem) / cg.eff;
    const double gpu_mv = gpu_kernel_ms(m.gpu_rates, model::peer_key("symv", c.elem), m.gpu, mv.bytes, mv.flops, c.elem);
    const double a_in = m.links.h2d.predict(N * N * e), v_in = m.links.h2d.predict(N * e),
                 v_out = m.links.d2h.predict(N * e);
    const double all_gpu = a_in + 2 * v_in + v_out + I * gpu_it;
    const double split52 = a_in + (I + 1) * (v_in + gpu_mv + v_out) + I * cpu_vec;
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
}

}  // namespace

const std::vector<std::string>& split_ops() {
    static const std::vector<std::string> ops{"gemv", "gemm", "symv", "conv2d", "cg"};
    return ops;
}

std::vector<int> default_sizes(const std::string& op, SizeSet set) {
    const bool sparse = set == SizeSet::normal;
    if (op == "gemv" || op == "symv") return set == SizeSet::quick ? std::vector<int>{256, 4096} : powers(64, 16384, sparse);
    if (op == "gemm") return set == SizeSet::quick ? std::vector<int>{64, 1024} : powers(16, 4096, sparse);
    if (op == "conv2d") return set == SizeSet::quick ? std::vector<int>{256, 2048} : powers(64, 8192, sparse);
    if (op == "cg") return set == SizeSet::quick ? std::vector<int>{256, 2048} : powers(256, 16384, sparse);
    unknown_op("ch07 default_sizes", op);
}

std::vector<int> default_filter_sizes() { return {3, 9}; }

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

CasePrediction predict_case(const Case& c, const Machines& m) {
    if (c.op == "cg") return predict_cg(c, m);
    const double N = c.n, e = static_cast<double>(c.elem);
    const int n = c.n;
    const std::size_t el = c.elem;
    CasePrediction out;
    out.hybrid_kind = "rows";
    split::Offload o;   // the hybrid's GPU side
    split::SideTime cpu;
    if (c.op == "gemv") {  // y = A x, op N: the GPU's rows of A and of y; x whole
        o.in_split = {N * N * e};
        o.in_whole = {N * e};
        o.out_split = {N * e};
        set_kernel(o, m, "gemv", roofline::gemv_bytes(false, n, n, el, false), roofline::gemv_flops(n, n), el);
        cpu = [&m, n, el](double f) {
            const long long r = cpu_part(f, n);
            return r == 0 ? 0.0 : peer_ms(m, "gemv", model::cpu_work_gemv(false, r, n, el, false), el);
        };
    } else if (c.op == "gemm") {  // C = A B: the GPU's columns of B and of C; A whole
        out.hybrid_kind = "columns";
        o.in_split = {N * N * e};
        o.in_whole = {N * N * e};
        o.out_split = {N * N * e};
        const model::CpuWork w = model::cpu_work_gemm(n, n, n, el, false);
        set_kernel(o, m, "gemm", w.bytes, w.flops, el);
        cpu = [&m, n, el](double f) {
            const long long r = cpu_part(f, n);
            return r == 0 ? 0.0 : peer_ms(m, "gemm", model::cpu_work_gemm(n, r, n, el, false), el);
        };
    } else if (c.op == "symv") {  // the GPU's rows: n g elements of the stored triangle, as a GEMV of the band
        o.in_split = {N * N * e};
        o.in_whole = {N * e};
        o.out_split = {N * e};
        set_kernel(o, m, "gemv", roofline::gemv_bytes(false, n, n, el, false), roofline::gemv_flops(n, n), el, 0, 3);
        cpu = [&m, n, el](double f) {  // rows [g, n): a SYMV of their diagonal block and a GEMV of the rest
            const long long r = cpu_part(f, n), g = n - r;
            if (r == 0) return 0.0;
            return peer_ms(m, "symv", model::cpu_work_symv(r, el), el) +
                   (g > 0 ? peer_ms(m, "gemv", model::cpu_work_gemv(false, r, g, el, false), el) : 0.0);
        };
    } else if (c.op == "conv2d") {  // the GPU's band of image rows, each chunk with its halo; the filter
        o.in_split = {(N + m.chunks * (c.fs - 1)) * N * e};  // the halos travel in the bands' copies
        o.in_whole = {c.fs * c.fs * e};
        o.out_split = {N * N * e};
        set_kernel(o, m, "conv2d", roofline::conv_bytes(n, n, c.fs, el), roofline::conv_flops(n, n, c.fs), el, c.fs);
        const int fs = c.fs;
        cpu = [&m, n, el, fs](double f) {
            const long long r = cpu_part(f, n);
            return r == 0 ? 0.0 : peer_ms(m, "conv2d", model::cpu_work_conv2d(r, n, fs, el), el, fs);
        };
    } else {
        unknown_op("ch07 predict_case", c.op);
    }
    // The all-GPU call: one chunk, every copy in sequence with the kernel; SYMV runs one SYMV on the
    // whole array (copied whole), the convolution needs no halo.
    split::Offload all = o;
    if (c.op == "symv") {
        const model::CpuWork w = model::cpu_work_symv(n, el);
        set_kernel(all, m, "symv", w.bytes, w.flops, el);
    }
    if (c.op == "conv2d") all.in_split = {N * N * e};
    split::LinearCost g = split::gpu_side(o, m.links.h2d, m.links.d2h, m.chunks);
    g.fixed_ms += m.hybrid_overhead_ms;  // the hand-off to the GPU worker and back
    out.split = split::predict(cpu, [g](double f) { return g.fixed_ms + f * g.per_ms; },
                               split::all_gpu_ms(all, m.links.h2d, m.links.d2h));
    out.cpu_model_ms = out.split.cpu_ms;
    out.gpu_part = split::gpu_rows(n, out.split.gpu_share, 1);
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

double host_bytes_needed(const Case& c) {
    const double N = c.n, nn = N * N, e = static_cast<double>(c.elem);
    if (c.op == "gemv" || c.op == "symv") return e * (nn + 2 * N);
    if (c.op == "gemm") return e * 3 * nn;
    if (c.op == "conv2d") return e * (2 * nn + c.fs * c.fs);
    if (c.op == "cg") return e * (nn + 8 * N);  // A, b, x; the solver's r, p, q (and the split's pinned copies)
    unknown_op("ch07 host_bytes_needed", c.op);
}

namespace {

/// Host data for a case: page-locked where the GPU will copy it (its copies then overlap), else
/// ordinary memory (a machine without a GPU runs the CPU peer only).
template <class T>
class HostArray {
public:
    HostArray(std::size_t n, bool pinned) {
        if (pinned) pin_ = PinnedBuffer<T>(n);
        else vec_.resize(n);
        p_ = pinned ? pin_.data() : vec_.data();
    }
    T* data() { return p_; }

private:
    PinnedBuffer<T> pin_;
    std::vector<T> vec_;
    T* p_ = nullptr;
};

/// Timing data: values in [0.5, 1), varied in their low bits, never zero (no denormal or NaN can
/// slow a unit down; the gpu tests check results on random data).
template <class T>
void fill(T* p, std::size_t n, std::size_t salt) {
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(0.5 + static_cast<double>((i * 2654435761u + salt) % 1021) / 2048.0);
}

/// One call's median time: batches of about 5 ms, at most a second once three are done.
template <class F>
double timed(F&& f) {
    return cpu::median_call_ms(f, 7, 0.005, 1.0);
}

/// Rows per chunk for the hybrid's GPU share g in `chunks` chunks.
int chunk_of(int g, int chunks) { return std::max(1, (g + chunks - 1) / chunks); }

template <class T>
Measured measure_typed(const Case& c, int g, int chunks, bool gpu, int cg_iterations) {
    const int n = c.n;
    const std::size_t un = static_cast<std::size_t>(n), nn = un * un;
    const bool hybrid = gpu && g > 0 && g < n;
    Measured r;
    // The idle threads of the previous row's calls (another peer family, perhaps) stop spinning
    // first; the three ways of one row then use the same peer.
    cpu::settle_threads();
    // The three ways on the same data: the CPU peer, the whole call on the GPU (one chunk), the split.
    auto three = [&](auto cpu_call, auto hybrid_call) {
        r.cpu_ms = timed(cpu_call);
        if (gpu) r.gpu_ms = timed([&] { hybrid_call(n, n); });
        if (hybrid) r.hybrid_ms = timed([&] { hybrid_call(g, chunk_of(g, chunks)); });
    };
    if (c.op == "gemv" || c.op == "symv") {
        HostArray<T> A(nn, gpu), x(un, gpu), y(un, gpu);
        fill(A.data(), nn, 1);
        fill(x.data(), un, 2);
        if (c.op == "gemv") {
            const GemvArgs<T> a{Op::N, n, n, T(1), A.data(), n, x.data(), T(0), y.data()};
            three([&] { cpu::gemv(a); }, [&](int rows, int chunk) { hybrid::gemv(a, rows, chunk); });
        } else {
            const SymvArgs<T> a{Uplo::Lower, n, T(1), A.data(), n, x.data(), 1, T(0), y.data(), 1};
            three([&] { cpu::symv(a); }, [&](int rows, int chunk) { hybrid::symv(a, rows, chunk); });
        }
    } else if (c.op == "gemm") {
        HostArray<T> A(nn, gpu), B(nn, gpu), C(nn, gpu);
        fill(A.data(), nn, 3);
        fill(B.data(), nn, 4);
        const GemmArgs<T> a{Op::N, Op::N, n, n, n, T(1), A.data(), n, B.data(), n, T(0), C.data(), n};
        three([&] { cpu::gemm(a); }, [&](int cols, int chunk) { hybrid::gemm(a, cols, chunk); });
    } else if (c.op == "conv2d") {
        HostArray<T> in(nn, gpu), out(nn, gpu);
        std::vector<T> f(static_cast<std::size_t>(c.fs) * c.fs);
        fill(in.data(), nn, 5);
        fill(f.data(), f.size(), 6);
        const Conv2dArgs<T> a{n, n, c.fs, in.data(), n, f.data(), out.data(), n};
        three([&] { cpu::conv2d(a); }, [&](int rows, int chunk) { hybrid::conv2d(a, rows, chunk); });
    } else if (c.op == "cg") {  // cg_iterations per solve; a solve that stops early is scaled to them
        HostArray<T> A(nn, gpu), x(un, gpu);
        ref::spd_matrix(n, 100.0, 77, A.data(), n);
        const auto b = random_vector<T>(un, 78);
        r.cpu_ms = timed([&] { cpu_cg_iterations(n, A.data(), b.data(), x.data(), cg_iterations); });
        if (gpu) {
            auto solve_ms = [&](auto solver) {
                CgResult res;
                const CgArgs<T> a{n, A.data(), n, b.data(), x.data(), 0.0, cg_iterations, &res};
                const double ms = timed([&] {
                    std::fill(x.data(), x.data() + un, T(0));
                    solver(a);
                });
                return ms * cg_iterations / std::max(1, res.iterations);
            };
            r.gpu_ms = solve_ms([](const CgArgs<T>& a) { hybrid::cg_gpu(a); });
            r.hybrid_ms = solve_ms([](const CgArgs<T>& a) { hybrid::cg_split(a); });
        }
    } else {
        unknown_op("ch07 measure_case", c.op);
    }
    return r;
}

}  // namespace

Measured measure_case(const Case& c, int gpu_part, int chunks, bool gpu, int cg_iterations) {
    return c.elem == 4 ? measure_typed<float>(c, gpu_part, chunks, gpu, cg_iterations)
                       : measure_typed<double>(c, gpu_part, chunks, gpu, cg_iterations);
}

}  // namespace wb::ch07
