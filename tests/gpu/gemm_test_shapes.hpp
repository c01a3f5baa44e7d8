/// \file gemm_test_shapes.hpp
/// \brief What the GEMM gpu tests share: an m x n x k triple and the walk over every transpose
///        combination of a list of them (the outer loops of each exhaustive case).
#pragma once

#include "gemm_problem.hpp"

#include <vector>

namespace wb::test {

struct Mnk {
    int m, n, k;
};

/// f(shape) for each op(A), op(B) in {N, T} and each m x n x k of `shapes`, in that order: the
/// shape with tight leading dimensions and no offset, for f to pad or offset.
template <class F>
void for_each_transpose(const std::vector<Mnk>& shapes, F&& f) {
    for (Op oa : {Op::N, Op::T})
        for (Op ob : {Op::N, Op::T})
            for (const Mnk& x : shapes) f(GemmShape{oa, ob, x.m, x.n, x.k});
}

}  // namespace wb::test
