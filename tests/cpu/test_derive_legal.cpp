// test_derive_legal.cpp — chapter 6's derived launches are launches the tuned kernels take: for
// many random shapes on every preset (t10, h100-sxm, h200) and on the h200 with half its SMs or
// half its shared memory, each op's derivation, read as its tuned step's launch
// (chapters/runner/derived_launch), passes that launcher's own check of its fields, the same host
// function the launcher runs first (check_tuned_gemv_launch, check_gemm_launch,
// check_symv_launch, conv2d_pick_config, check_cg_launch). White's T10 launches (square powers of
// two on the t10 preset) are his kernels' launches, not the tuned step's: they are skipped.
// Whether the launches also compute the right result is a gpu test (tests/gpu/test_derived_launches).
#include "catch.hpp"

#include "derive/derivation.hpp"
#include "derived_launch.hpp"
#include "gemv_rules.hpp"
#include "stages.hpp"
#include "step.hpp"
#include "tuned/conv2d_rules.hpp"
#include "tuned/gemm_default_rule.hpp"
#include "tuned/gemm_splitk.hpp"
#include "tuned/symv_layout.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace wb;
using namespace wb::derive;

namespace {

/// The presets, and the h200 with half its SMs and with half its shared memory.
std::vector<std::pair<std::string, DeviceProfile>> profiles() {
    std::vector<std::pair<std::string, DeviceProfile>> v;
    for (const char* name : {"t10", "h100-sxm", "h200"}) v.push_back({name, device_preset(name)});
    DeviceProfile half_sms = device_preset("h200");
    half_sms.sm_count /= 2;
    v.push_back({"h200 half SMs", half_sms});
    DeviceProfile half_smem = device_preset("h200");
    half_smem.smem_per_sm_bytes /= 2;
    half_smem.smem_per_block_bytes = half_smem.smem_per_sm_bytes - 1024;
    v.push_back({"h200 half shared memory", half_smem});
    return v;
}

bool white(const Derivation& d) {
    for (const Derived& p : d.params)
        if (p.parameter == "dBlk.x") return true;
    return false;
}

/// A size from 1 to `hi`, log-uniform (skinny and large shapes alike), now and then a power of two
/// or one off it (the wave and tile boundaries).
long long size(std::mt19937_64& rng, long long hi) {
    std::uniform_real_distribution<double> e(0, std::log2(static_cast<double>(hi)));
    long long v = std::max(1LL, static_cast<long long>(std::exp2(e(rng))));
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
        case 0: v = 1LL << static_cast<int>(std::log2(static_cast<double>(v))); break;
        case 1: v += 1; break;
        default: break;
    }
    return std::min(v, hi);
}

constexpr int kShapes = 200;  // per profile and precision

}  // namespace

TEST_CASE("derive legal: GEMV launches pass the tuned launcher's check", "[cpu][derive][legal]") {
    std::mt19937_64 rng(40);
    for (const auto& [name, dev] : profiles())
        for (int elem : {4, 8})
            for (int i = 0; i < kShapes; ++i) {
                const bool trans = i % 2 == 1;
                const long long m = size(rng, 1 << 20), n = size(rng, 1 << 20);
                INFO(name << (trans ? " T " : " N ") << m << " x " << n << " elem " << elem);
                // Leading dimensions m and m + 1: 16-byte and element loads alike.
                const GemvShape s{trans ? Op::T : Op::N, static_cast<int>(m), static_cast<int>(n),
                                  static_cast<int>(m + i % 4 / 2), elem, 0, 0};
                const Derivation d = ch06::derive_gemv_call(dev, s);
                if (white(d)) continue;
                const GemvLaunch l = ch06::gemv_launch_of(d, trans);
                INFO("lda " << s.lda << " launch " << l.str());
                const GemvLaunch full = check_tuned_gemv_launch(s.op, l, "derive_gemv");
                CHECK_NOTHROW(check_tuned_gemv_ept(s, full, "derive_gemv"));
                CHECK(full.Y >= 1);
            }
}

