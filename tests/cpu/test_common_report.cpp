// CPU tests of the result tables: the aligned print (header, rule, numbers right-aligned, text
// left-aligned), the CSV with metadata columns first, append mode, the cell formatters, and
// the run metadata (device.cpp) that every CSV row carries.
#include "catch.hpp"

#include "common/device.hpp"
#include "common/report.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

wb::RunMetadata sample_meta() {
    wb::RunMetadata m;
    m.gpu = "NVIDIA H200";
    m.sm_count = 132;
    m.sm_clock_mhz = 1980;
    m.mem_clock_mhz = 3201;
    m.driver = "13.0";
    m.cuda = "13.0";
    m.commit = "abc123";
    m.date = "2026-11-22T10:00:00Z";
    return m;
}

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A file name in the temporary directory, unique to this process and test, removed at the end.
struct TempFile {
    std::filesystem::path path;
    explicit TempFile(const std::string& tag)
        : path(std::filesystem::temp_directory_path() /
               ("wb_test_report_" + std::to_string(::getpid()) + "_" + tag + ".csv")) {
        std::filesystem::remove(path);
    }
    ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("Report prints an aligned table", "[cpu][report]") {
    wb::Report r("GEMV N float", {"step", "GB/s", "vs naive"});
    r.add_row({"naive", "12.5", "1.00x"});
    r.add_row({"tuned", "3500.0", "280.00x"});
    std::ostringstream os;
    r.print(os);
    // Widths: step 5, GB/s 6, vs naive 8; numbers and their headers right-aligned, text left.
    const std::string expected =
        "GEMV N float\n"
        "step     GB/s  vs naive\n"
        "-----------------------\n"
        "naive    12.5     1.00x\n"
        "tuned  3500.0   280.00x\n";
    CHECK(os.str() == expected);
}

TEST_CASE("Report: a text cell in a numeric column stays left-aligned", "[cpu][report]") {
    wb::Report r("", {"n", "ms"});
    r.add_row({"1024", "n/a"});
    r.add_row({"16384", "0.25"});
    std::ostringstream os;
    r.print(os);
    const std::string expected =
        "    n  ms\n"
        "-----------\n"
        " 1024  n/a\n"
        "16384  0.25\n";
    CHECK(os.str() == expected);
}

TEST_CASE("Report rejects rows of the wrong size and empty headers", "[cpu][report]") {
    wb::Report r("t", {"a", "b"});
    CHECK_THROWS_AS(r.add_row({"1"}), std::invalid_argument);
    CHECK_THROWS_AS(r.add_row({"1", "2", "3"}), std::invalid_argument);
    CHECK(r.rows().empty());
    r.add_row({"1", "2"});
    CHECK(r.rows().size() == 1);
    CHECK_THROWS_AS(wb::Report("t", {}), std::invalid_argument);
}

TEST_CASE("Report::write_csv puts the metadata columns first", "[cpu][report]") {
    TempFile f("meta");
    wb::Report r("t", {"step", "GB/s"});
    r.add_row({"naive", "12.5"});
    r.add_row({"tiled, padded", "3500.0"});
    r.write_csv(f.path.string(), sample_meta());
    const std::string expected =
        "gpu,sm_count,sm_clock_mhz,mem_clock_mhz,driver,cuda,commit,date,step,GB/s\n"
        "NVIDIA H200,132,1980,3201,13.0,13.0,abc123,2026-11-22T10:00:00Z,naive,12.5\n"
        "NVIDIA H200,132,1980,3201,13.0,13.0,abc123,2026-11-22T10:00:00Z,\"tiled, padded\",3500.0\n";
    CHECK(read_file(f.path) == expected);
}

TEST_CASE("Report::write_csv append mode writes the header once", "[cpu][report]") {
    TempFile f("append");
    const std::string header = "gpu,sm_count,sm_clock_mhz,mem_clock_mhz,driver,cuda,commit,date,n\n";
    const std::string prefix = "NVIDIA H200,132,1980,3201,13.0,13.0,abc123,2026-11-22T10:00:00Z,";
    wb::Report a("a", {"n"}), b("b", {"n"});
    a.add_row({"1"});
    b.add_row({"2"});
    SECTION("append to a new file writes the header") {
        a.write_csv(f.path.string(), sample_meta(), true);
        b.write_csv(f.path.string(), sample_meta(), true);
        CHECK(read_file(f.path) == header + prefix + "1\n" + prefix + "2\n");
    }
    SECTION("append to an existing empty file writes the header") {
        std::ofstream(f.path).close();
        a.write_csv(f.path.string(), sample_meta(), true);
        CHECK(read_file(f.path) == header + prefix + "1\n");
    }
    SECTION("without append the file is replaced") {
        a.write_csv(f.path.string(), sample_meta(), true);
        b.write_csv(f.path.string(), sample_meta(), false);
        CHECK(read_file(f.path) == header + prefix + "2\n");
    }
    SECTION("appending a table of other columns is refused") {
        a.write_csv(f.path.string(), sample_meta(), true);
        wb::Report c("c", {"m"});
        c.add_row({"3"});
        CHECK_THROWS_AS(c.write_csv(f.path.string(), sample_meta(), true), std::invalid_argument);
        CHECK(read_file(f.path) == header + prefix + "1\n");
    }
}

TEST_CASE("Report::write_csv reports a file it cannot open", "[cpu][report]") {
    wb::Report r("t", {"n"});
    r.add_row({"1"});
    CHECK_THROWS_AS(r.write_csv("/nonexistent-dir-wb/x.csv", sample_meta()), std::runtime_error);
    CHECK_THROWS_AS(r.write_csv("", sample_meta()), std::invalid_argument);
}

TEST_CASE("cell formatters", "[cpu][report]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    CHECK(wb::fmt(3.14159, 2) == "3.14");
    CHECK(wb::fmt(2.0) == "2.0");
    CHECK(wb::fmt(1234.56, 0) == "1235");
    CHECK(wb::fmt(-0.01, 1) == "0.0");  // no "-0.0"
    CHECK(wb::fmt(-2.5, 1) == "-2.5");
    CHECK(wb::fmt(nan) == "-");
    CHECK(wb::fmt(std::numeric_limits<double>::infinity()) == "inf");
    CHECK(wb::fmt_ratio(1.234) == "1.23x");
    CHECK(wb::fmt_ratio(nan) == "-");
    CHECK(wb::fmt_pct(0.924) == "92.4%");  // a fraction in, a percentage out
    CHECK(wb::fmt_pct(1.0) == "100.0%");
    CHECK(wb::fmt_pct(nan) == "-");
}

TEST_CASE("csv_escape quotes only when needed", "[cpu][report]") {
    CHECK(wb::csv_escape("plain") == "plain");
    CHECK(wb::csv_escape("") == "");
    CHECK(wb::csv_escape("a,b") == "\"a,b\"");
    CHECK(wb::csv_escape("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(wb::csv_escape("two\nlines") == "\"two\nlines\"");
}

// The metadata every CSV row carries (device.cpp). Runs everywhere; the live-device part runs
// only where a GPU exists (the GPU round runs the cpu label too).
TEST_CASE("run_metadata fills the CSV metadata", "[cpu][report][device]") {
    const std::regex date_re(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
    const std::regex version_re(R"(\d+\.\d+)");
    bool has_gpu = false;
    CHECK_NOTHROW(has_gpu = wb::has_cuda_device());
    CHECK_THROWS_AS(wb::select_device(-1), std::invalid_argument);

    const wb::RunMetadata m = wb::run_metadata(nullptr);
    CHECK(m.gpu == "none");
    CHECK(m.sm_count == 0);
    CHECK(std::regex_match(m.cuda, version_re));  // the runtime is linked in even without a GPU
    CHECK(m.commit == wb::build_commit());
    CHECK_FALSE(m.commit.empty());
    CHECK(std::regex_match(m.date, date_re));
    CHECK(wb::run_metadata(nullptr).date == m.date);  // when the run started, not when called

    wb::DeviceInfo h200;
    h200.mem_clock_mhz = 3201;
    h200.bus_width_bits = 6144;
    CHECK(h200.theoretical_bandwidth_gbs() == Approx(2 * 3201e6 * 768 / 1e9));  // 4916.7 GB/s

    if (has_gpu) {
        const wb::DeviceInfo info = wb::query_device(0);
        INFO("device 0: " << info.name);
        CHECK_FALSE(info.name.empty());
        CHECK(info.sm_count > 0);
        CHECK(info.sm_clock_mhz > 0);
        CHECK(info.mem_clock_mhz > 0);
        CHECK(info.bus_width_bits > 0);
        CHECK(info.l2_bytes > 0);
        CHECK(info.theoretical_bandwidth_gbs() > 100);
        const wb::RunMetadata live = wb::run_metadata(&info);
        CHECK(live.gpu == info.name);
        CHECK(live.sm_count == info.sm_count);
        CHECK(std::regex_match(live.driver, version_re));
        CHECK(std::regex_match(live.cuda, version_re));
    }
}
