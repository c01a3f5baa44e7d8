/// \file symv.hpp
/// \brief The SYMV computation, y = alpha*A*x + beta*y with A symmetric n x n, as BLAS and cuBLAS
///        define it: column-major, only the triangle named by `uplo` is read (the other one may
///        hold anything, NaN included), lda >= max(1, n), beta == 0 never reads y. One launcher
///        per ladder stage, all with the same signature; the launch type is the op's own
///        (SymvLaunch). See docs/pages/architecture.md, "How to add an op".
///
/// Increments: x and y must be contiguous (incx == incy == 1). Other increments are rejected
/// with std::invalid_argument naming the argument (e.g. "symv: incx (2) must be 1: ..."), never
/// silently mishandled: every step reads x and writes y as contiguous vectors (coalesced).
#pragma once

#include "blas_types.hpp"
#include "step.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace wb {

/// The tunables every SYMV step understands. A field a step does not use stays 0; 0 in a field
/// the step uses means "the step's default". Tiles that are template constants in a step are
/// chosen among the step's explicitly instantiated configurations (legal_launches lists them).
struct SymvLaunch {
    int block_x = 0;   ///< threads per block in x (rows of a tile; naive: threads per block)
    int block_y = 0;   ///< threads per block in y (KBLAS's Q: thread columns of a tile)
    int nb = 0;        ///< tile size: the blocking of A into nb x nb tiles
    int y_blocks = 0;  ///< KBLAS's Y: blocks that share one block column (tuned)
    int atomics = 0;   ///< 1: partial results atomically added into y (not reproducible); 0: a
                       ///< fixed-order reduction (bit-identical run to run). Tuned and the peer.
                       ///< The tuned row-panel layout has no partials: 1 runs it as 0 does.
    std::string str() const;  ///< e.g. "nb=64 Q=4 Y=2 deterministic block=64x4"
    bool operator==(const SymvLaunch& o) const {
        return block_x == o.block_x && block_y == o.block_y && nb == o.nb && y_blocks == o.y_blocks &&
               atomics == o.atomics;
    }
};

template <class T>
struct SymvArgs {
    using Launch = SymvLaunch;
    using value_type = T;
    Uplo uplo = Uplo::Lower;
    int n = 0;
    T alpha = 1;
    const T* A = nullptr;  ///< device pointer: n x n, leading dimension lda; only `uplo`'s triangle is read
    int lda = 1;
    const T* x = nullptr;  ///< device pointer: n elements (incx apart)
    int incx = 1;
    T beta = 0;            ///< 0: y is written without being read
    T* y = nullptr;        ///< device pointer: n elements (incy apart)
    int incy = 1;
};

template <class T> using SymvStep = Step<SymvArgs<T>>;

/// Validates before the GPU is touched; throws std::invalid_argument naming `fn`, the argument,
/// its value and the rule, e.g. "symv: lda (5) must be >= max(1, n) (8)". Returns false when
/// there is nothing to do (n == 0, or alpha == 0 and beta == 1: BLAS's quick return), true
/// otherwise. alpha == 0 (beta != 1) is not a quick return: y = beta*y (symv_scale_y). n is at
/// most 2147418111 (launch_checks::kMaxIndexedExtent: the kernels, y = beta*y included, index it
/// with 32-bit ints); the peer shares the rule.
template <class T>
bool validate_symv(const SymvArgs<T>& a, const char* fn = "symv");

/// y = beta*y (y = 0 without reading y when beta == 0): the alpha == 0 case, shared by every stage.
template <class T>
void symv_scale_y(const SymvArgs<T>& a, cudaStream_t s);

// One launcher per stage. Each validates, handles the degenerate cases, then launches.
namespace naive   { template <class T> void symv(const SymvArgs<T>&, const SymvLaunch&, cudaStream_t); }
namespace shared  { template <class T> void symv(const SymvArgs<T>&, const SymvLaunch&, cudaStream_t); }
namespace pattern { template <class T> void symv(const SymvArgs<T>&, const SymvLaunch&, cudaStream_t); }
namespace access  { template <class T> void symv(const SymvArgs<T>&, const SymvLaunch&, cudaStream_t); }
namespace tuned   { template <class T> void symv(const SymvArgs<T>&, const SymvLaunch&, cudaStream_t); }

