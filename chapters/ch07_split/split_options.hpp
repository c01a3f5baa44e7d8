/// \file split_options.hpp
/// \brief Chapter 7's command line: its options, the rules their values follow, and the exit codes
///        (those of the other chapters: 0 done, 2 a usage error).
#pragma once

#include <string>
#include <vector>

namespace wb::ch07 {

/// What one run of chapter 7 covers. After parse_split_cli, `ops` and `precisions` are never empty
/// ("all" and "both" expanded, each name once, in the order given).
struct SplitOptions {
    std::vector<std::string> ops;                           ///< gemv, gemm, symv, conv2d, cg: in this order, each once
    std::vector<std::string> precisions{"float", "double"};
    std::vector<int> sizes;                                 ///< ascending, each once; empty: each op's defaults
    std::vector<int> filter_sizes{3, 9};                    ///< the convolution's FS values, each once
    std::string preset;  ///< the GPU the model predicts for; empty: the GPU measured, else the h200 preset
    std::string csv;                                        ///< write the table here too
    bool quick = false;                                     ///< each op's short set of sizes
    bool full = false;                                      ///< each op's whole set (the issue's ranges)
    int device = 0;                                         ///< the CUDA device the GEMV columns are timed on
    bool predict_only = false;                              ///< do not run the CPU peers (nor the GPU)
    int chunks = 4;  ///< the calibration's pipeline depth, and every hybrid's where chunks_given
    bool chunks_given = false;  ///< --chunks on the command line: every hybrid at that depth (else derived per call)
    bool price_issue = false;   ///< --price-issue: Machines::price_issue
    bool fixed_share = false;   ///< --fixed-share: Machines::balanced off
    bool balanced_symv = false; ///< --balanced-symv: Machines::symv_balanced
    bool balance_ab = false;    ///< --balance-ab: the balanced hybrid timed beside the fixed one (GEMV, GEMM, convolution; SYMV with --balanced-symv)
    double depth_ab = 0;        ///< --depth-ab S: each hybrid row also at S times its depth, in the same rounds
    double first_issue_ab = 0;  ///< --first-issue-ab P: the balanced hybrid beside one whose first issue is P pieces' worth
    bool fixed_order = false;   ///< --fixed-order: every round of the rows in one order (the runs before 98ccc44)
    bool symv_own_arrays = false;  ///< --symv-own-arrays: cpu::CalibrationSizes::symv_own_arrays
    bool cpu_again = false;     ///< --cpu-again: Machines::cpu_again
    bool cold_a = false;        ///< --cold-a: Machines::warm_gemm_a off
    bool measured_depths = false;  ///< --measured-depths: Machines::measured_depths
    int ld_pad = 0;             ///< --ld-pad P: the rows' leading dimension n + P (Case::ld_pad)
    int cg_iterations = 100;                                ///< CG iterations per solve
    /// --replay LOG CSV: the model replayed on a finished run (split_replay_run.hpp); nothing is measured
    std::string replay_log, replay_csv;
    double margin = -1;  ///< --margin M (with --replay): the hybrid's margin; negative: the run's own
};

/// Parses "ch07_split <args>" into `opt`. Returns -1 to run, 0 after --help (printed), 2 after a
/// usage error (the message, naming the option, on stderr): an unknown op or precision, a size
/// outside [1, 65536], an --fs that is not odd in [1, 1025], --chunks outside [1, 1024],
/// --cg-iterations outside [1, 100000], a negative --device, --quick with --full, or a --csv path
/// that cannot be written (checked before the run, so a run never loses its table at the end),
/// --replay with any option that chooses what to measure (the run's log and CSV say it all), or
/// --margin outside [0, 1) or without --replay.
/// --device, --full and --trans (N or both: every call here is op N; T is a usage error) are the
/// options every chapter shares (./workbook run -- OPTIONS passes the same ones to each chapter).
int parse_split_cli(int argc, char** argv, SplitOptions& opt);

}  // namespace wb::ch07
