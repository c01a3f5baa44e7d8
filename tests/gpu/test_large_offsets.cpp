// 64-bit addressing: every registered step of every op (and the cuBLAS peers, as a check of the
// harness) on operands whose last column (a matrix's) or row (an image's) starts 16 GiB or more
// into its allocation: 2^34 bytes, 2^32 float or 2^31 double elements. A kernel or launcher that
// forms `i + j * lda` or `r * pitch + c` in 32 bits reads or writes the wrong place there, while
// every other test of the workbook stays far below: a signed int element index wraps on the later
// half of a float operand's lines and on a double operand's last line, an unsigned one on a float
// operand's last line, a 32-bit byte offset on the last three quarters of the lines.
// The FLOPs stay small: few rows and a huge leading dimension (pitch), so a far operand is one
// allocation of about 17.2 GB of which only the used lines are filled (cudaMemcpy2D); the rest,
// padding included, keeps the bytes 0xFF (NaN), so a read of anything outside the operand poisons
// the result. One far operand at a time, freed before the next; the others are small, ld > rows.
// Float and double; leading dimensions odd (element paths) and multiples of 64 elements (16-byte
// paths), GEMV and SYMV also with A 1 or 33 elements into its allocation (the shifted and
// aligned-origin paths). Every step x every legal launch (and its default) with beta = 0.5 (the
// output read), each step's default with beta = 0 (the output NaN: written, never read). Outputs
// against a float64 host reference made from the used elements only, under compare_output's bound
// (the ladder tests' tolerance); the 8 elements after each output line must still hold 0xFF.
// - GEMV: A far (m = 37 or 1200 rows, 61 columns), op N and T.
// - GEMM: 37 x 45 x 40, A, B or C far in turn, op(A), op(B) in {N, T}; each tuned configuration
//   also with k split in 3, with the aligned copies and (op(A) = A^T) with A packed.
// - SYMV: n = 777, A far, lower and upper (the other triangle NaN), both modes of the tuned step.
// - conv2d: 301 x 299 images, the input or the output far, FS = 3, 7, 9, 31 (every kernel family
//   of steps 2-5). The library peers (NPP, cuDNN, cuFFT) are not run: not ours, not in every build.
// - CG: n = 1100, A far, condition number 100: converged, true residual under cg_residual_bound;
//   the SYMV steps (4, 5) also with the upper triangle NaN.
// Skipped, visibly, where the card has less than about 18.3 GB free, and under WB_TEST_SMALL (the
// sanitizers' runs).
// Run: ./build/bin/wb_gpu_tests "[large]"      (one op: "[gemm][large]")
#include "catch.hpp"

#include "buffer.hpp"
#include "cg.hpp"
#include "cg_problem.hpp"  // cg_residual_bound
#include "compare.hpp"
#include "conv2d.hpp"
#include "gemm.hpp"
#include "gemv.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "reference_cg.hpp"
#include "reference_conv2d.hpp"
#include "reference_gemm.hpp"
#include "reference_symv.hpp"
#include "symv.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

using wb::Op;
using wb::Uplo;

/// Where the last line of a far operand starts, at least: 16 GiB into its allocation.
constexpr std::size_t kFarBytes = std::size_t(1) << 34;
/// Free memory a case wants beyond its far operand: the small operands, the launchers'
/// workspaces, cuBLAS.
constexpr std::size_t kMarginBytes = std::size_t(1) << 30;

template <class T> const char* prec_name() { return sizeof(T) == 4 ? "float" : "double"; }

/// `count` lines of `len` contiguous elements, line q at data() + q * ld: the columns of a
/// column-major matrix (len = rows) or the rows of an image (len = cols, ld = pitch); a vector is
/// one line. The allocation holds `offset` elements before the first line (a submatrix's base)
/// and kGuard after the last, and every byte of it starts as 0xFF (NaN). Only the lines travel to
/// and from the host, never the allocation (cudaMemcpy2D: a pitch must stay under
/// cudaDeviceProp::memPitch, 2 GB; the far ones here are at most 0.5 GB).
template <class T>
class Lines {
public:
    static constexpr int kGuard = 8;  ///< elements after each line that must keep the 0xFF bytes

