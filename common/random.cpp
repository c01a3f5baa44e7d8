// random.cpp — seeded random inputs and NaN poisoning (declared in random.hpp).
//
// Inputs must exercise every mantissa bit and never be zero (architecture §5): with values of a few
// bits, float64 sums become exact and every summation order agrees, hiding real rounding
// differences. Values are built from std::mt19937_64's raw 64-bit output with plain IEEE
// arithmetic, not with std::uniform_real_distribution (whose algorithm differs between standard
// libraries), so one seed gives the same inputs with g++, clang and MSVC on every machine.
#include "random.hpp"

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace wb {

template <class T>
void fill_random(std::vector<T>& v, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    for (auto& e : v) {
        const std::uint64_t bits = gen();
        const double r = static_cast<double>(bits >> 11) * 0x1.0p-53;   // [0, 1), 53 random bits
        const double mag = 0.125 + 0.875 * r;                            // [1/8, 1)
        const double val = (bits & 1u) ? -mag : mag;                     // sign from an unused bit
        e = static_cast<T>(val);  // float rounds to nearest: stays within [1/8, 1]
    }
}

template <class T>
void poison(std::vector<T>& v) {
    for (auto& e : v) e = std::numeric_limits<T>::quiet_NaN();
}

std::uint64_t fresh_seed() {
    if (const char* env = std::getenv("WB_SEED"); env && *env) {
        errno = 0;
        char* end = nullptr;
        const unsigned long long s = std::strtoull(env, &end, 0);  // decimal or 0x-hex
        if (errno != 0 || end == env || *end != '\0' || *env == '-')
            throw std::invalid_argument(std::string("fresh_seed: WB_SEED (") + env +
                                        ") must be an unsigned 64-bit integer (decimal or 0x hex)");
        return static_cast<std::uint64_t>(s);
    }
    std::random_device rd;
    const std::uint64_t hw = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    const auto now = static_cast<std::uint64_t>(
        std::chrono::high_resolution_clock::now().time_since_epoch().count());
    return hw ^ now;
}

template void fill_random<float>(std::vector<float>&, std::uint64_t);
template void fill_random<double>(std::vector<double>&, std::uint64_t);
template void poison<float>(std::vector<float>&);
template void poison<double>(std::vector<double>&);

}  // namespace wb
