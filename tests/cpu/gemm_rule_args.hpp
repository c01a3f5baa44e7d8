/// \file gemm_rule_args.hpp
/// \brief Arguments of a float GEMM for the default rule's host tests and reports: pointers that
///        are never dereferenced, C read (beta 0.5, as the chapters' calls).
#pragma once

#include "gemm.hpp"

#include <cstdint>

namespace wb::test {

/// An m x n x k product with tight leading dimensions; `ld_extra` > 0 breaks the 16-byte
/// alignment of every column (as 4097 does). The pointers are never dereferenced.
inline GemmArgs<float> gemm_rule_args(int m, int n, int k, Op oa = Op::N, Op ob = Op::N, int ld_extra = 0) {
    float* const fake = reinterpret_cast<float*>(std::uintptr_t{0x10000});
    GemmArgs<float> a;
    a.op_a = oa;
    a.op_b = ob;
    a.m = m;
    a.n = n;
    a.k = k;
    a.A = fake;
    a.lda = (oa == Op::N ? m : k) + ld_extra;
    a.B = fake;
    a.ldb = (ob == Op::N ? k : n) + ld_extra;
    a.C = fake;
    a.ldc = m;
    a.beta = 0.5f;
    return a;
}

}  // namespace wb::test
