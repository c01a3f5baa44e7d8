// Reliability of the chapter loop without a GPU: a case that does not fit in memory is skipped at
// once with a line that says how much it needs (exit code 3), an unwritable --csv fails before
// anything runs (exit code 2), and the stop flag that SIGINT/SIGTERM set is what the loop reads.
#include "catch.hpp"

#include "cli.hpp"
#include "conv2d_problem.hpp"
#include "cg_problem.hpp"
#include "device.hpp"
#include "device_profile.hpp"
#include "gemm_problem.hpp"
#include "gemv_problem.hpp"
#include "ladder_chapter.hpp"
#include "memory_fit.hpp"
#include "ops.hpp"
#include "report.hpp"
#include "progress.hpp"
#include "stop_signal.hpp"
#include "symv_problem.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

/// Runs chapter `chapter`'s main on `args` (predict-only: no GPU here), capturing stdout and
/// stderr; returns the exit code and the seconds it took.
int run_chapter(int chapter, std::vector<std::string> args, std::string* out = nullptr, std::string* err = nullptr,
                double* seconds = nullptr) {
    args.insert(args.begin(), "chNN");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream o, e;
    std::streambuf* old_out = std::cout.rdbuf(o.rdbuf());
    std::streambuf* old_err = std::cerr.rdbuf(e.rdbuf());
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = wb::run_ladder_chapter(static_cast<int>(argv.size()), argv.data(), chapter);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    if (out) *out = o.str();
    if (err) *err = e.str();
    if (seconds) *seconds = s;
    return rc;
}

}  // namespace

TEST_CASE("memory fit: MemAvailable is read in bytes; a missing line is unknown", "[cpu][reliability]") {
    CHECK(wb::parse_mem_available("MemTotal:       131072000 kB\nMemFree: 1 kB\nMemAvailable:   125829120 kB\n") ==
          125829120.0 * 1024);
    CHECK(wb::parse_mem_available("MemTotal: 1 kB\n") == -1);
    CHECK(wb::parse_mem_available("MemAvailable: lots\n") == -1);
    // On this Linux machine the figure exists and is positive.
    CHECK(wb::host_available_bytes() > 0);
}

TEST_CASE("memory fit: the shortfall line names what is needed and what is free, device and host",
          "[cpu][reliability]") {
    wb::MemoryFree free;
    free.device_bytes = 139e9;
    free.host_bytes = 120e9;
    free.device_what = "free on the device";
    CHECK(wb::memory_shortfall({100e9, 100e9}, free).empty());
    const std::string dev = wb::memory_shortfall({156.8e9, 1e9}, free);
    CHECK(dev == "needs 156.8 GB (146.0 GiB) of device memory (156800000000 bytes; 139.0 GB (129.5 GiB) free on the "
                 "device)");
    const std::string both = wb::memory_shortfall({156.8e9, 313.6e9}, free);
    CHECK_THAT(both, Catch::Matchers::Contains("of device memory") &&
                         Catch::Matchers::Contains(" and needs 313.6 GB (292.1 GiB) of host memory"));
    // Unknown figures are not compared; a need that is not a number never fits.
    CHECK(wb::memory_shortfall({1e30, 1e30}, wb::MemoryFree{}).empty());
    CHECK(!wb::memory_shortfall({NAN, 0}, free).empty());
}

TEST_CASE("memory fit: every preset has its datasheet memory", "[cpu][reliability]") {
    for (const auto& name : wb::device_preset_names()) {
        INFO(name);
        CHECK(wb::device_preset(name).memory_bytes >= 4.0 * 1024 * 1024 * 1024);
    }
    CHECK(wb::device_preset("h200").memory_bytes == 141.0 * 1024 * 1024 * 1024);
    CHECK(wb::device_preset("h100-sxm").memory_bytes == 80.0 * 1024 * 1024 * 1024);
}

