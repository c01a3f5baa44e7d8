/// \file step.hpp
/// \brief One rung of an op's ladder, and the generic ladder look-ups (see the architecture page,
///        docs/pages/architecture.md). Every op supplies `make_ladder<Args>()` and
///        `make_peer<Args>()` in its own `kernels/<op>_ladder.cpp`; the look-ups below are
///        the same for every op.
#pragma once

#include "stage.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// One ladder step of the op whose arguments are `Args` (GemvArgs<T>, GemmArgs<T>, ...).
/// `Args::Launch` is the op's own launch type: fields that mean the same thing in every step of
/// that op (threads per block, tile sizes, ...), with `str()` and `operator==`.
template <class Args>
struct Step {
    using Launch = typename Args::Launch;
    using LaunchFn = void (*)(const Args&, const Launch&, cudaStream_t);
    using DefaultFn = std::function<Launch(const Args&)>;
    using LegalFn = std::function<std::vector<Launch>(const Args&)>;

    /// A ladder step of `stage`: its chapter and name come from the stage table (stage.hpp).
    Step(Stage stage, std::string summary, LaunchFn launch, DefaultFn default_launch, LegalFn legal_launches)
        : chapter(chapter_of(stage)), stage(stage_name(stage)), summary(std::move(summary)), launch(launch),
          default_launch(std::move(default_launch)), legal_launches(std::move(legal_launches)) {}
    /// The vendor library as a step (chapter 0), named `peer` ("cublas", "npp", ...).
    Step(std::string peer, std::string summary, LaunchFn launch, DefaultFn default_launch, LegalFn legal_launches)
        : chapter(0), stage(std::move(peer)), summary(std::move(summary)), launch(launch),
          default_launch(std::move(default_launch)), legal_launches(std::move(legal_launches)) {}

    int chapter = 0;       ///< the chapter that introduces it (1, 2, ...; 0 for the peer)
    std::string stage;     ///< the stage's name (stage.hpp: "naive" ... "tuned"), or the peer's name
    std::string summary;   ///< one line: what this step changes
    LaunchFn launch = nullptr;
    /// Default launch for these arguments (it may depend on the shape and the variant).
    DefaultFn default_launch;
    /// Every legal launch, for sweeps (chapter 6) and the tests.
    LegalFn legal_launches;

    bool is_peer() const { return chapter == 0; }
    /// The ladder stage (a ladder step only: a peer has none, and throws).
    Stage ladder_stage() const { return stage_of(chapter).stage; }
};

/// Defined once per op (and per precision) in `kernels/<op>_ladder.cpp`: the steps in ladder
/// order, chapters 1..5, and the vendor library as a step (chapter 0).
template <class Args> std::vector<Step<Args>> make_ladder();
template <class Args> Step<Args> make_peer();

/// The op's ladder (built once).
template <class Args>
const std::vector<Step<Args>>& ladder() {
    static const std::vector<Step<Args>> steps = make_ladder<Args>();
    return steps;
}

/// The op's peer (the vendor library) as a step (the namespace wb::peer holds the launchers).
template <class Args>
const Step<Args>& peer_step() {
    static const Step<Args> s = make_peer<Args>();
    return s;
}

/// The ladder step of chapter `chapter`; chapter 0 is the peer. Throws std::invalid_argument
/// when the op has no such step.
template <class Args>
const Step<Args>& step(int chapter) {
    if (chapter == 0) return peer_step<Args>();
    std::string chapters;
    for (const auto& s : ladder<Args>()) {
        if (s.chapter == chapter) return s;
        chapters += (chapters.empty() ? "" : ", ") + std::to_string(s.chapter);
    }
    throw std::invalid_argument("step: chapter (" + std::to_string(chapter) +
                                ") must be 0 (the peer) or one of this op's chapters (" + chapters + ")");
}

}  // namespace wb
