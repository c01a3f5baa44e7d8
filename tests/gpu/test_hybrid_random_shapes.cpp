// Chapter 7's hybrids on seeded random shapes. The other hybrid tests (test_hybrid_*.cpp) run one
// odd shape per op through every share and chunk; here each op draws 200 shapes, float and double
// in turn (20 under the sanitizers; one seed per run, printed, then one per shape):
// - sizes log-uniform from 1 (GEMM's k from 0: C = beta C), so that 1, small primes and sizes far
//   from any tile all come up; leading dimensions and pitches 0 - 5 past the width;
// - every operand at an element offset 0 - 3 in its allocation (a submatrix's base pointer), with
//   random guard elements before it: the guards and the padding past each column or row must come
//   back as they were (nothing written outside the output);
// - op N or T (both operands for GEMM), either triangle (SYMV: NaN in the other one and in the
//   padding), FS odd up to 35 (larger than the image included; the image halved until the
//   reference's products stay under 2^25); beta 0 over a NaN-poisoned output
//   or 0.5; alpha 1.25, at times 0; page-locked or pageable memory;
// - the GPU's share drawn from [0, len] (0 and len, the one-sided calls, at times) and its chunk
//   from [1, share + 3] (a chunk of one row, chunks that do not divide the share, one chunk).
// Each result is checked against the float64 reference with the bound for its reduction length.
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "hybrid_conv2d.hpp"
#include "hybrid_gemm.hpp"
#include "hybrid_gemv.hpp"
#include "hybrid_symv.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "reference_conv2d.hpp"
#include "reference_gemm.hpp"
#include "reference_symv.hpp"
#include "test_hybrid_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using wb::Op;
using wb::Uplo;

/// The draws of one run: sizes, offsets, shares.
struct Draw {
    std::mt19937_64 rng;
    explicit Draw(std::uint64_t seed) : rng(seed) {}
    /// Log-uniform in [lo, hi] (lo >= 1), hi included.
    int log_uniform(int lo, int hi) {
        const double x = std::uniform_real_distribution<double>(std::log2(lo), std::log2(hi + 1.0))(rng);
        return std::clamp(static_cast<int>(std::exp2(x)), lo, hi);
    }
    int uniform(int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1)); }
    bool chance(int one_in) { return rng() % static_cast<std::uint64_t>(one_in) == 0; }
    /// A GPU share of `len` outputs: none or all one time in five each, else inside.
    int share(int len) {
        const int r = uniform(0, 9);
        if (r < 2 || len < 2) return r % 2 ? len : 0;
        return uniform(1, len - 1);
    }
    int chunk(int share) { return uniform(1, std::max(1, share) + 3); }
};

/// An operand `payload` placed `offset` elements into its own allocation (page-locked or not),
/// after random guard elements; data() is the operand's base pointer.
template <class T>
class Placed {
public:
    Placed(const std::vector<T>& payload, int offset, bool pinned, std::uint64_t seed)
        : offset_(static_cast<std::size_t>(offset)), before_(wb::random_vector<T>(payload.size() + offset_, seed)),
          host_(with_payload(before_, payload, offset_), pinned) {
        std::copy(payload.begin(), payload.end(), before_.begin() + static_cast<std::ptrdiff_t>(offset_));
    }
    T* data() { return host_.data() + offset_; }
    /// The operand's elements now (the guards left out).
    std::vector<T> now() const {
        const std::vector<T> all = host_.copy();
        return std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(offset_), all.end());
    }
    /// Whether the guard elements are as they were.
    bool guards_kept() const {
        const std::vector<T> all = host_.copy();
        return std::memcmp(all.data(), before_.data(), offset_ * sizeof(T)) == 0;
    }

private:
    static std::vector<T> with_payload(std::vector<T> all, const std::vector<T>& payload, std::size_t off) {
        std::copy(payload.begin(), payload.end(), all.begin() + static_cast<std::ptrdiff_t>(off));
        return all;
    }
    std::size_t offset_;
    std::vector<T> before_;
    hybrid_test::Host<T> host_;
};

