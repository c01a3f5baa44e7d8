// The tuned GEMM's split-k second pass on its own (tuned/gemm_splitk.hpp): C = alpha (P_0 + ... +
// P_{S-1}) + beta C against a float64 sum of the same partials, for m on and off the 16-byte vector
// (m a multiple of 4 floats / 2 doubles or not; the vector path runs where its groups fill every SM
// with 256 threads: n = 301 with m = 1000), small C's (blocks of fewer threads), ldc = m or larger,
// C's base 16-byte aligned or offset by one element (the scalar stores), slice counts that use the
// 8-, 4- and one-slice loads, beta 0 (C poisoned with NaN: never read) and beta != 0. Elements of C
// outside its m rows (ldc > m, the element before an offset base) must come back untouched, and two
// calls give the same bits (the slices are added in their order).
// Run: ./build/bin/wb_gpu_tests "gemm split-k sum*"
#include "catch.hpp"

#include "buffer.hpp"
#include "random.hpp"
#include "tuned/gemm_splitk.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

template <class T>
void check_sum(int m, int n, int slices, int ld_extra, int c_offset, T beta) {
    const long long mn = static_cast<long long>(m) * n;
    const int ldc = m + ld_extra;
    std::vector<T> p(static_cast<std::size_t>(mn * slices));
    wb::fill_random(p, wb::fresh_seed());
    const std::size_t c_len = static_cast<std::size_t>(c_offset + static_cast<long long>(ldc) * n);
    std::vector<T> c0(c_len);
    wb::fill_random(c0, wb::fresh_seed());
    if (beta == T(0))  // poison every element the pass writes: it must not read one
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i)
                c0[static_cast<std::size_t>(c_offset + static_cast<long long>(j) * ldc + i)] =
                    std::numeric_limits<T>::quiet_NaN();
    const T alpha = T(1.5);
    wb::DeviceBuffer<T> dp(p), dc(c0);
    auto run = [&] {
        dc.upload(c0);
        wb::tuned::splitk::sum<T>(m, n, slices, dp.data(), alpha, beta, dc.data() + c_offset, ldc, nullptr);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        return dc.download();
    };
    const std::vector<T> got = run();
    // Bound: the float64 sum's terms are at most 1 in magnitude; each of the S - 1 adds in T and
    // the alpha, beta products round once each.
    const double eps = std::numeric_limits<T>::epsilon();
    const double tol = (slices + 3) * eps * (std::abs(static_cast<double>(alpha)) * slices + 1.0);
    int bad = 0, touched = 0;
    for (std::size_t k = 0; k < c_len; ++k) {
        const long long q = static_cast<long long>(k) - c_offset;
        const bool inside = q >= 0 && q % ldc < m;
        if (!inside) {
            touched += std::memcmp(&got[k], &c0[k], sizeof(T)) != 0;
            continue;
        }
        const long long i = q % ldc, j = q / ldc;
        double s = 0;
        for (int z = 0; z < slices; ++z) s += static_cast<double>(p[static_cast<std::size_t>(z * mn + j * m + i)]);
        const double old = beta == T(0) ? 0.0 : static_cast<double>(beta) * static_cast<double>(c0[k]);
        const double want = static_cast<double>(alpha) * s + old;
        bad += !(std::abs(static_cast<double>(got[k]) - want) <= tol);
    }
    INFO("m " << m << " n " << n << " slices " << slices << " ldc " << ldc << " C offset " << c_offset << " beta "
              << beta << " (" << sizeof(T) * 8 << "-bit)");
    CHECK(bad == 0);
    CHECK(touched == 0);
    CHECK(run() == got);
}

}  // namespace

TEST_CASE("gemm split-k sum: vector and scalar paths, every slice loop, beta 0 never reads C", "[gpu][gemm]") {
    for (int m : {1, 3, 4, 6, 132, 1000, 1001})
        for (int n : {1, 7, 65, 301}) {
            if (n == 301 && (m < 132 || (std::getenv("WB_TEST_SMALL") && m != 1000))) continue;
            for (int slices : {2, 3, 5, 12, 21})
                for (int ld_extra : {0, 3})
                    for (int c_offset : {0, 1}) {
                        check_sum<float>(m, n, slices, ld_extra, c_offset, 0.0f);
                        check_sum<float>(m, n, slices, ld_extra, c_offset, 0.5f);
                        check_sum<double>(m, n, slices, ld_extra, c_offset, 0.0);
                        check_sum<double>(m, n, slices, ld_extra, c_offset, -0.75);
                    }
        }
}
