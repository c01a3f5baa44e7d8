/// \file reference_gemm.cpp
/// \brief The float64 GEMM reference (see reference_gemm.hpp).
#include "reference_gemm.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace wb::ref {

template <class T>
std::vector<double> gemm_columns(const GemmOperands<T>& o, double alpha, double beta, const std::vector<int>& cols,
                                 bool absolute) {
    const int m = o.m, k = o.k;
    std::vector<double> out(cols.size() * static_cast<std::size_t>(std::max(0, m)), 0.0);
    if (m <= 0 || cols.empty()) return out;
    auto val = [absolute](T v) { return absolute ? std::abs(static_cast<double>(v)) : static_cast<double>(v); };
    if (absolute) {
        alpha = std::abs(alpha);
        beta = std::abs(beta);
    }
    const T* A = o.A ? o.A->data() + o.offset : nullptr;
    const T* B = o.B ? o.B->data() + o.offset : nullptr;
    const T* C = o.C ? o.C->data() + o.offset : nullptr;
    std::vector<double> acc(m), bcol;
    for (std::size_t c = 0; c < cols.size(); ++c) {
        const int j = cols[c];
        if (j < 0 || j >= o.n)
            throw std::invalid_argument("ref::gemm_columns: column (" + std::to_string(j) + ") must be in [0, n) (" +
                                        std::to_string(o.n) + ")");
        std::fill(acc.begin(), acc.end(), 0.0);
        if (k > 0 && alpha != 0.0) {
            if (o.op_a == Op::N) {  // acc += A(:, p) * op(B)(p, j): loop order p, i, contiguous down column p
                for (int p = 0; p < k; ++p) {
                    const double b = val(o.op_b == Op::N ? B[p + static_cast<std::size_t>(j) * o.ldb]
                                                         : B[j + static_cast<std::size_t>(p) * o.ldb]);
                    const T* col = A + static_cast<std::size_t>(p) * o.lda;
                    for (int i = 0; i < m; ++i) acc[i] += val(col[i]) * b;
                }
            } else {  // acc(i) = A(:, i) . op(B)(:, j): loop order i, p, contiguous down column i of A
                bcol.resize(k);
                for (int p = 0; p < k; ++p)
                    bcol[p] = val(o.op_b == Op::N ? B[p + static_cast<std::size_t>(j) * o.ldb]
                                                  : B[j + static_cast<std::size_t>(p) * o.ldb]);
                for (int i = 0; i < m; ++i) {
                    const T* col = A + static_cast<std::size_t>(i) * o.lda;
                    double sum = 0;
                    for (int p = 0; p < k; ++p) sum += val(col[p]) * bcol[p];
                    acc[i] = sum;
                }
            }
        }
        double* res = out.data() + c * static_cast<std::size_t>(m);
        for (int i = 0; i < m; ++i) {
            double r = alpha * acc[i];
            if (beta != 0.0) r += beta * val(C[i + static_cast<std::size_t>(j) * o.ldc]);
            res[i] = r;
        }
    }
    return out;
}

template <class T>
std::vector<double> gemm(const GemmOperands<T>& o, double alpha, double beta) {
    if (o.m <= 0 || o.n <= 0) return {};
    std::vector<int> cols(o.n);
    std::iota(cols.begin(), cols.end(), 0);
    return gemm_columns(o, alpha, beta, cols);
}

template std::vector<double> gemm_columns<float>(const GemmOperands<float>&, double, double, const std::vector<int>&, bool);
template std::vector<double> gemm_columns<double>(const GemmOperands<double>&, double, double, const std::vector<int>&,
                                                  bool);
template std::vector<double> gemm<float>(const GemmOperands<float>&, double, double);
template std::vector<double> gemm<double>(const GemmOperands<double>&, double, double);

}  // namespace wb::ref