/// Shapes per op: fewer under the sanitizers (WB_TEST_SMALL).
int shape_count() { return hybrid_test::small() ? 20 : 200; }

template <class T>
void gemv_shape(Draw& d, std::uint64_t seed) {
    const Op op = d.chance(2) ? Op::T : Op::N;
    int m = d.log_uniform(1, 3000), n = d.log_uniform(1, 3000);
    const int lda = m + d.uniform(0, 5);
    const T alpha = d.chance(8) ? T(0) : T(1.25), beta = d.chance(2) ? T(0) : T(0.5);
    const bool pinned = d.chance(2);
    const int len_x = op == Op::N ? n : m, len_y = op == Op::N ? m : n;
    const int g = d.share(len_y), chunk = d.chunk(g);
    INFO("gemv " << (sizeof(T) == 8 ? "double" : "float") << " op " << wb::op_char(op) << " m " << m << " n " << n
                 << " lda " << lda << " alpha " << alpha << " beta " << beta << " pinned " << pinned << " gpu_rows " << g
                 << " chunk " << chunk << " seed " << seed);
    const auto A0 = wb::random_vector<T>(static_cast<std::size_t>(lda) * n, seed);
    const auto x0 = wb::random_vector<T>(static_cast<std::size_t>(len_x), seed + 1);
    auto y0 = wb::random_vector<T>(static_cast<std::size_t>(len_y), seed + 2);
    if (beta == T(0)) wb::poison(y0);
    const auto ref = wb::ref::gemv(op == Op::T, m, n, static_cast<double>(alpha), A0, lda, x0, static_cast<double>(beta), y0);
    // the reference has no scale output for GEMV: the same computation on the magnitudes
    const auto scale = wb::ref::gemv(op == Op::T, m, n, std::abs(static_cast<double>(alpha)), hybrid_test::abs_of(A0), lda,
                                     hybrid_test::abs_of(x0), std::abs(static_cast<double>(beta)), hybrid_test::abs_of(y0));
    Placed<T> A(A0, d.uniform(0, 3), pinned, seed + 3), x(x0, d.uniform(0, 3), pinned, seed + 4),
        y(y0, d.uniform(0, 3), pinned, seed + 5);
    wb::hybrid::gemv<T>({op, m, n, alpha, A.data(), lda, x.data(), beta, y.data()}, g, chunk);
    CHECK((A.guards_kept() && x.guards_kept() && y.guards_kept()));
    CHECK(A.now() == A0);
    hybrid_test::check_error_scaled(y.now(), ref, scale, static_cast<std::size_t>(len_x) + 1);
}

