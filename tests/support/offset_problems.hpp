/// \file offset_problems.hpp
/// \brief Shared by the gpu and perf tests of misaligned bases (test_misaligned*.cpp): each op's
///        problem with every base pointer one element into its allocation (a submatrix view: its
///        address then aligned to one element only), built through the op's own problem where it
///        takes an offset, and for CG (whose problem has none) as copies of a CgProblem's inputs.
#pragma once

#include "buffer.hpp"
#include "cg_problem.hpp"
#include "check.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace wb_test {

/// `host` uploaded one element into a new allocation; the element before it is NaN.
template <class T>
wb::DeviceBuffer<T> one_element_in(const std::vector<T>& host) {
    std::vector<T> shifted(host.size() + 1, std::numeric_limits<T>::quiet_NaN());
    std::copy(host.begin(), host.end(), shifted.begin() + 1);
    return wb::DeviceBuffer<T>(shifted);
}

/// A CG problem's A, b and x0 one element into their allocations (x restored to x0 by reset()).
template <class T>
struct OffsetCg {
    wb::CgProblem<T>& p;
    wb::DeviceBuffer<T> A, b, x;
    explicit OffsetCg(wb::CgProblem<T>& problem)
        : p(problem), A(one_element_in(problem.hA)), b(one_element_in(problem.hb)), x(one_element_in(problem.hx0)) {}
    /// x = x0 again (the element before x keeps its NaN: nothing writes it).
    void reset() {
        if (!p.hx0.empty())
            WB_CUDA(cudaMemcpy(x.data() + 1, p.hx0.data(), p.hx0.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    wb::CgArgs<T> args() {
        wb::CgArgs<T> a = p.args();
        a.A = A.data() + 1;
        a.b = b.data() + 1;
        a.x = x.data() + 1;
        return a;
    }
    /// x (without the element before it) after a solve.
    std::vector<T> solution() const {
        std::vector<T> all = x.download();
        return std::vector<T>(all.begin() + 1, all.end());
    }
};

}  // namespace wb_test
