// The CPU/GPU decision (common/split.hpp): White's Listing 4.18 on his T10 constants (Mv on the CPU
// up to n = 2048 and MM up to n = 64, on his sizes, the powers of two), the hybrid's balanced share
// (both sides end together; clamped at the ends), its partition of the rows, the GPU side's
// pipelined cost, and the argument rules.
#include "catch.hpp"

#include "split.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

using namespace wb::split;

namespace {

/// Listing 4.18 on White's constants for an op at size n.
template <class Cpu, class Off>
Where white_t10_choice(double n, Cpu cpu_ms, Off offload) {
    const auto h = white_t10::h2d(), d = white_t10::d2h();
    const Offload o = offload(n);
    return white_rule(cpu_ms(n), o.kernel_ms, comm_ms(o, h, d));
}

/// The smallest n (to 1) where the rule picks the GPU, by bisection in [lo, hi] (CPU at lo, GPU at hi).
template <class F>
double crossover(double lo, double hi, F gpu_at) {
    while (hi - lo > 1) {
        const double mid = std::floor((lo + hi) / 2);
        (gpu_at(mid) ? hi : lo) = mid;
    }
    return hi;
}

}  // namespace

TEST_CASE("White t10: Mv goes to the CPU exactly up to n = 2048, MM up to n = 64 (powers of two)", "[cpu][split]") {
    for (double n = 16; n <= 16384; n *= 2) {
        INFO("n = " << n);
        CHECK(white_t10_choice(n, white_t10::cpu_mv_ms, white_t10::mv_offload) == (n <= 2048 ? Where::Cpu : Where::Gpu));
        CHECK(white_t10_choice(n, white_t10::cpu_mm_ms, white_t10::mm_offload) == (n <= 64 ? Where::Cpu : Where::Gpu));
    }
    // Between the powers of two the constants put the crossovers at n = 2701 (Mv) and n = 98
    // (MM): White's "n <= 2048" and "n <= 64" are statements on his grid of sizes.
    auto mv_gpu = [](double n) { return white_t10_choice(n, white_t10::cpu_mv_ms, white_t10::mv_offload) == Where::Gpu; };
    auto mm_gpu = [](double n) { return white_t10_choice(n, white_t10::cpu_mm_ms, white_t10::mm_offload) == Where::Gpu; };
    const double mv = crossover(2048, 4096, mv_gpu), mm = crossover(64, 128, mm_gpu);
    CHECK(mv == 2701);
    CHECK(mm == 98);
}

TEST_CASE("White t10: his published CPU and GPU times", "[cpu][split]") {
    // §3.5.1: Mv at n = 1024 reads 8 MiB at 8 GB/s (2^30): 1/1024 s; at n = 8192 at 2 GB/s.
    CHECK(white_t10::cpu_mv_ms(1024) == Approx(1000.0 / 1024));
    CHECK(white_t10::cpu_mv_ms(8192) == Approx(8.0 * 8192 * 8192 / (1024.0 * 1024 * 1024) / 2 * 1000));
    CHECK(white_t10::cpu_mm_ms(1024) == Approx(8.0 * 1024 * 1024 * 1024 / (51.0 * 1024 * 1024 * 1024) * 1000));
    CHECK(white_t10::gpu_mm_ms(512) * 1504 == Approx(white_t10::cpu_mm_ms(512) * 51));
}

TEST_CASE("split: the balanced share ends both sides together", "[cpu][split]") {
    const LinearCost cpu{0.0, 10.0}, gpu{1.0, 4.0};
    const double f = balance_share(cpu, gpu);
    CHECK(f == Approx(9.0 / 14.0));
    CHECK(gpu.fixed_ms + f * gpu.per_ms == Approx(cpu.fixed_ms + (1 - f) * cpu.per_ms));
    const Prediction p = predict(cpu, gpu, 5.0);
    CHECK(p.hybrid_ms == Approx(10.0 * 5.0 / 14.0));
    CHECK(p.hybrid_ms < p.cpu_ms);
    CHECK(p.hybrid_ms < p.gpu_ms);
    CHECK(p.choice == Where::Hybrid);
    CHECK(p.white == Where::Gpu);
    // the GPU's fixed cost alone exceeds the whole CPU time: all on the CPU
    const Prediction q = predict({0, 1.0}, {2.0, 0.5}, 2.5);
    CHECK(q.gpu_share == 0.0);
    CHECK(q.choice == Where::Cpu);
    CHECK(q.hybrid_ms == Approx(1.0));
    // a CPU far slower than the whole GPU call: the CPU's share would save under min_gain
    const Prediction r = predict({0, 100.0}, {0.1, 0.5}, 0.6);
    CHECK(r.gpu_share == Approx(99.9 / 100.5));
    CHECK(r.hybrid_ms < r.gpu_ms);
    CHECK(r.choice == Where::Gpu);
    // a CPU whose fixed cost alone exceeds the whole GPU call: all on the GPU
    const Prediction r2 = predict({5.0, 100.0}, {0.1, 0.5}, 0.6);
    CHECK(r2.gpu_share == 1.0);
    CHECK(r2.hybrid_ms == Approx(0.6));
    CHECK(r2.choice == Where::Gpu);
    // a gain under min_gain keeps the better single side
    const Prediction s = predict({0, 1.0}, {0.9, 1.0}, 1.9, 0.10);
    CHECK(s.gpu_share == Approx(0.05));
    CHECK(s.choice == Where::Cpu);
}

