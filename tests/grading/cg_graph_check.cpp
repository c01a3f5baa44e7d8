// The GPU check of chapter 5's CG-as-a-graph exercise (cg_graph_check.hpp).
#include "cg_graph_check.hpp"

#include "buffer.hpp"
#include "exercise_check.hpp"
#include "random.hpp"
#include "reference_cg.hpp"

#include <cmath>
#include <limits>

namespace wb::grade::test {

namespace {

constexpr std::size_t kGuard = 1024;  // after x and after work, holding kSentinel
constexpr std::size_t kFront = 256;   // other data before and after A, b and dinv

// The SPD test matrix of condition number 10, scaled on both sides by a diagonal in [0.5, 2]
// (which Jacobi undoes), column-major with leading dimension lda; and dinv = 1 / its diagonal.
void system_of(const CgGraphCase& c, unsigned long long seed, std::vector<float>& A, std::vector<float>& dinv) {
    const std::size_t n = static_cast<std::size_t>(c.n), lda = static_cast<std::size_t>(c.lda);
    A = wb::random_vector<float>(lda * (n > 0 ? n : 1), seed);  // the padding rows: other data
    if (n > 0) wb::ref::spd_matrix<float>(c.n, 10.0, seed + 1, A.data(), c.lda);
    std::vector<float> s = wb::random_vector<float>(n, seed + 2);
    for (auto& v : s) v = std::exp2(v);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < n; ++i) A[i + j * lda] *= s[i] * s[j];
    dinv.resize(n);
    for (std::size_t k = 0; k < n; ++k) dinv[k] = 1.0f / A[k + k * lda];
}

// `v` between kFront entries of other data on each side.
std::vector<float> framed(const std::vector<float>& v, unsigned long long seed) {
    std::vector<float> out = wb::random_vector<float>(kFront + v.size() + kFront, seed);
    std::copy(v.begin(), v.end(), out.begin() + static_cast<std::ptrdiff_t>(kFront));
    return out;
}

}  // namespace

std::string CgGraphCase::label() const {
    return "n=" + std::to_string(n) + " lda=" + std::to_string(lda) + " iters=" + std::to_string(iters);
}

const std::vector<CgGraphCase>& cg_graph_cases() {
    static const std::vector<CgGraphCase> cases = {
        {0, 1, 5},       {1, 1, 1},       {1, 4, 3},       {2, 2, 5},         {3, 5, 2},
        {17, 17, 0},     {17, 20, 10},    {33, 33, 20},    {64, 64, 4},       {255, 256, 5},
        {257, 260, 20},  {1000, 1000, 8}, {2049, 2051, 12}, {4099, 4099, 3},  // more rows than the looped grid covers
    };
    return cases;
}

std::string check_cg_graph(wb::ex::CgGraphFn fn, const CgGraphCase& c, unsigned long long seed) {
    wb::ex::CgGraphArgs a;
    a.n = c.n; a.lda = c.lda; a.iters = c.iters;
    const std::size_t n = static_cast<std::size_t>(c.n);
    std::vector<float> A, dinv;
    system_of(c, seed, A, dinv);
    const std::vector<float> b = wb::random_vector<float>(n, seed + 3);
    std::vector<float> x(n + kGuard, kSentinel);
    const std::vector<float> x0 = wb::random_vector<float>(n, seed + 4);
    std::copy(x0.begin(), x0.end(), x.begin());
    const std::size_t wsize = static_cast<std::size_t>(wb::ex::cg_graph_workspace_size(c.n));
    std::vector<float> work(wsize + kGuard, kSentinel);
    std::fill(work.begin(), work.begin() + static_cast<std::ptrdiff_t>(wsize), std::numeric_limits<float>::quiet_NaN());
    try {
        DeviceBuffer<float> dA(framed(A, seed + 5)), db(framed(b, seed + 6)), dd(framed(dinv, seed + 7));
        DeviceBuffer<float> dx(x), dw(work);
        a.A = dA.data() + kFront; a.b = db.data() + kFront; a.dinv = dd.data() + kFront;
        a.x = dx.data(); a.work = dw.data();
        const std::vector<double> ref = wb::ex::cg_graph_reference(a, A, b, dinv, x0);
        fn(a, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const std::vector<float> out = dx.download();
        std::vector<bool> is_entry(out.size(), false);
        std::fill(is_entry.begin(), is_entry.begin() + static_cast<std::ptrdiff_t>(n), true);
        const std::string why = compare_output(out, is_entry, ref, kCgGraphTol, [&](std::size_t i) {
            return "outside x (index " + std::to_string(i) + ", past its end)";
        });
        if (!why.empty()) return why;
        return check_guard(dw.download(), wsize, "work");
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_cg_graph_all(wb::ex::CgGraphFn fn, unsigned long long seed) {
    return first_failure(cg_graph_cases(), [&](const CgGraphCase& c) { return check_cg_graph(fn, c, seed); }, true);
}

double time_cg_graph_ms(wb::ex::CgGraphFn fn, unsigned long long seed) {
    const CgGraphCase c{1024, 1024, 100};
    wb::ex::CgGraphArgs a;
    a.n = c.n; a.lda = c.lda; a.iters = c.iters;
    std::vector<float> A, dinv;
    system_of(c, seed, A, dinv);
    const std::vector<float> x0 = wb::random_vector<float>(1024, seed + 4);
    DeviceBuffer<float> dA(A), db(wb::random_vector<float>(1024, seed + 3)), dd(dinv), dx(x0);
    DeviceBuffer<float> dw(static_cast<std::size_t>(wb::ex::cg_graph_workspace_size(c.n)));
    a.A = dA.data(); a.b = db.data(); a.dinv = dd.data(); a.x = dx.data(); a.work = dw.data();
    // x moves on with each call; the work per call does not depend on it.
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
