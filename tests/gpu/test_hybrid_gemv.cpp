// The hybrid GEMV of chapter 7 (kernels/cpu/hybrid_gemv.hpp): the GPU's rows and the CPU's rows of
// one call assembled in place, against the float64 reference on odd sizes, in both ops and
// precisions, with lda > m, beta == 0 over NaN and beta != 0, every share (none, some, all) and
// chunk sizes that do not divide the share; pageable and pinned host memory; argument errors and
// a failing side surfacing as an exception after both sides have stopped.
#include "catch.hpp"

#include "buffer.hpp"
#include "cpu_peers.hpp"
#include "hybrid_gemv.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using wb::Op;

template <class T>
void check_case(Op op, int m, int n, int lda, T beta, int gpu_rows, int chunk, bool pinned) {
    const int lx = op == Op::N ? n : m, ly = op == Op::N ? m : n;
    const auto A = wb::random_vector<T>(static_cast<std::size_t>(lda) * n, 101);
    const auto x = wb::random_vector<T>(static_cast<std::size_t>(lx), 102);
    auto y0 = wb::random_vector<T>(static_cast<std::size_t>(ly), 103);
    if (beta == T(0)) wb::poison(y0);
    const auto ref = wb::ref::gemv(op == Op::T, m, n, 1.25, A, lda, x, static_cast<double>(beta), y0);
    wb::PinnedBuffer<T> py(pinned ? static_cast<std::size_t>(ly) : 0);
    std::vector<T> vy(y0);
    T* y = pinned ? py.data() : vy.data();
    if (pinned) std::copy(y0.begin(), y0.end(), y);
    wb::GemvArgs<T> a{op, m, n, T(1.25), A.data(), lda, x.data(), beta, y};
    wb::hybrid::gemv(a, gpu_rows, chunk);
    double num = 0, den = 0;
    for (int i = 0; i < ly; ++i) {
        REQUIRE(std::isfinite(static_cast<double>(y[i])));
        num += (y[i] - ref[static_cast<std::size_t>(i)]) * (y[i] - ref[static_cast<std::size_t>(i)]);
        den += ref[static_cast<std::size_t>(i)] * ref[static_cast<std::size_t>(i)];
    }
    const double k = op == Op::N ? n : m;
    CHECK(std::sqrt(num / den) <= 8 * std::numeric_limits<T>::epsilon() * std::sqrt(k + 1));
}

}  // namespace

TEST_CASE("hybrid::gemv matches the float64 reference for every share and chunk", "[gpu][split]") {
    if (!wb::cpu::have_cblas()) return;
    for (Op op : {Op::N, Op::T})
        for (bool pinned : {false, true}) {
            const int m = 1031, n = 517, lda = 1037;
            const int ly = op == Op::N ? m : n;
            for (int g : {0, 1, ly / 3, ly - 1, ly}) {
                INFO("op " << (op == Op::N ? "N" : "T") << " pinned " << pinned << " gpu_rows " << g);
                check_case<float>(op, m, n, lda, 0.0f, g, 97, pinned);
                check_case<double>(op, m, n, lda, 0.5, g, 128, pinned);
            }
        }
}

TEST_CASE("hybrid::gemv: bad arguments throw before anything runs", "[gpu][split]") {
    std::vector<float> v(64, 1.0f);
    wb::GemvArgs<float> a{Op::N, 8, 4, 1, v.data(), 8, v.data(), 0, v.data()};
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 9, 4), "hybrid::gemv: gpu_rows (9) must be in [0, len(y)] ([0, 8])");
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 4, 0), "hybrid::gemv: chunk_rows (0) must be >= 1");
    a.lda = 5;
    CHECK_THROWS_WITH(wb::hybrid::gemv(a, 4, 4), "hybrid::gemv: lda (5) must be >= max(1, m) (8)");
}
