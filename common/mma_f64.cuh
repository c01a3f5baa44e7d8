/// \file mma_f64.cuh
/// \brief One warp's FP64 tensor-core multiply, `mma.sync.aligned.m16n8k{4,8,16}.row.col.f64`:
///        what the tensor-core DGEMM (tuned/dgemm_tensor_core.cu) issues and what chapter 0's
///        ceiling of the FP64 tensor cores (lab/dmma.cu) and the probe scripts/probes/dmma_rate.cu
///        time. m16n8k4 and k8 need sm_80, k16 sm_90.
#pragma once

namespace wb::tuned {

/// D(16 x 8) += A(16 x K) B(K x 8) in double, one warp: K = 4, 8 or 16. Lane (g, t) holds
/// a[q] = A[g + 8 (q % 2)][t + 4 (q / 2)] (K / 2 values) and b[q] = B[t + 4 q][g] (K / 4 values).
template <int K>
__device__ __forceinline__ void mma_f64(double (&d)[4], const double (&a)[K / 2], const double (&b)[K / 4]) {
    if constexpr (K == 4)
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(b[0]));
    else if constexpr (K == 8)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                       "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}

}  // namespace wb::tuned