template <class T>
void gemm_legal(const std::string& name, const DeviceProfile& dev, std::mt19937_64& rng) {
    for (int i = 0; i < kShapes; ++i) {
        GemmArgs<T> a;
        a.m = static_cast<int>(size(rng, 1 << 15));
        a.n = static_cast<int>(size(rng, 1 << 15));
        a.k = static_cast<int>(size(rng, 1 << 20));
        a.lda = a.m + i % 4 / 2;  // aligned, or not
        a.ldb = a.k;
        a.ldc = a.m;
        INFO(name << " " << a.m << " x " << a.n << " x " << a.k << " lda " << a.lda << " elem " << sizeof(T));
        const ch06::GemmDerived g = ch06::derive_gemm_call<T>(dev, a, false);
        if (!g.runs) {
            CHECK(name == "t10");  // none of the tiles fits the T10's 16 KB of shared memory
            continue;
        }
        INFO("launch " << g.launch.str() << " derivation " << g.derivation.launch());
        CHECK_NOTHROW(tuned::check_gemm_launch(a, g.launch, "derive_gemm"));
        // The tensor cores only where the profile has faster ones (double): rule 2.
        if (g.launch.math == 2) CHECK((sizeof(T) == 8 && dev.fp64_mma_lanes_per_sm > dev.fp64_lanes_per_sm));
    }
}

TEST_CASE("derive legal: GEMM launches pass the tuned launcher's check", "[cpu][derive][legal]") {
    std::mt19937_64 rng(41);
    for (const auto& [name, dev] : profiles()) {
        gemm_legal<float>(name, dev, rng);
        gemm_legal<double>(name, dev, rng);
    }
}

TEST_CASE("derive legal: SYMV and CG launches pass the tuned launchers' checks", "[cpu][derive][legal]") {
    std::mt19937_64 rng(42);
    for (const auto& [name, dev] : profiles())
        for (int elem : {4, 8})
            for (int i = 0; i < kShapes; ++i) {
                const long long n = size(rng, 1 << 17);
                INFO(name << " n " << n << " elem " << elem);
                const SymvLaunch l = ch06::symv_launch_of(ch06::derive_symv_call(dev, n, n + i % 2, elem));
                INFO("launch " << l.str());
                CHECK_NOTHROW(tuned::check_symv_launch(l, "derive_symv"));
                const Derivation cg = derive_cg(dev, n, elem);
                CHECK_NOTHROW(tuned::check_symv_launch(ch06::symv_launch_of(cg, "mv."), "derive_cg"));
                CHECK(tuned::check_cg_launch(ch06::cg_launch_of(cg), "derive_cg") == cg.value("vec.block"));
            }
}

template <class T>
void conv2d_legal(const std::string& name, const DeviceProfile& dev, std::mt19937_64& rng) {
    for (int i = 0; i < kShapes; ++i) {
        const long long rows = size(rng, 1 << 14), cols = size(rng, 1 << 14);
        const int fs = 2 * static_cast<int>(size(rng, 64)) - 1;  // odd, 1 ... 127
        INFO(name << " " << rows << " x " << cols << " FS " << fs << " elem " << sizeof(T));
        const std::vector<Conv2dLaunch> configs = tuned::conv2d_configs<T>(fs);
        Derivation d;
        try {
            d = derive_conv2d(dev, rows, cols, fs, sizeof(T), tuned::conv2d_derive_tiles(configs));
        } catch (const std::invalid_argument&) {
            CHECK(name == "t10");  // the T10's 16 KB hold no staged tile of a large filter
            continue;
        }
        if (white(d)) continue;
        const Conv2dLaunch l = ch06::conv2d_launch_of(d);
        INFO("launch " << l.str());
        CHECK_NOTHROW(tuned::conv2d_pick_config(configs, l, "derive_conv2d"));
    }
}

