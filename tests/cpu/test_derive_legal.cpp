// test_derive_legal.cpp — chapter 6's derived launches are launches the tuned kernels take: GEMM's
// tile is one of the instantiated configurations, SYMV's (nb, Q, Y) passes the launcher's check,
// GEMV's U and C are instantiated values and its block fits the launcher's rules (kernels/tuned).
// Whether they also compute the right result is a gpu test (not yet written: see chapter 6's page).
#include "catch.hpp"

#include "derive/derivation.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/symv_layout.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace wb;
using namespace wb::derive;

namespace {

template <class T>
std::vector<GemmTile> gemm_candidates() {
    std::vector<GemmTile> v;
    for (const GemmLaunch& l : tuned::gemm_configs<T>())
        v.push_back({l.tile_m, l.tile_n, l.tile_k, l.thread_m, l.thread_n, l.stages});
    return v;
}

bool is_one_of(long long v, std::initializer_list<long long> set) {
    for (long long s : set)
        if (v == s) return true;
    return false;
}

}  // namespace

TEST_CASE("derive legal: GEMM picks an instantiated configuration", "[derive][legal]") {
    for (const char* preset : {"h100-sxm", "h200"})
        for (auto [m, n, k] : {std::tuple{64LL, 64LL, 64LL}, {1024LL, 1024LL, 1024LL}, {4097LL, 4097LL, 4097LL},
                               {1024LL, 1024LL, 16384LL}, {16384LL, 256LL, 4096LL}, {100LL, 7000LL, 300LL}})
            for (int elem : {4, 8}) {
                INFO(preset << " " << m << " x " << n << " x " << k << " elem " << elem);
                const auto cands = elem == 4 ? gemm_candidates<float>() : gemm_candidates<double>();
                const Derivation d = derive_gemm(device_preset(preset), m, n, k, elem, cands);
                bool found = false;
                for (const GemmTile& t : cands)
                    found = found || (t.tile_m == d.value("tile_m") && t.tile_n == d.value("tile_n") &&
                                      t.tile_k == d.value("tile_k"));
                CHECK(found);
                CHECK(d.value("split_k") >= 1);
                CHECK(d.value("split_k") <= std::max(1LL, k / (8 * d.value("tile_k"))));
            }
}

TEST_CASE("derive legal: SYMV's nb, Q and Y pass the tuned launcher's check", "[derive][legal]") {
    for (const char* preset : {"t10", "h100-sxm", "h200"})
        for (long long n : {1LL, 100LL, 1024LL, 4097LL, 16384LL, 65536LL})
            for (int elem : {4, 8}) {
                INFO(preset << " n " << n << " elem " << elem);
                const Derivation d = derive_symv(device_preset(preset), n, elem);
                const SymvLaunch l = tuned::symv_layout_launch(tuned::SymvLayout::kTiles, static_cast<int>(d.value("nb")),
                                                               static_cast<int>(d.value("Q")),
                                                               static_cast<int>(d.value("Y")), 0);
                CHECK_NOTHROW(tuned::check_symv_launch(l, "derive_symv"));
            }
}

TEST_CASE("derive legal: GEMV's launch fits the tuned kernels", "[derive][legal]") {
    for (const char* preset : {"h100-sxm", "h200"})
        for (bool trans : {false, true})
            for (auto [m, n] : {std::pair{1LL, 1LL}, {33LL, 4097LL}, {579LL, 57900LL}, {4096LL, 4096LL},
                                {57900LL, 579LL}, {16LL, 1000000LL}})
                for (int elem : {4, 8}) {
                    INFO(preset << (trans ? " T " : " N ") << m << " x " << n << " elem " << elem);
                    const Derivation d = derive_gemv(device_preset(preset), trans, m, n, elem);
                    const long long threads = d.value("block_x") * d.value("block_y");
                    CHECK(threads % 32 == 0);
                    CHECK(threads <= 512);
                    CHECK(d.value("Y") >= 1);
                    if (trans) {
                        CHECK(d.value("block_x") == 32);
                        CHECK(is_one_of(d.value("C"), {2, 4, 8}));
                    } else {
                        CHECK(is_one_of(d.value("block_x"), {4, 8, 16, 32, 64, 128, 256}));
                        CHECK(is_one_of(d.value("U"), {2, 4, 8}));
                    }
                }
}
