/// \file gemm.hpp
/// \brief The MM (GEMM) computation, C = alpha*op(A)*op(B) + beta*C, as cuBLAS defines it:
///        column-major, op(A) is m x k, op(B) is k x n, C is m x n; lda >= max(1, rows of A as
///        stored), ldb likewise, ldc >= max(1, m). One launcher per ladder stage, all with the
///        same signature; the launch type is the op's own (GemmLaunch).
#pragma once

#include "blas_types.hpp"
#include "step.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace wb {

/// The tunables every GEMM step understands. A field a step does not use stays 0; 0 in a field
/// the step uses means "the step's default". Tiles that are template constants in a step are
/// chosen among the step's explicitly instantiated configurations (legal_launches lists them).
struct GemmLaunch {
    int block_x = 0;   ///< threads per block in x (along m)
    int block_y = 0;   ///< threads per block in y (along n)
    int tile_m = 0;    ///< rows of C a block computes
    int tile_n = 0;    ///< columns of C a block computes
    int tile_k = 0;    ///< depth of one shared-memory stage of A and B
    int thread_m = 0;  ///< rows of C one thread computes (register blocking)
    int thread_n = 0;  ///< columns of C one thread computes
    int warp_m = 0;    ///< rows of C one warp computes (tuned)
    int warp_n = 0;    ///< columns of C one warp computes (tuned)
    int stages = 0;    ///< shared-memory buffers in the pipeline (1: none, 2: double buffering, ...)
    int split_k = 0;   ///< tuned: slices of k computed by separate blocks and summed in a fixed order
                       ///< (0: the default rule decides, 1: no split, 2 ... 1024)
    int pack_a = 0;    ///< tuned, op(A) = A^T: 0 the default rule decides (in an explicit launch: 1),
                       ///< 1 the main loop reads A transposed, 2 A is first transposed into a
                       ///< workspace and the op(A) = A kernel runs (op(A) = A: nothing to pack)
    int pack_b = 0;    ///< tuned, op(B) = B: 0 the default rule decides (in an explicit launch: 1),
                       ///< 1 the main loop reads B transposed, 2 B is first transposed into a
                       ///< workspace and the op(B) = B^T kernel runs (op(B) = B^T: nothing to pack)
    int align = 0;     ///< tuned: 0 the default rule decides (in an explicit launch: 1), 1 operands
                       ///< read where they are, 2 an operand whose columns are not 16-byte aligned
                       ///< (odd ld, a submatrix's offset) is first copied into an aligned workspace
    int gemv = 0;      ///< tuned: 0 the default rule decides (in an explicit launch: 1), 1 the tiled
                       ///< kernels, 2 the call runs as chapter 5's GEMV (n == 1 or m == 1 with the
                       ///< vector operands contiguous: tuned::gemm_as_gemv says when)
    int math = 0;      ///< tuned, double: 0 the default rule decides (the FP64 tensor cores where the
                       ///< device has them, sm_90+; in an explicit launch: 1), 1 the FMA kernels of
                       ///< the tiles above, 2 the FP64 tensor-core kernel (tuned/dgemm_tensor_core.cu)
    std::string str() const;  ///< e.g. "tile=128x128x8 thread=8x8 warp=64x32 stages=3 block=256x1 split=4"
    bool operator==(const GemmLaunch& o) const {
        return block_x == o.block_x && block_y == o.block_y && tile_m == o.tile_m && tile_n == o.tile_n &&
               tile_k == o.tile_k && thread_m == o.thread_m && thread_n == o.thread_n && warp_m == o.warp_m &&
               warp_n == o.warp_n && stages == o.stages && split_k == o.split_k && pack_a == o.pack_a &&
               pack_b == o.pack_b && align == o.align && gemv == o.gemv && math == o.math;
    }
};

/// One timed call of a chapter 5 kernel (tuned::gemm_kernel_rates): its m x n x k and its time in
/// ms (0: not timed), and the kernel's measured main-loop rates with op(A) = A^T (TN), NT and TT
/// over NN.
struct GemmTimedCall {
    long long m = 0, n = 0, k = 0;
    double ms = 0;
    double transposed_a = 1;
    double op_nt = 0, op_tt = 0;  ///< its rates with op(B) = B^T (NT, TT) over NN; 0: not measured
};