    Lines(int len, int count, long long ld, int offset)
        : len_(len), count_(count), ld_(ld), offset_(offset), buf_(elements(len, count, ld, offset)) {
        REQUIRE(ld >= len);
        REQUIRE(ld <= std::numeric_limits<int>::max());  // BLAS's int lda
        buf_.fill_bytes(0xFF);
    }
    static std::size_t elements(int len, int count, long long ld, int offset) {
        return static_cast<std::size_t>(offset) + static_cast<std::size_t>(count - 1) * static_cast<std::size_t>(ld) +
               static_cast<std::size_t>(len) + kGuard;
    }
    T* data() { return buf_.data() + offset_; }
    int ld() const { return static_cast<int>(ld_); }

    /// The lines from `h` (count x len, line after line).
    void upload(const std::vector<T>& h) {
        REQUIRE(h.size() == static_cast<std::size_t>(len_) * count_);
        WB_CUDA(cudaMemcpy2D(data(), pitch(), h.data(), row_bytes(), row_bytes(), count_, cudaMemcpyHostToDevice));
    }
    std::vector<T> download() {
        std::vector<T> h(static_cast<std::size_t>(len_) * count_);
        WB_CUDA(cudaMemcpy2D(h.data(), row_bytes(), data(), pitch(), row_bytes(), count_, cudaMemcpyDeviceToHost));
        return h;
    }
    /// Every element of the lines NaN: an output that must be written without being read.
    void poison() { WB_CUDA(cudaMemset2D(data(), pitch(), 0xFF, row_bytes(), count_)); }
    /// The elements right after each line (up to kGuard, those before the next line) still hold
    /// 0xFF bytes: nothing was written past a line.
    bool guards_intact() {
        const long long g = count_ == 1 ? kGuard : std::min<long long>(kGuard, ld_ - len_);
        if (g == 0) return true;
        const std::size_t g_bytes = static_cast<std::size_t>(g) * sizeof(T);
        std::vector<unsigned char> h(g_bytes * count_);
        // (A vector's pitch may be narrower than its guard: one line, any pitch >= the width will do.)
        WB_CUDA(cudaMemcpy2D(h.data(), g_bytes, data() + len_, std::max(pitch(), g_bytes), g_bytes, count_,
                             cudaMemcpyDeviceToHost));
        return std::all_of(h.begin(), h.end(), [](unsigned char b) { return b == 0xFF; });
    }

private:
    std::size_t pitch() const { return static_cast<std::size_t>(ld_) * sizeof(T); }
    std::size_t row_bytes() const { return static_cast<std::size_t>(len_) * sizeof(T); }
    int len_, count_;
    long long ld_;
    int offset_;
    wb::DeviceBuffer<T> buf_;
};

/// The leading dimension (pitch) of a far operand of `count` lines: line count - 1 starts at least
/// kFarBytes in. `aligned`: a multiple of 64 elements (every line 256-byte aligned); else odd.
template <class T>
long long far_ld(int count, bool aligned) {
    const long long elems = static_cast<long long>(kFarBytes / sizeof(T));
    const long long ld = (elems + count - 2) / (count - 1);
    return aligned ? (ld + 63) / 64 * 64 : (ld | 1);
}
/// The leading dimension of a small operand of `len` rows: padded past len (NaN there), aligned
/// or odd as far_ld.
long long near_ld(int len, bool aligned) { return aligned ? (len + 64) / 64 * 64 : (len + 3) | 1; }

/// Bytes of the largest far operand of `count` lines of `len` elements (aligned, offset 64).
template <class T>
std::size_t far_bytes(int len, int count) {
    return Lines<T>::elements(len, count, far_ld<T>(count, true), 64) * sizeof(T);
}

/// The layout of a call's operands: leading dimensions odd, so that columns start at every
/// alignment (the element-load paths), or multiples of 64 elements (the 16-byte paths); the far
/// operand's first element `offset` elements into its allocation.
struct Layout {
    bool aligned;
    int offset;
    const char* name;
};
constexpr Layout kOdd{false, 0, "odd ld"}, kAligned{true, 0, "aligned ld"};

