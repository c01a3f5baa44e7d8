/// \file reference_cg.cpp
/// \brief SPD test matrices, the CPU CG and the true residual (reference_cg.hpp).
#include "reference_cg.hpp"

#include "random.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wb::ref {

std::vector<double> spd_spectrum(int n, double kappa) {
    std::vector<double> l(std::max(0, n));
    for (int i = 0; i < n; ++i) l[i] = n == 1 ? 1.0 : std::pow(kappa, -static_cast<double>(i) / (n - 1));
    return l;
}

template <class T>
void spd_matrix(int n, double kappa, std::uint64_t seed, T* A, int lda, int reflections, bool negate) {
    const std::string fn = "ref::spd_matrix";
    if (n < 0) throw std::invalid_argument(fn + ": n (" + std::to_string(n) + ") must be >= 0");
    if (lda < std::max(1, n))
        throw std::invalid_argument(fn + ": lda (" + std::to_string(lda) + ") must be >= max(1, n) (" +
                                    std::to_string(std::max(1, n)) + ")");
    if (!(kappa >= 1) || !std::isfinite(kappa))
        throw std::invalid_argument(fn + ": kappa (" + std::to_string(kappa) + ") must be finite and >= 1");
    if (reflections < 0)
        throw std::invalid_argument(fn + ": reflections (" + std::to_string(reflections) + ") must be >= 0");
    if (n == 0) return;
    const std::size_t un = static_cast<std::size_t>(n);
    const std::vector<double> d = spd_spectrum(n, kappa);
    // A = D + W S W^T: W's columns in `W`, S as 2 x 2 blocks [[4c, -2], [-2, 0]] (one per reflection).
    std::vector<std::vector<double>> W;
    std::vector<double> cs;
    for (int k = 0; k < reflections; ++k) {
        std::vector<double> v = random_vector<double>(un, seed + 7919u * static_cast<std::uint64_t>(k + 1));
        double nv = 0;
        for (double e : v) nv += e * e;
        nv = std::sqrt(nv);
        for (double& e : v) e /= nv;
        // a = A v = D v + sum_blocks [w1 w2] M [w1 w2]^T v
        std::vector<double> a(un);
        for (std::size_t i = 0; i < un; ++i) a[i] = d[i] * v[i];
        for (std::size_t b = 0; b < cs.size(); ++b) {
            const auto &w1 = W[2 * b], &w2 = W[2 * b + 1];
            double t1 = 0, t2 = 0;
            for (std::size_t i = 0; i < un; ++i) {
                t1 += w1[i] * v[i];
                t2 += w2[i] * v[i];
            }
            const double c1 = 4 * cs[b] * t1 - 2 * t2, c2 = -2 * t1;  // M [t1 t2]^T
            for (std::size_t i = 0; i < un; ++i) a[i] += w1[i] * c1 + w2[i] * c2;
        }
        double c = 0;
        for (std::size_t i = 0; i < un; ++i) c += v[i] * a[i];
        W.push_back(std::move(v));
        W.push_back(std::move(a));
        cs.push_back(c);
    }
    // Z = S W^T (row p of Z for column p of W), then A(i, j) = d_i [i == j] + sum_p W(i, p) Z(p, j), i >= j.
    const std::size_t r = W.size();
    std::vector<std::vector<double>> Z(r, std::vector<double>(un));
    for (std::size_t b = 0; b < cs.size(); ++b)
        for (std::size_t j = 0; j < un; ++j) {
            Z[2 * b][j] = 4 * cs[b] * W[2 * b][j] - 2 * W[2 * b + 1][j];
            Z[2 * b + 1][j] = -2 * W[2 * b][j];
        }
    const double sign = negate ? -1.0 : 1.0;
    std::vector<double> col(un);
    for (std::size_t j = 0; j < un; ++j) {
        std::fill(col.begin() + static_cast<std::ptrdiff_t>(j), col.end(), 0.0);
        col[j] = d[j];
        for (std::size_t p = 0; p < r; ++p) {
            const double z = Z[p][j];
            const double* w = W[p].data();
            for (std::size_t i = j; i < un; ++i) col[i] += w[i] * z;
        }
        T* Aj = A + j * static_cast<std::size_t>(lda);
        for (std::size_t i = j; i < un; ++i) {
            const T v = static_cast<T>(sign * col[i]);
            Aj[i] = v;
            A[j + i * static_cast<std::size_t>(lda)] = v;  // the mirror: exactly symmetric
        }
    }
}

