/// \file cg_ladder.cpp
/// \brief The CG ladder: its five steps and its peer (cuBLAS-composed CG), registered for the
///        generic look-ups of step.hpp (see docs/pages/architecture.md). This is the only place
///        that lists them. Each step's default_launch is its launcher's default; its
///        legal_launches are the values the chapter's sweep tries (all accepted by the launcher).
#include "cg.hpp"
#include "ladder_scope.hpp"
#include "step.hpp"

#include <algorithm>
#include <vector>

namespace wb {
namespace {

CgLaunch launch(int block, int check, int schedule = -1) {
    CgLaunch l;
    l.block = block;
    l.check_every = check;
    l.schedule = schedule;
    return l;
}

/// The sweep's launches, kept few (each is a timed solve at every default shape): the default
/// block with every `checks` value, then the default check with the other block sizes.
std::vector<CgLaunch> around(int block, int check, std::initializer_list<int> checks, int schedule = -1) {
    std::vector<CgLaunch> v;
    for (int c : checks) v.push_back(launch(block, c, schedule));
    for (int b : {128, 512}) v.push_back(launch(b, check, schedule));
    return v;
}

template <class T>
std::vector<Step<CgArgs<T>>> make_cg_ladder() {
    using A = CgArgs<T>;
    std::vector<Step<A>> steps;
    if constexpr (ladder_lists(1)) steps.push_back({Stage::kNaive, "White 5.2: chapter 1's GEMV on the GPU, vectors on the CPU, p and A p over the link",
                     &naive::cg<T>, [](const A&) { return CgLaunch{}; },
                     [](const A&) { return std::vector<CgLaunch>{CgLaunch{}}; }});
    if constexpr (ladder_lists(2)) steps.push_back({Stage::kShared, "all on the GPU, dots reduced in shared memory, 2 scalars to the host per iteration",
                     &shared::cg<T>, [](const A&) { return launch(256, 0); },
                     [](const A&) {
                         return std::vector<CgLaunch>{launch(256, 0), launch(128, 0), launch(512, 0)};
                     }});
    if constexpr (ladder_lists(3)) steps.push_back({Stage::kPattern, "fused vector kernels, scalars on the device, status read every 8 iterations",
                     &pattern::cg<T>, [](const A&) { return launch(256, 8); },
                     [](const A&) { return around(256, 8, {1, 4, 8, 16}); }});
    if constexpr (ladder_lists(4)) steps.push_back({Stage::kAccess, "SYMV's access step (half of A), aligned padded vectors, 16-byte accesses",
                     &access::cg<T>, [](const A&) { return launch(256, 8); },
                     [](const A&) { return around(256, 8, {4, 8, 16}); }});
    if constexpr (ladder_lists(5)) steps.push_back({Stage::kTuned,
                     "a persistent kernel keeping a share of A on chip where that pays, else tuned SYMV + one "
                     "cooperative vector kernel in CUDA graphs of 8 iterations",
                     &tuned::cg<T>, [](const A& a) { return tuned::cg_default<T>(a); },  // chapter 6's derivation
                     [](const A& a) {
                         // CUDA graphs around the default, then the same kernels as stream launches,
                         // and the persistent kernel (block 256 fixed, no host check).
                         auto v = around(256, 8, {4, 8, 16, 32}, 1);
                         v.push_back(launch(256, 8, 0));
                         v.push_back(launch(256, 8, 2));
                         const CgLaunch d = tuned::cg_default<T>(a);  // chapter 6's derivation
                         if (std::find(v.begin(), v.end(), d) == v.end()) v.push_back(d);
                         return v;
                     }});
    return steps;
}

template <class T>
Step<CgArgs<T>> make_cg_peer() {
    return {"cublas", "CG composed of cuBLAS calls (GEMV, DOT to the host, AXPY, SCAL): the cuda-samples recipe",
            &peer::cg<T>, [](const CgArgs<T>&) { return CgLaunch{}; },
            [](const CgArgs<T>&) { return std::vector<CgLaunch>{CgLaunch{}}; }};
}

}  // namespace

template <> std::vector<Step<CgArgs<float>>> make_ladder<CgArgs<float>>() { return make_cg_ladder<float>(); }
template <> std::vector<Step<CgArgs<double>>> make_ladder<CgArgs<double>>() { return make_cg_ladder<double>(); }
template <> Step<CgArgs<float>> make_peer<CgArgs<float>>() { return make_cg_peer<float>(); }
template <> Step<CgArgs<double>> make_peer<CgArgs<double>>() { return make_cg_peer<double>(); }

}  // namespace wb
