// The GPU check of chapter 2's SYRK exercise (syrk_check.hpp).
#include "syrk_check.hpp"

#include "buffer.hpp"
#include "exercise_check.hpp"
#include "error_norm.hpp"
#include "random.hpp"

#include <limits>

namespace wb::grade::test {

namespace {

constexpr std::size_t kGuardC = 4096;  // after C, holding kSentinel

}  // namespace

std::string SyrkCase::label() const {
    return std::string("uplo=") + uplo + " trans=" + trans + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
           " lda=" + std::to_string(lda) + " ldc=" + std::to_string(ldc) + " alpha=" + (alpha == 0.0f ? "0" : "!0") +
           " beta=" + (beta == 0.0f ? "0" : "0.5");
}

const std::vector<SyrkCase>& syrk_cases() {
    static const std::vector<SyrkCase> cases = {
        {'L', 'N', 1, 1, 1, 1, 1.0f, 0.0f},
        {'U', 'T', 1, 3, 3, 2, 1.0f, 0.5f},
        {'L', 'N', 17, 5, 20, 19, 0.75f, 0.5f},
        {'U', 'N', 17, 33, 17, 17, 0.75f, 0.0f},
        {'L', 'T', 31, 15, 16, 33, 1.0f, 0.5f},
        {'U', 'T', 33, 16, 17, 33, -1.0f, 0.5f},
        {'L', 'N', 127, 129, 130, 128, 1.0f, 0.5f},
        {'U', 'T', 129, 127, 130, 129, 1.0f, 0.0f},
        {'L', 'T', 255, 257, 260, 255, 1.0f, 0.0f},
        {'U', 'N', 257, 255, 257, 260, 1.0f, 0.5f},
        {'L', 'N', 1023, 1025, 1023, 1024, 1.0f, 0.5f},
        {'U', 'T', 1000, 64, 64, 1000, 1.0f, 0.5f},
        {'L', 'N', 64, 0, 64, 64, 1.0f, 0.5f},   // k = 0: C = beta C
        {'U', 'N', 40, 40, 40, 40, 0.0f, 0.5f},  // alpha = 0: C = beta C, A not read
    };
    return cases;
}

std::string check_syrk(wb::ex::SyrkFn fn, const SyrkCase& c, unsigned long long seed) {
    wb::ex::SyrkArgs a;
    a.uplo = c.uplo; a.trans = c.trans; a.n = c.n; a.k = c.k; a.lda = c.lda; a.ldc = c.ldc;
    a.alpha = c.alpha; a.beta = c.beta;
    const long long cols_a = c.trans == 'N' ? c.k : c.n;
    // A guard band after A too: an unguarded kernel reads a few rows past it.
    std::vector<float> A = wb::random_vector<float>(static_cast<std::size_t>(c.lda) * static_cast<std::size_t>(cols_a > 0 ? cols_a : 1) + 64 * static_cast<std::size_t>(c.lda), seed);
    const std::size_t csize = static_cast<std::size_t>(c.ldc) * static_cast<std::size_t>(c.n);
    std::vector<float> C(csize + kGuardC, kSentinel);
    const std::vector<float> fresh = wb::random_vector<float>(csize, seed + 1);
    for (long long j = 0; j < c.n; ++j)
        for (long long i = 0; i < c.n; ++i)
            if (wb::ex::syrk_in_triangle(a, i, j)) {
                const std::size_t at = static_cast<std::size_t>(i + j * c.ldc);
                C[at] = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : fresh[at];
            }
    try {
        DeviceBuffer<float> dA(A), dC(C);
        a.A = dA.data(); a.C = dC.data();
        const std::vector<double> ref = wb::ex::syrk_reference(a, A, C);
        fn(a, nullptr);
        WB_CUDA(cudaDeviceSynchronize());
        const std::vector<float> out = dC.download();
        const auto ldc = static_cast<std::size_t>(c.ldc);
        std::vector<bool> is_entry(out.size(), false);
        std::vector<double> want;
        for (std::size_t at = 0; at < csize; ++at)
            if (static_cast<long long>(at % ldc) < c.n &&
                wb::ex::syrk_in_triangle(a, static_cast<long long>(at % ldc), static_cast<long long>(at / ldc))) {
                is_entry[at] = true;
                want.push_back(ref[at]);
            }
        return compare_output(out, is_entry, want, wb::tolerance<float>(static_cast<std::size_t>(c.k > 0 ? c.k : 1)), [&](std::size_t at) {
            const std::string rc = "(row " + std::to_string(at % ldc) + ", column " + std::to_string(at / ldc) + ")";
            if (at >= csize) return "past the end of C (index " + std::to_string(at) + ")";
            if (static_cast<long long>(at % ldc) >= c.n) return "into C's padding rows " + rc;
            return "outside the triangle " + rc;
        });
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
}

std::string check_syrk_all(wb::ex::SyrkFn fn, unsigned long long seed) {
    // The launcher sizes its grid without grid_for(): the looped grid would be the same run.
    return first_failure(syrk_cases(), [&](const SyrkCase& c) { return check_syrk(fn, c, seed); }, false);
}

double time_syrk_ms(wb::ex::SyrkFn fn, unsigned long long seed) {
    wb::ex::SyrkArgs a;  // n = k = 2048, lower, 'N': 8.6 GFLOP of half a GEMM
    a.n = a.k = a.lda = a.ldc = 2048;
    DeviceBuffer<float> dA(wb::random_vector<float>(2048u * 2048u, seed));
    DeviceBuffer<float> dC(wb::random_vector<float>(2048u * 2048u, seed + 1));
    a.A = dA.data(); a.C = dC.data();
    return median_ms([&](cudaStream_t s) { fn(a, s); });
}

}  // namespace wb::grade::test
