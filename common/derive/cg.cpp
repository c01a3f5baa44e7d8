// cg.cpp — chapter 6's CG derivation (derive/derivation.hpp): the Mv is the SYMV derivation; the
// vector kernels (dots, axpys) take one wave of resident blocks (rule 5) with the elements per
// thread Little's law asks for (rule 1); the check interval trades the round trip per chunk
// against the iterations queued past convergence, and the schedule is the faster of the CUDA
// graphs and the persistent kernel in the CG model (model/cg.hpp).
#include "derive/derivation.hpp"
#include "derive/derive_internal.hpp"

#include "model/cg.hpp"
#include "model/model_internal.hpp"
#include "model/occupancy.hpp"
#include "model/symv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace wb::derive {

using model::detail::ceil_div;

namespace {

/// The SYMV model's time for the Mv the derivation names (its "mv." parameters).
double mv_model_ms(const DeviceProfile& dev, const Derivation& d, long long n, int elem_bytes) {
    model::SymvModelLaunch l;
    const auto has = [&](const std::string& p) {
        return std::any_of(d.params.begin(), d.params.end(), [&](const Derived& x) { return x.parameter == p; });
    };
    if (has("mv.panel rows") && d.value("mv.panel rows") > 0) {
        l.nb = static_cast<int>(d.value("mv.panel rows"));
        l.block_threads = model::kSymvPanelThreads;
        l.y_blocks = 1;
    } else {
        l.nb = static_cast<int>(d.value("mv.nb"));
        l.block_threads = l.nb * static_cast<int>(d.value("mv.Q"));
        l.y_blocks = static_cast<int>(d.value("mv.Y"));
    }
    return model::predict_symv(Stage::kTuned, n, elem_bytes, l, dev).predicted_ms;
}

}  // namespace

double cg_derive_iterations(int elem_bytes) {
    return model::cg_iteration_bound(kCgDeriveKappa, elem_bytes == 4 ? kCgDeriveTolFloat : kCgDeriveTolDouble);
}

int cg_check_interval(double iterations, double iteration_us, double round_trip_us) {
    if (!(iteration_us > 0) || !(iterations > 0) || !(round_trip_us >= 0))
        throw std::invalid_argument("cg_check_interval: iterations, iteration_us (> 0) and round_trip_us (>= 0) (" +
                                    std::to_string(iterations) + ", " + std::to_string(iteration_us) + ", " +
                                    std::to_string(round_trip_us) + ") out of range");
    // A solve of m iterations at check interval c: m (t + R / c) + 1.5 c t, the chunk that
    // converges half wasted on average and the next one already queued (tuned/cg.cu); its
    // minimum at c* = sqrt(m R / (1.5 t)), rounded to the nearest power of two (in log) of the
    // step's legal intervals.
    const double c = std::sqrt(iterations * round_trip_us / (1.5 * iteration_us));
    const int p = static_cast<int>(std::lround(std::log2(std::max(1.0, c))));
    return std::clamp(1 << std::min(p, 10), kCgCheckMin, kCgCheckMax);
}

Derivation derive_cg(const DeviceProfile& dev, long long n, int elem_bytes, long long lda) {
    detail::check_shape("derive_cg", elem_bytes, n, n);
    if (lda <= 0) lda = n;
    Derivation d = derive_symv(dev, n, elem_bytes, lda % (16 / elem_bytes) == 0, lda * elem_bytes);
    d.op = "cg";
    d.shape = std::to_string(n) + " " + detail::precision(elem_bytes);
    for (Derived& p : d.params) p.parameter = "mv." + p.parameter;
    constexpr int kThreads = 256;
    const int regs = 32;  // a grid-stride loop: an index, an accumulator, a few loads
    const Derived bps = blocks_per_sm(dev, kThreads, regs, 0);
    d.params.push_back({"vec.block", kThreads, "threads per block of the vector kernels",
                        std::to_string(kThreads / dev.warp_size) + " warps: two per scheduler of a 4-scheduler SM"});
    Derived vec = bps;
    vec.parameter = "vec.blocks per SM";
    d.params.push_back(vec);
    // Rule 1: 16-byte loads, enough of them per thread for Little's law with every slot resident.
    Derived loads = loads_per_thread(dev, static_cast<int>(bps.value) * kThreads, 16, 8);
    loads.parameter = "vec.loads per thread";
    loads.sets_launch = false;  // the vector kernels' own rule (a grid-stride loop): printed, not launched
    d.params.push_back(loads);
    // Rule 5: one wave, no tail (a grid-stride loop covers the rest), never more blocks than work.
    const long long per_block = static_cast<long long>(kThreads) * loads.value * (16 / elem_bytes);
    const long long grid = std::min<long long>(static_cast<long long>(dev.sm_count) * bps.value,
                                               std::max<long long>(1, ceil_div(n, per_block)));
    d.params.push_back({"vec.grid", grid, "one wave of resident blocks (rule 5)",
                        std::to_string(dev.sm_count) + " SMs x " + std::to_string(bps.value) + " blocks, at most " +
                            std::to_string(ceil_div(n, per_block)) + " blocks of work",
                        false});

    // The check interval (the graph's chunk and status read), then the schedule, both from the CG
    // model with the Mv's own model: the iteration's time t on the CUDA graphs without the round
    // trip, R the round trip (chapter 0), m the iterations a default launch is derived for.
    const model::CgOverheads oh;
    const double mv = mv_model_ms(dev, d, n, elem_bytes);
    const double t_us = 1e3 * model::predict_cg(Stage::kTuned, n, elem_bytes, dev, 1, 0.5, 1 << 20, mv, 1, oh, lda).predicted_ms;
    const double m = cg_derive_iterations(elem_bytes);
    const int check = cg_check_interval(m, t_us, oh.round_trip_us);
    char buf[200];
    std::snprintf(buf, sizeof buf, "c* = sqrt(m R / (1.5 t)) = sqrt(%.0f x %.1f us / (1.5 x %.1f us)) = %.1f", m,
                  oh.round_trip_us, t_us, std::sqrt(m * oh.round_trip_us / (1.5 * t_us)));
    d.params.push_back({"check", check, "the round trip per chunk against the iterations queued past convergence", buf});
    const double graph = model::predict_cg(Stage::kTuned, n, elem_bytes, dev, 1, 0.5, check, mv, 1, oh, lda).predicted_ms;
    const double persist = model::predict_cg(Stage::kTuned, n, elem_bytes, dev, 1, 0.5, check, mv, 2, oh, lda).predicted_ms;
    const int schedule = model::cg_tuned_schedule(n, elem_bytes, dev, mv, check, oh, lda);
    const model::CgPersistentPlan pl = model::cg_persistent_plan(n, elem_bytes, dev);
    std::snprintf(buf, sizeof buf, "%s: persistent %.1f us (%.0f%% of the triangle on chip) against graphs %.1f us per iteration",
                  schedule == 2 ? "persistent" : "graphs", 1e3 * persist, 100 * pl.onchip_share, 1e3 * graph);
    d.params.push_back({"schedule", schedule,
                        "the faster schedule in the CG model, by more than its resolution of 1/16 (1 graphs, 2 persistent)",
                        buf});
    return d;
}

}  // namespace wb::derive
