// The chapter loop without a GPU (architecture §4): --op selects registered ops and rejects others
// with exit code 2; --list-ops lists the registry; predict-only runs every registered op, and a
// step whose block cannot be resident on the preset gets a row that says so instead of aborting.
#include "catch.hpp"

#include "ladder_chapter.hpp"
#include "ops.hpp"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// Runs chapter `chapter`'s main on `args`, capturing stdout; returns the exit code.
int run_chapter(int chapter, std::vector<std::string> args, std::string* out = nullptr) {
    args.insert(args.begin(), "chNN");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream captured;
    std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
    const int rc = wb::run_ladder_chapter(static_cast<int>(argv.size()), argv.data(), chapter);
    std::cout.rdbuf(old);
    if (out) *out = captured.str();
    return rc;
}

}  // namespace

TEST_CASE("chapter loop: the registry lists GEMV and GEMM first, in order, then the later ops", "[cpu][frame]") {
    std::string out;
    REQUIRE(run_chapter(3, {"--list-ops"}, &out) == 0);
    // GEMV and GEMM first; ops registered later (one X(...) line each in WB_OPS) follow them.
    CHECK(out.rfind("gemv\ngemm\n", 0) == 0);
    CHECK(wb::op_names().rfind("gemv, gemm", 0) == 0);
    std::string listed;
    for (const auto& op : wb::registered_ops()) listed += op->name() + "\n";
    CHECK(out == listed);
    CHECK(wb::select_ops("all").size() == wb::registered_ops().size());
    CHECK(wb::select_ops("gemm").front()->name() == "gemm");
    CHECK_THROWS_WITH(wb::select_ops("gemm,fft"), Catch::Matchers::Contains("--op (\"fft\") must be"));
}

TEST_CASE("chapter loop: a usage error exits with 2", "[cpu][frame]") {
    CHECK(run_chapter(3, {"--op", "fft"}) == 2);
    CHECK(run_chapter(3, {"--precision", "half"}) == 2);
    CHECK(run_chapter(3, {"--help"}) == 0);
}

TEST_CASE("chapter loop: predict-only runs every op and says which designs do not fit", "[cpu][frame]") {
    std::string out;
    REQUIRE(run_chapter(2, {"--device-preset", "t10", "--sizes", "512", "--precision", "float"}, &out) == 0);
    CHECK(out.find("GEMV y = 1.5 op(A) x + 0.5 y") != std::string::npos);
    CHECK(out.find("GEMM C = 1.5 op(A) op(B) + 0.5 C") != std::string::npos);
    // GEMM's shared step uses 32 x 32 = 1024-thread blocks at 512^3; the T10 allows 512.
    CHECK(out.find("not predicted on Tesla T10 (preset)") != std::string::npos);
    REQUIRE(run_chapter(5, {"--device-preset", "h200", "--op", "gemm", "--sizes", "4096", "--ladder"}, &out) == 0);
    CHECK(out.find("not predicted") == std::string::npos);
    CHECK(out.find("ch05 tuned") != std::string::npos);
}

TEST_CASE("run lengths: each op's --quick set is smaller than its default, and --full holds the default",
          "[cpu][frame]") {
    // The default set keeps a chapter's run about a minute per op on an H100 or H200; --full is
    // every size the pages' runs used (the op's cases() says what each set shows).
    for (int chapter : {1, 5}) {
        for (bool ladder : {false, true}) {
            wb::ChapterRun normal, quick, full;
            for (wb::ChapterRun* r : {&normal, &quick, &full}) {
                r->chapter = chapter;
                r->whole_ladder = ladder;
            }
            quick.opt.quick = true;
            full.opt.full = true;
            for (const auto& op : wb::registered_ops()) {
                INFO(op->name() << ", chapter " << chapter << (ladder ? ", --ladder" : ""));
                CHECK(op->timed_rows(quick) < op->timed_rows(normal));
                CHECK(op->timed_rows(normal) <= op->timed_rows(full));
                if (op->name() != "gemv") CHECK(op->timed_rows(normal) < op->timed_rows(full));
            }
        }
    }
    // --sizes names the set whatever the scale.
    wb::ChapterRun a, b;
    a.opt.sizes = b.opt.sizes = {1024};
    b.opt.full = true;
    for (const auto& op : wb::registered_ops()) {
        INFO(op->name());
        CHECK(op->timed_rows(a) == op->timed_rows(b));
    }
}