TEST_CASE("split: the hybrid must also save min_saving_ms over the better single side", "[cpu][split]") {
    // CPU 1 ms, GPU side 0.1 + 1 f ms, all-GPU 1.1 ms: f* = 0.45, hybrid 0.55 ms, a saving of 0.45
    // ms (45%) over the CPU.
    const wb::split::SideTime cpu = [](double f) { return 1.0 * (1 - f); };
    const wb::split::SideTime gpu = [](double f) { return 0.1 + f; };
    wb::split::HybridCosts costs;
    costs.min_gain = 0.15;
    costs.min_saving_ms = 0.44;
    const Prediction a = wb::split::predict(cpu, gpu, 1.1, costs);
    CHECK(a.hybrid_ms == Approx(0.55));
    CHECK(a.min_saving_ms == Approx(0.44));
    CHECK(a.choice == Where::Hybrid);
    costs.min_saving_ms = 0.46;  // saves more than the margin asks, less than the floor
    const Prediction b = wb::split::predict(cpu, gpu, 1.1, costs);
    CHECK(b.gain() == Approx(a.gain()));
    CHECK(b.hybrid_ms == Approx(a.hybrid_ms));
    CHECK(b.choice == Where::Cpu);
    costs.min_saving_ms = -1;
    CHECK_THROWS_AS(wb::split::predict(cpu, gpu, 1.1, costs), std::invalid_argument);
}

TEST_CASE("split: the choice made again at another margin; the shares and times stay", "[cpu][split]") {
    // CPU 1 ms, GPU side 0.1 + 1 f ms: the hybrid 0.55 ms, 45% under the CPU, saving 0.45 ms.
    const wb::split::SideTime cpu = [](double f) { return 1.0 * (1 - f); };
    const wb::split::SideTime gpu = [](double f) { return 0.1 + f; };
    wb::split::HybridCosts costs;
    costs.min_gain = 0.5;  // above the gain: the CPU
    costs.min_saving_ms = 0.3;
    const Prediction a = wb::split::predict(cpu, gpu, 1.1, costs);
    REQUIRE(a.choice == Where::Cpu);
    const Prediction b = wb::split::with_margin(a, 0.0);
    CHECK(b.choice == Where::Hybrid);
    CHECK(b.margin == 0.0);
    CHECK(b.hybrid_ms == a.hybrid_ms);
    CHECK(b.gpu_share == a.gpu_share);
    CHECK(b.min_saving_ms == a.min_saving_ms);
    CHECK(wb::split::with_margin(b, 0.46).choice == Where::Cpu);   // just over the gain
    CHECK(wb::split::with_margin(b, 0.44).choice == Where::Hybrid);
    Prediction floor = a;
    floor.min_saving_ms = 0.46;  // the floor on the saving still applies at any margin
    CHECK(wb::split::with_margin(floor, 0.0).choice == Where::Cpu);
    Prediction none = a;  // no share inside (0, 1): White's side whatever the margin
    none.gpu_share = 0;
    CHECK(wb::split::with_margin(none, 0.0).choice == Where::Cpu);
    CHECK_THROWS_WITH(wb::split::with_margin(a, 1.0), "split::with_margin: min_gain (1.000000) must be in [0, 1)");
    CHECK_THROWS_AS(wb::split::with_margin(a, -0.1), std::invalid_argument);
}

