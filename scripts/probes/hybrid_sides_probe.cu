// hybrid_sides_probe.cu — where does a hybrid lose what its model predicted: on the CPU's side, on
// the GPU's, or at the hand-over?
//
// Chapter 7's largest hybrids ran 20-37% slower than their model (GEMV and SYMV at n = 16384, the
// FS 9 convolution at 4096 and 8192: docs/notes/split.md), and the model times each side alone.
// Also the GEMM (its share in columns) and the smaller hybrids a run chose and lost.
// This probe runs one hybrid call at a given GPU share, with its sides at once (as the chapter
// runs it) and in turn (the GPU side to its end, then the CPU side: hybrid::testing::
// run_sides_in_turn), alternately, and prints the median of each side's time
// (hybrid::last_side_times) both ways: the ratio at once / in turn is what running beside the
// other side costs each. It also times the all-CPU and the all-GPU call of the same size in the
// same rounds. Data on page-locked host memory, as the chapter's rows; the GPU side issued by the
// GPU worker in these modes (each side's end seen on its own), by the calling thread in --on-caller's B.
//
// Build and run (needs a GPU and OpenBLAS):
//   cmake --build build --target hybrid_sides_probe && build/bin/hybrid_sides_probe
//   build/bin/hybrid_sides_probe conv2d,float,9,4096,92.1 symv,double,0,16384,25.2   (op,type,FS,n,GPU %)
//   build/bin/hybrid_sides_probe gemm,double,0,2048,96.0,8   (a sixth field: the pipeline's depth K, default 4)
//   build/bin/hybrid_sides_probe --fewer-threads ...   (A/B in the same rounds: the CPU side on every
//   thread, then on one fewer, a core left to the thread that waits for the GPU; the median of the
//   rounds' call ratios)
//   build/bin/hybrid_sides_probe --on-caller ...   (A/B in the same rounds, each hybrid after the all-CPU
//   call as in the chapter's rows: the GPU side issued by the GPU worker, then by the calling thread
//   before its CPU side (hybrid::testing::force_issuer); per way the call's median and 90th
//   percentile, each side's median, when the worker began and when the last chunk was issued)
//   build/bin/hybrid_sides_probe --chunks=1,2,4,8 ...   (the same share in K chunks, each K in turn in
//   every round: each side's and the call's median per K, and the all-GPU call in K chunks: what
//   the pipeline's depth buys against what each chunk costs to issue)
// With no arguments: the chapter's H200 run's hybrids that missed their predicted gain, at that
// run's shares, in 4 chunks.
#include "buffer.hpp"
#include "conv2d.hpp"
#include "cpu_peers.hpp"
#include "device.hpp"
#include "gemm.hpp"
#include "gemv.hpp"
#include "hybrid_common.hpp"
#include "hybrid_conv2d.hpp"
#include "hybrid_gemm.hpp"
#include "hybrid_gemv.hpp"
#include "host_timing.hpp"
#include "hybrid_symv.hpp"
#include "symv.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

extern "C" void openblas_set_num_threads(int);  // OpenBLAS's and OpenMP's own calls, linked
extern "C" void omp_set_num_threads(int);       // through wb_cpu_peers
extern "C" int omp_get_max_threads(void);

