// Shared by the cpu validation tests of every op: call a step on arguments that must be rejected
// and return the message (the launch never reaches the GPU: fake device pointers are never
// dereferenced), the steps of an op with its peer, and the check every rule makes on every step:
// the message names the function first ("<stage>::<op>: ") and contains the rule.
#pragma once

#include "catch.hpp"
#include "step.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace wb_test {

/// The message of the std::invalid_argument `step` throws on `a`, or "(no exception)".
template <class Args>
std::string error_of(const wb::Step<Args>& step, const Args& a, const typename Args::Launch& l = {}) {
    try {
        step.launch(a, l, nullptr);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no exception)";
}

/// The op's ladder steps and its peer.
template <class Args>
std::vector<wb::Step<Args>> ladder_and_peer() {
    std::vector<wb::Step<Args>> steps = wb::ladder<Args>();
    steps.push_back(wb::peer_step<Args>());
    return steps;
}

/// Every step of `steps` rejects `a` with a message that starts "<stage>::<op>: " and contains
/// `message`; `what` says which case this is (precision, variant) in the failure report.
template <class Args>
void expect_rejected(const std::vector<wb::Step<Args>>& steps, const Args& a, const std::string& op,
                     const std::string& message, const std::string& what) {
    for (const auto& step : steps) {
        const std::string e = error_of(step, a);
        INFO("step " << step.stage << " " << what << ": " << e);
        CHECK_THAT(e, Catch::Matchers::Contains(message));
        CHECK_THAT(e, Catch::Matchers::StartsWith(step.stage + "::" + op + ": "));
    }
}

}  // namespace wb_test