TEST_CASE("split: over whole rows, a share that rounds to none or all is that single side", "[cpu][split]") {
    // CPU 1 ms, GPU side 0.1 + 1 f ms: f* = 0.45. Of 3 rows that is 1 (a split); of 1 row none (the
    // CPU alone); with the GPU side 0.001 + 0.01 f, f* = 0.99 rounds to all 20 rows (the GPU alone).
    const wb::split::SideTime cpu = [](double f) { return 1.0 * (1 - f); };
    const wb::split::SideTime gpu = [](double f) { return 0.1 + f; };
    wb::split::HybridCosts costs;
    costs.min_gain = 0.15;
    const Prediction any = wb::split::predict(cpu, gpu, 1.1, costs);
    costs.rows = 3;
    const Prediction three = wb::split::predict(cpu, gpu, 1.1, costs);
    CHECK(three.gpu_share == Approx(any.gpu_share));
    CHECK(three.hybrid_ms == Approx(any.hybrid_ms));
    CHECK(three.choice == Where::Hybrid);
    costs.rows = 1;
    const Prediction one = wb::split::predict(cpu, gpu, 1.1, costs);
    CHECK(one.gpu_share == 0);
    CHECK(one.hybrid_ms == Approx(1.0));
    CHECK(one.choice == one.white);
    const wb::split::SideTime fast = [](double f) { return 0.001 + 0.01 * f; };
    costs.rows = 20;
    const Prediction all = wb::split::predict(cpu, fast, 0.011, costs);
    CHECK(all.gpu_share == 1);
    CHECK(all.hybrid_ms == Approx(0.011));
    CHECK(all.choice == Where::Gpu);
    costs.rows = -1;
    CHECK_THROWS_AS(wb::split::predict(cpu, gpu, 1.1, costs), std::invalid_argument);
}

TEST_CASE("split: the share of any monotone sides ends them together; affine sides give the closed form", "[cpu][split]") {
    // A CPU side that falls faster than its share (its working set drops into a cache): the
    // balanced share is where both times meet, and the hybrid time is that common time.
    const SideTime cpu = [](double f) { return 10 * (1 - f) * (1 - f); };
    const SideTime gpu = [](double f) { return 1 + 4 * f; };
    const double f = balance_share(cpu, gpu);
    CHECK(gpu(f) == Approx(cpu(f)).epsilon(1e-9));
    CHECK(f == Approx((24 - std::sqrt(24.0 * 24 - 4 * 10 * 9)) / 20).epsilon(1e-9));  // 10 f^2 - 24 f + 9 = 0
    const Prediction p = predict(cpu, gpu, 5.0);
    CHECK(p.cpu_ms == 10);
    CHECK(p.hybrid_ms == Approx(gpu(f)));
    CHECK(p.choice == Where::Hybrid);
    // Affine sides: the bisection agrees with the closed form on a grid of costs.
    for (double c0 : {0.0, 0.5})
        for (double c1 : {0.1, 1.0, 10.0})
            for (double g0 : {0.0, 0.3, 20.0})
                for (double g1 : {0.2, 3.0}) {
                    const LinearCost lc{c0, c1}, lg{g0, g1};
                    INFO(c0 << " " << c1 << " " << g0 << " " << g1);
                    CHECK(balance_share([&](double x) { return c0 + (1 - x) * c1; }, [&](double x) { return g0 + x * g1; }) ==
                          Approx(balance_share(lc, lg)).margin(1e-9));
                }
    // The ends: a GPU whose fixed cost alone exceeds the CPU's whole time gets nothing; a GPU whose
    // whole time is below the CPU's fixed cost gets everything.
    CHECK(balance_share([](double x) { return 1 - x; }, [](double x) { return 2 + x; }) == 0);
    CHECK(balance_share([](double) { return 5.0; }, [](double x) { return 0.1 + x; }) == 1);
    CHECK_THROWS_WITH(balance_share([](double) { return -1.0; }, [](double x) { return x; }),
                      "balance_share: cpu(f) (-1) must be finite and >= 0");
}

TEST_CASE("split: the GPU's rows are its share rounded to the chunk, the CPU gets the rest", "[cpu][split]") {
    CHECK(gpu_rows(1000, 0.5, 1) == 500);
    CHECK(gpu_rows(1000, 0.5, 64) == 512);
    CHECK(gpu_rows(1000, 0.99, 64) == 960);
    CHECK(gpu_rows(1000, 0.999, 64) == 1000);  // 1024 clamped to the rows there are
    CHECK(gpu_rows(1000, 0.01, 64) == 0);
    CHECK(gpu_rows(7, 1.0, 4) == 7);
    CHECK(gpu_rows(0, 0.7, 4) == 0);
    for (int rows : {1, 17, 1023})
        for (double f : {0.0, 0.13, 0.5, 0.87, 1.0}) {
            const int g = gpu_rows(rows, f, 8);
            CHECK(g >= 0);
            CHECK(g <= rows);
            CHECK((g % 8 == 0 || g == rows));
        }
    CHECK_THROWS_WITH(gpu_rows(10, 1.5, 1), "gpu_rows: f (1.5) must be in [0, 1]");
    CHECK_THROWS_WITH(gpu_rows(10, 0.5, 0), "gpu_rows: align (0) must be >= 1");
}

