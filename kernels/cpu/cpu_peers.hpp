/// \file cpu_peers.hpp
/// \brief The CPU peers of chapter 7 (the CPU/GPU split): what a user would call on the host for
///        each op, on host pointers, with the same Args, conventions and argument rules as the GPU
///        launchers (kernels/gemv.hpp and the other ops' headers): GEMV, GEMM and SYMV through
///        OpenBLAS's CBLAS, a direct cross-correlation of our own with its rows spread over the
///        cores (OpenMP), and CG built from CBLAS calls with the GPU steps' stopping rule.
///
/// Every pointer in the Args is a host pointer here. Each peer validates with the op's own rules
/// (validate_gemv and its siblings: the same std::invalid_argument messages, prefixed "cpu::gemv"
/// and so on), honours BLAS's quick returns, and never reads y or C when beta == 0 (it zeroes
/// them first, so a NaN there cannot leak in whatever the BLAS library does). Threads: OpenBLAS's
/// and OpenMP's defaults, the machine's cores (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS override).
#pragma once

#include "cg.hpp"
#include "conv2d.hpp"
#include "gemm.hpp"
#include "gemv.hpp"
#include "symv.hpp"

#include <cstddef>
#include <string>

namespace wb::cpu {

/// Whether the BLAS-based peers (gemv, gemm, symv, cg) were compiled in (the build found OpenBLAS
/// and cblas.h). Without it they throw std::runtime_error; conv2d needs no BLAS.
bool have_cblas();
/// The BLAS library the peers call, as it reports itself at run time (the library the loader
/// found, which Debian's alternatives choose: OpenBLAS's pthreads, OpenMP or serial variant), e.g.
/// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64, pthreads, kernels for
/// SkylakeX"; without CBLAS, says so. Chapter 7 is measured with the pthreads variant.
std::string blas_library();
/// Bytes every host array chapter 7 hands to a BLAS call keeps beyond its last element. OpenBLAS's
/// SSE SYMV kernel in single precision, the one it runs where it does not know the CPU ("Prescott":
/// Debian's 0.3.21 under the GPU machine's hypervisor), reads 16 bytes past the end of the matrix;
/// where the matrix ends with its pages, that read faults (the chapter crashed so with the OpenMP
/// variant: docs/notes/split.md, session 46). A user's own arrays are the user's; the chapter's
/// carry this tail.
inline constexpr std::size_t kBlasTailBytes = 64;
static_assert(kBlasTailBytes % sizeof(double) == 0, "the tail: a whole number of floats and of doubles");
/// kBlasTailBytes in elements of T.
template <class T>
constexpr std::size_t blas_tail_elems() { return (kBlasTailBytes + sizeof(T) - 1) / sizeof(T); }
/// The elements to allocate for a host array of n elements that a BLAS call reads: n and the tail.
template <class T>
constexpr std::size_t blas_host_elems(std::size_t n) { return n + blas_tail_elems<T>(); }
/// Threads the peers use: OpenMP's maximum (the cores) where built with OpenMP, else 1.
int threads();

/// OpenMP's team for the calling thread's parallel regions set to n >= 1 for a scope, then put
/// back (nothing without OpenMP). The hybrid convolution's CPU side runs on threads() - 1: at the
/// end of a region OpenMP's idle threads spin without yielding the core (libgomp's default), and
/// the GPU worker, woken when its last copy landed, waited for a core until the scheduler took one
/// from them. (Where the calling thread issues the GPU's share and waits itself, as the team's
/// master, whether it needs that core is not yet measured: docs/notes/split.md, session 37.) On
/// the H200 machine's host that wait made an FS 9 convolution's hybrid 3.92 ms with
/// sides of 2.18 and 1.73 ms; with a core left to the worker, 2.23 ms (docs/notes/split.md).
/// OpenBLAS's idle threads showed no such wait, and its GEMM shares lost 12% with one thread
/// fewer: the BLAS hybrids keep every thread.
class ScopedOmpThreads {
public:
    explicit ScopedOmpThreads(int n);
    ~ScopedOmpThreads();
    ScopedOmpThreads(const ScopedOmpThreads&) = delete;
    ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

private:
    int before_ = 0;
};

template <class T> void gemv(const GemvArgs<T>& a);      ///< cblas_?gemv (column-major)
template <class T> void gemm(const GemmArgs<T>& a);      ///< cblas_?gemm (column-major)
/// cblas_?symv (column-major, a.uplo). In single precision OpenBLAS's generic SSE kernel reads 16
/// bytes past the matrix (kBlasTailBytes): a caller's A should not end where its pages do.
template <class T> void symv(const SymvArgs<T>& a);
template <class T> void conv2d(const Conv2dArgs<T>& a);  ///< direct correlation, OpenMP over rows
/// CG on the host: ?symv on the lower triangle (the upper one is never read), ?dot, ?axpy, ?scal,
/// in the arithmetic of T; the same algorithm, stopping rules and result as kernels/cg.hpp.
template <class T> void cg(const CgArgs<T>& a);

/// y += alpha times what stored columns [c0, c1) of a symmetric A (only `uplo`'s triangle stored,
/// column-major, lda) add to y: the SYMV of their diagonal block into y(c0:c1), and their block off
/// it (Lower: rows c1..n; Upper: rows 0..c0) both ways, its transpose times x into y(c0:c1) and
/// itself times x(c0:c1) into its own rows. Each stored element is read once (OpenMP threads on
/// bands of rows; the result does not depend on the timing). The balanced hybrid SYMV's CPU piece
/// (hybrid_symv.cpp); over c0 = 0, c1 = n it is y += alpha A x. No beta: y is added to.
/// Throws std::invalid_argument naming the argument: n < 0, lda < max(1, n), not
/// 0 <= c0 <= c1 <= n, or a null pointer where there is work.
template <class T>
void symv_columns(Uplo uplo, int n, T alpha, const T* A, int lda, const T* x, T* y, int c0, int c1);

/// Rows [row0, row1) of the correlation only (the hybrid split's CPU share of an image); the
/// full call validates and calls it with [0, rows).
template <class T> void conv2d_rows(const Conv2dArgs<T>& a, int row0, int row1);

}  // namespace wb::cpu
