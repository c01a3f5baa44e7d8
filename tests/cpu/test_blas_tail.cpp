// test_blas_tail.cpp — OpenBLAS's SYMV reads within the tail chapter 7's host arrays carry
// (cpu_peers.hpp: kBlasTailBytes). Each call reads operands whose memory ends kBlasTailBytes after
// their last element, at a page nothing may read: a read further faults and ends the test. ctest
// also runs these cases with OPENBLAS_CORETYPE=Prescott (tests/CMakeLists.txt), the SSE kernels
// OpenBLAS falls back to on a CPU it does not know, whose single-precision SYMV reads 16 bytes past
// the matrix (docs/notes/split.md, session 46).
#include "catch.hpp"

#include "cpu_peers.hpp"
#include "random.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace {

/// `count` elements of T followed by kBlasTailBytes and then a page without access.
template <class T>
class TailGuarded {
public:
    explicit TailGuarded(std::size_t count) : count_(count) {
        const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        const std::size_t used = count * sizeof(T) + wb::cpu::kBlasTailBytes;
        total_ = (used + page - 1) / page * page + page;
        void* m = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::runtime_error("TailGuarded: mmap failed");
        base_ = static_cast<char*>(m);
        if (mprotect(base_ + total_ - page, page, PROT_NONE) != 0) throw std::runtime_error("TailGuarded: mprotect failed");
        p_ = reinterpret_cast<T*>(base_ + total_ - page - used);
    }
    ~TailGuarded() { munmap(base_, total_); }
    TailGuarded(const TailGuarded&) = delete;
    TailGuarded& operator=(const TailGuarded&) = delete;
    T* data() { return p_; }
    void fill(const std::vector<T>& v) { std::memcpy(p_, v.data(), count_ * sizeof(T)); }

private:
    std::size_t count_, total_ = 0;
    char* base_ = nullptr;
    T* p_ = nullptr;
};

/// y = A x for the symmetric matrix whose `lower` (else upper) triangle A holds, in double.
template <class T>
std::vector<double> symv_reference(int n, const std::vector<T>& A, const std::vector<T>& x, bool lower) {
    std::vector<double> y(static_cast<std::size_t>(n), 0.0);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const bool stored = lower ? i >= j : i <= j;
            const double a = stored ? A[static_cast<std::size_t>(j) * n + i] : A[static_cast<std::size_t>(i) * n + j];
            y[static_cast<std::size_t>(i)] += a * static_cast<double>(x[static_cast<std::size_t>(j)]);
        }
    return y;
}

template <class T>
void check_symv_within_tail(int n, wb::Uplo uplo) {
    const std::size_t un = static_cast<std::size_t>(n);
    const std::vector<T> A = wb::random_vector<T>(un * un, 61), x = wb::random_vector<T>(un, 62);
    TailGuarded<T> gA(un * un), gx(un), gy(un);
    gA.fill(A);
    gx.fill(x);
    gy.fill(std::vector<T>(un, T(-7)));  // poison: beta = 0 must overwrite it
    wb::cpu::symv(wb::SymvArgs<T>{uplo, n, T(1), gA.data(), n, gx.data(), 1, T(0), gy.data(), 1});
    const std::vector<double> ref = symv_reference(n, A, x, uplo == wb::Uplo::Lower);
    const double tol = (sizeof(T) == 4 ? 1e-5 : 1e-13) * n;
    for (std::size_t i = 0; i < un; ++i) REQUIRE(static_cast<double>(gy.data()[i]) == Approx(ref[i]).margin(tol));
}

}  // namespace

TEST_CASE("OpenBLAS's SYMV reads its operands within the chapter's tail", "[cpu][blas_tail]") {
    if (!wb::cpu::have_cblas()) return;  // nothing calls OpenBLAS (test_cpu_peers checks the peers throw)
    for (int n : {7, 64, 200, 1031})
        for (wb::Uplo u : {wb::Uplo::Lower, wb::Uplo::Upper}) {
            INFO("n = " << n << (u == wb::Uplo::Lower ? ", lower" : ", upper"));
            check_symv_within_tail<float>(n, u);
            check_symv_within_tail<double>(n, u);
        }
}
