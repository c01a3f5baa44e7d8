// Bad input never crashes (seeded fuzzing, no GPU): random command lines for the chapter binaries'
// main (predict-only) and random argument structs for every op's validation. Each must end in a
// clear error (exit code 2, or std::invalid_argument naming the function) or a correct answer
// (predictions, a quick return), never a crash, another exception, or a launch: for every struct
// that validation rejects or quick-returns, every step's launcher (ladder and peer) is called too
// and must do the same without touching the GPU (fake device pointers are never dereferenced).
// Counts: 2000 command lines; 5 ops x 2 precisions x 500 argument structs = 5000 structs.
#include "catch.hpp"
#include "step_errors.hpp"

#include "cg.hpp"
#include "conv2d.hpp"
#include "gemm.hpp"
#include "gemv.hpp"
#include "ladder_chapter.hpp"
#include "symv.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::uint64_t kSeed = 20261128;
constexpr int kCommandLines = 2000;
constexpr int kStructsPerOpAndPrecision = 500;

struct Rng {
    std::mt19937_64 g{kSeed};
    int below(int n) { return static_cast<int>(g() % static_cast<std::uint64_t>(n)); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(g) < p; }
    template <class V> const V& pick(const std::vector<V>& v) {
        return v[static_cast<std::size_t>(below(static_cast<int>(v.size())))];
    }

    /// Sizes: zero (8%), the hostile ones (negative, tile edges, the indexing limit and past it,
    /// INT_MAX: 20%), else an ordinary size below 5000.
    int size() {
        static const std::vector<int> special = {INT_MIN, -65536, -1, 1, 2, 3, 7, 31, 32, 33, 64, 65, 1000,
                                                 65535, 65536, 2147418111, 2147418112, INT_MAX};
        if (chance(0.08)) return 0;
        if (chance(0.2)) return pick(special);
        return 1 + below(5000);
    }
    /// A leading dimension or pitch: mostly legal (`rows`, a few more), sometimes one short, zero
    /// or anything.
    int ld(int rows) {
        const int r = std::max(1, rows);
        const int k = below(20);
        if (k < 12) return r;
        if (k < 16) return r > INT_MAX - 3 ? r : r + 3;
        if (k < 18) return r - 1;
        if (k < 19) return 0;
        return size();
    }
    /// Scalars: zero, one, ordinary, NaN, infinities, subnormal, huge.
    double scalar() {
        static const std::vector<double> v = {0.0, 1.0, -1.0, 0.5, 1.5, std::numeric_limits<double>::quiet_NaN(),
                                              INFINITY, -INFINITY, 4.9e-324, 1e308, -0.0};
        return pick(v);
    }
    /// Null (one time in ten) or a fake device address, aligned or one element off.
    template <class T> T* ptr() {
        if (chance(0.1)) return nullptr;
        const std::uintptr_t base = 0x100000u * static_cast<std::uintptr_t>(1 + below(8));
        return reinterpret_cast<T*>(base + (chance(0.5) ? sizeof(T) : 0));
    }
};

/// The outcome of validation: threw std::invalid_argument (its message), quick return, or proceed.
enum class Outcome { Rejected, QuickReturn, Proceeds };

template <class Args, class Validate>
Outcome validated(const Args& a, Validate validate, const std::string& fn, std::string& message) {
    try {
        return validate(a) ? Outcome::Proceeds : Outcome::QuickReturn;
    } catch (const std::invalid_argument& e) {
        message = e.what();
        // A clear error: it names the function and states a rule.
        CHECK_THAT(message, Catch::Matchers::StartsWith(fn + ": "));
        CHECK_THAT(message, Catch::Matchers::Contains("must"));
        return Outcome::Rejected;
    }
}

/// Every step's launcher agrees with validation where no launch may happen: it rejects what
/// validation rejects and quick-returns where validation does (both without a GPU call).
/// Outcomes per op (Rejected, QuickReturn, Proceeds): each must occur, or the generator tests little.
std::map<std::string, std::array<int, 3>>& tally() {
    static std::map<std::string, std::array<int, 3>> t;
    return t;
}

