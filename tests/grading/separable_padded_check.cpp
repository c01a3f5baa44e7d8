// The GPU check of chapter 4's separable-filter exercise (separable_padded_check.hpp).
#include "separable_padded_check.hpp"

#include "exercise_check.hpp"

namespace wb::grade::test {

const std::vector<SeparablePaddedCase>& separable_padded_cases() {
    static const std::vector<SeparablePaddedCase> cases = {
        {{1, 1, 1, 32, 32}},        {{1, 1, 3, 32, 64}},         {{7, 5, 5, 32, 32}},          {{5, 7, 15, 64, 32}},
        {{33, 31, 3, 32, 64}},      {{100, 257, 7, 288, 288}},   {{513, 1000, 63, 1024, 1024}},
        {{1, 4097, 9, 4128, 4128}}, {{4097, 1, 9, 32, 32}},      {{1000, 999, 31, 1024, 1056}},
        {{64, 128, 15, 128, 128}},  {{300, 384, 5, 512, 384}},
    };
    return cases;
}

std::string check_separable_padded(wb::ex::SeparableFn fn, const SeparablePaddedCase& c, unsigned long long seed) {
    return check_separable_layout(fn, c, seed, true);
}

std::string check_separable_padded_all(wb::ex::SeparableFn fn, unsigned long long seed) {
    // The launcher sizes its grid without grid_for(): the looped grid would be the same run.
    return first_failure(separable_padded_cases(),
                         [&](const SeparablePaddedCase& c) { return check_separable_padded(fn, c, seed); }, false);
}

double time_separable_padded_ms(wb::ex::SeparableFn fn, unsigned long long seed) {
    return time_separable_ms(fn, seed);  // 4096 x 4096, pitch 4096: chapter 4's layout too
}

}  // namespace wb::grade::test
