// CPU tests of the sanitizer classes (issue 15): reading compute-sanitizer's output, the shapes
// run under the tools, the looped grid, and the known-wrong submissions' "// grading:" lines.
#include "catch.hpp"
#include "grading_test_util.hpp"

#include <fstream>
#include <sstream>

using namespace wb::grade;
using namespace wb::grade::test;

namespace {
SanitizerLog parse_log_text(const std::string& text) {
    std::istringstream in(text);
    return parse_sanitizer_log(in);
}
}  // namespace

TEST_CASE("a clean sanitizer log has no errors", "[cpu][grading]") {
    const SanitizerLog l = parse_log_text(
        "========= COMPUTE-SANITIZER\n"
        "the program's own output\n"
        "========= ERROR SUMMARY: 0 errors\n");
    CHECK(l.errors == 0);
    CHECK(l.summary);
    CHECK(l.first.empty());
    const SanitizerLog r = parse_log_text(
        "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n");
    CHECK(r.errors == 0);
    CHECK(r.summary);
    const SanitizerLog empty = parse_log_text("");
    CHECK_FALSE(empty.summary);
}

TEST_CASE("a memcheck log gives its first message, where, and the kernel", "[cpu][grading]") {
    const SanitizerLog l = parse_log_text(
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ read of size 4 bytes\n"
        "=========     at wb::ex::wrong_overread::(anonymous namespace)::overread_kernel(const float *, int, int, int, float *, int)+0x1f0 in /work/main/tests/grading/wrong/overread.cu:30\n"
        "=========     by thread (49,0,0) in block (25,0,0)\n"
        "=========     Access at 0x7f0000065a14 is out of bounds\n"
        "=========     and is 4 bytes after the nearest allocation at 0x7f0000040000 of size 154324 bytes\n"
        "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
        "=========         Host Frame: [0x2f0c3a] in libcuda.so.1\n"
        "========= \n"
        "========= Invalid __global__ read of size 4 bytes\n"
        "=========     at other_kernel()+0x10 in x.cu:1\n"
        "========= \n"
        "========= ERROR SUMMARY: 7 errors\n");
    CHECK(l.errors == 7);
    CHECK(l.first == "Invalid __global__ read of size 4 bytes");
    CHECK(l.kernel == "wb::ex::wrong_overread::(anonymous)::overread_kernel");
    CHECK(l.detail.find("by thread (49,0,0) in block (25,0,0)") != std::string::npos);
    CHECK(l.detail.find("out of bounds") != std::string::npos);
    CHECK(l.detail.find("Host Frame") == std::string::npos);
}

TEST_CASE("a racecheck log gives the hazard and the kernel", "[cpu][grading]") {
    const SanitizerLog l = parse_log_text(
        "========= COMPUTE-SANITIZER\n"
        "========= Warning: Race reported between Write access at w()+0x10 in a.cu:1\n"
        "=========     and Write access at w()+0x10 in a.cu:1 [2 hazards]\n"
        "========= \n"
        "========= Error: Race reported between Read access at void ns::loop_race_kernel<(bool)1>(float const*, int)+0x2b0 in /x/loop_race.cu:36\n"
        "=========     and Write access at void ns::loop_race_kernel<(bool)1>(float const*, int)+0x1a0 in /x/loop_race.cu:33 [7936 hazards]\n"
        "========= \n"
        "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n");
    CHECK(l.errors == 1);
    CHECK(l.first.find("Error: Race reported between Read access") == 0);
    CHECK(l.kernel == "ns::loop_race_kernel<(bool)1>");
    CHECK(l.detail.find("and Write access") != std::string::npos);
}

TEST_CASE("kernel names are shortened to one token", "[cpu][grading]") {
    CHECK(short_kernel_name("void a::(anonymous namespace)::k(float const*, int)") == "a::(anonymous)::k");
    CHECK(short_kernel_name("a::<unnamed>::k<64, (bool)0>(float*)") == "a::(anonymous)::k<64,_(bool)0>");
    CHECK(short_kernel_name("plain_kernel") == "plain_kernel");
    CHECK(short_kernel_name("  k()  ") == "k");
}