/// Why a case cannot run here, or "" when it can: the sanitizers' small run (WB_TEST_SMALL), or a
/// card with less free memory than the far operand and kMarginBytes.
std::string skip_reason(std::size_t far, const std::string& what) {
    std::ostringstream os;
    os.precision(3);
    const double need = static_cast<double>(far + kMarginBytes) / 1e9;
    if (std::getenv("WB_TEST_SMALL")) {
        os << what << ": skipped under WB_TEST_SMALL (the sanitizers' run); it needs " << need << " GB";
        return os.str();
    }
    std::size_t free = 0, total = 0;
    WB_CUDA(cudaMemGetInfo(&free, &total));
    if (free >= far + kMarginBytes) return "";
    os << what << ": skipped, " << need << " GB needed, the card has " << static_cast<double>(free) / 1e9
       << " GB free of " << static_cast<double>(total) / 1e9;
    return os.str();
}

// Ends the calling function (one precision of a case), visibly: Catch2 3.3+ marks the case
// skipped; Catch2 2 has no skip, so a warning (printed even when the case passes) says why.
#if defined(WB_CATCH2_V3) && defined(SKIP)
#define WB_SKIP_LARGE(why) SKIP(why)
#else
#define WB_SKIP_LARGE(why) \
    do {                    \
        WARN(why);          \
        return;             \
    } while (0)
#endif

template <class T>
std::vector<T> abs_of(std::vector<T> v) {
    for (T& e : v) e = std::abs(e);
    return v;
}

/// A float64 reference and the scale of its error bound (compare.hpp).
struct Expected {
    std::vector<double> ref, scale;
};

/// Every registered step, then (`peer`) the vendor library's.
template <class Args>
std::vector<const wb::Step<Args>*> steps_of(bool peer) {
    std::vector<const wb::Step<Args>*> v;
    for (const auto& s : wb::ladder<Args>()) v.push_back(&s);
    if (peer) v.push_back(&wb::peer_step<Args>());
    return v;
}

/// The step's default launch for `a`, then its other legal launches.
template <class Args>
std::vector<typename Args::Launch> default_and_legal(const wb::Step<Args>& step, const Args& a) {
    std::vector<typename Args::Launch> v{step.default_launch(a)};
    for (const auto& l : step.legal_launches(a))
        if (std::find(v.begin(), v.end(), l) == v.end()) v.push_back(l);
    return v;
}
template <class Args>
std::vector<typename Args::Launch> launches_of(const wb::Step<Args>& step, const Args& a) {
    return default_and_legal(step, a);
}
/// GEMM: the tuned step's modes on each of its configurations too: k split in 3 (partials in a
/// workspace, summed into C through ldc), unaligned operands copied to aligned columns first, and
/// op(A) = A^T transposed into a workspace first, op(B) = B likewise (each reads the far operand
/// its own way).
/// (The tuned step's legal launches list those modes too, at many splits: here each configuration
/// takes one of each, as plain configurations from the list.)
template <class T>
std::vector<wb::GemmLaunch> launches_of(const wb::Step<wb::GemmArgs<T>>& step, const wb::GemmArgs<T>& a) {
    if (step.chapter != 5) return default_and_legal(step, a);
    std::vector<wb::GemmLaunch> plain;
    for (const wb::GemmLaunch& c : step.legal_launches(a))
        if (c.split_k == 0 && c.pack_a == 0 && c.pack_b == 0 && c.align == 0) plain.push_back(c);
    std::vector<wb::GemmLaunch> v{step.default_launch(a)};
    for (const wb::GemmLaunch& c : plain)
        if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
    for (const wb::GemmLaunch& c : plain) {
        if (c.gemv == 2 || c.math == 2) continue;  // not a tiled configuration (the GEMV, the tensor cores)
        wb::GemmLaunch split = c, copy = c, pack = c, pack_b = c;
        split.split_k = 3;
        copy.align = 2;
        pack.pack_a = 2;
        pack_b.pack_b = 2;
        v.push_back(split);
        v.push_back(copy);
        if (a.op_a == Op::T) v.push_back(pack);
        if (a.op_b == Op::N) v.push_back(pack_b);
    }
    return v;
}