template <class Args>
void launchers_agree(const std::vector<wb::Step<Args>>& steps, const Args& a, Outcome o, const std::string& op) {
    ++tally()[op][static_cast<int>(o)];
    if (o == Outcome::Proceeds) return;  // that would launch: not here, without a GPU
    for (const auto& s : steps) {
        std::string e;
        REQUIRE_NOTHROW(e = wb_test::error_of(s, a));  // any other exception fails here
        INFO("step " << s.stage << ": " << e);
        if (o == Outcome::Rejected) CHECK(e != "(no exception)");
        else CHECK(e == "(no exception)");
    }
}

template <class T>
void fuzz_gemv(Rng& r) {
    const auto steps = wb_test::ladder_and_peer<wb::GemvArgs<T>>();
    for (int i = 0; i < kStructsPerOpAndPrecision; ++i) {
        wb::GemvArgs<T> a;
        a.op = r.chance(0.9) ? (r.chance(0.5) ? wb::Op::N : wb::Op::T) : static_cast<wb::Op>(r.below(9));
        a.m = r.size();
        a.n = r.size();
        a.lda = r.ld(a.m);
        a.alpha = static_cast<T>(r.scalar());
        a.beta = static_cast<T>(r.scalar());
        a.A = r.ptr<T>();
        a.x = r.ptr<T>();
        a.y = r.ptr<T>();
        std::string msg;
        const Outcome o = validated(a, [](const auto& v) { return wb::validate_gemv(v); }, "gemv", msg);
        INFO("gemv case " << i << ": op " << static_cast<int>(a.op) << " m " << a.m << " n " << a.n << " lda " << a.lda
                          << " alpha " << a.alpha << " A " << a.A << " x " << a.x << " y " << a.y << ": " << msg);
        if (o == Outcome::QuickReturn) CHECK((a.m == 0 || a.n == 0));
        if (o == Outcome::Proceeds) {
            CHECK((a.op == wb::Op::N || a.op == wb::Op::T));
            CHECK((a.m > 0 && a.n > 0 && a.lda >= a.m && a.y != nullptr));
            CHECK((a.alpha == T(0) || (a.A != nullptr && a.x != nullptr)));
        }
        launchers_agree(steps, a, o, "gemv");
    }
}

template <class T>
void fuzz_gemm(Rng& r) {
    const auto steps = wb_test::ladder_and_peer<wb::GemmArgs<T>>();
    for (int i = 0; i < kStructsPerOpAndPrecision; ++i) {
        wb::GemmArgs<T> a;
        a.op_a = r.chance(0.95) ? (r.chance(0.5) ? wb::Op::N : wb::Op::T) : static_cast<wb::Op>(r.below(9));
        a.op_b = r.chance(0.95) ? (r.chance(0.5) ? wb::Op::N : wb::Op::T) : static_cast<wb::Op>(r.below(9));
        a.m = r.size();
        a.n = r.size();
        a.k = r.size();
        a.lda = r.ld(a.rows_a());
        a.ldb = r.ld(a.rows_b());
        a.ldc = r.ld(a.m);
        a.alpha = static_cast<T>(r.scalar());
        a.beta = static_cast<T>(r.scalar());
        a.A = r.ptr<T>();
        a.B = r.ptr<T>();
        a.C = r.ptr<T>();
        std::string msg;
        const Outcome o = validated(a, [](const auto& v) { return wb::validate_gemm(v); }, "gemm", msg);
        INFO("gemm case " << i << ": m " << a.m << " n " << a.n << " k " << a.k << " lda " << a.lda << " ldb " << a.ldb
                          << " ldc " << a.ldc << ": " << msg);
        if (o == Outcome::QuickReturn) CHECK((a.m == 0 || a.n == 0));
        if (o == Outcome::Proceeds) {
            CHECK((a.m > 0 && a.n > 0 && a.k >= 0 && a.C != nullptr));
            CHECK((a.lda >= std::max(1, a.rows_a()) && a.ldb >= std::max(1, a.rows_b()) && a.ldc >= a.m));
            CHECK((a.k == 0 || a.alpha == T(0) || (a.A != nullptr && a.B != nullptr)));
        }
        launchers_agree(steps, a, o, "gemm");
    }
}