template <class S, class T>
CgReference cg(int n, const T* A, int lda, const std::vector<T>& b, const std::vector<T>& x0, double tol,
               int max_iter) {
    const std::string fn = "ref::cg";
    if (n < 0) throw std::invalid_argument(fn + ": n (" + std::to_string(n) + ") must be >= 0");
    if (lda < std::max(1, n))
        throw std::invalid_argument(fn + ": lda (" + std::to_string(lda) + ") must be >= max(1, n) (" +
                                    std::to_string(std::max(1, n)) + ")");
    const std::size_t un = static_cast<std::size_t>(n);
    if (b.size() < un || x0.size() < un) throw std::invalid_argument(fn + ": b and x0 must hold n elements");
    if (!(tol >= 0) || !std::isfinite(tol)) throw std::invalid_argument(fn + ": tol must be finite and >= 0");
    if (max_iter < 0) throw std::invalid_argument(fn + ": max_iter (" + std::to_string(max_iter) + ") must be >= 0");
    CgReference out;
    out.x.assign(un, 0.0);
    if (n == 0) {
        out.status = CgStatus::Converged;
        return out;
    }
    auto mv = [&](const std::vector<S>& v, std::vector<S>& y) {
        std::fill(y.begin(), y.end(), S(0));
        for (std::size_t j = 0; j < un; ++j) {
            const T* col = A + j * static_cast<std::size_t>(lda);
            const S vj = v[j];
            for (std::size_t i = 0; i < un; ++i) y[i] += static_cast<S>(col[i]) * vj;
        }
    };
    auto dot = [&](const std::vector<S>& u, const std::vector<S>& v) {
        S s = 0;
        for (std::size_t i = 0; i < un; ++i) s += u[i] * v[i];
        return s;
    };
    std::vector<S> x(un), r(un), p(un), q(un), bs(un);
    for (std::size_t i = 0; i < un; ++i) {
        x[i] = static_cast<S>(x0[i]);
        bs[i] = static_cast<S>(b[i]);
    }
    const S bb = dot(bs, bs);
    if (bb == S(0)) {
        out.status = CgStatus::Converged;
        return out;  // x = 0
    }
    mv(x, q);
    for (std::size_t i = 0; i < un; ++i) r[i] = bs[i] - q[i];
    S rr = dot(r, r);
    const S thresh2 = static_cast<S>(tol * tol) * bb;
    p = r;
    int it = 0;
    CgStatus status = CgStatus::MaxIter;
    if (rr <= thresh2) status = CgStatus::Converged;
    else if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
    while (status == CgStatus::MaxIter && it < max_iter) {
        mv(p, q);
        const S pq = dot(p, q);
        if (!(pq > S(0)) || !std::isfinite(static_cast<double>(pq))) {
            status = CgStatus::Breakdown;
            break;
        }
        const S alpha = rr / pq;
        for (std::size_t i = 0; i < un; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        const S rr_new = dot(r, r);
        ++it;
        const S beta = rr_new / rr;
        rr = rr_new;
        if (!std::isfinite(static_cast<double>(rr))) status = CgStatus::Breakdown;
        else if (rr <= thresh2) status = CgStatus::Converged;
        else
            for (std::size_t i = 0; i < un; ++i) p[i] = r[i] + beta * p[i];
    }
    for (std::size_t i = 0; i < un; ++i) out.x[i] = static_cast<double>(x[i]);
    out.iterations = it;
    out.residual = std::sqrt(static_cast<double>(rr) / static_cast<double>(bb));
    out.status = status;
    return out;
}

template <class T>
double true_residual(int n, const T* A, int lda, const T* b, const T* x) {
    const std::size_t un = static_cast<std::size_t>(std::max(0, n));
    std::vector<double> r(un);
    for (std::size_t i = 0; i < un; ++i) r[i] = b[i];
    for (std::size_t j = 0; j < un; ++j) {
        const T* col = A + j * static_cast<std::size_t>(lda);
        const double xj = x[j];
        for (std::size_t i = 0; i < un; ++i) r[i] -= static_cast<double>(col[i]) * xj;
    }
    double rn = 0, bn = 0;
    for (std::size_t i = 0; i < un; ++i) {
        rn += r[i] * r[i];
        bn += static_cast<double>(b[i]) * b[i];
    }
    if (bn == 0) return std::sqrt(rn);
    return std::sqrt(rn / bn);
}

template void spd_matrix<float>(int, double, std::uint64_t, float*, int, int, bool);
template void spd_matrix<double>(int, double, std::uint64_t, double*, int, int, bool);
template CgReference cg<double, float>(int, const float*, int, const std::vector<float>&, const std::vector<float>&,
                                       double, int);
template CgReference cg<double, double>(int, const double*, int, const std::vector<double>&,
                                        const std::vector<double>&, double, int);
template CgReference cg<float, float>(int, const float*, int, const std::vector<float>&, const std::vector<float>&,
                                      double, int);
template double true_residual<float>(int, const float*, int, const float*, const float*);
template double true_residual<double>(int, const double*, int, const double*, const double*);

}  // namespace wb::ref