/// One checked call: the output's lines restored from `h_out` (empty: set to NaN, they must be
/// written without being read), `step` launched with `l`, the lines compared with the float64
/// reference (`k`: the reduction length behind each element, which sets the tolerance), and the
/// guard elements after each line unchanged.
template <class T, class Args>
void check_call(const wb::Step<Args>& step, const typename Args::Launch& l, const Args& a, Lines<T>& out,
                const std::vector<T>& h_out, const Expected& e, std::size_t k, const std::string& what) {
    INFO(what << ": " << step.stage << " launch " << l.str());
    if (h_out.empty()) out.poison();
    else out.upload(h_out);
    step.launch(a, l, nullptr);
    WB_CUDA(cudaDeviceSynchronize());
    const wb::CheckResult c = wb::compare_output(out.download(), e.ref, e.scale, k);
    INFO("rel err " << c.rel_error << " tol " << c.tolerance << " " << c.first_bad);
    CHECK(c.ok());
    CHECK(out.guards_intact());
}

enum class Launches { Every, Default };

/// check_call for every step (and the peer) with every launch or with its default only.
template <class T, class Args>
void check_steps(const Args& a, Lines<T>& out, const std::vector<T>& h_out, const Expected& e, std::size_t k,
                 Launches which, bool peer, const std::string& what) {
    for (const auto* step : steps_of<Args>(peer)) {
        const auto launches = which == Launches::Every ? launches_of(*step, a)
                                                       : std::vector<typename Args::Launch>{step->default_launch(a)};
        for (const auto& l : launches) check_call(*step, l, a, out, h_out, e, k, what);
    }
}

/// The two calls of a BLAS op: beta = 0.5 (the output read; every launch of every step) and
/// beta = 0 (the output NaN; each step's default). `expected(beta)` gives the reference.
template <class T, class Args, class Reference>
void check_both_betas(Args a, Lines<T>& out, const std::vector<T>& h_out, Reference expected, std::size_t k,
                      const std::string& what) {
    for (T beta : {T(0.5), T(0)}) {
        a.beta = beta;
        const bool read = beta != T(0);
        check_steps(a, out, read ? h_out : std::vector<T>{}, expected(beta), k,
                    read ? Launches::Every : Launches::Default, true, what + (read ? ", beta 0.5" : ", beta 0"));
    }
}

// ---- GEMV: A far, 61 columns of m = 37 or 1200 rows (T: a short and a long reduction) ----

template <class T>
void gemv_large() {
    constexpr int n = 61, kMaxRows = 1200;
    if (const std::string why = skip_reason(far_bytes<T>(kMaxRows, n), std::string("gemv ") + prec_name<T>());
        !why.empty())
        WB_SKIP_LARGE(why);
    const std::uint64_t seed = wb::fresh_seed();
    INFO("gemv " << prec_name<T>() << " seed " << seed);
    const T alpha = T(1.25);
    for (const Layout& lay : {kOdd, kAligned, Layout{true, 1, "aligned ld, A one element in"}})
        for (int m : {37, kMaxRows}) {
            Lines<T> A(m, n, far_ld<T>(n, lay.aligned), lay.offset);
            const std::vector<T> hA = wb::random_vector<T>(static_cast<std::size_t>(m) * n, seed + m);
            A.upload(hA);
            for (Op op : {Op::N, Op::T}) {
                const int lx = op == Op::N ? n : m, ly = op == Op::N ? m : n;
                Lines<T> x(lx, 1, lx, 0), y(ly, 1, ly, 0);
                const std::vector<T> hx = wb::random_vector<T>(lx, seed + 1),
                                     hy = wb::random_vector<T>(ly, seed + 2);
                x.upload(hx);
                const wb::GemvArgs<T> a{op, m, n, alpha, A.data(), A.ld(), x.data(), T(0), y.data()};
                const bool t = op == Op::T;
                auto expected = [&](T beta) {
                    return Expected{wb::ref::gemv<T>(t, m, n, alpha, hA, m, hx, beta, hy),
                                    wb::ref::gemv<T>(t, m, n, std::abs(alpha), abs_of(hA), m, abs_of(hx),
                                                     std::abs(beta), abs_of(hy))};
                };
                std::ostringstream what;
                what << "gemv " << prec_name<T>() << " " << wb::op_char(op) << " m=" << m << " n=" << n
                     << " lda=" << A.ld() << " (" << lay.name << ")";
                check_both_betas(a, y, hy, expected, static_cast<std::size_t>(lx) + 1, what.str());
            }
        }
}

// ---- GEMM: 37 x 45 x 40, A, B or C far in turn ----

