/// \file symv_problem.cpp
/// \brief SYMV problems: inputs, reference, checked call and timed call (see symv_problem.hpp).
#include "symv_problem.hpp"

#include "check.hpp"
#include "random.hpp"
#include "reference_symv.hpp"
#include "roofline.hpp"
#include "time_step.hpp"
#include "tuned/symv_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace wb {

template <class T>
double SymvProblem<T>::useful_bytes() const {
    return roofline::symv_bytes(n, sizeof(T));
}

template <class T>
std::vector<double> SymvProblem<T>::reference() const {
    if (!ref_.empty() || n == 0) return ref_;
    std::vector<T> xs(hx.begin() + static_cast<std::ptrdiff_t>(vec_offset), hx.end());
    std::vector<T> ys(hy.begin() + static_cast<std::ptrdiff_t>(vec_offset), hy.end());
    std::vector<double> scale;
    ref_ = ref::symv<T>(uplo, n, alpha, hA, lda, xs, beta, ys, offset, &scale);
    scale_ = std::move(scale);
    return ref_;
}

template <class T>
const std::vector<double>& SymvProblem<T>::error_scale() const {
    if (scale_.empty() && n > 0) reference();
    return scale_;
}

namespace {

/// The shared part of both makers: A's array `hA` (offset + lda x n elements, already filled) gets
/// its NaNs, x and y are drawn, everything is uploaded.
template <class T>
SymvProblem<T> finish_problem(std::vector<T> hA, Uplo uplo, int n, int lda, std::uint64_t seed, T alpha, T beta,
                              std::size_t offset) {
    SymvProblem<T> p;
    p.uplo = uplo;
    p.n = n;
    p.lda = lda;
    p.alpha = alpha;
    p.beta = beta;
    p.offset = offset;
    p.vec_offset = offset != 0 ? 1 : 0;
    p.seed = seed;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const std::size_t cols = static_cast<std::size_t>(n);
    p.hA = std::move(hA);
    std::fill(p.hA.begin(), p.hA.begin() + static_cast<std::ptrdiff_t>(offset), nan);
    const bool lower = uplo == Uplo::Lower;
    for (int j = 0; j < n; ++j) {
        T* col = p.hA.data() + offset + static_cast<std::size_t>(j) * lda;
        for (int i = 0; i < lda; ++i)
            if (i >= n || (lower ? i < j : i > j)) col[i] = nan;  // padding rows and the unread triangle
    }
    p.hx = random_vector<T>(p.vec_offset + cols, seed + 1);
    p.hy = random_vector<T>(p.vec_offset + cols, seed + 2);
    if (p.vec_offset) p.hx[0] = p.hy[0] = nan;
    p.A = DeviceBuffer<T>(p.hA);
    p.x = DeviceBuffer<T>(p.hx);
    p.y = DeviceBuffer<T>(p.hy);
    return p;
}

void check_shape(const char* fn, int n, int lda) {
    if (n < 0) throw std::invalid_argument(std::string(fn) + ": n (" + std::to_string(n) + ") must be >= 0");
    if (lda < std::max(1, n))
        throw std::invalid_argument(std::string(fn) + ": lda (" + std::to_string(lda) + ") must be >= max(1, n) (" +
                                    std::to_string(std::max(1, n)) + ")");
}

}  // namespace

template <class T>
SymvProblem<T> make_symv_problem(Uplo uplo, int n, int lda, std::uint64_t seed, T alpha, T beta, std::size_t offset) {
    check_shape("make_symv_problem", n, lda);
    return finish_problem(random_vector<T>(offset + static_cast<std::size_t>(lda) * static_cast<std::size_t>(n), seed),
                          uplo, n, lda, seed, alpha, beta, offset);
}

template <class T>
SymvProblem<T> make_symv_problem_from(const std::vector<T>& values, Uplo uplo, int n, int lda, std::uint64_t seed,
                                      T alpha, T beta, std::size_t offset) {
    check_shape("make_symv_problem_from", n, lda);
    const std::size_t need = offset + static_cast<std::size_t>(lda) * static_cast<std::size_t>(n);
    if (values.size() < need)
        throw std::invalid_argument("make_symv_problem_from: values (" + std::to_string(values.size()) +
                                    " elements) must hold offset + lda x n (" + std::to_string(need) + ")");
    return finish_problem(std::vector<T>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(need)), uplo, n,
                          lda, seed, alpha, beta, offset);
}

