// An allocation that cannot succeed fails in words and leaves the GPU usable: a DeviceBuffer of
// a petabyte and a launcher workspace far beyond the card (the tuned GEMM's split-k partials with
// 1024 requested slices of a 16384 x 16384 C, at least 550 GB) each throw a std::runtime_error that names the bytes
// asked for; afterwards no error is pending (cudaGetLastError), the output of the failed call is
// untouched, and the next calls on the same stream are correct.
// Not under the sanitizers (WB_TEST_SMALL): they report the failed cudaMalloc as an error.
// Run: ./build/bin/wb_gpu_tests "[allocation]"
#include "catch.hpp"

#include "buffer.hpp"
#include "gemm_problem.hpp"
#include "random.hpp"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace {

bool small_run() { return std::getenv("WB_TEST_SMALL") != nullptr; }

/// The message of the std::runtime_error `f` throws ("" when it throws none).
template <class F>
std::string runtime_error_of(F f) {
    try {
        f();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("allocation failure: a device buffer too large for the card names its bytes; the GPU stays usable",
          "[gpu][allocation]") {
    if (small_run()) return;
    const std::size_t petabyte = std::size_t{1} << 50;
    const std::string e = runtime_error_of([&] { wb::DeviceBuffer<char> b(petabyte); });
    INFO(e);
    CHECK_THAT(e, Catch::Matchers::Contains("cannot allocate " + std::to_string(petabyte) + " bytes of device memory"));
    CHECK_THAT(e, Catch::Matchers::Contains("bytes free"));
    CHECK(cudaGetLastError() == cudaSuccess);
    wb::DeviceBuffer<float> ok(1024);  // the next allocation works
    ok.fill_bytes(0);
    CHECK(ok.download()[1023] == 0.0f);
}

TEST_CASE("allocation failure: the tuned GEMM's split-k workspace beyond the card fails naming its size; C and "
          "the stream are untouched",
          "[gpu][allocation][gemm]") {
    if (small_run()) return;
    const auto& tuned = wb::step<wb::GemmArgs<float>>(5);
    auto big = wb::make_gemm_problem<float>(wb::GemmShape{wb::Op::N, wb::Op::N, 16384, 16384, 16384}, wb::fresh_seed());
    wb::GemmLaunch l = tuned.default_launch(big.args());
    l.split_k = 1024;  // slices of at least one BK step of k each: 512 or more x 16384^2 floats, >= 550 GB
    const std::string e = runtime_error_of([&] { tuned.launch(big.args(), l, nullptr); });
    INFO(e);
    CHECK_THAT(e, Catch::Matchers::Contains("launcher workspace: cannot allocate"));
    CHECK_THAT(e, Catch::Matchers::Contains("bytes of device memory"));  // slices x 16384^2 x 4: 512 or 1024 slices
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaGetLastError() == cudaSuccess);
    // C was not written (the partials come first, then the sum into C).
    const std::vector<float> c = big.C.download();
    CHECK(std::memcmp(c.data(), big.hC.data(), c.size() * sizeof(float)) == 0);
    // The next calls, the default split of a long k included (its workspace allocated again), are right.
    for (wb::GemmShape s : {wb::GemmShape{wb::Op::N, wb::Op::N, 1000, 1000, 1000},
                            wb::GemmShape{wb::Op::N, wb::Op::N, 256, 256, 65536}}) {
        auto p = wb::make_gemm_problem<float>(s, wb::fresh_seed());
        const auto ref = p.reference();
        const auto chk = wb::check_gemm(tuned, tuned.default_launch(p.args()), p, ref);
        INFO(s.str() << ": " << chk.first_bad);
        CHECK(chk.ok());
    }
}
