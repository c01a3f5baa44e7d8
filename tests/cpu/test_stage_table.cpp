// The one stage table (common/stage.hpp): the words the CLI, the CSV and the chapter directories
// show are pinned here, the one place that spells them; code names a stage by the enum.
#include "catch.hpp"

#include "gemv.hpp"
#include "stage.hpp"
#include "stages.hpp"

#include <set>
#include <stdexcept>
#include <string>

TEST_CASE("stage table: chapters 1..5 in order, the user-visible words unchanged", "[cpu][stage]") {
    const auto& t = wb::stages();
    REQUIRE(t.size() >= 5);
    const char* names[] = {"naive", "shared", "pattern", "access", "tuned"};
    const char* dirs[] = {"ch01_global", "ch02_shared", "ch03_pattern", "ch04_access", "ch05_unrolled"};
    for (int c = 1; c <= 5; ++c) {
        INFO("chapter " << c);
        const wb::StageInfo& s = wb::stage_of(c);
        CHECK(s.chapter == c);
        CHECK(wb::chapter_of(s.stage) == c);
        CHECK(std::string(s.name) == names[c - 1]);
        CHECK(std::string(s.folder) == names[c - 1]);  // chapters 1-5: the folder is the stage's name
        CHECK(std::string(s.directory) == dirs[c - 1]);
        CHECK(std::string(wb::stage_name(s.stage)) == names[c - 1]);
        CHECK(&wb::stage_info(s.stage) == &s);
    }
}

TEST_CASE("stage table: one row per chapter, unique names and directories", "[cpu][stage]") {
    std::set<int> chapters;
    std::set<std::string> names, dirs;
    for (const auto& s : wb::stages()) {
        CHECK(chapters.insert(s.chapter).second);
        CHECK(names.insert(s.name).second);
        CHECK(dirs.insert(s.directory).second);
        CHECK(std::string(s.title).size() > 0);
    }
    CHECK_THROWS_WITH(wb::stage_of(0), Catch::Matchers::Contains("stage_of: chapter (0) must be in [1, "));
    CHECK_THROWS_AS(wb::stage_of(static_cast<int>(wb::stages().size()) + 1), std::invalid_argument);
}

TEST_CASE("a step takes its chapter and name from the table; a peer has neither", "[cpu][stage]") {
    const auto& ladder = wb::ladder<wb::GemvArgs<float>>();
    for (const auto& s : ladder) {
        INFO(s.stage);
        CHECK_FALSE(s.is_peer());
        CHECK(s.stage == wb::stage_name(s.ladder_stage()));
        CHECK(wb::chapter_of(s.ladder_stage()) == s.chapter);
    }
    const auto& peer = wb::peer_step<wb::GemvArgs<float>>();
    CHECK(peer.is_peer());
    CHECK(peer.chapter == 0);
    CHECK(peer.stage == "cublas");
    CHECK_THROWS_AS(peer.ladder_stage(), std::invalid_argument);
    CHECK(wb::step_label(3, "cuBLAS") == "ch03 pattern");
    CHECK(wb::step_label(0, "cuBLAS") == "cuBLAS");
}
