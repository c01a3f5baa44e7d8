// split_rows_probe.cu — where chapter 7's model and rows disagree by a fixed amount: what the rows'
// calls cost at the sizes the calibration does not time.
//
// 1. The all-GPU path at small sizes. Chapter 7 anchors each class's all-GPU call (copies in, the
//    tuned kernel, copies out, through the hybrid's entry point) on one call at n = 8 and adds the
//    model's growth from there; on the H200 the rows of conv2d FS 3 float sat 5 us below that anchor
//    from n = 64 to 512 and GEMM double's 6 us above it from 16 to 128. For each class and
//    n = 8 ... 512 this prints the tuned step's default launch, the kernel alone (CUDA events, the
//    median) and the whole path by wall clock (cpu::time_call, as the rows are timed), then n = 8
//    once more (a drift of the host shows as a change between the two).
// 2. OpenBLAS's SYMV at power-of-two n. Every double SYMV row from n = 2048 ran at half the rate
//    its class reached on the calibration's grid, whose n are multiples of 32 but not powers of two.
//    This times dsymv, ssymv and dgemv at n = 2^k and 2^k + 32, dsymv also with the leading
//    dimension n + 8 and with A 64 bytes off its page, and the host CG (20 iterations) at
//    2048 / 2080 in double, all in turn (cpu::time_interleaved) on page-locked arrays as the rows'.
// 3. The calibration's context against the rows'. The double SYMV class's grid (peer_rates.cpp: its n for
//    working sets a factor 4 apart then, 2 since session 38, with the LLC's bracket) timed in turn
//    twice: every size on one
//    shared array (each call's matrix at the array's start, as the calibration's are) and every size
//    on its own array (as the rows' are), then on the shared array again (a drift shows between the
//    first and the last).
// Discussed in docs/notes/split.md.
//
// Build and run (needs a GPU and OpenBLAS; an argument 1, 2 or 3 runs that part alone):
//   cmake --build build --target split_rows_probe && build/bin/split_rows_probe [part]
#include "bench.hpp"
#include "buffer.hpp"
#include "conv2d.hpp"
#include "cpu_peers.hpp"
#include "device.hpp"
#include "gemm.hpp"
#include "gemv.hpp"
#include "host_timing.hpp"
#include "hybrid_conv2d.hpp"
#include "hybrid_gemm.hpp"
#include "hybrid_gemv.hpp"
#include "hybrid_symv.hpp"
#include "model/cpu.hpp"
#include "peer_rates.hpp"
#include "random.hpp"
#include "reference_cg.hpp"
#include "step.hpp"
#include "symv.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

/// Values in [0.5, 1), never zero (chapter 7's rows' data).
template <class T>
void fill(T* p, std::size_t n, std::size_t salt) {
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(0.5 + static_cast<double>((i * 2654435761u + salt) % 1021) / 2048.0);
}

double event_ms(const std::function<void(cudaStream_t)>& enqueue) {
    wb::BenchOptions o;
    o.warmup = 2;
    o.min_reps = 10;
    o.max_reps = 50;
    o.max_seconds = 0.2;
    return wb::benchmark(enqueue, o).median_ms;
}

double wall_ms(const std::function<void()>& f) {
    wb::cpu::TimingPlan plan;
    plan.min_batches = 7;
    return wb::cpu::time_call(f, plan).ms;
}