TEST_CASE("chapter loop: --ladder in chapter N runs the steps of chapters 1..N, the ones its binary links",
          "[cpu][frame]") {
    CHECK(wb::chapters_to_run(1, true) == std::vector<int>{1});
    CHECK(wb::chapters_to_run(3, true) == std::vector<int>{1, 2, 3});
    CHECK(wb::chapters_to_run(5, true) == std::vector<int>{1, 2, 3, 4, 5});
    CHECK(wb::chapters_to_run(4, false) == std::vector<int>{1, 3, 4});
    std::string out;
    REQUIRE(run_chapter(2, {"--device-preset", "h200", "--op", "gemv", "--sizes", "1024", "--ladder"}, &out) == 0);
    CHECK(out.find("ch02 shared") != std::string::npos);
    CHECK(out.find("ch03 pattern") == std::string::npos);
}

TEST_CASE("the shape benchmark (--shapes): gemv and gemm have a shape set of every class, symv its submatrices, the "
          "other ops none",
          "[cpu]") {
    wb::ChapterRun run;
    run.chapter = 5;
    for (const auto& op : wb::registered_ops()) {
        INFO(op->name());
        if (op->name() == "gemv")
            // 2 precisions x 2 ops x 34 shapes (6 square, 4 odd lda, 10 rectangles, 6 skinny,
            // 8 offsets) x 2 timed rows (the step and cuBLAS).
            CHECK(op->shape_rows(run) == 2 * 2 * 34 * 2);
        else if (op->name() == "gemm")
            // 2 precisions x (2 op(A) x 27 shapes with op(B) = N (3 square, 3 padded, 2 offset,
            // 7 small n, 4 small m, 3 small k, 2 long k, 2 rectangles, 1 small n with op(B) = B^T)
            // + 2 op(A) x 2 squares with op(B) = B^T) x 2 timed rows (the step and cuBLAS).
            CHECK(op->shape_rows(run) == 2 * (2 * 27 + 2 * 2) * 2);
        else if (op->name() == "symv")
            // 2 precisions x 65 submatrix offsets k = 0 ... 64 x 2 timed rows (the step and cuBLAS).
            CHECK(op->shape_rows(run) == 2 * 65 * 2);
        else
            CHECK(op->shape_rows(run) == 0);
    }
    run.opt.precision = "double";
    run.opt.trans = "T";
    for (const auto& op : wb::registered_ops())
        if (op->name() == "gemv") CHECK(op->shape_rows(run) == 34 * 2);
    // Without a GPU the flag parses, and the run prints the model's predictions.
    std::string out;
    CHECK(run_chapter(5, {"--shapes", "--op", "gemv", "--device-preset", "h200"}, &out) == 0);
    CHECK(out.find("--shapes") != std::string::npos);
}

TEST_CASE("chapter loop: --read-gbs predicts against a measured read ceiling", "[cpu][frame]") {
    // A prediction without a GPU can take the read ceiling a run printed, as that run's own model
    // column did (scripts/model_accuracy.py --predict relies on it): the bandwidth-bound rows scale
    // with it, the option needs a preset and a positive figure.
    std::string a, b;
    REQUIRE(run_chapter(5, {"--device-preset", "h200", "--op", "gemv", "--sizes", "16384", "--precision", "float",
                            "--trans", "N"},
                        &a) == 0);
    REQUIRE(run_chapter(5, {"--device-preset", "h200", "--op", "gemv", "--sizes", "16384", "--precision", "float",
                            "--trans", "N", "--read-gbs", "2400"},
                        &b) == 0);
    auto tuned_gbs = [](const std::string& out) {
        const auto row = out.find("ch05 tuned");
        REQUIRE(row != std::string::npos);
        return std::stod(out.substr(row + std::string("ch05 tuned").size()));
    };
    const double full = tuned_gbs(a), half = tuned_gbs(b);
    INFO("preset " << full << " GB/s, --read-gbs 2400: " << half << " GB/s");
    CHECK(full > 4000);                          // the preset's 4800 GB/s, bandwidth-bound at 16384
    CHECK(half == Approx(full * 2400 / 4800).epsilon(0.05));
    CHECK(run_chapter(5, {"--device-preset", "h200", "--read-gbs", "0"}) == 2);
    CHECK(run_chapter(5, {"--device-preset", "h200", "--read-gbs", "-5"}) == 2);
    CHECK(run_chapter(5, {"--read-gbs", "4000"}) == 2);  // no preset: a run on a GPU measures its own
}