TEST_CASE("the sanitized shapes run every code path and make blocks loop", "[cpu][grading]") {
    const auto& cs = sanitizer_cases();
    REQUIRE(cs.size() >= 2);
    bool vec_interior = false, scalar_interior = false, padded_odd = false, tall = false;
    for (const auto& c : cs) {
        INFO(c.label());
        CHECK(c.size_class == "sanitizer");
        CHECK(c.lda >= c.cols);
        CHECK(c.ldb >= c.rows);
        CHECK(static_cast<long long>(c.rows) * c.cols <= 40000);  // small: racecheck is slow
        for (const int tile : {32, 64}) {
            const long long tiles = (c.rows + tile - 1LL) / tile * ((c.cols + tile - 1LL) / tile);
            CHECK(tiles >= 2);
            CHECK(looped_grid(tiles) < tiles);  // under the looped grid a block walks several tiles
        }
        const bool interior64 = c.rows >= 64 && c.cols >= 64;
        vec_interior = vec_interior || (interior64 && c.lda % 2 == 0);
        scalar_interior = scalar_interior || (interior64 && c.lda % 2 == 1);
        padded_odd = padded_odd || (c.lda > c.cols && c.cols % 4 != 0);
        tall = tall || c.rows > c.cols;
        for (const auto& g : graded_cases()) CHECK_FALSE(g == c);
    }
    CHECK(vec_interior);     // chapter 5's float2 path
    CHECK(scalar_interior);  // chapter 5's scalar interior path
    CHECK(padded_odd);       // an over-read of a row lands in A's (uninitialized) padding
    CHECK(tall);
    CHECK(sanitizer_tools() == std::vector<std::string>{"memcheck", "racecheck", "synccheck", "initcheck"});
}

TEST_CASE("the looped grid exceeds one pass on every multi-tile graded case", "[cpu][grading]") {
    CHECK(looped_grid(1) == 1);
    CHECK(looped_grid(4) == 1);
    CHECK(looped_grid(5) == 2);
    CHECK(looped_grid(1LL << 20) == (1LL << 18));
    int looping = 0;
    for (const auto& c : graded_cases()) {
        const long long tiles = (c.rows + 31LL) / 32 * ((c.cols + 31LL) / 32);
        if (tiles > 1) {
            CHECK(looped_grid(tiles) < tiles);
            ++looping;
        }
    }
    CHECK(looping >= 15);
    for (const auto& cls : size_classes()) {  // every class has a case whose blocks loop
        bool any = false;
        for (const auto& c : graded_cases())
            any = any || (c.size_class == cls && (c.rows + 31LL) / 32 * ((c.cols + 31LL) / 32) > 1);
        CHECK(any);
    }
    CHECK(std::string(grid_mode_name(GridMode::looped)) == "looped");
    CHECK(std::string(grid_mode_name(GridMode::as_written)) == "as_written");
}

TEST_CASE("every known-wrong submission names its chapter and the classes that must catch it", "[cpu][grading]") {
    const auto ws = wrong_variants(WB_GRADING_WRONG_DIR);
    CHECK(ws.size() >= 9);
    bool race = false, warp = false, uninit = false, memcheck = false, initcheck = false;
    for (const auto& w : ws) {
        INFO(w.name);
        CHECK_NOTHROW(resolve_chapter(w.chapter));
        CHECK(resolve_chapter(w.chapter) == w.chapter);
        CHECK_FALSE(w.zero.empty());
        for (const auto& z : w.zero) {
            race = race || (w.name == "loop_race" && z == "sanitizer: racecheck");
            warp = warp || (w.name == "missing_syncwarp" && z == "sanitizer: racecheck");
            uninit = uninit || (w.name == "uninit_shared" && z == "correctness: large");
            memcheck = memcheck || z == "sanitizer: memcheck";
            initcheck = initcheck || z == "sanitizer: initcheck";
        }
    }
    CHECK(race);
    CHECK(warp);
    CHECK(uninit);
    CHECK(memcheck);
    CHECK(initcheck);
    CHECK_THROWS(zero_items("everything"));
}