namespace {

using namespace wb;

/// The CPU side's threads for the calls that follow (the calling thread's OpenMP team, OpenBLAS's pool).
void set_threads(int n) {
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
}

struct Spec {
    std::string op, type;
    int fs = 0, n = 0;
    double share = 0;  ///< GPU %
    int chunks = 4;    ///< the pipeline's depth (the sixth field; default the chapter's calibration depth, 4)
};

Spec parse(const std::string& s) {
    Spec p;
    std::stringstream in(s);
    std::string f[5];
    for (auto& x : f)
        if (!std::getline(in, x, ',')) {
            std::fprintf(stderr, "hybrid_sides_probe: '%s' must be op,type,FS,n,GPU%%[,K] (e.g. conv2d,float,9,4096,92.1,8)\n", s.c_str());
            std::exit(2);
        }
    p.op = f[0];
    p.type = f[1];
    p.fs = std::atoi(f[2].c_str());
    p.n = std::atoi(f[3].c_str());
    p.share = std::atof(f[4].c_str());
    std::string k;
    if (std::getline(in, k, ',')) {
        p.chunks = std::atoi(k.c_str());
        if (p.chunks < 1) {
            std::fprintf(stderr, "hybrid_sides_probe: '%s': the depth K (%s) must be an integer >= 1\n", s.c_str(), k.c_str());
            std::exit(2);
        }
    }
    return p;
}

double median(const std::vector<double>& v) { return v.empty() ? NAN : cpu::batch_stats(v).median; }
double p90(const std::vector<double>& v) { return v.empty() ? NAN : cpu::quantile(v, 0.9); }

template <class T>
void fill(T* p, std::size_t n, std::size_t salt) {  // values in [0.5, 1): never zero
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(0.5 + static_cast<double>(((i + salt) * 2654435761u) % 1021) / 2048.0);
}

/// The three ways of one case on its own page-locked data.
struct Calls {
    std::vector<std::shared_ptr<void>> keep;
    std::function<void()> cpu;
    std::function<void(int, int)> hybrid;  // (GPU rows, chunk rows)
};

template <class T>
Calls prepare(const Spec& s) {
    Calls c;
    const std::size_t un = static_cast<std::size_t>(s.n), nn = un * un;
    auto array = [&](std::size_t count, std::size_t salt) {
        auto a = std::make_shared<PinnedBuffer<T>>(count);
        fill(a->data(), count, salt);
        c.keep.push_back(a);
        return a->data();
    };
    const int n = s.n;
    if (s.op == "gemv") {
        const GemvArgs<T> a{Op::N, n, n, T(1), array(nn, 1), n, array(un, 2), T(0), array(un, 3)};
        c.cpu = [a] { cpu::gemv(a); };
        c.hybrid = [a](int g, int k) { hybrid::gemv(a, g, k); };
    } else if (s.op == "symv") {
        const SymvArgs<T> a{Uplo::Lower, n, T(1), array(nn, 1), n, array(un, 2), 1, T(0), array(un, 3), 1};
        c.cpu = [a] { cpu::symv(a); };
        c.hybrid = [a](int g, int k) { hybrid::symv(a, g, k); };
    } else if (s.op == "gemm") {  // the GPU's share: columns of C
        const GemmArgs<T> a{Op::N, Op::N, n, n, n, T(1), array(nn, 1), n, array(nn, 2), n, T(0), array(nn, 3), n};
        c.cpu = [a] { cpu::gemm(a); };
        c.hybrid = [a](int g, int k) { hybrid::gemm(a, g, k); };
    } else if (s.op == "conv2d") {
        auto f = std::make_shared<std::vector<T>>(static_cast<std::size_t>(s.fs) * s.fs);
        fill(f->data(), f->size(), 6);
        c.keep.push_back(f);
        const Conv2dArgs<T> a{n, n, s.fs, array(nn, 5), n, f->data(), array(nn, 7), n};
        c.cpu = [a] { cpu::conv2d(a); };
        c.hybrid = [a](int g, int k) { hybrid::conv2d(a, g, k); };
    } else {
        std::fprintf(stderr, "hybrid_sides_probe: op '%s' must be gemv, gemm, symv or conv2d\n", s.op.c_str());
        std::exit(2);
    }
    return c;
}

/// The chunk that cuts `rows` into k pieces (the last may be shorter), at least 1.
int chunk_of(int rows, int k) { return std::max(1, (rows + k - 1) / k); }

/// --on-caller: the GPU side issued by the worker (A) and by the calling thread (B), in the same
/// rounds, each hybrid right after the all-CPU call of the same size (the rows' turn).
void probe_on_caller(const Spec& s, int rounds) {
    Calls c = s.type == "double" ? prepare<double>(s) : prepare<float>(s);
    const int g = static_cast<int>(std::lround(s.share / 100.0 * s.n));
    const int chunk = chunk_of(g, s.chunks);
    c.cpu();
    using hybrid::testing::Issuer;
    using hybrid::testing::ScopedIssuer;
    for (Issuer who : {Issuer::worker, Issuer::caller}) {  // warm-up: both ways (the worker, the streams and buffers)
        const ScopedIssuer scope(who);
        c.hybrid(g, chunk);
    }
    std::vector<double> v[2][5], ratio;
    for (int r = 0; r < rounds; ++r) {
        double call[2] = {0, 0};
        for (int j = 0; j < 2; ++j) {
            const int k = (j + r) % 2;  // the order alternates by round
            c.cpu();
            {
                const ScopedIssuer scope(k == 1 ? Issuer::caller : Issuer::worker);
                c.hybrid(g, chunk);
            }
            const hybrid::SideTimes t = hybrid::last_side_times();
            const double x[5] = {t.total_ms, t.cpu_ms, t.gpu_ms, t.gpu_began_ms, t.gpu_issued_ms};
            for (int q = 0; q < 5; ++q) v[k][q].push_back(x[q]);
            call[k] = t.total_ms;
        }
        ratio.push_back(call[1] / call[0]);
    }
    std::printf("%-6s %-6s FS %d n %5d GPU %5.1f%% (%d rows, %d chunks of %d):", s.op.c_str(), s.type.c_str(), s.fs, s.n,
                s.share, g, (g + chunk - 1) / chunk, chunk);
    for (int k = 0; k < 2; ++k)
        std::printf(" | %s: call %8.4f (p90 %8.4f) CPU side %8.4f GPU side %8.4f began %7.4f issued %7.4f",
                    k ? "caller issues" : "worker issues", median(v[k][0]), p90(v[k][0]), median(v[k][1]), median(v[k][2]),
                    median(v[k][3]), median(v[k][4]));
    std::printf(" | caller / worker, median of the rounds' ratios %.3f\n", median(ratio));
    std::fflush(stdout);
}

void probe(const Spec& s, int rounds, bool fewer_ab) {
    // At once against in turn, the GPU worker issues the GPU side: only then is its end seen on its
    // own while the CPU side runs (issued by the calling thread, its end is seen after the CPU's
    // share). --fewer-threads times the chapter's own path (the automatic choice).
    using hybrid::testing::Issuer;
    const hybrid::testing::ScopedIssuer scope(fewer_ab ? Issuer::automatic : Issuer::worker);
    Calls c = s.type == "double" ? prepare<double>(s) : prepare<float>(s);
    const int g = static_cast<int>(std::lround(s.share / 100.0 * s.n));
    const int chunk = chunk_of(g, s.chunks);
    using Clock = std::chrono::steady_clock;
    auto wall = [](const std::function<void()>& f) {
        const auto t0 = Clock::now();
        f();
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    };
    // warm-up: every way once (pools, the worker, the device buffers)
    c.cpu();
    c.hybrid(s.n, s.n);
    c.hybrid(g, chunk);
    std::vector<double> cpu_all, gpu_all, at_once[3], in_turn[3];
    for (int r = 0; r < (fewer_ab ? 0 : rounds); ++r) {
        cpu_all.push_back(wall(c.cpu));
        gpu_all.push_back(wall([&] { c.hybrid(s.n, s.n); }));
        for (bool turn : {false, true}) {
            hybrid::testing::run_sides_in_turn(turn);
            c.hybrid(g, chunk);
            hybrid::testing::run_sides_in_turn(false);
            const hybrid::SideTimes t = hybrid::last_side_times();
            auto& v = turn ? in_turn : at_once;
            v[0].push_back(t.cpu_ms);
            v[1].push_back(t.gpu_ms);
            v[2].push_back(t.total_ms);
        }
    }
    if (fewer_ab) {  // A/B in the same rounds: the CPU side on every thread, then on one fewer
        const int all = omp_get_max_threads();
        std::vector<double> side[2][3], ratio;
        for (int r = 0; r < rounds; ++r) {
            double call[2] = {0, 0};
            for (int k = 0; k < 2; ++k) {
                set_threads(all - k);
                c.hybrid(g, chunk);
                const hybrid::SideTimes t = hybrid::last_side_times();
                side[k][0].push_back(t.cpu_ms);
                side[k][1].push_back(t.gpu_ms);
                side[k][2].push_back(t.total_ms);
                call[k] = t.total_ms;
            }
            set_threads(all);
            ratio.push_back(call[1] / call[0]);
        }
        std::printf("%-6s %-6s FS %d n %5d GPU %5.1f%% (%d rows): %d threads: CPU side %8.4f, GPU side %8.4f, call %8.4f | "
                    "%d threads: CPU side %8.4f, GPU side %8.4f, call %8.4f | call %d/%d threads, median of the rounds' "
                    "ratios %.3f\n",
                    s.op.c_str(), s.type.c_str(), s.fs, s.n, s.share, g, all, median(side[0][0]), median(side[0][1]),
                    median(side[0][2]), all - 1, median(side[1][0]), median(side[1][1]), median(side[1][2]), all - 1, all,
                    median(ratio));
        std::fflush(stdout);
        return;
    }
    const double cpu_ms = median(cpu_all), gpu_ms = median(gpu_all);
    const double oc = median(at_once[0]), og = median(at_once[1]), ot = median(at_once[2]);
    const double tc = median(in_turn[0]), tg = median(in_turn[1]);
    std::printf("%-6s %-6s FS %d n %5d GPU %5.1f%% (%d rows, %d chunks of %d): all-CPU %8.4f ms, all-GPU %8.4f ms | "
                "at once: CPU side %8.4f, GPU side %8.4f, call %8.4f | alone: CPU side %8.4f (x%.3f at once), GPU side %8.4f "
                "(x%.3f) | CPU share alone over all-CPU x share %.3f\n",
                s.op.c_str(), s.type.c_str(), s.fs, s.n, s.share, g, (g + chunk - 1) / chunk, chunk, cpu_ms, gpu_ms, oc, og, ot, tc, oc / tc, tg, og / tg,
                tc / (cpu_ms * (1.0 - s.share / 100.0)));
    std::fflush(stdout);
}

/// --chunks: the share at every K of `ks`, in turn within each round (order rotating by round).
void probe_chunks(const Spec& s, int rounds, const std::vector<int>& ks) {
    // As in probe(): the GPU worker issues, so that the GPU side's end is seen on its own.
    const hybrid::testing::ScopedIssuer scope(hybrid::testing::Issuer::worker);
    Calls c = s.type == "double" ? prepare<double>(s) : prepare<float>(s);
    const int g = static_cast<int>(std::lround(s.share / 100.0 * s.n));
    const std::size_t nk = ks.size();
    for (int k : ks) {  // warm-up: every K's buffers
        c.hybrid(g, chunk_of(g, k));
        c.hybrid(s.n, chunk_of(s.n, k));
    }
    std::vector<std::vector<double>> side_c(nk), side_g(nk), call(nk), all_gpu(nk);
    for (int r = 0; r < rounds; ++r)
        for (std::size_t j = 0; j < nk; ++j) {
            const std::size_t i = (j + static_cast<std::size_t>(r)) % nk;
            c.hybrid(g, chunk_of(g, ks[i]));
            const hybrid::SideTimes t = hybrid::last_side_times();
            side_c[i].push_back(t.cpu_ms);
            side_g[i].push_back(t.gpu_ms);
            call[i].push_back(t.total_ms);
            c.hybrid(s.n, chunk_of(s.n, ks[i]));
            all_gpu[i].push_back(hybrid::last_side_times().total_ms);
        }
    std::printf("%-6s %-6s FS %d n %5d GPU %5.1f%% (%d rows):", s.op.c_str(), s.type.c_str(), s.fs, s.n, s.share, g);
    for (std::size_t i = 0; i < nk; ++i)
        std::printf(" | K %2d: CPU %8.4f GPU %8.4f call %8.4f all-GPU %8.4f", ks[i], median(side_c[i]), median(side_g[i]),
                    median(call[i]), median(all_gpu[i]));
    std::printf("\n");
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    if (!wb::has_cuda_device()) {
        std::fprintf(stderr, "hybrid_sides_probe: no CUDA device\n");
        return 77;
    }
    std::vector<std::string> args(argv + 1, argv + argc);
    int rounds = 15;
    bool fewer_ab = false, on_caller = false;
    std::vector<int> ks;
    while (!args.empty() && args[0].rfind("--", 0) == 0) {
        if (args[0].rfind("--rounds=", 0) == 0) rounds = std::max(3, std::atoi(args[0].c_str() + 9));
        else if (args[0] == "--fewer-threads") fewer_ab = true;
        else if (args[0] == "--on-caller") on_caller = true;
        else if (args[0].rfind("--chunks=", 0) == 0) {
            std::stringstream in(args[0].substr(9));
            for (std::string k; std::getline(in, k, ',');) {
                char* end = nullptr;
                const long v = std::strtol(k.c_str(), &end, 10);
                if (k.empty() || *end != '\0' || v < 1 || v > 1 << 20) {
                    std::fprintf(stderr, "hybrid_sides_probe: --chunks: '%s' must be an integer >= 1\n", k.c_str());
                    return 2;
                }
                ks.push_back(static_cast<int>(v));
            }
        }
        else {
            std::fprintf(stderr, "hybrid_sides_probe: unknown option '%s' (--rounds=N, --fewer-threads, --on-caller, --chunks=K,K,...)\n", args[0].c_str());
            return 2;
        }
        args.erase(args.begin());
    }
    if (args.empty())
        args = {"conv2d,float,9,4096,92.1", "conv2d,float,9,8192,92.4", "conv2d,double,9,1024,94.3",
                "conv2d,float,3,8192,67.5",  "gemv,float,0,16384,34.2",  "gemv,float,0,8192,29.0",
                "symv,float,0,16384,22.5",   "symv,double,0,16384,25.2", "symv,double,0,8192,19.9"};
    std::printf("hybrid_sides_probe: %d rounds, medians (ms)\n", rounds);
    for (const auto& a : args) {
        if (on_caller) probe_on_caller(parse(a), rounds);
        else if (ks.empty()) probe(parse(a), rounds, fewer_ab);
        else probe_chunks(parse(a), rounds, ks);
    }
    return 0;
}