template <class T>
void fuzz_conv2d(Rng& r) {
    const auto steps = wb_test::ladder_and_peer<wb::Conv2dArgs<T>>();
    for (int i = 0; i < kStructsPerOpAndPrecision; ++i) {
        wb::Conv2dArgs<T> a;
        a.rows = r.size();
        a.cols = r.size();
        a.fs = r.chance(0.8) ? 2 * r.below(8) + 1 : r.size();
        a.in_pitch = r.ld(a.cols);
        a.out_pitch = r.ld(a.cols);
        a.in = r.ptr<T>();
        a.filter = r.ptr<T>();
        a.out = r.chance(0.1) ? const_cast<T*>(a.in) : r.ptr<T>();  // in place now and then
        std::string msg;
        const Outcome o = validated(a, [](const auto& v) { return wb::validate_conv2d(v); }, "conv2d", msg);
        INFO("conv2d case " << i << ": rows " << a.rows << " cols " << a.cols << " fs " << a.fs << " pitches "
                            << a.in_pitch << ", " << a.out_pitch << ": " << msg);
        if (o == Outcome::QuickReturn) CHECK((a.rows == 0 || a.cols == 0));
        if (o == Outcome::Proceeds) {
            CHECK((a.rows > 0 && a.cols > 0 && a.fs >= 1 && a.fs % 2 == 1 && a.fs <= wb::kConv2dMaxFilter));
            CHECK((a.in_pitch >= a.cols && a.out_pitch >= a.cols));
            CHECK((a.in != nullptr && a.filter != nullptr && a.out != nullptr && a.out != a.in));
        }
        launchers_agree(steps, a, o, "conv2d");
    }
}

template <class T>
void fuzz_symv(Rng& r) {
    const auto steps = wb_test::ladder_and_peer<wb::SymvArgs<T>>();
    for (int i = 0; i < kStructsPerOpAndPrecision; ++i) {
        wb::SymvArgs<T> a;
        a.uplo = r.chance(0.9) ? (r.chance(0.5) ? wb::Uplo::Lower : wb::Uplo::Upper)
                               : static_cast<wb::Uplo>(r.below(9));
        a.n = r.size();
        a.lda = r.ld(a.n);
        a.incx = r.chance(0.9) ? 1 : r.size();
        a.incy = r.chance(0.9) ? 1 : r.size();
        a.alpha = static_cast<T>(r.chance(0.2) ? 0.0 : r.scalar());
        a.beta = static_cast<T>(r.chance(0.2) ? 1.0 : r.scalar());
        a.A = r.ptr<T>();
        a.x = r.ptr<T>();
        a.y = r.ptr<T>();
        std::string msg;
        const Outcome o = validated(a, [](const auto& v) { return wb::validate_symv(v); }, "symv", msg);
        INFO("symv case " << i << ": n " << a.n << " lda " << a.lda << " alpha " << a.alpha << " beta " << a.beta
                          << ": " << msg);
        if (o == Outcome::QuickReturn) CHECK((a.n == 0 || (a.alpha == T(0) && a.beta == T(1))));
        if (o == Outcome::Proceeds) {
            CHECK((a.uplo == wb::Uplo::Lower || a.uplo == wb::Uplo::Upper));
            CHECK((a.n > 0 && a.lda >= a.n && a.incx == 1 && a.incy == 1 && a.y != nullptr));
            CHECK((a.alpha == T(0) || (a.A != nullptr && a.x != nullptr)));
        }
        launchers_agree(steps, a, o, "symv");
    }
}