template <class T>
void gemm_large() {
    constexpr int m = 37, n = 45, k = 40;
    // The largest far operand: 45 rows (B stored n x k) of the fewest columns (37).
    if (const std::string why = skip_reason(far_bytes<T>(n, m), std::string("gemm ") + prec_name<T>()); !why.empty())
        WB_SKIP_LARGE(why);
    const std::uint64_t seed = wb::fresh_seed();
    INFO("gemm " << prec_name<T>() << " seed " << seed);
    std::vector<int> columns(n);
    for (int j = 0; j < n; ++j) columns[j] = j;
    const char* const names[] = {"A", "B", "C"};
    for (int far = 0; far < 3; ++far)
        for (const Layout& lay : {kOdd, kAligned})
            for (Op oa : {Op::N, Op::T})
                for (Op ob : {Op::N, Op::T}) {
                    // Operand `which` (0 A, 1 B, 2 C) as stored: rows x cols, far or small.
                    auto lines = [&](int which, int rows, int cols) {
                        const long long ld = which == far ? far_ld<T>(cols, lay.aligned) : near_ld(rows, lay.aligned);
                        return Lines<T>(rows, cols, ld, 0);
                    };
                    const int ra = oa == Op::N ? m : k, ca = oa == Op::N ? k : m;
                    const int rb = ob == Op::N ? k : n, cb = ob == Op::N ? n : k;
                    Lines<T> A = lines(0, ra, ca), B = lines(1, rb, cb), C = lines(2, m, n);
                    const std::vector<T> hA = wb::random_vector<T>(static_cast<std::size_t>(ra) * ca, seed),
                                         hB = wb::random_vector<T>(static_cast<std::size_t>(rb) * cb, seed + 1),
                                         hC = wb::random_vector<T>(static_cast<std::size_t>(m) * n, seed + 2);
                    A.upload(hA);
                    B.upload(hB);
                    const wb::GemmArgs<T> a{.op_a = oa, .op_b = ob, .m = m, .n = n, .k = k, .alpha = T(-0.75),
                                            .A = A.data(), .lda = A.ld(), .B = B.data(), .ldb = B.ld(),
                                            .C = C.data(), .ldc = C.ld()};
                    const wb::ref::GemmOperands<T> o{.op_a = oa, .op_b = ob, .m = m, .n = n, .k = k, .A = &hA,
                                                     .lda = ra, .B = &hB, .ldb = rb, .C = &hC, .ldc = m};
                    auto expected = [&](T beta) {
                        Expected e;
                        e.ref = wb::ref::gemm_columns<T>(o, a.alpha, beta, columns, false, &e.scale);
                        return e;
                    };
                    std::ostringstream what;
                    what << "gemm " << prec_name<T>() << " " << wb::op_char(oa) << wb::op_char(ob) << " " << m << "x"
                         << n << "x" << k << ", " << names[far] << " far (" << lay.name << "): lda=" << a.lda
                         << " ldb=" << a.ldb << " ldc=" << a.ldc;
                    check_both_betas(a, C, hC, expected, static_cast<std::size_t>(k) + 1, what.str());
                }
}

// ---- SYMV: n = 777, A far, lower and upper ----

template <class T>
void symv_large() {
    constexpr int n = 777;
    if (const std::string why = skip_reason(far_bytes<T>(n, n), std::string("symv ") + prec_name<T>()); !why.empty())
        WB_SKIP_LARGE(why);
    const std::uint64_t seed = wb::fresh_seed();
    INFO("symv " << prec_name<T>() << " seed " << seed);
    const std::vector<T> hx = wb::random_vector<T>(n, seed + 1), hy = wb::random_vector<T>(n, seed + 2);
    for (const Layout& lay : {kOdd, kAligned, Layout{true, 33, "aligned ld, A 33 elements in"}}) {
        Lines<T> A(n, n, far_ld<T>(n, lay.aligned), lay.offset), x(n, 1, n, 0), y(n, 1, n, 0);
        x.upload(hx);
        for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
            // The stored triangle random, the other one NaN: a step that reads it fails.
            std::vector<T> hA = wb::random_vector<T>(static_cast<std::size_t>(n) * n, seed + 3);
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i)
                    if (u == Uplo::Lower ? i < j : i > j)
                        hA[i + static_cast<std::size_t>(j) * n] = std::numeric_limits<T>::quiet_NaN();
            A.upload(hA);
            const wb::SymvArgs<T> a{.uplo = u, .n = n, .alpha = T(1.5), .A = A.data(), .lda = A.ld(), .x = x.data(),
                                    .y = y.data()};
            auto expected = [&](T beta) {
                Expected e;
                e.ref = wb::ref::symv<T>(u, n, a.alpha, hA, n, hx, beta, hy, 0, &e.scale);
                return e;
            };
            std::ostringstream what;
            what << "symv " << prec_name<T>() << " " << wb::uplo_char(u) << " n=" << n << " lda=" << a.lda << " ("
                 << lay.name << ")";
            check_both_betas(a, y, hy, expected, static_cast<std::size_t>(n) + 1, what.str());
        }
    }
}

