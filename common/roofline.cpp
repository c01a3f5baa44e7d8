// roofline.cpp — useful bytes and flops of each computation (declared in roofline.hpp).
//
// The one definition every GB/s and GFLOP/s column divides (architecture §5): what a perfect kernel
// must move or compute, not what a given kernel happens to move. Arithmetic is in double so
// products of large sizes cannot overflow an integer.
#include "roofline.hpp"

#include <stdexcept>
#include <string>

namespace wb::roofline {

namespace {

void require_nonnegative(const char* fn, const char* arg, long long v) {
    if (v < 0)
        throw std::invalid_argument(std::string(fn) + ": " + arg + " (" + std::to_string(v) +
                                    ") must be >= 0");
}

}  // namespace

double gemv_bytes(bool trans, long long m, long long n, std::size_t elem, bool beta_nonzero) {
    require_nonnegative("roofline::gemv_bytes", "m", m);
    require_nonnegative("roofline::gemv_bytes", "n", n);
    const double len_x = static_cast<double>(trans ? m : n);
    const double len_y = static_cast<double>(trans ? n : m);
    const double elems = static_cast<double>(m) * static_cast<double>(n) + len_x + len_y +
                         (beta_nonzero ? len_y : 0.0);  // y is read too when beta != 0
    return static_cast<double>(elem) * elems;
}

double gemv_flops(long long m, long long n) {
    require_nonnegative("roofline::gemv_flops", "m", m);
    require_nonnegative("roofline::gemv_flops", "n", n);
    return 2.0 * static_cast<double>(m) * static_cast<double>(n);
}

double gemm_flops(long long m, long long n, long long k) {
    require_nonnegative("roofline::gemm_flops", "m", m);
    require_nonnegative("roofline::gemm_flops", "n", n);
    require_nonnegative("roofline::gemm_flops", "k", k);
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

double symv_bytes(long long n, std::size_t elem) {
    require_nonnegative("roofline::symv_bytes", "n", n);
    const double dn = static_cast<double>(n);
    return static_cast<double>(elem) * (dn * (dn + 1.0) / 2.0 + 3.0 * dn);  // one triangle, x, y in and out
}

double conv_bytes(long long rows, long long cols, int fs, std::size_t elem) {
    require_nonnegative("roofline::conv_bytes", "rows", rows);
    require_nonnegative("roofline::conv_bytes", "cols", cols);
    require_nonnegative("roofline::conv_bytes", "fs", fs);
    const double pixels = static_cast<double>(rows) * static_cast<double>(cols);
    return static_cast<double>(elem) * (2.0 * pixels + static_cast<double>(fs) * fs);  // image in, out, filter
}

double conv_flops(long long rows, long long cols, int fs) {
    require_nonnegative("roofline::conv_flops", "rows", rows);
    require_nonnegative("roofline::conv_flops", "cols", cols);
    require_nonnegative("roofline::conv_flops", "fs", fs);
    return 2.0 * static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(fs) * fs;
}

}  // namespace wb::roofline