/// One class at one n: its default launch, the kernel alone, the all-GPU path.
template <class T>
void path_row(const std::string& op, int fs, int n) {
    const std::size_t un = static_cast<std::size_t>(n), nn = un * un;
    wb::PinnedBuffer<T> hA(nn), hB(nn), hC(nn);
    fill(hA.data(), nn, 1);
    fill(hB.data(), nn, 2);
    wb::DeviceBuffer<T> dA(nn), dB(nn), dC(nn);
    WB_CUDA(cudaMemcpy(dA.data(), hA.data(), nn * sizeof(T), cudaMemcpyHostToDevice));
    WB_CUDA(cudaMemcpy(dB.data(), hB.data(), nn * sizeof(T), cudaMemcpyHostToDevice));
    std::string launch;
    double kern = 0, path = 0;
    if (op == "gemv") {
        const auto& st = wb::step<wb::GemvArgs<T>>(5);
        const wb::GemvArgs<T> d{wb::Op::N, n, n, T(1), dA.data(), n, dB.data(), T(0), dC.data()};
        const auto l = st.default_launch(d);
        launch = l.str();
        kern = event_ms([&](cudaStream_t s) { st.launch(d, l, s); });
        const wb::GemvArgs<T> h{wb::Op::N, n, n, T(1), hA.data(), n, hB.data(), T(0), hC.data()};
        path = wall_ms([&] { wb::hybrid::gemv(h, n, n); });
    } else if (op == "symv") {
        const auto& st = wb::step<wb::SymvArgs<T>>(5);
        const wb::SymvArgs<T> d{wb::Uplo::Lower, n, T(1), dA.data(), n, dB.data(), 1, T(0), dC.data(), 1};
        const auto l = st.default_launch(d);
        launch = l.str();
        kern = event_ms([&](cudaStream_t s) { st.launch(d, l, s); });
        const wb::SymvArgs<T> h{wb::Uplo::Lower, n, T(1), hA.data(), n, hB.data(), 1, T(0), hC.data(), 1};
        path = wall_ms([&] { wb::hybrid::symv(h, n, n); });
    } else if (op == "gemm") {
        const auto& st = wb::step<wb::GemmArgs<T>>(5);
        const wb::GemmArgs<T> d{wb::Op::N, wb::Op::N, n, n, n, T(1), dA.data(), n, dB.data(), n, T(0), dC.data(), n};
        const auto l = st.default_launch(d);
        launch = l.str();
        kern = event_ms([&](cudaStream_t s) { st.launch(d, l, s); });
        const wb::GemmArgs<T> h{wb::Op::N, wb::Op::N, n, n, n, T(1), hA.data(), n, hB.data(), n, T(0), hC.data(), n};
        path = wall_ms([&] { wb::hybrid::gemm(h, n, n); });
    } else {
        std::vector<T> f(static_cast<std::size_t>(fs) * fs);
        fill(f.data(), f.size(), 3);
        wb::DeviceBuffer<T> df(f);
        const auto& st = wb::step<wb::Conv2dArgs<T>>(5);
        const wb::Conv2dArgs<T> d{n, n, fs, dA.data(), n, df.data(), dC.data(), n};
        const auto l = st.default_launch(d);
        launch = l.str();
        kern = event_ms([&](cudaStream_t s) { st.launch(d, l, s); });
        const wb::Conv2dArgs<T> h{n, n, fs, hA.data(), n, f.data(), hC.data(), n};
        path = wall_ms([&] { wb::hybrid::conv2d(h, n, n); });
    }
    std::printf("  %-6s %-6s FS %-2d n %5d  kernel %8.2f us  path %8.2f us  launch %s\n", op.c_str(),
                sizeof(T) == 4 ? "float" : "double", fs, n, kern * 1e3, path * 1e3, launch.c_str());
    std::fflush(stdout);
}

template <class T>
void paths() {
    const struct {
        const char* op;
        int fs, hi;
    } classes[] = {{"gemv", 0, 512}, {"symv", 0, 512}, {"gemm", 0, 256}, {"conv2d", 3, 512}, {"conv2d", 9, 512}};
    for (const auto& c : classes) {
        for (int n = 8; n <= c.hi; n *= 2) path_row<T>(c.op, c.fs, n);
        path_row<T>(c.op, c.fs, 8);
    }
}