TEST_CASE("memory fit: each op's need counts at least its operands, and grows with the size", "[cpu][reliability]") {
    const double n = 140000, a8 = 8 * n * n;
    const auto gemv = wb::gemv_memory_need(8, wb::Op::N, 140000, 140000, 140000);
    CHECK(gemv.device_bytes >= a8);
    CHECK(gemv.host_bytes >= a8);
    wb::GemmShape g{wb::Op::N, wb::Op::N, 100000, 100000, 100000};
    CHECK(wb::gemm_memory_need(8, g).device_bytes >= 3 * 8 * 1e10);
    wb::Conv2dShape c;
    c.rows = c.cols = 200000;
    c.fs = 7;
    CHECK(wb::conv2d_memory_need(8, c).device_bytes >= 2 * 8 * 4e10);
    CHECK(wb::symv_memory_need(8, 140000, 140000).device_bytes >= a8);
    CHECK(wb::cg_memory_need(8, 140000, 140000).device_bytes >= a8);
    // Sizes near INT_MAX do not overflow (doubles): the need stays finite and large.
    const auto huge = wb::gemv_memory_need(8, wb::Op::T, 2147418111, 2147418111, 2147418111, 1, 1);
    CHECK(huge.device_bytes > 3e19);
    CHECK(std::isfinite(huge.device_bytes));
    // Zero sizes need (almost) nothing.
    CHECK(wb::gemv_memory_need(4, wb::Op::N, 0, 0, 1).device_bytes < 1024);
    CHECK(wb::cg_memory_need(4, 0, 1).device_bytes < 16 * 1024);
}

TEST_CASE("predict-only: a size that does not fit the preset is skipped at once with one line, exit code 3",
          "[cpu][reliability]") {
    struct Tried {
        std::vector<std::string> args;
        std::string line;
    };
    const std::vector<Tried> tried = {
        {{"--op", "gemv", "--sizes", "140000", "--precision", "double"}, "gemv double N 140000: skipped: needs "},
        {{"--op", "symv", "--sizes", "140000", "--precision", "double"}, "symv double "},
        {{"--op", "cg", "--sizes", "140000", "--precision", "double"}, "cg double k=1e2 140000: skipped: needs "},
        {{"--op", "conv2d", "--sizes", "200000", "--precision", "double"}, "conv2d double FS="},
        {{"--op", "gemm", "--sizes", "100000", "--precision", "double"},
         "gemm double NN 100000x100000x100000: skipped"},
    };
    for (const auto& t : tried) {
        std::string out, err;
        double s = 0;
        const int rc = run_chapter(5, t.args, &out, &err, &s);
        INFO(t.args[1] << ": " << out << err);
        CHECK(rc == 3);
        CHECK_THAT(out, Catch::Matchers::Contains(t.line));
        CHECK_THAT(out, Catch::Matchers::Contains("of device memory") &&
                            Catch::Matchers::Contains("on H200 (preset)"));
        CHECK_THAT(err, Catch::Matchers::Contains("skipped: not enough memory"));
        CHECK(s < 5.0);  // at once: nothing is generated or allocated
    }
    // The other cases still run: a size that fits beside one that does not.
    std::string out;
    CHECK(run_chapter(5, {"--op", "gemv", "--sizes", "4096,140000", "--precision", "double", "--trans", "N"}, &out) ==
          3);
    CHECK_THAT(out, Catch::Matchers::Contains("double     N         4096  ch05 tuned"));
    // The smaller T10 (4 GB) skips a size the H200 holds.
    CHECK(run_chapter(5, {"--op", "gemv", "--sizes", "30000", "--precision", "double", "--device-preset", "t10"},
                      &out) == 3);
    CHECK(run_chapter(5, {"--op", "gemv", "--sizes", "30000", "--precision", "double"}, &out) == 0);
}

TEST_CASE("an unwritable --csv fails at once, before anything runs, with exit code 2", "[cpu][reliability]") {
    std::string out, err;
    double s = 0;
    CHECK(run_chapter(5, {"--op", "gemv", "--csv", "/nonexistent/x.csv"}, &out, &err, &s) == 2);
    CHECK_THAT(err, Catch::Matchers::Contains("--csv (/nonexistent/x.csv) cannot be written: its folder /nonexistent "
                                              "does not exist"));
    CHECK(out.empty());
    CHECK(s < 2.0);
    CHECK_THROWS_WITH(wb::require_writable_output("--csv", "/"), Catch::Matchers::Contains("it is a folder"));
    CHECK_THROWS_WITH(wb::require_writable_output("--csv", "/proc/version/x.csv"),
                      Catch::Matchers::Contains("is not a folder"));
    CHECK_NOTHROW(wb::require_writable_output("--csv", ""));
    CHECK_NOTHROW(wb::require_writable_output("--csv", "reliability-test-not-created.csv"));
    // Checking creates nothing.
    CHECK(std::fopen("reliability-test-not-created.csv", "r") == nullptr);
}

