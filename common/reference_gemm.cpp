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
    std::vector<double> acc(m);
    for (std::size_t c = 0; c < cols.size(); ++c) {
        const int j = cols[c];
        if (j < 0 || j >= o.n)
            throw std::invalid_argument("ref::gemm_columns: column (" + std::to_string(j) + ") must be in [0, n) (" +
                                        std::to_string(o.n) + ")");
        std::fill(acc.begin(), acc.end(), 0.0);
        if (k > 0 && alpha != 0.0) {
            for (int p = 0; p < k; ++p) {
                const double b = val(o.op_b == Op::N ? B[p + static_cast<std::size_t>(j) * o.ldb]
                                                     : B[j + static_cast<std::size_t>(p) * o.ldb]);
                if (o.op_a == Op::N) {  // acc += A(:, p) * b: contiguous down column p
                    const T* col = A + static_cast<std::size_t>(p) * o.lda;
                    for (int i = 0; i < m; ++i) acc[i] += val(col[i]) * b;
                } else {                // acc(i) += A(p, i) * b: strided (gemm() transposes A first)
                    for (int i = 0; i < m; ++i) acc[i] += val(A[p + static_cast<std::size_t>(i) * o.lda]) * b;
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
    if (o.op_a == Op::T && o.k > 0) {
        // op_a = T: transpose A once into a contiguous m x k copy, so every column of C runs the
        // contiguous inner loop (the strided one costs ~10x at 1024^3).
        std::vector<T> at(static_cast<std::size_t>(o.m) * o.k);
        const T* A = o.A->data() + o.offset;
        for (int i = 0; i < o.m; ++i)
            for (int p = 0; p < o.k; ++p) at[i + static_cast<std::size_t>(p) * o.m] = A[p + static_cast<std::size_t>(i) * o.lda];
        // The copy holds A as op_a = N; B and C keep the caller's offset, A's is 0.
        std::vector<int> cols(o.n);
        std::iota(cols.begin(), cols.end(), 0);
        GemmOperands<T> on = o;
        on.op_a = Op::N;
        on.lda = o.m;
        // gemm_columns applies one offset to all arrays: pad the copy in front by that offset.
        std::vector<T> padded(o.offset + at.size());
        std::copy(at.begin(), at.end(), padded.begin() + static_cast<std::ptrdiff_t>(o.offset));
        on.A = &padded;
        return gemm_columns(on, alpha, beta, cols);
    }
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
