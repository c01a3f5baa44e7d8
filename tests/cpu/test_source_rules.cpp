// Rules about the sources themselves (the architecture page, "Layers" and "Kernel sources"),
// read from the source tree whose path the build compiles in (WB_SOURCE_DIR):
//  - layers point one way: nothing under common/ includes a kernels/ header;
//  - kernel sources hold code and teaching comments, not history: no commit hashes, dates or
//    results-file names under kernels/ (that history lives in docs/notes/<op>.md and git log);
//  - no file under kernels/tuned/ is longer than 500 lines (one job per file).
// Each rule lists every offending line, so a failure says what to fix.
#include "catch.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = WB_SOURCE_DIR;

/// Every regular file under `dir` (relative to the source tree), sorted.
std::vector<fs::path> files_under(const std::string& dir) {
    std::vector<fs::path> v;
    for (const auto& e : fs::recursive_directory_iterator(kSource / dir))
        if (e.is_regular_file()) v.push_back(e.path());
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<std::string> lines_of(const fs::path& p) {
    std::ifstream in(p);
    std::vector<std::string> v;
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
}

std::string where(const fs::path& p, std::size_t line) {
    return fs::relative(p, kSource).generic_string() + ":" + std::to_string(line + 1);
}

/// A word of letters, digits and '_' is commit-like where it is 7-12 characters of lower-case hex
/// with at least one digit and one letter: "606c38c" is, "deadbeef" (no digit), "0xffffffff"
/// (an 'x'), "2147418111" (no letter) and "kMaxGridX" are not.
bool commit_like(const std::string& w) {
    if (w.size() < 7 || w.size() > 12) return false;
    bool digit = false, letter = false;
    for (char c : w) {
        if (c >= '0' && c <= '9') digit = true;
        else if (c >= 'a' && c <= 'f') letter = true;
        else return false;
    }
    return digit && letter;
}

/// What in `line` reads as history, or "" where nothing does.
std::string history_in(const std::string& line) {
    static const std::regex date(R"(\b20\d\d-\d\d-\d\d\b)");
    static const std::regex after_word(R"(\b(commit|log|sweep of|run of)\s+[0-9a-f]{7,12}\b)");
    static const std::regex results_file(R"(([A-Za-z0-9_*{},-]+)\.(csv|txt|log)\b)");
    std::smatch m;
    if (std::regex_search(line, m, date)) return "a date (" + m.str(0) + ")";
    if (line.find("docs/results") != std::string::npos) return "a results path (docs/results)";
    if (std::regex_search(line, m, after_word)) return "a commit (" + m.str(0) + ")";
    for (auto it = std::sregex_iterator(line.begin(), line.end(), results_file); it != std::sregex_iterator(); ++it)
        if ((*it)[1].str() != "CMakeLists") return "a results file (" + it->str(0) + ")";
    std::string word;
    for (std::size_t i = 0; i <= line.size(); ++i) {
        const char c = i < line.size() ? line[i] : ' ';
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            word += c;
        } else {
            if (commit_like(word)) return "a commit hash (" + word + ")";
            word.clear();
        }
    }
    return "";
}

}  // namespace

TEST_CASE("the history rule: what it flags and what it lets pass", "[cpu][source]") {
    CHECK(history_in("see conv2d-fs-probe-606c38c.txt") != "");
    CHECK(history_in("the H200 sweep of 8615427 (`sweep-symv-8615427*`)") != "");
    CHECK(history_in("H200, perf log 8615427") != "");
    CHECK(history_in("an H200 sweep of 2026-11-23") != "");
    CHECK(history_in("(docs/results/h200/symv-walk-read.txt)") != "");
    CHECK(history_in("cg-ch05-03053b3.csv against the run before") != "");
    CHECK(history_in("commit a906840") != "");
    CHECK(history_in("x & 0xffffffff; // deadbeef, added, 2147418111 = kMaxIndexedExtent") == "");
    CHECK(history_in("(kernels/CMakeLists.txt defines WB_HAVE_NPP)") == "");
    CHECK(history_in("n = 1048576, faced 16384, decade") == "");
}

TEST_CASE("layers point one way: nothing under common/ includes a kernels/ header", "[cpu][source]") {
    // kernels/ is on no include path of wb_common, but the root is: "kernels/x.hpp" would compile.
    static const std::regex include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
    std::set<std::string> kernel_headers;  // kernels/'s own headers, by name: "symv.hpp", "tuned/x.cuh"
    for (const auto& p : files_under("kernels")) kernel_headers.insert(fs::relative(p, kSource / "kernels").generic_string());
    std::vector<std::string> bad;
    for (const auto& p : files_under("common")) {
        const auto lines = lines_of(p);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            std::smatch m;
            if (!std::regex_search(lines[i], m, include)) continue;
            const std::string h = m[1].str();
            const bool from_kernels = h.rfind("kernels/", 0) == 0 ||
                                      (kernel_headers.count(h) && !fs::exists(kSource / "common" / h));
            if (from_kernels) bad.push_back(where(p, i) + ": " + lines[i]);
        }
    }
    for (const auto& b : bad) UNSCOPED_INFO(b);
    CHECK(bad.empty());
}

TEST_CASE("kernel sources hold no history: no commit hashes, dates or results files", "[cpu][source]") {
    std::vector<std::string> bad;
    for (const auto& p : files_under("kernels")) {
        const auto lines = lines_of(p);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::string h = history_in(lines[i]);
            if (!h.empty()) bad.push_back(where(p, i) + ": " + h);
        }
    }
    for (const auto& b : bad) UNSCOPED_INFO(b);
    CHECK(bad.empty());
}

TEST_CASE("no file under kernels/tuned/ is longer than 500 lines", "[cpu][source]") {
    std::vector<std::string> bad;
    for (const auto& p : files_under("kernels/tuned")) {
        const std::size_t n = lines_of(p).size();
        if (n > 500) bad.push_back(fs::relative(p, kSource).generic_string() + ": " + std::to_string(n) + " lines");
    }
    for (const auto& b : bad) UNSCOPED_INFO(b);
    CHECK(bad.empty());
}

TEST_CASE("chapter pages teach: at most 800 lines, no dates or commit hashes", "[cpu][source]") {
    // A page is teaching text (the architecture page; DESIGN's chapter-page rule): its history
    // lives in docs/notes/<op>.md. Result tables come from markers naming files without hashes.
    static const std::regex date(R"(\b20\d\d-\d\d-\d\d\b)");
    std::vector<std::string> bad;
    std::size_t pages = 0;
    for (const auto& p : files_under("chapters")) {
        if (p.extension() != ".md") continue;
        ++pages;
        const auto lines = lines_of(p);
        if (lines.size() > 800)
            bad.push_back(fs::relative(p, kSource).generic_string() + ": " + std::to_string(lines.size()) + " lines");
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (std::regex_search(lines[i], date)) bad.push_back(where(p, i) + ": a date");
            std::string word;
            for (std::size_t c = 0; c <= lines[i].size(); ++c) {
                const char ch = c < lines[i].size() ? lines[i][c] : ' ';
                if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
                    word += ch;
                } else {
                    if (commit_like(word)) bad.push_back(where(p, i) + ": a commit hash (" + word + ")");
                    word.clear();
                }
            }
        }
    }
    CHECK(pages >= 6);  // chapters 0-5 at least
    for (const auto& b : bad) UNSCOPED_INFO(b);
    CHECK(bad.empty());
}
