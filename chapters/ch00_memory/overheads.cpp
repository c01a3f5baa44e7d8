// overheads.cpp — chapter 0, experiment 6: what a stream launch, a kernel of a replayed CUDA graph
// and a host round trip cost on this machine, beside the constants the models charge for them
// (model/occupancy kLaunchOverheadUs; model/cg kGraphNodeUs, kRoundTripUs). An iterative
// algorithm (CG, chapters 1-5) pays them every iteration: at small n they, not the bytes, set its
// time.
#include "context.hpp"

#include "memory_lab.hpp"
#include "model/cg.hpp"
#include "model/occupancy.hpp"

#include <algorithm>
#include <string>

namespace wb::ch00 {

void show_overheads(Context& ctx) {
    heading("6. Launches, graph nodes and host round trips: the fixed costs of an iteration");
    say("prediction", "the models charge " + fmt(model::kLaunchOverheadUs, 1) + " us per kernel launched into a stream, " +
                          fmt(model::kGraphNodeUs, 1) + " us per kernel of a replayed CUDA graph and " +
                          fmt(model::kRoundTripUs, 1) +
                          " us per scalar brought to the host and waited for (the CG model's round-trip cost "
                          "was read off the cuBLAS-composed CG; this experiment measures it directly).");
    Report r("Fixed costs (host clock, median of 5 batches)", {"cost", "measured us", "model us", "repetitions"});
    if (!ctx.measure) {
        r.add_row({"stream launch (back to back)", "-", fmt(model::kLaunchOverheadUs, 2), "-"});
        r.add_row({"launch + stream synchronize", "-", "-", "-"});
        r.add_row({"graph node (replayed graph of " + std::to_string(lab::kGraphNodes) + ")", "-",
                   fmt(model::kGraphNodeUs, 2), "-"});
        r.add_row({"host round trip (kernel + 4-byte copy + synchronize)", "-", fmt(model::kRoundTripUs, 2), "-"});
        emit(ctx, r, "overheads");
        say("reading", "nothing measured: launch and round-trip costs need a GPU.");
        return;
    }
    const lab::OverheadTimes o = lab::measure_overheads(lab::overhead_reps(ctx.scale));
    note_check(ctx, o.verified, "overheads: the counter kernels did not all run");
    const std::string reps = std::to_string(o.reps);
    r.add_row({"stream launch (back to back)", fmt(o.launch_us, 2), fmt(model::kLaunchOverheadUs, 2), reps});
    r.add_row({"launch + stream synchronize", fmt(o.launch_sync_us, 2), "-", std::to_string(std::max(1, o.reps / 10))});
    r.add_row({"graph node (replayed graph of " + std::to_string(lab::kGraphNodes) + ")", fmt(o.graph_node_us, 2),
               fmt(model::kGraphNodeUs, 2), reps});
    r.add_row({"host round trip (kernel + 4-byte copy + synchronize)", fmt(o.round_trip_us, 2),
               fmt(model::kRoundTripUs, 2), std::to_string(std::max(1, o.reps / 10))});
    emit(ctx, r, "overheads");
    say("reading", "a kernel of a graph costs " + fmt_ratio(o.launch_us / o.graph_node_us) +
                       " less than a stream launch here, and a round trip as much as " +
                       fmt(o.round_trip_us / o.launch_us, 1) +
                       " stream launches: why chapter 3's CG keeps its scalars on the device and chapter 5's "
                       "replays a graph.");
}

}  // namespace wb::ch00
