/// \file gemv_problem.cpp
/// \brief GEMV problems: inputs, reference, checked call and timed call (see gemv_problem.hpp).
#include "gemv_problem.hpp"

#include "compare.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "roofline.hpp"
#include "time_step.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <limits>
#include <stdexcept>

namespace wb {

template <class T>
double GemvProblem<T>::useful_bytes() const {
    return roofline::gemv_bytes(op == Op::T, m, n, sizeof(T), beta != T(0));
}

template <class T>
std::vector<double> GemvProblem<T>::reference() const {
    return ref::gemv<T>(op == Op::T, m, n, alpha, hA, lda, hx, beta, hy);
}

template <class T>
const std::vector<double>& GemvProblem<T>::error_scale() const {
    if (scale_.empty() && (op == Op::N ? m : n) > 0) {
        auto absv = [](const std::vector<T>& v) {
            std::vector<T> a(v.size());
            for (std::size_t i = 0; i < v.size(); ++i) a[i] = std::isnan(v[i]) ? v[i] : std::abs(v[i]);
            return a;
        };
        scale_ = ref::gemv<T>(op == Op::T, m, n, std::abs(static_cast<double>(alpha)), absv(hA), lda, absv(hx),
                              std::abs(static_cast<double>(beta)), absv(hy));
    }
    return scale_;
}

template <class T>
GemvProblem<T> make_gemv_problem(Op op, int m, int n, int lda, std::uint64_t seed, T alpha, T beta, int a_offset,
                                 int x_offset) {
    if (lda < std::max(1, m))
        throw std::invalid_argument("make_gemv_problem: lda (" + std::to_string(lda) + ") must be >= max(1, m) (" +
                                    std::to_string(std::max(1, m)) + ")");
    if (a_offset < 0 || x_offset < 0)
        throw std::invalid_argument("make_gemv_problem: a_offset (" + std::to_string(a_offset) + ") and x_offset (" +
                                    std::to_string(x_offset) + ") must be >= 0");
    GemvProblem<T> p;
    p.op = op;
    p.m = m;
    p.n = n;
    p.lda = lda;
    p.alpha = alpha;
    p.beta = beta;
    p.seed = seed;
    p.hA = random_vector<T>(static_cast<std::size_t>(lda) * n, seed);
    // Rows m..lda-1 are not part of A: NaN there makes any read of them visible.
    for (int j = 0; j < n; ++j)
        for (int i = m; i < lda; ++i) p.hA[static_cast<std::size_t>(j) * lda + i] = std::numeric_limits<T>::quiet_NaN();
    const int lx = op == Op::N ? n : m, ly = op == Op::N ? m : n;
    p.hx = random_vector<T>(lx, seed + 1);
    p.hy = random_vector<T>(ly, seed + 2);
    p.a_offset = a_offset;
    p.x_offset = x_offset;
    auto with_prefix = [](const std::vector<T>& v, int prefix) {
        std::vector<T> out(static_cast<std::size_t>(prefix), std::numeric_limits<T>::quiet_NaN());
        out.insert(out.end(), v.begin(), v.end());
        return out;
    };
    p.A = DeviceBuffer<T>(a_offset > 0 ? with_prefix(p.hA, a_offset) : p.hA);
    p.x = DeviceBuffer<T>(x_offset > 0 ? with_prefix(p.hx, x_offset) : p.hx);
    p.y = DeviceBuffer<T>(p.hy);
    return p;
}

template <class T>
GemvCheck check_gemv(const GemvStep<T>& step, const GemvLaunch& launch, GemvProblem<T>& p,
                     const std::vector<double>& ref) {
    if (p.beta == T(0) && p.m > 0 && p.n > 0)
        p.y.fill_bytes(0xFF);  // NaN: y must not be read (with m or n zero, y must stay as it is)
    else
        p.y.upload(p.hy);
    step.launch(p.args(), launch, nullptr);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<T> out = p.y.download();
    const std::size_t k = static_cast<std::size_t>(p.op == Op::N ? p.n : p.m) + 1;
    const GemvCheck c = compare_output(out, ref, p.error_scale(), k);
    p.y.upload(p.hy);
    return c;
}

template <class T>
BenchStats time_gemv(const GemvStep<T>& step, const GemvLaunch& launch, GemvProblem<T>& p, BenchOptions opt) {
    BenchStats s = time_step(step, launch, p.args(), p.useful_bytes(), opt);
    p.y.upload(p.hy);
    return s;
}

template struct GemvProblem<float>;
template struct GemvProblem<double>;
template GemvProblem<float> make_gemv_problem<float>(Op, int, int, int, std::uint64_t, float, float, int, int);
template GemvProblem<double> make_gemv_problem<double>(Op, int, int, int, std::uint64_t, double, double, int,
                                                         int);
template GemvCheck check_gemv<float>(const GemvStep<float>&, const GemvLaunch&, GemvProblem<float>&,
                                     const std::vector<double>&);
template GemvCheck check_gemv<double>(const GemvStep<double>&, const GemvLaunch&, GemvProblem<double>&,
                                      const std::vector<double>&);
template BenchStats time_gemv<float>(const GemvStep<float>&, const GemvLaunch&, GemvProblem<float>&, BenchOptions);
template BenchStats time_gemv<double>(const GemvStep<double>&, const GemvLaunch&, GemvProblem<double>&, BenchOptions);

MemoryNeed gemv_memory_need(std::size_t elem, Op op, int m, int n, int lda, int a_offset, int x_offset) {
    const double s = static_cast<double>(elem);
    const double a = s * (a_offset + static_cast<double>(std::max(1, lda)) * std::max(0, n));
    const double lx = op == Op::N ? n : m, ly = op == Op::N ? m : n;
    // Split partials: Y blocks per output element, Y * len(y) <= m n (each block reads a tile of A).
    const double partials = s * std::min(1024.0 * ly, static_cast<double>(std::max(0, m)) * std::max(0, n));
    MemoryNeed need;
    need.device_bytes = a + s * (x_offset + lx + ly) + partials;
    // hA, its copy with the NaN prefix (at upload) or |A| (the error scale), x, y, reference and scale.
    need.host_bytes = 2 * a + s * (2 * lx + 3 * ly) + 2 * 8.0 * ly;
    return need;
}

model::GemvModelLaunch gemv_model_launch_of(const GemvLaunch& l) {
    model::GemvModelLaunch m;
    m.block_x = l.block_x;
    m.block_y = l.block_y;
    m.nb = l.nb;
    m.Y = l.Y;
    m.ept = l.ept;
    m.loop = l.loop != 0;
    return m;
}

model::GemvModelLaunch gemv_model_launch_of(const GemvLaunch& l, const GemvShape& s, const DeviceProfile& dev) {
    GemvMachine mc;  // the launcher's split rule on this profile
    mc.sm_count = dev.sm_count;
    mc.max_threads_per_sm = dev.max_threads_per_sm;
    model::GemvModelLaunch m = gemv_model_launch_of(l);
    m.Y = tuned_gemv_split(s, l, mc);
    m.rows_per_load = tuned_gemv_rows_per_load(s) == 1 ? 1 : 0;
    return m;
}

}  // namespace wb
