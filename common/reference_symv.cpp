/// \file reference_symv.cpp
/// \brief The float64 SYMV reference (reference_symv.hpp).
#include "reference_symv.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wb::ref {

template <class T>
std::vector<double> symv(Uplo uplo, int n, double alpha, const std::vector<T>& A, int lda, const std::vector<T>& x,
                         double beta, const std::vector<T>& y, std::size_t offset, std::vector<double>* scale) {
    const std::string fn = "ref::symv";
    if (n < 0) throw std::invalid_argument(fn + ": n (" + std::to_string(n) + ") must be >= 0");
    if (lda < std::max(1, n))
        throw std::invalid_argument(fn + ": lda (" + std::to_string(lda) + ") must be >= max(1, n) (" +
                                    std::to_string(std::max(1, n)) + ")");
    const std::size_t un = static_cast<std::size_t>(n);
    if (n > 0 && A.size() < offset + static_cast<std::size_t>(lda) * (un - 1) + un)
        throw std::invalid_argument(fn + ": A (" + std::to_string(A.size()) + " elements) is too short for n, lda, offset");
    if (x.size() < un) throw std::invalid_argument(fn + ": x (" + std::to_string(x.size()) + " elements) must hold n");
    if (beta != 0 && y.size() < un)
        throw std::invalid_argument(fn + ": y (" + std::to_string(y.size()) + " elements) must hold n when beta != 0");
    std::vector<double> acc(un, 0.0), abs_acc(scale ? un : 0, 0.0);
    const bool lower = uplo == Uplo::Lower;
    for (int j = 0; j < n; ++j) {
        const T* col = A.data() + offset + static_cast<std::size_t>(j) * lda;
        const double xj = x[j];
        const int i0 = lower ? j : 0, i1 = lower ? n : j + 1;  // the stored part of column j
        double mirror = 0, abs_mirror = 0;                     // row j's sum over the mirrored elements
        for (int i = i0; i < i1; ++i) {
            const double a = col[i];
            acc[i] += a * xj;
            if (i != j) mirror += a * static_cast<double>(x[i]);
            if (scale) {
                abs_acc[i] += std::abs(a) * std::abs(xj);
                if (i != j) abs_mirror += std::abs(a) * std::abs(static_cast<double>(x[i]));
            }
        }
        acc[j] += mirror;
        if (scale) abs_acc[j] += abs_mirror;
    }
    std::vector<double> out(un);
    for (std::size_t i = 0; i < un; ++i) out[i] = alpha * acc[i] + (beta != 0 ? beta * static_cast<double>(y[i]) : 0.0);
    if (scale) {
        scale->assign(un, 0.0);
        for (std::size_t i = 0; i < un; ++i)
            (*scale)[i] = std::abs(alpha) * abs_acc[i] + (beta != 0 ? std::abs(beta) * std::abs(static_cast<double>(y[i])) : 0.0);
    }
    return out;
}

template std::vector<double> symv<float>(Uplo, int, double, const std::vector<float>&, int, const std::vector<float>&,
                                         double, const std::vector<float>&, std::size_t, std::vector<double>*);
template std::vector<double> symv<double>(Uplo, int, double, const std::vector<double>&, int,
                                          const std::vector<double>&, double, const std::vector<double>&, std::size_t,
                                          std::vector<double>*);

}  // namespace wb::ref