namespace {

template <class T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace

template <class T>
CheckResult check_symv(const SymvStep<T>& step, const SymvLaunch& launch, SymvProblem<T>& p,
                       const std::vector<double>& ref) {
    const bool work = p.n > 0 && !(p.alpha == T(0) && p.beta == T(1));
    std::vector<T> before = p.hy;
    if (p.beta == T(0) && work) {
        // NaN: y must not be read. The prefix keeps its NaN too (compared bit for bit below).
        std::fill(before.begin() + static_cast<std::ptrdiff_t>(p.vec_offset), before.end(),
                  std::numeric_limits<T>::quiet_NaN());
    }
    p.y.upload(before);
    step.launch(p.args(), launch, nullptr);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<T> all = p.y.download();
    p.y.upload(p.hy);
    CheckResult c;
    for (std::size_t i = 0; i < p.vec_offset; ++i)
        if (!same_bits(all[i], before[i])) c.first_bad = "y[-" + std::to_string(p.vec_offset - i) + "] (before y) was written";
    if (!work) {
        for (std::size_t i = 0; i < all.size() && c.first_bad.empty(); ++i)
            if (!same_bits(all[i], before[i])) c.first_bad = "y[" + std::to_string(i) + "] changed on a quick return";
        c.tolerance = 0;
        c.rel_error = c.first_bad.empty() ? 0 : INFINITY;
        return c;
    }
    const std::vector<T> out(all.begin() + static_cast<std::ptrdiff_t>(p.vec_offset), all.end());
    const std::string outside = c.first_bad;
    c = compare_output(out, ref, p.error_scale(), static_cast<std::size_t>(p.n) + 1);
    if (!outside.empty() && c.first_bad.empty()) c.first_bad = outside;
    return c;
}

template <class T>
BenchStats time_symv(const SymvStep<T>& step, const SymvLaunch& launch, SymvProblem<T>& p, BenchOptions opt) {
    BenchStats s = time_step(step, launch, p.args(), p.useful_bytes(), opt);
    p.y.upload(p.hy);
    return s;
}

template struct SymvProblem<float>;
template struct SymvProblem<double>;
template SymvProblem<float> make_symv_problem<float>(Uplo, int, int, std::uint64_t, float, float, std::size_t);
template SymvProblem<double> make_symv_problem<double>(Uplo, int, int, std::uint64_t, double, double, std::size_t);
template SymvProblem<float> make_symv_problem_from<float>(const std::vector<float>&, Uplo, int, int, std::uint64_t, float,
                                                          float, std::size_t);
template SymvProblem<double> make_symv_problem_from<double>(const std::vector<double>&, Uplo, int, int, std::uint64_t,
                                                            double, double, std::size_t);
template CheckResult check_symv<float>(const SymvStep<float>&, const SymvLaunch&, SymvProblem<float>&,
                                       const std::vector<double>&);
template CheckResult check_symv<double>(const SymvStep<double>&, const SymvLaunch&, SymvProblem<double>&,
                                        const std::vector<double>&);
template BenchStats time_symv<float>(const SymvStep<float>&, const SymvLaunch&, SymvProblem<float>&, BenchOptions);
template BenchStats time_symv<double>(const SymvStep<double>&, const SymvLaunch&, SymvProblem<double>&, BenchOptions);

model::SymvModelLaunch symv_model_launch(const SymvLaunch& l) {
    model::SymvModelLaunch m;
    m.block_threads = std::max(1, l.block_x) * std::max(1, l.block_y);
    m.nb = l.nb;
    m.y_blocks = std::max(1, l.y_blocks);
    m.atomics = l.atomics == 1;
    m.warp_rows = tuned::symv_layout_of(l) == tuned::SymvLayout::kWarpRows;
    return m;
}

MemoryNeed symv_memory_need(std::size_t elem, int n, int lda, std::size_t offset) {
    const double s = static_cast<double>(elem), dn = std::max(0, n);
    const double a = s * (static_cast<double>(offset) + static_cast<double>(std::max(1, lda)) * dn);
    const double partials = s * dn * (std::ceil(dn / 32) + 2);
    MemoryNeed need;
    need.device_bytes = a + s * 2 * (dn + 1) + partials;
    need.host_bytes = 2 * a + s * 4 * (dn + 1) + 3 * 8.0 * dn;
    return need;
}

}  // namespace wb
