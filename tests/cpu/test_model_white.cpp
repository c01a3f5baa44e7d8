// test_model_white.cpp — White's closed forms on the T10 preset: the global-memory read counts
// (Eq. 3.2-3.4, 4.6-4.7) and the launch parameters his five-step procedure derives for Mv
// (Eq. 4.24), MM (Eq. 4.41) and convolution (Eq. 5.19). The derive_* functions search the launch
// space with the generic metrics; the tests check they land on the dissertation's closed forms.
#include "catch.hpp"

#include "model.hpp"

#include <stdexcept>

using namespace wb::model;
using wb::device_preset;

namespace {
const long long kSizes[] = {512, 1024, 2048, 4096, 8192, 16384};  // White Eq. 4.1
}

TEST_CASE("Eq. 3.2: 32-byte reads of the global-memory Mv", "[model][white]") {
    CHECK(white_mv_gld32(1024, 16) == 17LL * 1024 * 1024 / 16);  // §4.1: 17 n^2 / 16
    CHECK(white_mv_gld32(1024, 16) == 1114112);
    CHECK(white_mv_gld32(1024, 512) == 1114112);
    CHECK(white_mv_gld32(1024, 8) == 1179648);    // 9 n^2 / 8
    CHECK(white_mv_gld32(1024, 1) == 2 * 1024 * 1024);
    CHECK(white_mv_gld32(4096, 4) == 5LL * 4096 * 4096 / 4);
    CHECK_THROWS_AS(white_mv_gld32(1024, 3), std::invalid_argument);
    CHECK_THROWS_AS(white_mv_gld32(1024, 1024), std::invalid_argument);
    CHECK_THROWS_AS(white_mv_gld32(0, 16), std::invalid_argument);
}

TEST_CASE("Eq. 3.3-3.4 and 4.6-4.7: MM and staged Mv reads", "[model][white]") {
    const long long n = 1024, n3 = n * n * n;
    CHECK(white_mm_gld32(n, 16) == n3 / 16);
    CHECK(white_mm_gld64(n, 16) == n3 / 16);
    CHECK(white_mm_gld32(n, 8) == n3 / 8 + n3 / 16);
    CHECK(white_mm_gld64(n, 8) == 0);
    CHECK(white_mv_shared_gld(n, 32) == n * n / 16);  // Eq. 4.7: 64-byte reads
    CHECK(white_mv_shared_gld(n, 8) == n * n / 8);    // Eq. 4.6: 32-byte reads
    // The staged Mv needs 16x fewer transactions than the naive one (with dBlk.x >= 16) for A.
    CHECK(white_mv_gld32(n, 32) - n * n / 16 == 16 * white_mv_shared_gld(n, 32));
}

TEST_CASE("Eq. 4.14: 12800 active threads saturate the T10's bus", "[model][white]") {
    // 400 cycles of latency / 8 = 50 warps per partition, x 8 partitions x 32 threads.
    CHECK(kWhiteMinActiveThreadsT10 == 400 / 8 * device_preset("t10").partitions * 32);
    // The maximum of Eq. 4.14: 30 SMs x 1024 threads.
    const auto t10 = device_preset("t10");
    CHECK(t10.sm_count * t10.max_threads_per_sm == 30720);
}

TEST_CASE("Eq. 4.24: derived Mv launch on the T10", "[model][white][derive]") {
    const auto t10 = device_preset("t10");
    const int expected_y[] = {16, 8, 4, 4, 4, 4};  // max(8192 / n, 4)
    int i = 0;
    for (long long n : kSizes) {
        const auto d = derive_mv_launch_t10(n, t10);
        INFO("n " << n);
        CHECK(d == white_mv_launch_eq424(n));
        CHECK(d.dblk_x == 32);
        CHECK(d.dblk_y == expected_y[i++]);
        CHECK(d.dgrd_x == n / 32);
        CHECK(d.dgrd_y == 1);
    }
    CHECK_THROWS_AS(derive_mv_launch_t10(1000, t10), std::invalid_argument);
    CHECK_THROWS_AS(derive_mv_launch_t10(256, t10), std::invalid_argument);
}

TEST_CASE("Eq. 4.41: derived MM launch on the T10", "[model][white][derive]") {
    const auto t10 = device_preset("t10");
    const int expected_y[] = {8, 8, 8, 8, 16, 16};  // min(16, n / (64 min(n/512, 8)))
    int i = 0;
    for (long long n : kSizes) {
        const auto d = derive_mm_launch_t10(n, t10);
        INFO("n " << n);
        CHECK(d == white_mm_launch_eq441(n));
        CHECK(d.dblk_x == 8);
        CHECK(d.dblk_y == expected_y[i++]);
        CHECK(d.dgrd_x == n / (8LL * d.dblk_y));
        CHECK(d.dgrd_y == n / 16);
    }
    CHECK_THROWS_AS(derive_mm_launch_t10(512, t10, 0), std::invalid_argument);
}

TEST_CASE("Eq. 5.19: derived convolution launch on the T10", "[model][white][derive]") {
    const auto t10 = device_preset("t10");
    for (long long n : {512LL, 4096LL, 8192LL})
        for (int fs : {1, 3, 5, 7, 9, 15, 17, 31, 33, 63, 65, 127, 129, 255, 257, 511, 513, 1025}) {
            INFO("n " << n << " FS " << fs);
            CHECK(derive_conv_launch_t10(n, fs, t10) == white_conv_launch_eq519(n, fs));
        }
    // Worked values: FS = 3 -> 16 x 4; FS = 63 -> 64 x 1; FS = 513 -> 512 x 1 (White's FS set).
    CHECK(white_conv_launch_eq519(4096, 3) == WhiteLaunch{16, 4, 256, 1024});
    CHECK(white_conv_launch_eq519(4096, 33) == WhiteLaunch{64, 1, 64, 4096});
    CHECK(white_conv_launch_eq519(4096, 63) == WhiteLaunch{64, 1, 64, 4096});
    CHECK(white_conv_launch_eq519(4096, 513) == WhiteLaunch{512, 1, 8, 4096});
    CHECK(white_conv_launch_eq519(4096, 17) == WhiteLaunch{32, 2, 128, 2048});
    CHECK_THROWS_AS(derive_conv_launch_t10(4096, 0, t10), std::invalid_argument);
}
