/// \file gemv.hpp
/// \brief The Mv (GEMV) computation, y = alpha*op(A)*x + beta*y, as cuBLAS defines it: A is
///        m x n column-major with leading dimension lda >= max(1, m); op is N or T.
///        One launcher per ladder stage, all with the same signature.
///
/// Reads beyond the BLAS extent: the tuned step's 16-byte loads of op N, on 16-byte-aligned
/// columns with lda > m and m not a multiple of 16 / size(T), read the rest of the last column's
/// final 16-byte chunk: up to 16 - size(T) bytes past element (m-1, n-1), never used. Such a chunk
/// cannot cross a page, so no fault is possible; a sanitizer on a buffer of exactly
/// (n-1) lda + m elements would report the read (the tests allocate lda x n, which covers it).
#pragma once

#include "blas_types.hpp"
#include "gemv_launch.hpp"
#include "gemv_rules.hpp"
#include "step.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace wb {

template <class T>
struct GemvArgs {
    using Launch = GemvLaunch;
    using value_type = T;
    Op op = Op::N;
    int m = 0, n = 0;
    T alpha = 1;
    const T* A = nullptr;  ///< device pointer
    int lda = 1;
    const T* x = nullptr;  ///< device pointer, len_x() elements
    T beta = 0;            ///< 0: y is written without being read
    T* y = nullptr;        ///< device pointer, len_y() elements

    int len_x() const { return op == Op::N ? n : m; }
    int len_y() const { return op == Op::N ? m : n; }
};

/// What the tuned step's launch rules (gemv_rules.hpp) see of a call.
template <class T>
GemvShape gemv_shape(const GemvArgs<T>& a) {
    GemvShape s;
    s.op = a.op;
    s.m = a.m;
    s.n = a.n;
    s.lda = a.lda;
    s.elem_bytes = static_cast<int>(sizeof(T));
    s.a_offset_bytes = static_cast<int>(reinterpret_cast<std::uintptr_t>(a.A) & 15);
    s.x_offset_bytes = static_cast<int>(reinterpret_cast<std::uintptr_t>(a.x) & 15);
    return s;
}

/// The machine the launch rules derive for: the current device's SM count, the H200's figures
/// otherwise (GemvMachine's defaults; also when no device is present, for predictions).
GemvMachine gemv_machine_of_current_device();

/// Validates before the GPU is touched; throws std::invalid_argument naming `fn`, the argument,
/// its value and the rule, e.g. "gemv: lda (5) must be >= max(1, m) (8)".
/// Returns false when there is nothing to do (m == 0 or n == 0: BLAS's quick return leaves y
/// as it is), true otherwise. m and n are at most 2147418111 (launch_checks::kMaxIndexedExtent:
/// the kernels index them with 32-bit ints); the peer shares the rule.
template <class T>
bool validate_gemv(const GemvArgs<T>& a, const char* fn = "gemv");

/// y = beta*y (or 0 when beta == 0) for alpha == 0, as BLAS requires; shared by every stage.
template <class T>
void gemv_scale_y(const GemvArgs<T>& a, cudaStream_t s);

// One launcher per stage. Each validates, handles the degenerate cases, then launches.
namespace naive   { template <class T> void gemv(const GemvArgs<T>&, const GemvLaunch&, cudaStream_t); }
namespace shared  { template <class T> void gemv(const GemvArgs<T>&, const GemvLaunch&, cudaStream_t); }
namespace pattern { template <class T> void gemv(const GemvArgs<T>&, const GemvLaunch&, cudaStream_t); }
namespace access  { template <class T> void gemv(const GemvArgs<T>&, const GemvLaunch&, cudaStream_t); }
namespace tuned   { template <class T> void gemv(const GemvArgs<T>&, const GemvLaunch&, cudaStream_t); }

/// The peer: cuBLAS S/DGEMV on the same arguments (one handle per thread and device).
namespace peer    { template <class T> void gemv(const GemvArgs<T>&, const GemvLaunch&, cudaStream_t); }

template <class T> using GemvStep = Step<GemvArgs<T>>;

/// The registration (kernels/gemv_ladder.cpp) behind ladder<GemvArgs<T>>(), step<...>(), peer_step<...>().
template <> std::vector<Step<GemvArgs<float>>> make_ladder<GemvArgs<float>>();
template <> std::vector<Step<GemvArgs<double>>> make_ladder<GemvArgs<double>>();
template <> Step<GemvArgs<float>> make_peer<GemvArgs<float>>();
template <> Step<GemvArgs<double>> make_peer<GemvArgs<double>>();

}  // namespace wb