/// A column-major n x n matrix with leading dimension ld, `offset` elements past a page-locked
/// allocation's start, and its two vectors.
template <class T>
struct Operands {
    std::unique_ptr<wb::PinnedBuffer<T>> buf;
    T *A = nullptr, *x = nullptr, *y = nullptr;
    Operands(int n, int ld, int offset) {
        const std::size_t count = static_cast<std::size_t>(ld) * n + 2 * static_cast<std::size_t>(n) + offset;
        buf = std::make_unique<wb::PinnedBuffer<T>>(count);
        fill(buf->data(), count, 4);
        A = buf->data() + offset;
        x = A + static_cast<std::size_t>(ld) * n;
        y = x + n;
    }
};

struct Named {
    std::string name;
    std::function<void()> call;
};

template <class T>
void add_symv(std::vector<Named>& v, std::vector<std::shared_ptr<void>>& keep, int n, int ld, int offset) {
    auto o = std::make_shared<Operands<T>>(n, ld, offset);
    keep.push_back(o);
    const wb::SymvArgs<T> s{wb::Uplo::Lower, n, T(1), o->A, ld, o->x, 1, T(0), o->y, 1};
    v.push_back({std::string(sizeof(T) == 4 ? "ssymv" : "dsymv") + " n " + std::to_string(n) + " ld " + std::to_string(ld) +
                     " offset " + std::to_string(offset * sizeof(T)) + " B",
                 [s] { wb::cpu::symv(s); }});
}

template <class T>
void add_gemv(std::vector<Named>& v, std::vector<std::shared_ptr<void>>& keep, int n) {
    auto o = std::make_shared<Operands<T>>(n, n, 0);
    keep.push_back(o);
    const wb::GemvArgs<T> g{wb::Op::N, n, n, T(1), o->A, n, o->x, T(0), o->y};
    v.push_back({std::string(sizeof(T) == 4 ? "sgemv" : "dgemv") + " n " + std::to_string(n), [g] { wb::cpu::gemv(g); }});
}

void add_cg(std::vector<Named>& v, std::vector<std::shared_ptr<void>>& keep, int n) {
    auto A = std::make_shared<wb::PinnedBuffer<double>>(static_cast<std::size_t>(n) * n);
    auto b = std::make_shared<std::vector<double>>(wb::random_vector<double>(static_cast<std::size_t>(n), 78));
    auto x = std::make_shared<std::vector<double>>(static_cast<std::size_t>(n));
    auto res = std::make_shared<wb::CgResult>();
    wb::ref::spd_matrix(n, 100.0, 77, A->data(), n);
    keep.insert(keep.end(), {A, b, x, res});
    const wb::CgArgs<double> a{n, A->data(), n, b->data(), x->data(), 0.0, 20, res.get()};
    v.push_back({"cg double n " + std::to_string(n) + " (20 iterations)", [a, x] {
                     std::fill(x->begin(), x->end(), 0.0);
                     wb::cpu::cg(a);
                 }});
}

void host_calls() {
    std::vector<Named> v;
    std::vector<std::shared_ptr<void>> keep;
    for (int n : {1024, 2048, 4096, 8192}) {
        add_symv<double>(v, keep, n, n, 0);
        add_symv<double>(v, keep, n + 32, n + 32, 0);
    }
    add_symv<double>(v, keep, 2816, 2816, 0);
    for (int n : {2048, 4096}) {
        add_symv<double>(v, keep, n, n + 8, 0);
        add_symv<double>(v, keep, n, n, 8);
    }
    for (int n : {2048, 4096}) {
        add_symv<float>(v, keep, n, n, 0);
        add_symv<float>(v, keep, n + 32, n + 32, 0);
        add_gemv<double>(v, keep, n);
        add_gemv<double>(v, keep, n + 32);
    }
    add_cg(v, keep, 2048);
    add_cg(v, keep, 2080);
    std::vector<std::function<void()>> calls;
    for (const auto& c : v) calls.push_back(c.call);
    wb::cpu::TimingPlan plan;
    plan.min_batches = 7;
    plan.max_s = 0.15;
    wb::cpu::settle_threads();
    const auto t = wb::cpu::time_interleaved(calls, plan);
    std::printf("  %-40s %10s %10s %10s\n", "call", "median ms", "min ms", "max ms");
    for (std::size_t i = 0; i < v.size(); ++i)
        std::printf("  %-40s %10.4f %10.4f %10.4f\n", v[i].name.c_str(), t[i].ms, t[i].stats.min, t[i].stats.max);
}