template <class T>
struct GemmArgs {
    using Launch = GemmLaunch;
    using value_type = T;
    Op op_a = Op::N, op_b = Op::N;
    int m = 0, n = 0, k = 0;
    T alpha = 1;
    const T* A = nullptr;  ///< device pointer: m x k (op_a N) or k x m (op_a T), leading dimension lda
    int lda = 1;
    const T* B = nullptr;  ///< device pointer: k x n (op_b N) or n x k (op_b T), leading dimension ldb
    int ldb = 1;
    T beta = 0;            ///< 0: C is written without being read
    T* C = nullptr;        ///< device pointer: m x n, leading dimension ldc
    int ldc = 1;

    int rows_a() const { return op_a == Op::N ? m : k; }  ///< rows of A as stored
    int rows_b() const { return op_b == Op::N ? k : n; }  ///< rows of B as stored
};

/// Validates before the GPU is touched; throws std::invalid_argument naming `fn`, the argument,
/// its value and the rule, e.g. "gemm: lda (5) must be >= max(1, m) (8) for op_a = N".
/// Returns false when there is nothing to do (m == 0 or n == 0: BLAS's quick return), true
/// otherwise. k == 0 or alpha == 0 is not a quick return: C = beta*C (launchers do it through
/// gemm_scale_c). m, n and k are at most 2147418111 (launch_checks::kMaxIndexedExtent: the
/// kernels index them with 32-bit ints); the peer shares the rule.
template <class T>
bool validate_gemm(const GemmArgs<T>& a, const char* fn = "gemm");

/// C = beta*C (C = 0 when beta == 0, never reading C): the k == 0 / alpha == 0 case, shared by
/// every stage.
template <class T>
void gemm_scale_c(const GemmArgs<T>& a, cudaStream_t s);

// One launcher per stage. Each validates, handles the degenerate cases, then launches.
namespace naive   { template <class T> void gemm(const GemmArgs<T>&, const GemmLaunch&, cudaStream_t); }
namespace shared  { template <class T> void gemm(const GemmArgs<T>&, const GemmLaunch&, cudaStream_t); }
namespace pattern { template <class T> void gemm(const GemmArgs<T>&, const GemmLaunch&, cudaStream_t); }
namespace access  { template <class T> void gemm(const GemmArgs<T>&, const GemmLaunch&, cudaStream_t); }
namespace tuned   { template <class T> void gemm(const GemmArgs<T>&, const GemmLaunch&, cudaStream_t); }

template <class T> struct GemvArgs;
namespace tuned {
/// The GEMV a GEMM call is, written to *gemv when not null, where C has one column or one row
/// and the vectors are contiguous (the tuned step's GemmLaunch::gemv = 2); false otherwise.
template <class T> bool gemm_as_gemv(const GemmArgs<T>& a, GemvArgs<T>* gemv);
}  // namespace tuned
/// tuned::gemm_as_gemv where this binary's registry lists the tuned step (kernels/ladder_scope.hpp),
/// false otherwise: defined in gemm_ladder.cpp, so that code every chapter links (the chapter
/// runner's model) can ask without linking chapter 5's step into chapters 1-4.
template <class T> bool ladder_gemm_as_gemv(const GemmArgs<T>& a, GemvArgs<T>* gemv);
/// Measures (once per process and device) the tuned GEMM's kernel rates its default rule reads
/// (tuned/gemm_kernel_rates.hpp) where this binary's registry lists the tuned step; nothing
/// otherwise. The chapter runner calls it before chapter 0's ceilings.
template <class T> void ladder_gemm_kernel_rates();
/// The named float variants beside the ladder where this binary's registry lists the tuned step
/// (chapter 5's 3xTF32 SGEMM, tuned/sgemm_3xtf32.hpp), none otherwise: chapter 5's extra rows.
std::vector<Step<GemmArgs<float>>> ladder_gemm_variants_float();

/// The peer: cuBLAS S/DGEMM with CUBLAS_PEDANTIC_MATH (true FP32, no TF32) on the same arguments.
namespace peer    { template <class T> void gemm(const GemmArgs<T>&, const GemmLaunch&, cudaStream_t); }

/// The registration (kernels/gemm_ladder.cpp) behind ladder<GemmArgs<T>>(), step<...>(), peer_step<...>().
template <> std::vector<Step<GemmArgs<float>>> make_ladder<GemmArgs<float>>();
template <> std::vector<Step<GemmArgs<double>>> make_ladder<GemmArgs<double>>();
template <> Step<GemmArgs<float>> make_peer<GemmArgs<float>>();
template <> Step<GemmArgs<double>> make_peer<GemmArgs<double>>();

}  // namespace wb