template <class T>
void gemm_shape(Draw& d, std::uint64_t seed) {
    const Op oa = d.chance(2) ? Op::T : Op::N, ob = d.chance(2) ? Op::T : Op::N;
    const int m = d.log_uniform(1, 400), n = d.log_uniform(1, 400), k = d.chance(10) ? 0 : d.log_uniform(1, 400);
    const int rows_a = oa == Op::N ? m : k, cols_a = oa == Op::N ? k : m;
    const int rows_b = ob == Op::N ? k : n, cols_b = ob == Op::N ? n : k;
    const int lda = std::max(1, rows_a) + d.uniform(0, 5), ldb = std::max(1, rows_b) + d.uniform(0, 5),
              ldc = m + d.uniform(0, 5);
    const T alpha = d.chance(8) ? T(0) : T(1.25), beta = d.chance(2) ? T(0) : T(0.5);
    const bool pinned = d.chance(2);
    const int g = d.share(n), chunk = d.chunk(g);
    INFO("gemm " << (sizeof(T) == 8 ? "double" : "float") << " op " << wb::op_char(oa) << wb::op_char(ob) << " m " << m
                 << " n " << n << " k " << k << " lda " << lda << " ldb " << ldb << " ldc " << ldc << " alpha " << alpha
                 << " beta " << beta << " pinned " << pinned << " gpu_cols " << g << " chunk " << chunk << " seed " << seed);
    const auto A0 = wb::random_vector<T>(static_cast<std::size_t>(lda) * std::max(1, cols_a), seed);
    const auto B0 = wb::random_vector<T>(static_cast<std::size_t>(ldb) * std::max(1, cols_b), seed + 1);
    auto C0 = wb::random_vector<T>(static_cast<std::size_t>(ldc) * n, seed + 2);
    if (beta == T(0))  // the m rows of each column poisoned; the padding keeps its values
        for (int j = 0; j < n; ++j)
            std::fill_n(C0.begin() + static_cast<std::ptrdiff_t>(j) * ldc, m, std::numeric_limits<T>::quiet_NaN());
    wb::ref::GemmOperands<T> o;
    o.op_a = oa, o.op_b = ob, o.m = m, o.n = n, o.k = k;
    o.A = &A0, o.lda = lda, o.B = &B0, o.ldb = ldb, o.C = &C0, o.ldc = ldc;
    std::vector<int> every(static_cast<std::size_t>(n));
    std::iota(every.begin(), every.end(), 0);
    std::vector<double> scale;  // |alpha||op(A)||op(B)| + |beta||C|, in the same pass
    const auto ref = wb::ref::gemm_columns(o, static_cast<double>(alpha), static_cast<double>(beta), every, false, &scale);
    Placed<T> A(A0, d.uniform(0, 3), pinned, seed + 3), B(B0, d.uniform(0, 3), pinned, seed + 4),
        C(C0, d.uniform(0, 3), pinned, seed + 5);
    wb::hybrid::gemm<T>({oa, ob, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc}, g, chunk);
    CHECK((A.guards_kept() && B.guards_kept() && C.guards_kept()));
    bool padding_kept = false;
    const auto out = hybrid_test::packed(C.now(), C0, n, m, ldc, &padding_kept);
    CHECK(padding_kept);
    hybrid_test::check_error_scaled(out, ref, scale, static_cast<std::size_t>(k) + 1);
}

template <class T>
void symv_shape(Draw& d, std::uint64_t seed) {
    const Uplo uplo = d.chance(2) ? Uplo::Upper : Uplo::Lower;
    const int n = d.log_uniform(1, 2500), lda = n + d.uniform(0, 5);
    const T alpha = d.chance(8) ? T(0) : T(1.25), beta = d.chance(2) ? T(0) : T(0.5);
    const bool pinned = d.chance(2);
    const int g = d.share(n), chunk = d.chunk(g);
    INFO("symv " << (sizeof(T) == 8 ? "double" : "float") << " uplo " << wb::uplo_char(uplo) << " n " << n << " lda "
                 << lda << " alpha " << alpha << " beta " << beta << " pinned " << pinned << " gpu_rows " << g << " chunk "
                 << chunk << " seed " << seed);
    auto A0 = wb::random_vector<T>(static_cast<std::size_t>(lda) * n, seed);
    for (int j = 0; j < n; ++j)  // NaN in the other triangle and the padding: neither side may read them
        for (int i = 0; i < lda; ++i)
            if (i >= n || (uplo == Uplo::Lower ? i < j : i > j))
                A0[static_cast<std::size_t>(j) * lda + i] = std::numeric_limits<T>::quiet_NaN();
    const auto x0 = wb::random_vector<T>(static_cast<std::size_t>(n), seed + 1);
    auto y0 = wb::random_vector<T>(static_cast<std::size_t>(n), seed + 2);
    if (beta == T(0)) wb::poison(y0);
    std::vector<double> scale;  // |alpha||A||x| + |beta||y|, in the same pass
    const auto ref =
        wb::ref::symv(uplo, n, static_cast<double>(alpha), A0, lda, x0, static_cast<double>(beta), y0, 0, &scale);
    Placed<T> A(A0, d.uniform(0, 3), pinned, seed + 3), x(x0, d.uniform(0, 3), pinned, seed + 4),
        y(y0, d.uniform(0, 3), pinned, seed + 5);
    wb::hybrid::symv<T>({uplo, n, alpha, A.data(), lda, x.data(), 1, beta, y.data(), 1}, g, chunk);
    CHECK((A.guards_kept() && x.guards_kept() && y.guards_kept()));
    hybrid_test::check_error_scaled(y.now(), ref, scale, static_cast<std::size_t>(n) + 1);
}