TEST_CASE("stop flag: SIGINT and SIGTERM are recorded, not acted on; exit codes 130 and 143", "[cpu][reliability]") {
    wb::clear_stop();
    CHECK(wb::stop_signal() == 0);
    wb::install_stop_handlers();
    REQUIRE(std::raise(SIGINT) == 0);  // the handler records it; the process goes on
    CHECK(wb::stop_signal() == SIGINT);
    CHECK(wb::stop_exit_code(wb::stop_signal()) == 130);
    CHECK(std::string(wb::stop_signal_name(SIGINT)) == "SIGINT");
    wb::clear_stop();
    wb::install_stop_handlers();  // the handler resets itself after one signal (a second one kills)
    REQUIRE(std::raise(SIGTERM) == 0);
    CHECK(wb::stop_signal() == SIGTERM);
    CHECK(wb::stop_exit_code(wb::stop_signal()) == 143);
    wb::clear_stop();
    CHECK(wb::stop_signal() == 0);
    // Leave the default actions in place for the rest of the test program.
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

TEST_CASE("stop flag: every op's measuring loop reads it before its first case (no GPU call once stopped)",
          "[cpu][reliability]") {
    // Once the flag is set, measure, --shapes and --sweep return the rows so far (none here) without
    // building a problem: on this machine without a GPU, a problem built would throw.
    wb::ChapterRun run;
    run.chapter = 5;
    run.opt.sizes = {1024};
    run.dev = wb::device_preset("h200");
    wb::clear_stop();
    wb::install_stop_handlers();
    REQUIRE(std::raise(SIGTERM) == 0);
    REQUIRE(wb::stop_signal() == SIGTERM);
    wb::Progress prog("test", 0);
    for (const auto& op : wb::registered_ops()) {
        INFO(op->name());
        std::size_t calls = 0;
        const auto on_rows = [&](const wb::OpTable&, std::size_t) { ++calls; };
        wb::OpTable measured, shaped, swept, every;
        CHECK_NOTHROW(measured = op->measure(run, prog, on_rows));
        CHECK_NOTHROW(shaped = op->shapes(run, prog, on_rows));
        CHECK_NOTHROW(swept = op->sweep(run, every));
        CHECK(measured.rows.empty());
        CHECK(shaped.rows.empty());
        CHECK(swept.rows.empty());
        CHECK(every.rows.empty());
        CHECK(calls == 0);
    }
    wb::clear_stop();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

TEST_CASE("a stopped run's CSV ends with a row that says it is incomplete and how many rows it kept",
          "[cpu][reliability]") {
    const std::string path = "/tmp/wb-reliability-" + std::to_string(::getpid()) + ".csv";
    const std::vector<std::string> cols = {"op", "precision", "variant", "shape", "step", "ms", "note", "unit"};
    const wb::RunMetadata meta = wb::run_metadata(nullptr);
    wb::Report header("all ops", cols);
    header.add_row({"gemv", "float", "N", "1024", "ch05 tuned", "0.01", "", "GB/s"});
    header.write_csv(path, meta);
    wb::mark_csv_incomplete(path, cols, meta, SIGINT, 1);
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::remove(path.c_str());
    REQUIRE(lines.size() == 3);  // header, the measured row, the mark
    CHECK_THAT(lines[2], Catch::Matchers::Contains(",(incomplete),-,-,-,stopped by SIGINT,-,the run was stopped: the 1 "
                                                   "rows above are what it measured,-"));
    CHECK_NOTHROW(wb::mark_csv_incomplete("", cols, meta, SIGTERM, 0));  // no CSV: nothing to mark
}