/// The peer: cuBLAS S/DSYMV on the same arguments, in its default mode (launch.atomics == 0) or
/// with CUBLAS_ATOMICS_ALLOWED (launch.atomics == 1). One registered peer with two legal launches:
/// the chapter shows the second one as an extra row ("cuBLAS atomics").
namespace peer    { template <class T> void symv(const SymvArgs<T>&, const SymvLaunch&, cudaStream_t); }

/// The tuned step's configurations and default (tuned/symv.cu): every (nb, Q) instantiated and the
/// vector layout (block_x = 256) with Y in {1, 2, 4, 8, 16, 32} (every Y chapter 6's rule may
/// derive), the warp-rows layout with Y in
/// {1, 2, 4, 8}, each in both reduction modes, and the row-panel layout for small n (block_x =
/// 1024, nb = 8 or 16: no partials, so one mode); the default is deterministic.
namespace tuned {
template <class T> std::vector<SymvLaunch> symv_configs();
/// The default launch: chapter 6's derivation (derive::derive_symv) on the current device's
/// profile (derive::default_profile), read as a launch (tuned/symv_layout.hpp,
/// symv_derived_launch), cached per device and call.
template <class T> SymvLaunch symv_default(const SymvArgs<T>&);

/// The tuned step's L2 policies for one call (pure host code, unit-tested): `stream_a`, A's loads
/// evict-first, where the stored triangle (n (n + 1) / 2 elements) is larger than the L2, so no
/// later call can find it there (where it fits, repeated calls such as CG's iterations read it from
/// the L2); `keep_fraction`, the share of the n x (nt + Y) partials stored evict_last: what fits
/// in a quarter of the L2, between 1/64 and 1.
struct SymvL2Plan {
    bool stream_a = false;
    float keep_fraction = 1.0f;
};
SymvL2Plan symv_l2_plan(long long n, int nt, int y_blocks, int elem_bytes, long long l2_bytes);

/// The aligned origin of the tuned step (KBLAS TOMS §6.6, Eq. 10) for tiles of nb rows: where lda
/// keeps every column of A at the same offset d in an aligned granule, the step counts its tiles
/// from d rows and columns before A(0, 0), so that each warp reads whole lines. The granule is
/// 256 bytes where lda is a multiple of it and nb rows span it (64 floats, 32 doubles: measured
/// faster than 128-byte alignment, kernels/tuned/symv.cu), else one 128-byte line (32 floats, 16
/// doubles) where lda is a multiple of that, else there is no common offset and d = 0. Always
/// d < nb. Host-side pointer arithmetic.
template <class T> int symv_origin_shift(const T* A, int lda, int nb);

/// Elements of the tuned step's workspace (deterministic mode) for n and the launch's nb and Y:
/// n x (nt + Y), the partials of every tile and the Y column sums, with nt = n / nb rounded up
/// plus one (the shifted origin adds at most one tile: d < nb). CG sizes the workspace of
/// its capture stream with it before a graph capture (no allocation may happen inside one). The
/// row-panel layout (nb = 8 or 16) has no partials: 0.
inline std::size_t symv_workspace_elems(int n, int nb, int y_blocks) {
    if (nb < 32) return 0;  // the row panels (nb = 8 or 16 rows per block)
    return static_cast<std::size_t>(n) * static_cast<std::size_t>((n + nb - 1) / nb + 1 + y_blocks);
}
}  // namespace tuned

/// The registration (kernels/symv_ladder.cpp) behind ladder<SymvArgs<T>>(), step<...>(), peer_step<...>().
template <> std::vector<Step<SymvArgs<float>>> make_ladder<SymvArgs<float>>();
template <> std::vector<Step<SymvArgs<double>>> make_ladder<SymvArgs<double>>();
template <> Step<SymvArgs<float>> make_peer<SymvArgs<float>>();
template <> Step<SymvArgs<double>> make_peer<SymvArgs<double>>();

}  // namespace wb
