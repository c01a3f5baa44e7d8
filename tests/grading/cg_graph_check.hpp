// The GPU check of chapter 5's CG exercise (Jacobi-preconditioned CG as a CUDA graph): runs one
// launcher on a set of cases against the float64 reference and says what went wrong first.
#pragma once

#include "exercise_cg_graph.hpp"

#include <string>
#include <vector>

namespace wb::grade::test {

/// One graded case: an SPD system of size n (leading dimension lda), `iters` iterations.
struct CgGraphCase {
    int n = 0, lda = 1, iters = 0;
    std::string label() const;
};

/// The cases: n = 0 and 1, sizes around a warp and a block, primes and 2^k +- 1, lda above n,
/// 0 to 20 iterations, more rows than the looped grid covers in one pass.
const std::vector<CgGraphCase>& cg_graph_cases();

/// The relative error (2-norm) x may have against the float64 reference: float CG on these
/// systems (condition number 10 before the diagonal scaling that the preconditioner undoes)
/// stays within about 1e-6 of it.
constexpr double kCgGraphTol = 2e-5;

/// Runs `fn` on `c` (A: the workbook's SPD test matrix of condition number 10, scaled by a random
/// diagonal in [0.5, 2] on both sides; A, b and dinv inside larger buffers with other data around
/// them; x followed by a sentinel; the workspace NaN on entry, followed by a sentinel) and returns
/// "" when x is within kCgGraphTol of the float64 reference and nothing after x or the workspace
/// changed, else the first finding ("wrote outside x ...", "wrote outside work ...", "wrong
/// values ...", "error: ...").
std::string check_cg_graph(wb::ex::CgGraphFn fn, const CgGraphCase& c, unsigned long long seed);

/// Every case, in the grid as written and the looped grid: "" or "<case> (<grid>): <finding>".
std::string check_cg_graph_all(wb::ex::CgGraphFn fn, unsigned long long seed);

/// Median milliseconds of `fn` on n = 1024, 100 iterations: a system that sits in L2, where the
/// launches of an iteration cost about as much as its work.
double time_cg_graph_ms(wb::ex::CgGraphFn fn, unsigned long long seed);

}  // namespace wb::grade::test