template <class T>
void conv2d_shape(Draw& d, std::uint64_t seed) {
    const int fs = 2 * d.uniform(0, 17) + 1;
    int rows = d.log_uniform(1, 1200), cols = d.log_uniform(1, 1200);
    while (static_cast<long long>(rows) * cols * fs * fs > (1LL << 25))  // the float64 reference's time
        (rows > cols ? rows : cols) = (rows > cols ? rows : cols) / 2 + 1;
    const int in_pitch = cols + d.uniform(0, 5), out_pitch = cols + d.uniform(0, 5);
    const bool pinned = d.chance(2);
    const int g = d.share(rows), chunk = d.chunk(g);
    INFO("conv2d " << (sizeof(T) == 8 ? "double" : "float") << " " << rows << " x " << cols << " FS " << fs
                   << " in_pitch " << in_pitch << " out_pitch " << out_pitch << " pinned " << pinned << " gpu_rows " << g
                   << " chunk " << chunk << " seed " << seed);
    const auto in0 = wb::random_vector<T>(static_cast<std::size_t>(in_pitch) * rows, seed);
    const auto f0 = wb::random_vector<T>(static_cast<std::size_t>(fs) * fs, seed + 1);
    auto out0 = wb::random_vector<T>(static_cast<std::size_t>(out_pitch) * rows, seed + 2);
    for (int r = 0; r < rows; ++r)  // the image poisoned; the padding keeps its values
        std::fill_n(out0.begin() + static_cast<std::ptrdiff_t>(r) * out_pitch, cols, std::numeric_limits<T>::quiet_NaN());
    wb::ref::Conv2dOperands<T> o;
    o.rows = rows, o.cols = cols, o.fs = fs, o.in = &in0, o.in_pitch = in_pitch, o.filter = &f0;
    std::vector<double> scale;  // |filter| (x) |in|, in the same pass
    const auto ref = wb::ref::conv2d(o, false, &scale);
    Placed<T> in(in0, d.uniform(0, 3), pinned, seed + 3), f(f0, d.uniform(0, 3), pinned, seed + 4),
        out(out0, d.uniform(0, 3), pinned, seed + 5);
    wb::hybrid::conv2d<T>({rows, cols, fs, in.data(), in_pitch, f.data(), out.data(), out_pitch}, g, chunk);
    CHECK((in.guards_kept() && f.guards_kept() && out.guards_kept()));
    bool padding_kept = false;
    const auto img = hybrid_test::packed(out.now(), out0, rows, cols, out_pitch, &padding_kept);
    CHECK(padding_kept);
    hybrid_test::check_error_scaled(img, ref, scale, static_cast<std::size_t>(fs) * fs);
}

/// Runs `shape_count()` shapes of one op, float and double in turn, from one printed run seed.
template <class F, class D>
void run_shapes(const char* op, F&& one_float, D&& one_double) {
    const std::uint64_t run_seed = wb::fresh_seed();
    Draw d(run_seed);
    for (int i = 0; i < shape_count(); ++i) {
        const std::uint64_t seed = d.rng();
        INFO(op << ": run seed " << run_seed << " (WB_SEED replays it), shape " << i);
        if (i % 2) one_double(d, seed);
        else one_float(d, seed);
    }
}

}  // namespace

TEST_CASE("hybrid::gemv on seeded random shapes, offsets and shares", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    run_shapes("gemv", gemv_shape<float>, gemv_shape<double>);
}

TEST_CASE("hybrid::gemm on seeded random shapes, offsets and shares", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    run_shapes("gemm", gemm_shape<float>, gemm_shape<double>);
}

TEST_CASE("hybrid::symv on seeded random shapes, offsets and shares", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    run_shapes("symv", symv_shape<float>, symv_shape<double>);
}

TEST_CASE("hybrid::conv2d on seeded random shapes, offsets and shares", "[gpu][split]") {
    run_shapes("conv2d", conv2d_shape<float>, conv2d_shape<double>);
}
