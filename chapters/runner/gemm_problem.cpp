/// \file gemm_problem.cpp
/// \brief GEMM problems: inputs, reference, checked call and timed call (see gemm_problem.hpp).
#include "gemm_problem.hpp"

#include "error_norm.hpp"  // tolerance()
#include "random.hpp"
#include "reference_gemm.hpp"
#include "roofline.hpp"
#include "time_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace wb {

std::string GemmShape::str() const {
    std::ostringstream os;
    os << op_char(op_a) << op_char(op_b) << ' ' << m << 'x' << n << 'x' << k;
    if (lda != 0 && lda != std::max(1, rows_a())) os << " lda=" << lda;
    if (ldb != 0 && ldb != std::max(1, rows_b())) os << " ldb=" << ldb;
    if (ldc != 0 && ldc != std::max(1, m)) os << " ldc=" << ldc;
    if (offset != 0) os << " offset=" << offset;
    return os.str();
}

namespace {

template <class T>
ref::GemmOperands<T> operands(const GemmProblem<T>& p) {
    ref::GemmOperands<T> o;
    o.op_a = p.shape.op_a;
    o.op_b = p.shape.op_b;
    o.m = p.shape.m;
    o.n = p.shape.n;
    o.k = p.shape.k;
    o.A = &p.hA;
    o.lda = p.shape.lda;
    o.B = &p.hB;
    o.ldb = p.shape.ldb;
    o.C = &p.hC;
    o.ldc = p.shape.ldc;
    o.offset = static_cast<std::size_t>(p.shape.offset);
    return o;
}

/// An array holding a rows x cols matrix with leading dimension ld after `offset` elements:
/// random inside the matrix, NaN everywhere else.
template <class T>
std::vector<T> matrix(int rows, int cols, int ld, int offset, std::uint64_t seed) {
    const std::size_t size = static_cast<std::size_t>(offset) + static_cast<std::size_t>(ld) * std::max(0, cols);
    std::vector<T> v = random_vector<T>(size, seed);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (int e = 0; e < offset && e < static_cast<int>(size); ++e) v[e] = nan;
    for (int j = 0; j < cols; ++j)
        for (int i = rows; i < ld; ++i) v[offset + static_cast<std::size_t>(j) * ld + i] = nan;
    return v;
}

template <class T>
T* base(DeviceBuffer<T>& b, int offset) {
    return b.size() == 0 ? nullptr : b.data() + offset;
}

template <class T>
bool same_bits_t(T a, T b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

template <class T>
GemmArgs<T> GemmProblem<T>::args() {
    GemmArgs<T> a;
    a.op_a = shape.op_a;
    a.op_b = shape.op_b;
    a.m = shape.m;
    a.n = shape.n;
    a.k = shape.k;
    a.alpha = alpha;
    a.A = base(A, shape.offset);
    a.lda = shape.lda;
    a.B = base(B, shape.offset);
    a.ldb = shape.ldb;
    a.beta = beta;
    a.C = base(C, shape.offset);
    a.ldc = shape.ldc;
    return a;
}

template <class T>
double GemmProblem<T>::useful_flops() const {
    return roofline::gemm_flops(shape.m, shape.n, shape.k);
}

template <class T>
double GemmProblem<T>::useful_bytes() const {
    const double m = shape.m, n = shape.n, k = shape.k;
    return static_cast<double>(sizeof(T)) * (m * k + k * n + m * n + (beta != T(0) ? m * n : 0.0));
}

template <class T>
const std::vector<int>& GemmProblem<T>::checked_columns() const {
    if (cols_set_) return cols_;
    cols_set_ = true;
    const int n = shape.n;
    const double mk = std::max(1.0, static_cast<double>(shape.m) * std::max(1, shape.k));
    if (n <= 0) return cols_;
    if (mk * n <= 2147483648.0) {  // 2^31 multiply-adds: the whole of C
        cols_.resize(n);
        for (int j = 0; j < n; ++j) cols_[j] = j;
        return cols_;
    }
    const int want = std::max(8, static_cast<int>(1073741824.0 / mk));  // 2^30 multiply-adds
    std::vector<int> all(n);
    for (int j = 0; j < n; ++j) all[j] = j;
    std::mt19937_64 g(seed ^ 0x9e3779b97f4a7c15ull);
    std::shuffle(all.begin() + 1, all.end() - 1, g);  // keep column 0 and column n-1 in the sample
    cols_.assign({0, n - 1});
    for (int e = 1; e < n - 1 && static_cast<int>(cols_.size()) < want; ++e) cols_.push_back(all[e]);
    std::sort(cols_.begin(), cols_.end());
    return cols_;
}

template <class T>
std::vector<double> GemmProblem<T>::reference() const {
    const auto& cols = checked_columns();
    if (shape.m <= 0 || cols.empty()) return {};
    // The error scale comes out of the same pass (kept for error_scale()).
    std::vector<double> scale;
    std::vector<double> r = ref::gemm_columns<T>(operands(*this), alpha, beta, cols, false, &scale);
    if (!scale_set_) {
        scale_ = std::move(scale);
        scale_set_ = true;
    }
    return r;
}

template <class T>
const std::vector<double>& GemmProblem<T>::error_scale() const {
    if (!scale_set_) {
        scale_set_ = true;
        scale_ = ref::gemm_columns<T>(operands(*this), alpha, beta, checked_columns(), /*absolute=*/true);
    }
    return scale_;
}

template <class T>
GemmProblem<T> make_gemm_problem(const GemmShape& s, std::uint64_t seed, T alpha, T beta) {
    auto bad = [](const std::string& what) { throw std::invalid_argument("make_gemm_problem: " + what); };
    if (s.m < 0 || s.n < 0 || s.k < 0)
        bad("m, n, k (" + std::to_string(s.m) + ", " + std::to_string(s.n) + ", " + std::to_string(s.k) +
            ") must be >= 0");
    if (s.offset < 0) bad("offset (" + std::to_string(s.offset) + ") must be >= 0");
    GemmProblem<T> p;
    p.shape = s;
    auto resolve = [&](int ld, int rows, const char* name) {
        const int tight = std::max(1, rows);
        if (ld == 0) return tight;
        if (ld < tight) bad(std::string(name) + " (" + std::to_string(ld) + ") must be 0 or >= " + std::to_string(tight));
        return ld;
    };
    p.shape.lda = resolve(s.lda, s.rows_a(), "lda");
    p.shape.ldb = resolve(s.ldb, s.rows_b(), "ldb");
    p.shape.ldc = resolve(s.ldc, s.m, "ldc");
    p.alpha = alpha;
    p.beta = beta;
    p.seed = seed;
    p.hA = matrix<T>(s.rows_a(), s.cols_a(), p.shape.lda, s.offset, seed);
    p.hB = matrix<T>(s.rows_b(), s.cols_b(), p.shape.ldb, s.offset, seed + 1);
    p.hC = matrix<T>(s.m, s.n, p.shape.ldc, s.offset, seed + 2);
    p.A = DeviceBuffer<T>(p.hA);
    p.B = DeviceBuffer<T>(p.hB);
    p.C = DeviceBuffer<T>(p.hC);
    return p;
}

template <class T>
CheckResult check_gemm(const Step<GemmArgs<T>>& step, const GemmLaunch& launch, GemmProblem<T>& p,
                       const std::vector<double>& ref) {
    const GemmShape& s = p.shape;
    const bool empty = s.m == 0 || s.n == 0;
    if (p.beta == T(0) && !empty)
        p.C.fill_bytes(0xFF);  // NaN: C must not be read (with m or n zero, C must stay as it is)
    else
        p.C.upload(p.hC);
    const std::vector<T> before = p.beta == T(0) && !empty ? p.C.download() : p.hC;
    step.launch(p.args(), launch, nullptr);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<T> all = p.C.download();
    p.C.upload(p.hC);

    // Outside the m x n window nothing may change (and nothing at all when m or n is 0).
    auto inside = [&](std::size_t e) {
        if (empty || e < static_cast<std::size_t>(s.offset)) return false;
        const std::size_t r = (e - s.offset) % s.ldc;
        return r < static_cast<std::size_t>(s.m);
    };
    for (std::size_t e = 0; e < all.size(); ++e)
        if (!inside(e) && !same_bits_t(all[e], before[e])) {
            CheckResult c;
            c.rel_error = INFINITY;
            c.tolerance = 0;
            c.first_bad = "element " + std::to_string(e) + " of C's array lies outside the " + std::to_string(s.m) +
                          " x " + std::to_string(s.n) + " matrix (ldc " + std::to_string(s.ldc) + ", offset " +
                          std::to_string(s.offset) + ") and was written";
            return c;
        }
    if (empty) return CheckResult{0, tolerance<T>(static_cast<std::size_t>(s.k) + 1), ""};

    const auto& cols = p.checked_columns();
    std::vector<T> out(cols.size() * static_cast<std::size_t>(s.m));
    for (std::size_t c = 0; c < cols.size(); ++c)
        for (int i = 0; i < s.m; ++i)
            out[c * s.m + i] = all[s.offset + static_cast<std::size_t>(cols[c]) * s.ldc + i];
    return compare_output<T>(out, ref, p.error_scale(), static_cast<std::size_t>(s.k) + 1);
}

template <class T>
BenchStats time_gemm(const Step<GemmArgs<T>>& step, const GemmLaunch& launch, GemmProblem<T>& p, BenchOptions opt) {
    BenchStats s = time_step(step, launch, p.args(), p.useful_bytes(), opt);
    p.C.upload(p.hC);
    return s;
}

template struct GemmProblem<float>;
template struct GemmProblem<double>;
template GemmProblem<float> make_gemm_problem<float>(const GemmShape&, std::uint64_t, float, float);
template GemmProblem<double> make_gemm_problem<double>(const GemmShape&, std::uint64_t, double, double);
template CheckResult check_gemm<float>(const Step<GemmArgs<float>>&, const GemmLaunch&, GemmProblem<float>&,
                                       const std::vector<double>&);
template CheckResult check_gemm<double>(const Step<GemmArgs<double>>&, const GemmLaunch&, GemmProblem<double>&,
                                        const std::vector<double>&);
template BenchStats time_gemm<float>(const Step<GemmArgs<float>>&, const GemmLaunch&, GemmProblem<float>&, BenchOptions);
template BenchStats time_gemm<double>(const Step<GemmArgs<double>>&, const GemmLaunch&, GemmProblem<double>&,
                                      BenchOptions);

MemoryNeed gemm_memory_need(std::size_t elem, const GemmShape& sh) {
    const double s = static_cast<double>(elem);
    auto array = [&](int ld, int rows, int cols) {
        return s * (sh.offset + static_cast<double>(ld > 0 ? ld : std::max(1, rows)) * std::max(0, cols));
    };
    const double a = array(sh.lda, sh.rows_a(), sh.cols_a()), b = array(sh.ldb, sh.rows_b(), sh.cols_b()),
                 c = array(sh.ldc, sh.m, sh.n);
    const double m = std::max(0, sh.m), n = std::max(0, sh.n), mk = std::max(1.0, m * std::max(1, sh.k));
    // checked_columns(): all of C while m n k <= 2^31, else about 2^30 / (m k) columns, at least 8.
    const double cols = mk * n <= 2147483648.0 ? n : std::min(n, std::max(8.0, 1073741824.0 / mk));
    constexpr double kTunedWorkspaces = 3 * 512.0 * 1024 * 1024;  // kMaxWorkspaceBytes each
    MemoryNeed need;
    need.device_bytes = a + b + c + kTunedWorkspaces;
    need.host_bytes = a + b + 3 * c + (s + 2 * 8.0) * m * cols;
    return need;
}

}  // namespace wb