template <class T>
void fuzz_cg(Rng& r) {
    auto steps = wb_test::ladder_and_peer<wb::CgArgs<T>>();
    steps.push_back({"cusolver", "direct", &wb::peer::cg_cholesky<T>, {}, {}});
    for (int i = 0; i < kStructsPerOpAndPrecision; ++i) {
        wb::CgResult result;
        wb::CgArgs<T> a;
        a.n = r.size();
        a.lda = r.ld(a.n);
        a.A = r.ptr<T>();
        a.b = r.ptr<T>();
        a.x = r.chance(0.1) ? const_cast<T*>(a.b) : r.ptr<T>();
        a.tol = r.chance(0.5) ? 1e-6 : r.scalar();
        a.max_iter = r.chance(0.7) ? 100 : r.size();
        a.result = r.chance(0.5) ? &result : nullptr;  // a host pointer: real or none
        std::string msg;
        const Outcome o = validated(a, [](const auto& v) { return wb::validate_cg(v); }, "cg", msg);
        INFO("cg case " << i << ": n " << a.n << " lda " << a.lda << " tol " << a.tol << " max_iter " << a.max_iter
                        << ": " << msg);
        if (o == Outcome::QuickReturn) CHECK(a.n == 0);
        if (o == Outcome::Proceeds) {
            CHECK((a.n > 0 && a.lda >= a.n && a.max_iter >= 0 && a.tol >= 0 && std::isfinite(a.tol)));
            CHECK((a.A != nullptr && a.b != nullptr && a.x != nullptr && static_cast<const T*>(a.x) != a.b));
        }
        launchers_agree(steps, a, o, "cg");
    }
}

/// Runs a chapter's main on `args`, output captured (and dropped unless a check fails).
int run_chapter(std::vector<std::string> args, std::string& out) {
    args.insert(args.begin(), "chNN");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream o;
    std::streambuf* old_out = std::cout.rdbuf(o.rdbuf());
    std::streambuf* old_err = std::cerr.rdbuf(o.rdbuf());
    int rc = -1;
    try {
        rc = wb::run_ladder_chapter(static_cast<int>(argv.size()), argv.data(), 5);
    } catch (...) {
        rc = -2;  // an exception out of main: a defect
    }
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    out = o.str();
    return rc;
}

}  // namespace

TEST_CASE("fuzz: 5000 random argument structs, every op's validation and launchers: a clear error or a quick "
          "return, never a crash or a launch",
          "[cpu][fuzz]") {
    Rng r;
    fuzz_gemv<float>(r);
    fuzz_gemv<double>(r);
    fuzz_gemm<float>(r);
    fuzz_gemm<double>(r);
    fuzz_conv2d<float>(r);
    fuzz_conv2d<double>(r);
    fuzz_symv<float>(r);
    fuzz_symv<double>(r);
    fuzz_cg<float>(r);
    fuzz_cg<double>(r);
    for (const auto& [op, n] : tally()) {
        std::printf("fuzz: %s: %d rejected, %d quick returns, %d valid\n", op.c_str(), n[0], n[1], n[2]);
        INFO(op);
        for (int count : n) CHECK(count >= kStructsPerOpAndPrecision / 25);  // every outcome, 2% of each at least
    }
}

