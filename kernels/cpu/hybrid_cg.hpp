/// \file hybrid_cg.hpp
/// \brief Chapter 7's ways to run CG on a system whose data lives in host memory, beside the CPU
///        peer (cpu::cg): all on the GPU, and White's §5.2 split.
///
/// - cg_gpu: A, b and x0 to the GPU once, the tuned step's solve (chapter 5: it runs every
///   iteration on the GPU), x back once. Two copies of vectors and one of the matrix in all.
/// - cg_split (White §5.2): A to the GPU once; then the host runs the iterations (the loop of
///   cpu::cg, its vector operations BLAS calls on the CPU) and every matrix-vector product is a
///   round trip: p to the GPU, q = A p by the tuned SYMV (the lower triangle), q back, and the CPU
///   waits for q before it reads it. Per iteration two small copies, each paying the link's set-up
///   time, against the all-GPU solve's kernel launches: White's split pays where the CPU's vector
///   work and the copies cost less than the GPU's vector kernels and their launches.
///
/// Both take the CgArgs of the CPU peer (host pointers, lda >= n; the matrix is copied whole, the
/// kernels read its lower triangle), write x and *result as it does, and validate as
/// validate_cg (named "hybrid::cg_gpu" / "hybrid::cg_split"). The contract of hybrid_common.hpp:
/// they return when every copy is complete; a failure (the test hook included: `gpu` fails after
/// the first copies are issued, `cpu` on the host after the first product arrived) surfaces as an
/// exception once nothing runs any more, with x unspecified and *result not written. cg_split
/// needs CBLAS (throws std::runtime_error without it).
#pragma once

#include "cg.hpp"

namespace wb::hybrid {

template <class T>
void cg_gpu(const CgArgs<T>& host);
template <class T>
void cg_split(const CgArgs<T>& host);

}  // namespace wb::hybrid
