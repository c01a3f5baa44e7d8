// split_options.cpp — chapter 7's command line (split_options.hpp). CLI11 checks each value as it
// is parsed; the words every chapter accepts ("all" for --op, "both" for --precision) mean the
// same here, and --csv is checked before anything is measured, as in the other chapters.
#include "split_options.hpp"

#include "split_cases.hpp"

#include "cli.hpp"
#include "conv2d.hpp"
#include "device_profile.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::ch07 {

namespace {

/// `v` with each value kept once, in the order first given.
template <class T>
std::vector<T> each_once(const std::vector<T>& v) {
    std::vector<T> out;
    for (const T& x : v)
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    return out;
}

/// `v` with `word` replaced by `all` and each name kept once, in the order first given.
std::vector<std::string> expanded(const std::vector<std::string>& v, const std::string& word,
                                  const std::vector<std::string>& all) {
    std::vector<std::string> out;
    for (const std::string& s : v)
        if (s == word) out.insert(out.end(), all.begin(), all.end());
        else out.push_back(s);
    return each_once(out);
}

}  // namespace

int parse_split_cli(int argc, char** argv, SplitOptions& opt) {
    CLI::App app{"Chapter 7 — the CPU/GPU split: each op on the CPU, on the GPU with its transfers, or on both at "
                 "once, predicted by the CPU and transfer models (White §3.4-3.5, §4.6) and measured.",
                 "ch07_split"};
    std::vector<std::string> op_words = split_ops();
    op_words.insert(op_words.begin(), "all");
    std::vector<std::string> ops{"all"}, precisions{"both"};
    app.add_option("--op", ops, "Ops: all (default), or a comma list of gemv, gemm, symv, conv2d, cg (run in this order)")
        ->delimiter(',')
        ->check(CLI::IsMember(op_words));
    app.add_option("--precision", precisions, "float, double or both (default)")
        ->delimiter(',')
        ->check(CLI::IsMember({"float", "double", "both"}));
    app.add_option("--sizes", opt.sizes,
                   "n for every op, run in ascending order, each once (default: each op's set, spanning the crossover)")
        ->delimiter(',')
        ->check(CLI::Range(1, 65536));
    app.add_option("--fs", opt.filter_sizes, "the convolution's filter sizes, odd (default 3,9)")
        ->delimiter(',')
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                try {
                    std::size_t end = 0;
                    const int v = std::stoi(s, &end);
                    if (end == s.size() && v >= 1 && v <= kConv2dMaxFilter && v % 2 == 1) return {};
                } catch (const std::exception&) {
                }
                return "must be odd, in [1, " + std::to_string(kConv2dMaxFilter) + "]";
            },
            "ODD in [1, " + std::to_string(kConv2dMaxFilter) + "]"));
    app.add_option("--device-preset", opt.preset,
                   "GPU the model predicts for: t10, h100-sxm, h200 (default: the GPU measured; without one, h200)")
        ->check(CLI::IsMember(device_preset_names()));
    auto* chunks = app.add_option("--chunks", opt.chunks,
                                  "every hybrid's GPU share in this many pipelined chunks, the calibration's too "
                                  "(default: the calibration at 4, each call's depth derived: the model's fastest of " +
                                      depths_list() + ")")
                       ->check(CLI::Range(1, 1024));
    app.add_option("--ld-pad", opt.ld_pad,
                   "every row's matrix (and image) with leading dimension n + P elements instead of n (default 0): "
                   "the same call on another layout, e.g. a stride of 4 or 8 KiB against one padded (README, What to try)")
        ->check(CLI::Range(0, 4096));
    app.add_option("--cg-iterations", opt.cg_iterations,
                   "CG iterations per solve (default 100; a system of n below it: n, in every column and the model)")
        ->check(CLI::Range(1, 100000));
    app.add_option("--csv", opt.csv, "write the table to this CSV file");
    auto* quick = app.add_flag("--quick", opt.quick, "short size sets (two or three per op)");
    app.add_flag("--full", opt.full, "each op's whole set of sizes (powers of two; the default takes every other)")
        ->excludes(quick);
    std::string trans = "both";  // every call here is op(A) = N (GEMV y = A x, GEMM A B): T has no case
    app.add_option("--trans", trans, "op(A): N or both (the same here: every call of this chapter is op N)")
        ->check(CLI::IsMember({"N", "both"}));
    app.add_option("--device", opt.device, "CUDA device whose columns and copies are measured (default 0)")
        ->check(CLI::Range(0, std::numeric_limits<int>::max()));
    app.add_flag("--price-issue", opt.price_issue,
                 "price the calling thread's issue of a hybrid's GPU chunks before its CPU share (measured per chunk "
                 "at the start; off until an A/B judges it: docs/notes/split.md)");
    app.add_flag("--balanced-symv", opt.balanced_symv,
                 "balance the SYMV hybrid too (its CPU pieces on OpenMP's threads beside OpenBLAS's: off until an "
                 "A/B judges it, docs/notes/split.md)");
    auto* fixed = app.add_flag("--fixed-share", opt.fixed_share,
                               "run every hybrid at the model's fixed share (the GEMV, GEMM and convolution hybrids otherwise "
                               "balance their split while they run: kernels/cpu/hybrid_balance.hpp)");
    auto* balance_ab = app.add_flag("--balance-ab", opt.balance_ab,
                                    "the A/B of docs/notes/split.md (session 42): the GEMV, GEMM and convolution hybrids at "
                                    "the fixed share, the balanced call timed beside them in the same rounds")
                           ->excludes(fixed);
    auto* first_issue = app.add_option("--first-issue-ab", opt.first_issue_ab,
                       "the A/B of docs/notes/split.md (session 43): the balanced GEMV, GEMM and convolution hybrids as they "
                       "are (their GPU's first issue two CPU pieces' worth, rounded up to whole chunks), and beside them in "
                       "the same rounds the same calls issuing this many pieces' worth first (2: an A/A control)")
            ->check(CLI::Range(0.25, 8.0))
            ->excludes(fixed)
            ->excludes(balance_ab);
    app.add_option("--depth-ab", opt.depth_ab,
                   "the A/B of docs/notes/split.md (session 47): every hybrid row as it runs, and beside it in the same "
                   "rounds the same call at this many times its depth in chunks (rounded, at least 1; 1: an A/A control)")
        ->check(CLI::Range(0.0625, 16.0))
        ->excludes(balance_ab)
        ->excludes(first_issue);
    app.add_flag("--fixed-order", opt.fixed_order,
                 "time every round of the rows in one order, each hybrid (an A/B's first arm) right after its CPU peer, as "
                 "the runs before 98ccc44 did (by default the CPU peer and its hybrid, or an A/B's two arms, trade "
                 "places every other round: docs/notes/split.md, session 43)");
    app.add_flag("--symv-own-arrays", opt.symv_own_arrays,
                 "calibrate the CPU's SYMV on a matrix of its own per size, as the rows run (off until an A/B judges "
                 "it: docs/notes/split.md)");
    app.add_flag("--cold-a", opt.cold_a,
                 "price the GEMM hybrid's copy of A at the link's rate (by default, where a CPU share reads A while it "
                 "is copied, at the rate of data the host's threads just read: split_warm.hpp)");
    app.add_flag("--measured-depths", opt.measured_depths,
                 "time each class's mid-size hybrid at every depth in the calibration and scale a hybrid at each "
                 "depth by what it measured there (off: the depth from the model alone; its A/B missed three items "
                 "of its rule, docs/notes/split.md, session 47)");
    app.add_flag("--cpu-again", opt.cpu_again,
                 "time each group's CPU classes again just before its rows and predict them with those (off: the run's "
                 "start's; its A/B met one item of its rule and missed two, docs/notes/split.md, session 46)");
    app.add_flag("--predict-only", opt.predict_only,
                 "run nothing but the host's bandwidth and FMA probes: the model's columns only, every class at its "
                 "roofline");
    std::vector<std::string> replay;
    auto* replay_opt = app.add_option("--replay", replay,
                                      "replay the model on a finished run, RUN.txt (its log) and RUN.csv (its --csv), "
                                      "e.g. the kept H200 runs in tests/data: its table, summary and crossovers "
                                      "recomputed, no device used, nothing timed")
                           ->expected(2)
                           ->check(CLI::ExistingFile);
    auto* margin_opt = app.add_option("--margin", opt.margin,
                                      "with --replay: the hybrid's margin, the predicted gain over the better single "
                                      "side it needs to be chosen (default: the run's own; the rows a balanced call "
                                      "runs keep theirs)")
                           ->check(CLI::Range(0.0, 0.999))
                           ->needs(replay_opt);
    app.footer("Exit codes: 0 done; 1 a call failed; 2 a usage error; 3 some cases were skipped because "
               "they do not fit in the host's memory (each says how much it needs).");
    try {
        app.parse(argc, argv);
        opt.chunks_given = chunks->count() > 0;
        if (replay_opt->count() > 0) {
            // A replay's cases, precisions and machines are the run's: every other option chooses
            // what to measure and would be silently ignored, so it is refused by name.
            for (const CLI::Option* o : app.get_options())
                if (o != replay_opt && o != margin_opt && o->count() > 0)
                    throw std::invalid_argument("--replay: " + o->get_name() +
                                                " does nothing in a replay (the run's log and CSV give its cases and "
                                                "machines); only --margin may go with it");
            opt.replay_log = replay[0];
            opt.replay_csv = replay[1];
        }
        require_writable_output("--csv", opt.csv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);  // prints the help (code 0) or the error
        return rc == 0 ? 0 : 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "ch07_split: " << e.what() << "\nRun with --help for more information.\n";
        return 2;
    }
    // The ops in the table's order (split_ops), whatever order --op names them in: each group's CPU
    // classes timed again (--cpu-again) then always precede the groups that read them after it
    // (CG's initial product reads SYMV's class: split_cpu_again.hpp), and a replay reproduces them.
    const std::vector<std::string> named = expanded(ops, "all", split_ops());
    opt.ops.clear();
    for (const std::string& op : split_ops())
        if (std::find(named.begin(), named.end(), op) != named.end()) opt.ops.push_back(op);
    opt.precisions = expanded(precisions, "both", {"float", "double"});
    // Each size once (a size given twice would be timed twice), ascending: the table lists a group's
    // rows from small to large (the crossovers sort their own copy: ch07::groups). Each filter
    // size once, in the order given.
    std::sort(opt.sizes.begin(), opt.sizes.end());
    opt.sizes = each_once(opt.sizes);
    opt.filter_sizes = each_once(opt.filter_sizes);
    return -1;
}

}  // namespace wb::ch07
