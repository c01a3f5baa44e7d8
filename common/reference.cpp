// reference.cpp — float64 CPU references (declared in reference.hpp).
//
// The truth every GPU result is checked against, so it must be simpler and more accurate than
// what it checks. Each dot product is accumulated in double with error-free transformations
// (TwoProduct via fma, TwoSum; the "Dot2" algorithm of Ogita, Rump and Oishi, 2005): the result
// is as accurate as if computed in twice double precision and then rounded, so even a double
// GEMV on the GPU is compared with something clearly better than itself. Follows BLAS: alpha == 0
// does not read A or x, beta == 0 does not read y (y may hold NaN then).
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace wb::ref {

namespace {

/// A compensated sum of products: s is the running sum, c the running sum of the exact
/// rounding errors of every product and every addition. `ExactProducts` (float inputs: a
/// product of two 24-bit mantissas fits in 53 bits) skips the fma that recovers a product's error.
template <bool ExactProducts>
struct Acc {
    double s = 0, c = 0;
    void add_product(double a, double b) {
        const double p = a * b;
        double pe = 0;
        if constexpr (!ExactProducts) pe = std::fma(a, b, -p);  // exact error of the product
        const double t = s + p;
        const double z = t - s;
        const double se = (s - (t - z)) + (p - z);  // exact error of the sum (TwoSum)
        s = t;
        c += pe + se;
    }
    double value() const { return s + c; }
};

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("ref::gemv: " + what); }

}  // namespace

template <class T>
std::vector<double> gemv(bool trans, int m, int n, double alpha, const std::vector<T>& A, int lda,
                         const std::vector<T>& x, double beta, const std::vector<T>& y) {
    if (m < 0) fail("m (" + std::to_string(m) + ") must be >= 0");
    if (n < 0) fail("n (" + std::to_string(n) + ") must be >= 0");
    if (lda < std::max(1, m))
        fail("lda (" + std::to_string(lda) + ") must be >= max(1, m) (" + std::to_string(std::max(1, m)) + ")");
    const std::size_t len_x = static_cast<std::size_t>(trans ? m : n);
    const std::size_t len_y = static_cast<std::size_t>(trans ? n : m);
    const bool read_a = alpha != 0.0 && m > 0 && n > 0;
    if (read_a) {
        const std::size_t need = static_cast<std::size_t>(n - 1) * static_cast<std::size_t>(lda) +
                                 static_cast<std::size_t>(m);
        if (A.size() < need)
            fail("A (" + std::to_string(A.size()) + " elements) must hold at least (n-1)*lda + m (" +
                 std::to_string(need) + ")");
        if (x.size() < len_x)
            fail("x (" + std::to_string(x.size()) + " elements) must hold at least " +
                 std::string(trans ? "m" : "n") + " (" + std::to_string(len_x) + ")");
    }
    if (beta != 0.0 && y.size() < len_y)
        fail("y (" + std::to_string(y.size()) + " elements) must hold at least " +
             std::string(trans ? "n" : "m") + " (" + std::to_string(len_y) + ") when beta != 0");

    // BLAS quick return: with m == 0 or n == 0 nothing is computed and y is left as it is (reference
    // xGEMV and cuBLAS do not even scale it by beta).
    if (m == 0 || n == 0) {
        std::vector<double> same(len_y);
        for (std::size_t i = 0; i < len_y; ++i) same[i] = static_cast<double>(y.at(i));
        return same;
    }
    std::vector<Acc<std::is_same_v<T, float>>> acc(len_y);
    if (read_a) {
        const auto ld = static_cast<std::size_t>(lda);
        if (!trans) {
            // y_i = sum_j A(i, j) x_j: walk A column by column (contiguous in memory).
            for (int j = 0; j < n; ++j) {
                const T* col = A.data() + static_cast<std::size_t>(j) * ld;
                const double xj = static_cast<double>(x[static_cast<std::size_t>(j)]);
                for (int i = 0; i < m; ++i) acc[static_cast<std::size_t>(i)].add_product(col[i], xj);
            }
        } else {
            // y_j = sum_i A(i, j) x_i: one column of A per result.
            for (int j = 0; j < n; ++j) {
                const T* col = A.data() + static_cast<std::size_t>(j) * ld;
                auto& a = acc[static_cast<std::size_t>(j)];
                for (int i = 0; i < m; ++i) a.add_product(col[i], static_cast<double>(x[static_cast<std::size_t>(i)]));
            }
        }
    }
    std::vector<double> out(len_y);
    for (std::size_t i = 0; i < len_y; ++i) {
        const double ax = read_a ? alpha * acc[i].value() : 0.0;
        out[i] = beta != 0.0 ? ax + beta * static_cast<double>(y[i]) : ax;
    }
    return out;
}

template std::vector<double> gemv<float>(bool, int, int, double, const std::vector<float>&, int,
                                         const std::vector<float>&, double, const std::vector<float>&);
template std::vector<double> gemv<double>(bool, int, int, double, const std::vector<double>&, int,
                                          const std::vector<double>&, double, const std::vector<double>&);

}  // namespace wb::ref