TEST_CASE("split: the GPU side pipelines its copies with the kernel", "[cpu][split]") {
    // One segment, no set-up: a copy of b bytes takes b / (Tx 1e6) ms.
    const wb::TransferModel link(1.0, {{0, std::numeric_limits<double>::infinity(), 0, 0, 0}});
    Offload o;
    o.in_split = {3e6};   // 3 ms
    o.in_whole = {1e6};   // 1 ms
    o.out_split = {1e6};  // 1 ms
    o.kernel_ms = 2;
    o.launch_ms = 0;
    CHECK(all_gpu_ms(o, link, link) == Approx(7.0));
    const LinearCost serial = gpu_side(o, link, link, 1);
    CHECK(serial.fixed_ms == Approx(1.0));
    CHECK(serial.per_ms == Approx(6.0));
    const LinearCost piped = gpu_side(o, link, link, 4);
    CHECK(piped.per_ms == Approx(3.0 + 3.0 / 4));
    CHECK(piped.per_ms < serial.per_ms);
    CHECK_THROWS_WITH(gpu_side(o, link, link, 0), "gpu_side: chunks (0) must be >= 1");
}

TEST_CASE("split: argument rules", "[cpu][split]") {
    CHECK_THROWS_WITH(white_rule(-1, 0, 0), "white_rule: cpu_ms (-1) must be finite and >= 0");
    CHECK_THROWS_WITH(balance_share({0, 0}, {1, 0}), "balance_share: cpu.per_ms + gpu.per_ms (0) must be > 0");
    CHECK_THROWS_WITH(predict({0, 1}, {0, 1}, 1, 1.0), "predict: min_gain (1) must be in [0, 1)");
    CHECK(std::string(where_name(Where::Hybrid)) == "hybrid");
}

TEST_CASE("split: the host memory both sides share bounds the hybrid; its residual is paid once", "[cpu][split]") {
    // CPU 10 ms for the whole call, GPU 1 + 4 f: balanced at f = 9/14 (3.57 ms).
    const SideTime cpu = [](double f) { return 10 * (1 - f); };
    const SideTime gpu = [](double f) { return 1 + 4 * f; };
    HybridCosts none;
    const Prediction p = predict(cpu, gpu, 5.0, none);
    CHECK(p.gpu_share == Approx(9.0 / 14.0));
    CHECK(p.hybrid_ms == Approx(10.0 * 5.0 / 14.0));
    // A bound below both sides at the balance changes nothing.
    HybridCosts low;
    low.shared = [](double) { return 1.0; };
    CHECK(predict(cpu, gpu, 5.0, low).gpu_share == Approx(9.0 / 14.0));
    // A bound that binds there (the CPU's share from DRAM costs more than the copies: 5 - 2 f is
    // 3.71 at the balance) moves the share to where it meets the GPU side: 1 + 4 f = 5 - 2 f at
    // f = 2/3, where the CPU side (3.33) ends first.
    HybridCosts dram;
    dram.shared = [](double f) { return 5 - 2 * f; };
    const Prediction q = predict(cpu, gpu, 5.0, dram);
    CHECK(q.gpu_share == Approx(2.0 / 3.0).epsilon(1e-6));
    CHECK(q.hybrid_ms == Approx(1 + 4 * 2.0 / 3.0).epsilon(1e-6));
    CHECK(hybrid_ms_at(cpu, gpu, dram, 0.5) == Approx(5.0));  // the CPU side's 5 there
    CHECK(hybrid_ms_at(cpu, gpu, dram, 0.8) == Approx(4.2));  // the GPU side's
    // A flat bound above both sides everywhere: the hybrid is the bound (any share is as good).
    HybridCosts flat;
    flat.shared = [](double) { return 4.9; };
    CHECK(predict(cpu, gpu, 5.0, flat).hybrid_ms == Approx(4.9));
    // The residual is added once, and a gain under kMinHybridGain (15%) keeps the better single
    // side: 3.57 + 0.7 = 4.27 is 14.6% under 5.
    HybridCosts res;
    res.residual_ms = 0.7;
    const Prediction r = predict(cpu, gpu, 5.0, res);
    CHECK(r.hybrid_ms == Approx(10.0 * 5.0 / 14.0 + 0.7));
    CHECK(r.choice == Where::Gpu);
    res.residual_ms = 0.6;  // 4.17: 16.6% under 5
    CHECK(predict(cpu, gpu, 5.0, res).choice == Where::Hybrid);
    CHECK(kMinHybridGain == 0.15);
    res.residual_ms = -0.1;
    CHECK_THROWS_WITH(predict(cpu, gpu, 5.0, res), "predict: residual_ms (-0.1) must be finite and >= 0");
}