// ---- conv2d: 301 x 299, the input or the output far ----

template <class T>
void conv2d_large() {
    constexpr int rows = 301, cols = 299;
    // The far image and the other one (aligned pitch, at most cols + 64).
    const std::size_t near = Lines<T>::elements(cols, rows, cols + 64, 0) * sizeof(T);
    if (const std::string why = skip_reason(far_bytes<T>(cols, rows) + near, std::string("conv2d ") + prec_name<T>());
        !why.empty())
        WB_SKIP_LARGE(why);
    const std::uint64_t seed = wb::fresh_seed();
    INFO("conv2d " << prec_name<T>() << " seed " << seed);
    const std::vector<T> hin = wb::random_vector<T>(static_cast<std::size_t>(rows) * cols, seed);
    // FS = 3 (streamed and unrolled kernels), 7 (unrolled only), 9 (the generic and blocked
    // kernels), 31 (the tuned step's filter-row kernel): each with its reference, made once.
    struct Filter {
        int fs;
        std::vector<T> h;
        Expected e;
    };
    std::vector<Filter> filters;
    for (int fs : {3, 7, 9, 31}) {
        Filter f{fs, wb::random_vector<T>(static_cast<std::size_t>(fs) * fs, seed + fs), {}};
        const wb::ref::Conv2dOperands<T> o{.rows = rows, .cols = cols, .fs = fs, .in = &hin, .in_pitch = cols,
                                           .filter = &f.h};
        f.e.ref = wb::ref::conv2d<T>(o, false, &f.e.scale);
        filters.push_back(std::move(f));
    }
    for (bool far_out : {false, true})
        for (const Layout& lay : {kOdd, kAligned}) {
            auto pitch = [&](bool far) { return far ? far_ld<T>(rows, lay.aligned) : near_ld(cols, lay.aligned); };
            Lines<T> in(cols, rows, pitch(!far_out), 0), out(cols, rows, pitch(far_out), 0);
            in.upload(hin);
            for (const Filter& f : filters) {
                const int taps = f.fs * f.fs;
                Lines<T> filter(taps, 1, taps, 0);
                filter.upload(f.h);
                const wb::Conv2dArgs<T> a{.rows = rows, .cols = cols, .fs = f.fs, .in = in.data(), .in_pitch = in.ld(),
                                          .filter = filter.data(), .out = out.data(), .out_pitch = out.ld()};
                std::ostringstream what;
                what << "conv2d " << prec_name<T>() << " " << rows << "x" << cols << " fs=" << f.fs << ", "
                     << (far_out ? "out" : "in") << " far (" << lay.name << "): in_pitch=" << a.in_pitch
                     << " out_pitch=" << a.out_pitch;
                // The output NaN before every call (every element must be written); k = FS^2, as
                // conv2d_reduction_length gives the steps.
                check_steps(a, out, {}, f.e, static_cast<std::size_t>(taps), Launches::Every, false, what.str());
            }
        }
}

// ---- CG: n = 1100, A far ----