TEST_CASE("fuzz: 2000 random chapter command lines (predict-only): exit 0, 2 (usage) or 3 (skipped), never a crash",
          "[cpu][fuzz]") {
    Rng r;
    const std::string tmp = "/tmp/wb-fuzz-" + std::to_string(::getpid());
    // Each option's values: valid ones most of the time (so that runs get past the parser), bad ones
    // (unknown words, negative, past INT_MAX, not numbers, empty) the rest.
    auto value = [&](const std::vector<std::string>& good, const std::vector<std::string>& bad) {
        return r.chance(0.75) ? r.pick(good) : r.pick(bad);
    };
    const std::vector<std::string> bad = {"", "fft", "GEMV", "half", "X", "-1", "abc", "nan", "99999999999", "a100",
                                          "gemv,,cg", "3,,5", "1e3"};
    const std::vector<std::string> ops = {"gemv", "gemm", "conv2d", "symv", "cg", "all", "gemv,cg", "gemm,symv,conv2d"};
    const std::vector<std::string> sizes = {"0", "1", "17", "64", "1000", "4097", "40000", "140000", "2147418111",
                                            "2147483647", "1,2", "0,1,2", "-0"};
    const std::vector<std::string> csvs = {tmp + "-out.csv", "/nonexistent/x.csv", "/", "", "/proc/version/x.csv"};
    const std::vector<std::string> flags = {"--quick", "--ladder", "--shapes", "--list-ops", "--sweep", "--help"};
    const std::vector<std::string> bad_flags = {"--", "-x", "--unknown", "foo", "--sizes=", "--op=gemv"};
    int counts[4] = {0, 0, 0, 0};  // exit codes 0, 2, 3, other
    // On a thread of its own: predictions fill the launch rules' per-thread caches with picks for
    // null pointers (shape_args), and the tuned GEMM rule reads a null A as its aligned workspace;
    // later tests on this thread asking about the same shapes with real pointers must not see them.
    std::thread([&] {
        for (int i = 0; i < kCommandLines; ++i) {
            std::vector<std::string> args;
            const int tokens = 1 + r.below(4);
            for (int t = 0; t < tokens; ++t) {
                switch (r.below(9)) {
                    case 0: case 1: args.insert(args.end(), {"--op", value(ops, bad)}); break;
                    case 2: case 3: args.insert(args.end(), {"--sizes", value(sizes, bad)}); break;
                    case 4: args.insert(args.end(), {"--precision", value({"float", "double", "both"}, bad)}); break;
                    case 5: args.insert(args.end(), {"--trans", value({"N", "T", "both"}, bad)}); break;
                    case 6:
                        if (r.chance(0.5)) args.insert(args.end(), {"--device", value({"0"}, bad)});
                        else args.insert(args.end(), {"--device-preset", value({"t10", "h100-sxm", "h200"}, bad)});
                        break;
                    case 7: args.insert(args.end(), {"--csv", r.pick(csvs)}); break;
                    default: args.push_back(value(flags, bad_flags)); break;
                }
            }
            // Predictions only, on every machine (a GPU machine would otherwise measure).
            if (std::find(args.begin(), args.end(), "--device-preset") == args.end())
                args.insert(args.end(), {"--device-preset", "h200"});
            // Default sizes for every op in both precisions are the slow case: keep it rare.
            if (std::find(args.begin(), args.end(), "--sizes") == args.end() && r.chance(0.8))
                args.insert(args.end(), {"--sizes", "1000"});
            std::string out;
            const int rc = run_chapter(args, out);
            std::string line;
            for (const auto& a : args) line += "'" + a + "' ";
            INFO("command line " << i << ": " << line << "\n" << out.substr(0, 2000));
            CHECK((rc == 0 || rc == 2 || rc == 3));
            ++counts[rc == 0 ? 0 : rc == 2 ? 1 : rc == 3 ? 2 : 3];
        }
    }).join();
    std::remove((tmp + "-out.csv").c_str());
    for (const char* op : {"gemv", "gemm", "conv2d", "symv", "cg"})
        std::remove((tmp + "-out-" + std::string(op) + ".csv").c_str());
    std::printf("fuzz: %d command lines: %d exit 0, %d exit 2, %d exit 3, %d other\n", kCommandLines, counts[0],
                counts[1], counts[2], counts[3]);
    // The generator reaches every outcome (a fuzzer that only makes usage errors proves little).
    CHECK(counts[0] > 400);
    CHECK(counts[1] > 400);
    CHECK(counts[2] > 20);
}
