// CPU tests of the chapter command line: good and bad argument vectors through CLI11 and
// parse_chapter_cli, and validate_chapter_options on options built in code.
#include "catch.hpp"

#include "common/cli.hpp"
#include "common/device_profile.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// Runs parse_chapter_cli on "ch00_test <args...>" and returns its code.
int parse(std::initializer_list<std::string> args, wb::ChapterOptions& opt) {
    std::vector<std::string> storage = {"ch00_test"};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    return wb::parse_chapter_cli(static_cast<int>(storage.size()), argv.data(), "ch00_test",
                                 "test chapter", opt);
}

/// The message of the CLI11 error that parsing `args` raises ("" when it parses).
std::string cli_error(std::initializer_list<std::string> args) {
    wb::ChapterOptions opt;
    CLI::App app{"test", "ch00_test"};
    wb::add_chapter_options(app, opt);
    std::vector<std::string> reversed(args.begin(), args.end());  // CLI11 takes them reversed
    std::reverse(reversed.begin(), reversed.end());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        return e.what();
    }
    return "";
}

std::string invalid_message(const wb::ChapterOptions& opt) {
    try {
        wb::validate_chapter_options(opt);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("chapter CLI: defaults", "[cpu][cli]") {
    wb::ChapterOptions opt;
    REQUIRE(parse({}, opt) == -1);
    CHECK(opt.op == "all");
    CHECK(opt.sizes.empty());
    CHECK(opt.precision == "both");
    CHECK(opt.trans == "both");
    CHECK(opt.csv.empty());
    CHECK(opt.device == 0);
    CHECK(opt.device_preset.empty());
    CHECK_FALSE(opt.quick);
    CHECK_FALSE(opt.full);
}

TEST_CASE("chapter CLI: --full picks each op's whole set, --quick its smallest; not both", "[cpu][cli]") {
    wb::ChapterOptions opt;
    REQUIRE(parse({"--full"}, opt) == -1);
    CHECK(opt.full);
    CHECK_FALSE(opt.quick);
    CHECK(contains(cli_error({"--quick", "--full"}), "--full"));
    CHECK(parse({"--full", "--quick"}, opt) == 2);
    wb::ChapterOptions both;
    both.quick = both.full = true;
    CHECK(contains(invalid_message(both), "--quick and --full"));

    wb::ChapterOptions normal, quick, full;
    quick.quick = true;
    full.full = true;
    CHECK(wb::pick_set(normal, 1, 2, 3) == 2);
    CHECK(wb::pick_set(quick, 1, 2, 3) == 1);
    CHECK(wb::pick_set(full, 1, 2, 3) == 3);
}

TEST_CASE("chapter CLI: every option parsed", "[cpu][cli]") {
    wb::ChapterOptions opt;
    REQUIRE(parse({"--op", "gemv", "--sizes", "1024,2048", "--precision", "float", "--trans", "T", "--csv",
                   "out.csv", "--device", "1", "--device-preset", "t10", "--quick"},
                  opt) == -1);
    CHECK(opt.sizes == std::vector<int>{1024, 2048});
    CHECK(opt.precision == "float");
    CHECK(opt.trans == "T");
    CHECK(opt.csv == "out.csv");
    CHECK(opt.device == 1);
    CHECK(opt.device_preset == "t10");
    CHECK(opt.quick);
}

TEST_CASE("chapter CLI: --sizes separated by commas, spaces, or given twice", "[cpu][cli]") {
    wb::ChapterOptions a, b, c, d;
    REQUIRE(parse({"--sizes", "1024,2048"}, a) == -1);
    CHECK(a.sizes == std::vector<int>{1024, 2048});
    REQUIRE(parse({"--sizes", "1024", "2048", "4097"}, b) == -1);
    CHECK(b.sizes == std::vector<int>{1024, 2048, 4097});
    REQUIRE(parse({"--sizes=0,1,17", "--precision=double"}, c) == -1);
    CHECK(c.sizes == std::vector<int>{0, 1, 17});
    CHECK(c.precision == "double");
    REQUIRE(parse({"--sizes", "8", "--sizes", "16"}, d) == -1);
    CHECK(d.sizes == std::vector<int>{8, 16});
}

TEST_CASE("chapter CLI: bad values fail naming the option", "[cpu][cli]") {
    CHECK(contains(cli_error({"--precision", "half"}), "--precision"));
    CHECK(contains(cli_error({"--precision", "half"}), "half"));
    CHECK(contains(cli_error({"--trans", "X"}), "--trans"));
    CHECK(contains(cli_error({"--op", "Fft!"}), "--op"));
    CHECK(contains(cli_error({"--sizes", "12a"}), "--sizes"));
    CHECK(contains(cli_error({"--device", "-1"}), "--device"));
    // The rule in int's range, not a double's 309-digit maximum.
    CHECK(contains(cli_error({"--device", "-1"}), "not in range 0 to 2147483647"));
    CHECK(contains(cli_error({"--device", "abc"}), "--device"));
    CHECK(contains(cli_error({"--device-preset", "gtx480"}), "--device-preset"));
    CHECK(cli_error({"--bogus"}) != "");
    CHECK(cli_error({"--precision", "float"}) == "");  // and a good one parses
}

TEST_CASE("chapter CLI: errors return 2, --help returns 0", "[cpu][cli]") {
    wb::ChapterOptions opt;
    CHECK(parse({"--precision", "half"}, opt) == 2);
    CHECK(parse({"--sizes", "-5"}, opt) == 2);   // parsed by CLI11, refused by validation
    CHECK(parse({"--unknown-flag"}, opt) == 2);
    CHECK(parse({"--help"}, opt) == 0);
}

TEST_CASE("chapter CLI: --device-preset accepts exactly device_preset_names()", "[cpu][cli]") {
    const std::vector<std::string> names = wb::device_preset_names();
    REQUIRE_FALSE(names.empty());
    for (const auto& name : names) {
        INFO("preset " << name);
        wb::ChapterOptions opt;
        CHECK(parse({"--device-preset", name}, opt) == -1);
        CHECK(opt.device_preset == name);
    }
    wb::ChapterOptions opt;
    CHECK(parse({"--device-preset", "not-a-gpu"}, opt) == 2);
}

TEST_CASE("validate_chapter_options names option, value and rule", "[cpu][cli]") {
    wb::ChapterOptions good;
    good.sizes = {0, 1, 16384};
    CHECK(invalid_message(good) == "");

    wb::ChapterOptions o = good;
    o.sizes = {1024, -3};
    CHECK(contains(invalid_message(o), "--sizes (-3"));
    CHECK(contains(invalid_message(o), ">= 0"));

    o = good;
    o.precision = "half";
    CHECK(contains(invalid_message(o), "--precision (half) must be one of: float, double, both"));

    o = good;
    o.trans = "C";
    CHECK(contains(invalid_message(o), "--trans (C) must be one of: N, T, both"));

    o = good;
    o.op = "gemv,Fft";
    CHECK(contains(invalid_message(o), "--op (gemv,Fft) must be \"all\" or a comma list of op names"));
    o.op = "gemv,fft";
    CHECK_THROWS_WITH(wb::validate_chapter_options(o, {"gemv", "gemm"}),
                      Catch::Matchers::Contains("--op (gemv,fft) must be \"all\" or a comma list of: gemv, gemm"));
    o.op = "gemv,gemm";
    CHECK_NOTHROW(wb::validate_chapter_options(o, {"gemv", "gemm"}));

    o = good;
    o.device = -2;
    CHECK(contains(invalid_message(o), "--device (-2) must be >= 0"));

    o = good;
    o.device_preset = "gtx480";
    CHECK(contains(invalid_message(o), "--device-preset (gtx480)"));
}