namespace {
SanitizerLog load_log(const std::string& name) {
    std::ifstream in(data_path(name));
    if (!in) throw std::runtime_error("missing test data " + data_path(name));
    return parse_sanitizer_log(in);
}
}  // namespace

TEST_CASE("logs recorded on an H200: clean runs", "[cpu][grading]") {
    for (const char* f : {"sanitizer_racecheck_clean_h200.log", "sanitizer_memcheck_clean_h200.log"}) {
        INFO(f);
        const SanitizerLog l = load_log(f);
        CHECK(l.summary);
        CHECK(l.errors == 0);
        CHECK(l.warnings == 0);
        CHECK(l.first.empty());
    }
}

TEST_CASE("logs recorded on an H200: a race between loop iterations", "[cpu][grading]") {
    const SanitizerLog l = load_log("sanitizer_racecheck_loop_race_h200.log");
    CHECK(l.errors == 3);
    CHECK(l.warnings == 0);
    CHECK(l.first.rfind("Error: Race reported between Write access at", 0) == 0);
    CHECK(l.first.find("loop_race.cu:27") != std::string::npos);
    CHECK(l.detail.find("and Read access at") != std::string::npos);
    CHECK(l.kernel == "wb::ex::wrong_loop_race::(anonymous)::loop_race_kernel");
}

TEST_CASE("logs recorded on an H200: a missing __syncwarp is a racecheck warning, and counts", "[cpu][grading]") {
    const SanitizerLog l = load_log("sanitizer_racecheck_missing_syncwarp_h200.log");
    CHECK(l.errors == 0);
    CHECK(l.warnings == 198);
    CHECK(l.first.rfind("Warning: Race reported between Write access at", 0) == 0);
    CHECK(l.kernel == "wb::ex::wrong_missing_syncwarp::(anonymous)::warp_tile_kernel");
}

TEST_CASE("logs recorded on an H200: memcheck and initcheck on reads past each row", "[cpu][grading]") {
    const SanitizerLog m = load_log("sanitizer_memcheck_overread_h200.log");
    CHECK(m.errors == 4);  // the read, then the launch failure the API calls report
    CHECK(m.first == "Invalid __global__ read of size 4 bytes");
    CHECK(m.kernel == "wb::ex::wrong_overread::(anonymous)::overread_kernel");
    CHECK(m.detail.find("by thread (99,0,0) in block (25,0,0)") != std::string::npos);
    CHECK(m.detail.find("out of bounds") != std::string::npos);
    const SanitizerLog i = load_log("sanitizer_initcheck_overread_h200.log");
    CHECK(i.errors == 648);
    CHECK(i.first == "Uninitialized __global__ memory read of size 4 bytes");
    CHECK(i.kernel == "wb::ex::wrong_overread::(anonymous)::overread_kernel");
}

TEST_CASE("records written on an H200 score as the GPU run printed", "[cpu][grading]") {
    const Thresholds none;
    const Rubric race = score(load_record("record_loop_race_ch02_h200.txt"), none);
    CHECK(race.total() == Approx(4 * kClassPoints + 2 * kSanitizerPoints));  // 50
    const Rubric over = score(load_record("record_overread_ch01_h200.txt"), none);
    CHECK(over.total() == Approx(4 * kClassPoints + 2 * kSanitizerPoints));  // 50
    for (const auto& i : race.items) {
        if (i.name == "sanitizer: racecheck") {
            CHECK(i.score == 0);
            CHECK(i.output.find("130x197 lda=200 ldb=136 (grid looped)") != std::string::npos);
            CHECK(i.output.find("loop_race_kernel") != std::string::npos);
            CHECK(i.output.find("Race reported") != std::string::npos);
        }
        if (i.name == "sanitizer: synccheck") {  // the race showed in the output under synccheck
            CHECK(i.score == 0);
            CHECK(i.output.find("output was wrong") != std::string::npos);
        }
        if (i.name.rfind("correctness:", 0) == 0) CHECK(i.score == Approx(kClassPoints));
    }
    for (const auto& i : over.items) {
        if (i.name == "sanitizer: memcheck" || i.name == "sanitizer: initcheck") {
            CHECK(i.score == 0);
            CHECK(i.output.find("overread_kernel") != std::string::npos);
        }
    }
}
