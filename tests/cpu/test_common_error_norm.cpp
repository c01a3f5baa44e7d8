// CPU tests of the error norms: the relative error on known vectors, NaN/Inf always failing,
// the tolerance growing like sqrt(k), and first_bad_element naming the element at fault.
#include "catch.hpp"

#include "common/error_norm.hpp"
#include "common/random.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

TEST_CASE("relative_error on known vectors", "[cpu][error_norm]") {
    const std::vector<double> ref = {3, 4};  // ||ref|| = 5
    CHECK(wb::relative_error(std::vector<double>{3, 4}, ref) == 0.0);
    CHECK(wb::relative_error(std::vector<double>{3, 4.5}, ref) == Approx(0.1).epsilon(1e-14));
    CHECK(wb::relative_error(std::vector<float>{0, 0}, ref) == Approx(1.0).epsilon(1e-14));
    // ||ref|| == 0: the absolute norm.
    CHECK(wb::relative_error(std::vector<double>{3, 4}, std::vector<double>{0, 0}) == Approx(5.0).epsilon(1e-14));
    CHECK(wb::relative_error(std::vector<float>{}, std::vector<double>{}) == 0.0);
}

TEST_CASE("relative_error: NaN and Inf always fail", "[cpu][error_norm]") {
    const std::vector<double> ref = {1, 2, 3};
    const float fnan = std::numeric_limits<float>::quiet_NaN();
    const double dinf = std::numeric_limits<double>::infinity();
    CHECK(std::isinf(wb::relative_error(std::vector<float>{1, fnan, 3}, ref)));
    CHECK(std::isinf(wb::relative_error(std::vector<double>{1, 2, -dinf}, ref)));
    CHECK(std::isinf(wb::relative_error(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2, dinf})));
    // An Inf result must fail even against an unbounded tolerance check of the form err <= tol.
    CHECK_FALSE(wb::relative_error(std::vector<float>{1, fnan, 3}, ref) <= wb::tolerance<float>(1u << 30));
}

TEST_CASE("relative_error rejects vectors of different sizes", "[cpu][error_norm]") {
    CHECK_THROWS_AS(wb::relative_error(std::vector<float>{1, 2}, std::vector<double>{1, 2, 3}),
                    std::invalid_argument);
}

TEST_CASE("tolerance grows with sqrt(k) and is floored at 4 eps", "[cpu][error_norm]") {
    const double feps = std::numeric_limits<float>::epsilon();
    const double deps = std::numeric_limits<double>::epsilon();
    CHECK(wb::tolerance<float>(0) == Approx(4 * feps));
    CHECK(wb::tolerance<float>(1) == Approx(8 * feps));
    CHECK(wb::tolerance<double>(1) == Approx(8 * deps));
    CHECK(wb::tolerance<float>(400) / wb::tolerance<float>(4) == Approx(10.0));
    CHECK(wb::tolerance<double>(1 << 20) / wb::tolerance<double>(1 << 10) == Approx(32.0));
    // architecture §7: float about 1e-6 x sqrt(k).
    CHECK(wb::tolerance<float>(10000) == Approx(1e-6 * 100).epsilon(0.1));
    CHECK(wb::tolerance<double>(10000) < wb::tolerance<float>(10000) * 1e-8);
}

TEST_CASE("first_bad_element names the element at fault", "[cpu][error_norm]") {
    const std::vector<double> ref = {1, -2, 3, 4};
    const double tol = 1e-6;
    SECTION("none when within the tolerance") {
        CHECK(wb::first_bad_element(std::vector<double>{1, -2, 3, 4 + 1e-9}, ref, tol).empty());
    }
    SECTION("a NaN (an unwritten, poisoned element) comes first") {
        std::vector<float> out = {1, -2.5f, 3, 4};
        out[3] = std::numeric_limits<float>::quiet_NaN();
        const std::string msg = wb::first_bad_element(out, ref, tol);
        CHECK(msg.find("element 3") != std::string::npos);
        CHECK(msg.find("not finite") != std::string::npos);
    }
    SECTION("the first element off by more than tol x rms(ref)") {
        const std::string msg = wb::first_bad_element(std::vector<double>{1, -2, 3.01, 4.5}, ref, tol);
        CHECK(msg.find("element 2") != std::string::npos);
        CHECK(msg.find("3.01") != std::string::npos);
    }
    SECTION("bad arguments") {
        CHECK_THROWS_AS(wb::first_bad_element(std::vector<double>{1}, ref, tol), std::invalid_argument);
        CHECK_THROWS_AS(wb::first_bad_element(std::vector<double>{1, -2, 3, 4}, ref, -1.0), std::invalid_argument);
    }
}

TEST_CASE("first_bad_element finds an element whenever the norm check fails", "[cpu][error_norm]") {
    const std::uint64_t seed = wb::fresh_seed();
    INFO("seed " << seed << " (replay with WB_SEED=" << seed << ")");
    const auto base = wb::random_vector<double>(1000, seed);
    const std::vector<double> ref(base.begin(), base.end());
    auto noise = wb::random_vector<double>(1000, seed + 1);
    const double tol = wb::tolerance<float>(1000);
    // Many small errors, none large: up to 4 x tol relative in every element.
    std::vector<double> out(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) out[i] = ref[i] + 4 * tol * std::fabs(noise[i]) * ref[i];
    REQUIRE(wb::relative_error(out, ref) > tol);
    CHECK_FALSE(wb::first_bad_element(out, ref, tol).empty());
    // And none when every element is well within.
    for (std::size_t i = 0; i < ref.size(); ++i) out[i] = ref[i] + 0.01 * tol * noise[i] * ref[i];
    REQUIRE(wb::relative_error(out, ref) < tol);
    CHECK(wb::first_bad_element(out, ref, tol).empty());
}
