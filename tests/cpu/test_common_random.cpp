// CPU tests of the random inputs (never zero, both signs, every mantissa bit random, the same
// values for the same seed on every machine), of NaN poisoning, and of fresh_seed's WB_SEED.
#include "catch.hpp"

#include "common/random.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// Sets an environment variable for the life of the object, then restores the old value.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            had_ = true;
            old_ = old;
        }
        if (value) setenv(name, value, 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (had_) setenv(name_.c_str(), old_.c_str(), 1);
        else unsetenv(name_.c_str());
    }

private:
    std::string name_, old_;
    bool had_ = false;
};

template <class T>
void check_range_and_signs(const std::vector<T>& v) {
    std::size_t negative = 0;
    for (T e : v) {
        REQUIRE(std::isfinite(e));
        REQUIRE(std::fabs(e) >= T(0.125));
        REQUIRE(std::fabs(e) <= T(1));
        if (e < 0) ++negative;
    }
    // Both signs, roughly half each (binomial, 10000 draws: 4000..6000 is > 20 sigma wide).
    CHECK(negative > v.size() * 2 / 5);
    CHECK(negative < v.size() * 3 / 5);
}

}  // namespace

TEST_CASE("fill_random: values in [-1, -1/8] U [1/8, 1], never zero, both signs", "[cpu][random]") {
    const std::uint64_t seed = wb::fresh_seed();
    INFO("seed " << seed);
    check_range_and_signs(wb::random_vector<float>(10000, seed));
    check_range_and_signs(wb::random_vector<double>(10000, seed));
}

TEST_CASE("fill_random: every mantissa bit is random", "[cpu][random]") {
    const std::uint64_t seed = wb::fresh_seed();
    INFO("seed " << seed);
    const auto f = wb::random_vector<float>(10000, seed);
    const auto d = wb::random_vector<double>(10000, seed);
    std::set<std::uint32_t> low_f;  // lowest 8 bits of the float mantissa
    std::set<std::uint64_t> low_d;  // lowest 8 bits of the double mantissa
    std::uint32_t or_f = 0;
    std::uint64_t or_d = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
        std::uint32_t bf;
        std::uint64_t bd;
        std::memcpy(&bf, &f[i], sizeof bf);
        std::memcpy(&bd, &d[i], sizeof bd);
        low_f.insert(bf & 0xFFu);
        low_d.insert(bd & 0xFFu);
        or_f |= bf;
        or_d |= bd;
    }
    CHECK(low_f.size() == 256);  // all 256 patterns appear among 10000 draws
    CHECK(low_d.size() == 256);
    CHECK((or_f & 0x007FFFFFu) == 0x007FFFFFu);                   // every float mantissa bit set somewhere
    CHECK((or_d & 0x000FFFFFFFFFFFFFull) == 0x000FFFFFFFFFFFFFull);  // and every double one
}

TEST_CASE("fill_random: the same seed gives the same values, on every machine", "[cpu][random]") {
    const std::uint64_t seed = wb::fresh_seed();
    INFO("seed " << seed);
    CHECK(wb::random_vector<double>(100, seed) == wb::random_vector<double>(100, seed));
    CHECK(wb::random_vector<double>(100, seed) != wb::random_vector<double>(100, seed + 1));
    std::vector<float> v(100);
    wb::fill_random(v, seed);
    CHECK(v == wb::random_vector<float>(100, seed));
    // Golden values for seed 42: std::mt19937_64 is fully specified by the standard and the
    // mapping to [1/8, 1] uses IEEE arithmetic only, so these hold for every compiler and machine
    // (a change here changes every recorded seed's inputs: do it on purpose only).
    const std::vector<double> golden_d = {0x1.924f471b82124p-1, 0x1.5e493b850400cp-1, 0x1.90f6075e59255p-1,
                                          0x1.f4335dbcc6bbbp-3, -0x1.d4aa1c79071ebp-1, 0x1.a89206b2477bp-3};
    const std::vector<float> golden_f = {0x1.924f48p-1f, 0x1.5e493cp-1f, 0x1.90f608p-1f,
                                         0x1.f4335ep-3f, -0x1.d4aa1cp-1f, 0x1.a89206p-3f};
    CHECK(wb::random_vector<double>(6, 42) == golden_d);
    CHECK(wb::random_vector<float>(6, 42) == golden_f);
}

TEST_CASE("poison fills with NaN", "[cpu][random]") {
    auto f = wb::random_vector<float>(17, 1);
    auto d = wb::random_vector<double>(17, 2);
    wb::poison(f);
    wb::poison(d);
    for (float e : f) CHECK(std::isnan(e));
    for (double e : d) CHECK(std::isnan(e));
}

TEST_CASE("fresh_seed reads WB_SEED, else differs between calls", "[cpu][random]") {
    {
        ScopedEnv env("WB_SEED", "12345");
        CHECK(wb::fresh_seed() == 12345u);
    }
    {
        ScopedEnv env("WB_SEED", "0x10");
        CHECK(wb::fresh_seed() == 16u);
    }
    {
        ScopedEnv env("WB_SEED", "18446744073709551615");
        CHECK(wb::fresh_seed() == 18446744073709551615ull);
    }
    for (const char* bad : {"abc", "12x", "-5", "99999999999999999999"}) {
        ScopedEnv env("WB_SEED", bad);
        INFO("WB_SEED=" << bad);
        CHECK_THROWS_AS(wb::fresh_seed(), std::invalid_argument);
    }
    {
        ScopedEnv env("WB_SEED", nullptr);
        const std::uint64_t a = wb::fresh_seed(), b = wb::fresh_seed();
        CHECK(a != b);
    }
}
