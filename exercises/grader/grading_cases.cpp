// The graded size classes and cases of the transpose track, the timed shapes, and the chapter
// names (grading.hpp). One list, used by the GPU runner and by the scorer alike.
#include "grading.hpp"

#include <stdexcept>

namespace wb::grade {

std::string GradedCase::label() const {
    return std::to_string(rows) + "x" + std::to_string(cols) + " lda=" + std::to_string(lda) +
           " ldb=" + std::to_string(ldb);
}

std::string PerfShape::label() const { return std::to_string(rows) + "x" + std::to_string(cols); }

const std::vector<std::string>& size_classes() {
    static const std::vector<std::string> c = {"small", "odd", "large", "rectangular"};
    return c;
}

const std::vector<GradedCase>& graded_cases() {
    // Every class has rows < cols, rows > cols, a padded case and sizes that are no multiple of
    // 32 or 64, so each defect of tests/grading/wrong/ fails every class.
    static const std::vector<GradedCase> cases = {
        {"small", 1, 1, 1, 1},
        {"small", 3, 5, 5, 3},
        {"small", 17, 17, 17, 17},
        {"small", 33, 31, 40, 35},
        {"small", 31, 64, 64, 31},
        {"small", 64, 48, 50, 70},
        {"odd", 100, 100, 100, 100},
        {"odd", 127, 129, 129, 127},
        {"odd", 255, 257, 260, 258},
        {"odd", 1000, 1000, 1000, 1000},
        {"odd", 999, 1001, 1001, 999},
        {"odd", 1001, 999, 1003, 1005},
        {"large", 4096, 4096, 4096, 4096},
        {"large", 4097, 4097, 4097, 4097},
        {"large", 4099, 4093, 4100, 4104},
        {"large", 2049, 8191, 8191, 2049},
        {"rectangular", 1000, 37, 37, 1000},
        {"rectangular", 37, 1000, 1000, 37},
        {"rectangular", 1, 4097, 4097, 1},
        {"rectangular", 4097, 1, 1, 4097},
        {"rectangular", 513, 2050, 2052, 520},
    };
    return cases;
}

const std::vector<PerfShape>& perf_shapes() {
    // A power-of-two square (where partition camping showed on the T10) and a wide rectangle.
    static const std::vector<PerfShape> s = {{8192, 8192}, {4000, 16000}};
    return s;
}

double transpose_bytes(int rows, int cols) { return 2.0 * sizeof(float) * double(rows) * double(cols); }

const char* grid_mode_name(GridMode m) { return m == GridMode::looped ? "looped" : "as_written"; }

long long looped_grid(long long blocks) { return blocks <= 4 ? 1 : (blocks + 3) / 4; }

const std::vector<std::string>& sanitizer_tools() {
    static const std::vector<std::string> t = {"memcheck", "racecheck", "synccheck", "initcheck"};
    return t;
}

const std::vector<GradedCase>& sanitizer_cases() {
    // Small, so that the slowest tool (racecheck) stays within seconds, yet each one has several
    // tiles of 32 and of 64 (the looped grid then gives each block ~4 of them):
    //   130x197, lda 200 (even): chapter 5's vectorized interior tiles, edge tiles on both sides,
    //                            3 floats of padding per row (read them and initcheck reports it);
    //   67x65, lda 67 (odd):     chapter 5's scalar interior path, a tile of 64 plus thin edges;
    //   200x37:                  tall and narrower than one 64-tile (edge paths only), ldb > rows.
    static const std::vector<GradedCase> c = {
        {"sanitizer", 130, 197, 200, 136},
        {"sanitizer", 67, 65, 67, 69},
        {"sanitizer", 200, 37, 37, 203},
    };
    return c;
}

const std::vector<std::string>& track_chapters() {
    static const std::vector<std::string> c = {"ch01_global", "ch02_shared", "ch03_pattern", "ch04_access",
                                               "ch05_unrolled"};
    return c;
}

std::string resolve_chapter(const std::string& name) {
    std::string digits;
    std::string s = name;
    if (s.rfind("ch", 0) == 0) s = s.substr(2);
    std::size_t i = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') digits += s[i++];
    const std::string rest = s.substr(i);  // "" or "_pattern"
    if (!digits.empty() && digits.size() <= 2) {
        const int n = std::stoi(digits);
        for (const auto& ch : track_chapters()) {
            if (std::stoi(ch.substr(2, 2)) != n) continue;
            if (rest.empty() || rest == ch.substr(4)) return ch;
        }
    }
    std::string known;
    for (const auto& ch : track_chapters()) known += (known.empty() ? "" : ", ") + ch;
    throw std::invalid_argument("grade: chapter (" + name + ") must be one of " + known +
                                " (or ch01..ch05, 1..5)");
}

}  // namespace wb::grade