TEST_CASE("derive legal: convolution launches are instantiated configurations", "[cpu][derive][legal]") {
    std::mt19937_64 rng(43);
    for (const auto& [name, dev] : profiles()) {
        conv2d_legal<float>(name, dev, rng);
        conv2d_legal<double>(name, dev, rng);
    }
}

TEST_CASE("derive legal: the launchers' checks reject what they must", "[cpu][derive][legal]") {
    // The checks the legality tests lean on can fail: one bad field each.
    GemvLaunch g;
    g.block_x = 8;
    g.block_y = 32;
    g.ept = 3;
    CHECK_THROWS_AS(check_tuned_gemv_launch(Op::N, g, "t"), std::invalid_argument);
    SymvLaunch s = tuned::symv_layout_launch(tuned::SymvLayout::kTiles, 64, 4, 22, 0);
    CHECK_THROWS_AS(tuned::check_symv_launch(s, "t"), std::invalid_argument);
    GemmArgs<float> a;
    a.m = a.n = a.k = a.lda = a.ldb = a.ldc = 64;
    GemmLaunch l = tuned::gemm_configs<float>().front();
    l.split_k = tuned::splitk::kMaxSplit + 1;
    CHECK_THROWS_AS(tuned::check_gemm_launch(a, l, "t"), std::invalid_argument);
    Conv2dLaunch c = tuned::conv2d_configs<float>(7).front();
    c.thread_x = 3;
    CHECK_THROWS_AS(tuned::conv2d_pick_config(tuned::conv2d_configs<float>(7), c, "t"), std::invalid_argument);
    CgLaunch cg;
    cg.block = 48;
    CHECK_THROWS_AS(tuned::check_cg_launch(cg, "t"), std::invalid_argument);
}

TEST_CASE("derive legal: the sweeps' lists are bounded and hold the default and derived launches",
          "[cpu][derive][legal][sweep]") {
    std::mt19937_64 rng(44);
    const DeviceProfile h200 = device_preset("h200");  // GemvMachine's and the GEMM rule's figures without a GPU
    std::size_t most_gemv = 0, most_gemm = 0;
    for (int elem : {4, 8})
        for (int i = 0; i < kShapes; ++i) {
            const bool trans = i % 2 == 1;
            const GemvShape s{trans ? Op::T : Op::N, static_cast<int>(size(rng, 1 << 20)), static_cast<int>(size(rng, 1 << 20)),
                              0, elem, 0, 0};
            GemvShape call = s;
            call.lda = s.m + i % 4 / 2;
            INFO((trans ? "T " : "N ") << call.m << " x " << call.n << " lda " << call.lda << " elem " << elem);
            const std::vector<GemvLaunch> v = tuned_gemv_launches(call);
            most_gemv = std::max(most_gemv, v.size());
            auto has = [&](const GemvLaunch& l) { return std::find(v.begin(), v.end(), l) != v.end(); };
            CHECK(has(tuned_gemv_default_launch(call)));
            for (const GemvLaunch& l : v) {
                INFO(l.str());
                CHECK_NOTHROW(check_tuned_gemv_ept(call, check_tuned_gemv_launch(call.op, l, "list"), "list"));
            }
            // The derived launch (chapter 5's default) is in the list, for N and T.
            const GemvLaunch d = ch06::gemv_launch_of(ch06::derive_gemv_call(h200, call), trans);
            INFO("derived " << d.str());
            CHECK(has(d));
        }
    for (int i = 0; i < kShapes; ++i) {
        GemmArgs<float> a;
        a.m = static_cast<int>(size(rng, 1 << 14));
        a.n = static_cast<int>(size(rng, 1 << 14));
        a.k = static_cast<int>(size(rng, 1 << 18));
        a.op_a = i % 2 ? Op::T : Op::N;
        a.lda = (a.op_a == Op::N ? a.m : a.k) + i % 4 / 2;  // aligned, or not
        a.ldb = a.k;
        a.ldc = a.m;
        INFO(a.m << " x " << a.n << " x " << a.k << " op_a " << op_char(a.op_a) << " lda " << a.lda);
        const std::vector<GemmLaunch> v = tuned::gemm_launches(a);
        most_gemm = std::max(most_gemm, v.size());
        auto has = [&](auto pred) { return std::any_of(v.begin(), v.end(), pred); };
        CHECK(has([&](const GemmLaunch& l) { return l == tuned::gemm_default(a); }));
        // Chapter 6's derived launch is chapter 5's default (the same rules on the same profile).
        const GemmLaunch derived = ch06::derive_gemm_call<float>(h200, a, false).launch;
        INFO("derived " << derived.str());
        CHECK(derived == tuned::gemm_default(a));
        // Every choice the rule weighs is in the list where it means something.
        CHECK(has([](const GemmLaunch& l) { return l.split_k == 0; }));
        CHECK(has([](const GemmLaunch& l) { return l.pack_a == 2; }) == (a.op_a == Op::T));
        CHECK(has([](const GemmLaunch& l) { return l.align == 2; }) == (a.lda % 4 != 0 || a.ldb % 4 != 0));
        for (const GemmLaunch& l : v) {
            INFO(l.str());
            CHECK_NOTHROW(tuned::check_gemm_launch(a, l, "list"));
        }
    }
    INFO("longest lists: GEMV " << most_gemv << ", GEMM " << most_gemm);
    CHECK(most_gemv <= 200);
    CHECK(most_gemm <= 200);
}

