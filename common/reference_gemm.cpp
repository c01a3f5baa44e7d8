/// \file reference_gemm.cpp
/// \brief The float64 GEMM reference (see reference_gemm.hpp).
#include "reference_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

namespace wb::ref {

namespace {

/// Columns [c0, c1) of `cols` into out (and, when `scale` is not null, the error scale into it).
template <class T>
void columns_range(const GemmOperands<T>& o, double alpha, double beta, const std::vector<int>& cols, bool absolute,
                   std::size_t c0, std::size_t c1, double* out, double* scale) {
    const int m = o.m, k = o.k;
    auto val = [absolute](T v) { return absolute ? std::abs(static_cast<double>(v)) : static_cast<double>(v); };
    const T* A = o.A ? o.A->data() + o.offset : nullptr;
    const T* B = o.B ? o.B->data() + o.offset : nullptr;
    const T* C = o.C ? o.C->data() + o.offset : nullptr;
    std::vector<double> acc(m), sc(scale ? m : 0), bcol;
    for (std::size_t c = c0; c < c1; ++c) {
        const int j = cols[c];
        std::fill(acc.begin(), acc.end(), 0.0);
        std::fill(sc.begin(), sc.end(), 0.0);
        if (k > 0 && alpha != 0.0) {
            auto bval = [&](int p) {
                return val(o.op_b == Op::N ? B[p + static_cast<std::size_t>(j) * o.ldb]
                                           : B[j + static_cast<std::size_t>(p) * o.ldb]);
            };
            if (o.op_a == Op::N) {  // acc += A(:, p) * op(B)(p, j): loop order p, i, contiguous down column p
                for (int p = 0; p < k; ++p) {
                    const double b = bval(p);
                    const T* col = A + static_cast<std::size_t>(p) * o.lda;
                    for (int i = 0; i < m; ++i) acc[i] += val(col[i]) * b;
                    if (scale)
                        for (int i = 0; i < m; ++i) sc[i] += std::abs(static_cast<double>(col[i]) * b);
                }
            } else {  // acc(i) = A(:, i) . op(B)(:, j): loop order i, p, contiguous down column i of A
                bcol.resize(k);
                for (int p = 0; p < k; ++p) bcol[p] = bval(p);
                for (int i = 0; i < m; ++i) {
                    const T* col = A + static_cast<std::size_t>(i) * o.lda;
                    double sum = 0, ssum = 0;
                    for (int p = 0; p < k; ++p) sum += val(col[p]) * bcol[p];
                    if (scale)
                        for (int p = 0; p < k; ++p) ssum += std::abs(static_cast<double>(col[p]) * bcol[p]);
                    acc[i] = sum;
                    if (scale) sc[i] = ssum;
                }
            }
        }
        double* res = out + c * static_cast<std::size_t>(m);
        for (int i = 0; i < m; ++i) {
            const double cij = beta != 0.0 ? val(C[i + static_cast<std::size_t>(j) * o.ldc]) : 0.0;
            res[i] = alpha * acc[i] + (beta != 0.0 ? beta * cij : 0.0);
            if (scale)
                scale[c * static_cast<std::size_t>(m) + i] =
                    std::abs(alpha) * sc[i] + (beta != 0.0 ? std::abs(beta * cij) : 0.0);
        }
    }
}

}  // namespace

template <class T>
std::vector<double> gemm_columns(const GemmOperands<T>& o, double alpha, double beta, const std::vector<int>& cols,
                                 bool absolute, std::vector<double>* scale) {
    const int m = o.m;
    const std::size_t size = cols.size() * static_cast<std::size_t>(std::max(0, m));
    std::vector<double> out(size, 0.0);
    if (scale) scale->assign(size, 0.0);
    if (m <= 0 || cols.empty()) return out;
    for (int j : cols)
        if (j < 0 || j >= o.n)
            throw std::invalid_argument("ref::gemm_columns: column (" + std::to_string(j) + ") must be in [0, n) (" +
                                        std::to_string(o.n) + ")");
    if (absolute) {
        alpha = std::abs(alpha);
        beta = std::abs(beta);
        scale = nullptr;  // the absolute product is its own scale
    }
    // Columns are independent: split them over the host's cores (each column's sum is computed in
    // the same order whatever the split, so the result does not depend on the thread count).
    const double work = static_cast<double>(m) * std::max(1, o.k) * cols.size();
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t nthreads = work < 4e6 ? 1 : std::min<std::size_t>({static_cast<std::size_t>(hw), std::size_t{32}, cols.size()});
    double* sp = scale ? scale->data() : nullptr;
    if (nthreads <= 1) {
        columns_range(o, alpha, beta, cols, absolute, 0, cols.size(), out.data(), sp);
        return out;
    }
    std::vector<std::thread> pool;
    const std::size_t per = (cols.size() + nthreads - 1) / nthreads;
    for (std::size_t t = 0; t < nthreads; ++t) {
        const std::size_t c0 = t * per, c1 = std::min(cols.size(), c0 + per);
        if (c0 >= c1) break;
        pool.emplace_back([&, c0, c1] { columns_range(o, alpha, beta, cols, absolute, c0, c1, out.data(), sp); });
    }
    for (auto& th : pool) th.join();
    return out;
}

template <class T>
std::vector<double> gemm(const GemmOperands<T>& o, double alpha, double beta) {
    if (o.m <= 0 || o.n <= 0) return {};
    std::vector<int> cols(o.n);
    std::iota(cols.begin(), cols.end(), 0);
    return gemm_columns(o, alpha, beta, cols, false, nullptr);
}

template std::vector<double> gemm_columns<float>(const GemmOperands<float>&, double, double, const std::vector<int>&,
                                                 bool, std::vector<double>*);
template std::vector<double> gemm_columns<double>(const GemmOperands<double>&, double, double, const std::vector<int>&,
                                                  bool, std::vector<double>*);
template std::vector<double> gemm<float>(const GemmOperands<float>&, double, double);
template std::vector<double> gemm<double>(const GemmOperands<double>&, double, double);

}  // namespace wb::ref
