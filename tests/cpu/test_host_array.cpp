// test_host_array.cpp — cpu::HostArray (kernels/cpu/host_array.hpp): the allocator it is given,
// the BLAS tail after the elements (zeroed), and its error naming who asked.
#include "catch.hpp"

#include "host_array.hpp"

#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

TEST_CASE("cpu::HostArray: n elements and the BLAS tail, from the allocator given", "[cpu][host_array]") {
    std::vector<std::size_t> asked;
    std::vector<std::shared_ptr<unsigned char>> given;
    const wb::cpu::HostAlloc alloc = [&](std::size_t bytes) {
        asked.push_back(bytes);
        auto b = std::shared_ptr<unsigned char>(new unsigned char[bytes], [](unsigned char* p) { delete[] p; });
        std::memset(b.get(), 0xAB, bytes);  // poison: the tail must come back zeroed
        given.push_back(b);
        return std::shared_ptr<void>(b, b.get());
    };
    const wb::cpu::HostArray<float> f(1001, alloc);
    const wb::cpu::HostArray<double> d(7, alloc);
    REQUIRE(asked.size() == 2);
    CHECK(asked[0] == (1001 + wb::cpu::blas_tail_elems<float>()) * sizeof(float));
    CHECK(asked[1] == (7 + wb::cpu::blas_tail_elems<double>()) * sizeof(double));
    CHECK(static_cast<void*>(f.data()) == given[0].get());
    CHECK(f.size() == 1001);
    for (std::size_t i = 0; i < wb::cpu::blas_tail_elems<float>(); ++i) CHECK(f.data()[1001 + i] == 0.0f);
    for (std::size_t i = 0; i < wb::cpu::blas_tail_elems<double>(); ++i) CHECK(d.data()[7 + i] == 0.0);
    // the elements are the caller's to fill: left as the allocator gave them
    unsigned char first;
    std::memcpy(&first, f.data(), 1);
    CHECK(first == 0xAB);
    // without an allocator: ordinary memory, the tail zeroed too
    const wb::cpu::HostArray<double> plain(5, {});
    REQUIRE(plain.data() != nullptr);
    for (std::size_t i = 0; i < wb::cpu::blas_tail_elems<double>(); ++i) CHECK(plain.data()[5 + i] == 0.0);
}

TEST_CASE("cpu::HostArray: an allocator that returns none throws, naming who asked", "[cpu][host_array]") {
    const wb::cpu::HostAlloc none = [](std::size_t) { return std::shared_ptr<void>(); };
    CHECK_THROWS_WITH(wb::cpu::HostArray<float>(64, none, "the test"), "the test: no host memory for 64 elements");
    CHECK_THROWS_AS(wb::cpu::HostArray<double>(64, none), std::runtime_error);
}
