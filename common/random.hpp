/// \file random.hpp
/// \brief Seeded random inputs with full mantissas and no zeros, and NaN poisoning of outputs.
#pragma once

#include <cstdint>
#include <vector>

namespace wb {

/// Fill `v` with values uniform in [-1, -1/8] U [1/8, 1] from seed `seed` (std::mt19937_64):
/// never zero, random in every mantissa bit, same seed -> same values on every machine.
template <class T>
void fill_random(std::vector<T>& v, std::uint64_t seed);

template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
    std::vector<T> v(n);
    fill_random(v, seed);
    return v;
}

/// Overwrite with quiet NaN so that an element the kernel did not write fails every check.
template <class T>
void poison(std::vector<T>& v);

/// A fresh seed per test case: from the environment WB_SEED if set, else the clock; printed
/// by the tests on failure so a case can be replayed.
std::uint64_t fresh_seed();

}  // namespace wb