/// The calls of `ns` on one kind of arrays: one shared array (the calibration's) or one each.
template <class T>
std::vector<std::function<void()>> symv_calls(const std::vector<int>& ns, bool shared,
                                              std::vector<std::shared_ptr<void>>& keep) {
    std::vector<std::function<void()>> calls;
    std::shared_ptr<Operands<T>> one;
    if (shared) {
        one = std::make_shared<Operands<T>>(ns.back(), ns.back(), 0);
        keep.push_back(one);
    }
    for (int n : ns) {
        auto o = shared ? one : std::make_shared<Operands<T>>(n, n, 0);
        if (!shared) keep.push_back(o);
        const wb::SymvArgs<T> a{wb::Uplo::Lower, n, T(1), o->A, n, o->x, 1, T(0), o->y, 1};
        calls.push_back([a] { wb::cpu::symv(a); });
    }
    return calls;
}

template <class T>
void calibration_context() {
    const std::size_t e = sizeof(T);
    const double llc = wb::model::host_llc().bytes, ws_last = wb::model::default_max_working_set(llc);
    const auto ws_of = [e](int n) { return wb::model::cpu_work_symv(n, e).bytes; };
    std::vector<int> ns{200};
    for (double ws : wb::cpu::llc_bracket(wb::cpu::grid_working_sets(ws_of(200), ws_last, 3, 4), llc)) {
        const int n = wb::cpu::aligned_n(std::sqrt(2 * ws / static_cast<double>(e)), 32);
        if (n > ns.back()) ns.push_back(n);
    }
    std::vector<std::shared_ptr<void>> keep;
    const auto shared = symv_calls<T>(ns, true, keep), own = symv_calls<T>(ns, false, keep);
    wb::cpu::TimingPlan plan;  // the calibration's (peer_rates.cpp)
    plan.min_batches = 7;
    plan.batch_s = 0.004;
    plan.max_s = 0.3;
    std::vector<std::vector<wb::cpu::CallTiming>> t;
    for (const auto* calls : {&shared, &own, &shared}) {
        wb::cpu::settle_threads();
        t.push_back(wb::cpu::time_interleaved(*calls, plan));
    }
    std::printf("  %-6s %6s %9s %12s %12s %12s %10s\n", "call", "n", "ws MiB", "shared ms", "own ms", "shared ms",
                "own/shared");
    for (std::size_t i = 0; i < ns.size(); ++i)
        std::printf("  %-6s %6d %9.2f %12.4f %12.4f %12.4f %10.3f\n", e == 4 ? "ssymv" : "dsymv", ns[i],
                    ws_of(ns[i]) / 1048576.0, t[0][i].ms, t[1][i].ms, t[2][i].ms,
                    t[1][i].ms / std::sqrt(t[0][i].ms * t[2][i].ms));
}

}  // namespace

int main(int argc, char** argv) {
    if (!wb::cpu::have_cblas() || !wb::has_cuda_device()) {
        std::printf("needs CBLAS and a CUDA device: nothing to time\n");
        return 0;
    }
    const int part = argc > 1 ? std::atoi(argv[1]) : 0;
    if (part == 0 || part == 1) {
        std::printf("1. the all-GPU path at small sizes (us): the tuned kernel alone (events), the whole call (wall)\n");
        paths<float>();
        paths<double>();
    }
    if (part == 0 || part == 2) {
        std::printf("2. OpenBLAS at power-of-two n and beside it, in turn (page-locked arrays)\n");
        host_calls();
    }
    if (part == 0 || part == 3) {
        std::printf("3. the double SYMV class's grid in turn: on one shared array, on one array each, on the shared one again\n");
        calibration_context<double>();  // the class whose rows ran at half its calibrated rate
    }
    return 0;
}