template <class T>
void cg_large() {
    constexpr int n = 1100;  // above the tuned SYMV's row-panel sizes: CG's tuned step runs the tiles
    if (const std::string why = skip_reason(far_bytes<T>(n, n), std::string("cg ") + prec_name<T>()); !why.empty())
        WB_SKIP_LARGE(why);
    const double kappa = 100, tol = sizeof(T) == 4 ? 1e-5 : 1e-10;
    const int max_iter = 10 * n + 200;
    const std::uint64_t seed = wb::fresh_seed();
    INFO("cg " << prec_name<T>() << " n=" << n << " kappa=" << kappa << " tol=" << tol << " seed " << seed);
    const std::size_t nn = static_cast<std::size_t>(n);
    std::vector<T> hA(nn * nn);
    wb::ref::spd_matrix<T>(n, kappa, seed, hA.data(), n);
    // The SYMV steps (4, 5) read the lower triangle only: they also run with the upper one NaN.
    std::vector<T> hA_lower = hA;
    for (std::size_t j = 1; j < nn; ++j)
        for (std::size_t i = 0; i < j; ++i) hA_lower[i + j * nn] = std::numeric_limits<T>::quiet_NaN();
    const std::vector<T> x_true = wb::random_vector<T>(nn, seed + 1);
    std::vector<T> hb(nn), hx0 = wb::random_vector<T>(nn, seed + 2);
    for (std::size_t i = 0; i < nn; ++i) {
        double s = 0;
        for (std::size_t j = 0; j < nn; ++j) s += static_cast<double>(hA[i + j * nn]) * x_true[j];
        hb[i] = static_cast<T>(s);
        hx0[i] *= T(0.5);
    }
    const int ref_iterations = wb::ref::cg<double, T>(n, hA.data(), n, hb, hx0, tol, max_iter).iterations;
    const double bound = wb::cg_residual_bound<T>(tol, kappa);
    for (const Layout& lay : {kOdd, kAligned}) {
        Lines<T> A(n, n, far_ld<T>(n, lay.aligned), 0), b(n, 1, n, 0), x(n, 1, n, 0);
        b.upload(hb);
        for (bool lower_only : {false, true}) {
            A.upload(lower_only ? hA_lower : hA);
            wb::CgResult r;
            const wb::CgArgs<T> a{.n = n, .A = A.data(), .lda = A.ld(), .b = b.data(), .x = x.data(), .tol = tol,
                                  .max_iter = max_iter, .result = &r};
            for (const auto* step : steps_of<wb::CgArgs<T>>(true)) {
                if (lower_only && step->chapter < 4) continue;  // their Mv (GEMV) reads the whole matrix
                for (const wb::CgLaunch& l : launches_of(*step, a)) {
                    INFO("lda=" << a.lda << " (" << lay.name << (lower_only ? ", upper triangle NaN" : "") << "): "
                                << step->stage << " launch " << l.str());
                    x.upload(hx0);
                    r = wb::CgResult{-1, NAN, wb::CgStatus::MaxIter};
                    step->launch(a, l, nullptr);
                    WB_CUDA(cudaDeviceSynchronize());
                    const std::vector<T> xs = x.download();
                    const double res = wb::ref::true_residual<T>(n, hA.data(), n, hb.data(), xs.data());
                    INFO(r.iterations << " iterations (float64 reference " << ref_iterations << "), status "
                                      << wb::cg_status_name(r.status) << ", residual " << r.residual
                                      << ", true residual " << res << " (bound " << bound << ")");
                    CHECK(r.status == wb::CgStatus::Converged);
                    CHECK(res <= bound);
                    CHECK(r.residual <= tol * (1 + 1e-6));  // (1 + 1e-6): tol^2 b.b is rounded to T
                    CHECK(r.iterations <= 1.1 * ref_iterations + 2);
                    CHECK(x.guards_intact());
                }
            }
        }
    }
}

}  // namespace

TEST_CASE("large offsets: gemv, every step and launch, N and T, A's last column past 16 GiB", "[gpu][gemv][large]") {
    gemv_large<float>();
    gemv_large<double>();
}

TEST_CASE("large offsets: gemm, every step and mode, A, B or C past 16 GiB, NN NT TN TT", "[gpu][gemm][large]") {
    gemm_large<float>();
    gemm_large<double>();
}

TEST_CASE("large offsets: symv, every step and mode, lower and upper, A's last column past 16 GiB",
          "[gpu][symv][large]") {
    symv_large<float>();
    symv_large<double>();
}

TEST_CASE("large offsets: conv2d, every step and launch, the input's or output's last row past 16 GiB",
          "[gpu][conv2d][large]") {
    conv2d_large<float>();
    conv2d_large<double>();
}

TEST_CASE("large offsets: cg, every step and launch, A's last column past 16 GiB", "[gpu][cg][large]") {
    cg_large<float>();
    cg_large<double>();
}