TEST_CASE("derive legal: chapter 5's SYMV and CG defaults are chapter 6's derived launches", "[cpu][derive][legal]") {
    // On every profile, the host function the tuned launchers' defaults call (tuned/symv_layout.hpp,
    // cg.hpp) names the launch chapter 6 prints for the same call.
    std::mt19937_64 rng(43);
    for (const auto& [name, dev] : profiles())
        for (int elem : {4, 8})
            for (int i = 0; i < kShapes; ++i) {
                const long long n = size(rng, 1 << 17), lda = n + i % 3;  // aligned columns, or not
                INFO(name << " n " << n << " lda " << lda << " elem " << elem);
                const SymvLaunch chapter6 = ch06::symv_launch_of(ch06::derive_symv_call(dev, n, lda, elem));
                CHECK(tuned::symv_derived_launch(dev, n, lda, elem) == chapter6);
                const CgLaunch c5 = tuned::cg_derived_launch(dev, n, lda, elem);
                CHECK(c5 == ch06::cg_launch_of(derive_cg(dev, n, elem, lda), c5));
                CHECK(c5.block == derive_cg(dev, n, elem, lda).value("vec.block"));
            }
    // Without a GPU the defaults derive for the h200 preset (derive::default_profile): the steps'
    // default launches are those launches.
    const DeviceProfile h200 = device_preset("h200");
    for (int n : {1, 77, 1000, 1056, 1057, 2500, 4096, 9001, 32768}) {
        INFO("n " << n);
        SymvArgs<float> s;
        s.n = n;
        s.lda = n + n % 2;
        CHECK(step<SymvArgs<float>>(chapter_of(Stage::kTuned)).default_launch(s) ==
              tuned::symv_derived_launch(h200, s.n, s.lda, 4));
        SymvArgs<double> sd;
        sd.n = sd.lda = n;
        CHECK(step<SymvArgs<double>>(chapter_of(Stage::kTuned)).default_launch(sd) ==
              tuned::symv_derived_launch(h200, n, n, 8));
        CgArgs<double> c;
        c.n = c.lda = n;
        CHECK(step<CgArgs<double>>(chapter_of(Stage::kTuned)).default_launch(c) == tuned::cg_derived_launch(h200, n, n, 8));
    }
}
