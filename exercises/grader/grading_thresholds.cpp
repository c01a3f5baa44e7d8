// Performance thresholds: the file the grader reads, the calibration the GPU writes, and the
// rule that turns a calibration into thresholds (grading.hpp, docs/pages/instructor.md).
#include "grading.hpp"
#include "grading_op.hpp"
#include "grading_parse.hpp"

#include <algorithm>
#include <cmath>
#include <istream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace wb::grade {
namespace {

/// Reads the header line "<magic> 1" into `e`; FormatError when it is missing or different.
void header_line(std::istream& is, const char* magic, detail::Entry& e) {
    if (!detail::next_entry(is, e)) throw FormatError(std::string("empty file (expected '") + magic + " 1')");
    if (e.line != std::string(magic) + " 1") detail::bad(std::string("expected '") + magic + " 1'", e.n, e.line);
}

}  // namespace

Threshold Thresholds::for_chapter(const std::string& chapter) const {
    const auto it = by_chapter.find(chapter);
    return it == by_chapter.end() ? Threshold{} : it->second;
}

Threshold Thresholds::for_exercise(const std::string& exercise) const {
    const auto it = by_exercise.find(exercise);
    return it == by_exercise.end() ? Threshold{} : it->second;
}

Thresholds parse_thresholds(std::istream& is, const std::string& source) {
    using namespace detail;
    Thresholds t;
    t.source = source;
    Entry e;
    const int& n = e.n;
    const std::string &line = e.line, &kind = e.kind, &rest = e.rest;
    header_line(is, "wbgrade-thresholds", e);
    bool device_seen = false;
    while (next_entry(is, e)) {
        if (kind == "device") {
            if (device_seen) bad("'device' given twice", n, line);
            device_seen = true;
            t.source += " (calibrated on " + rest + ")";
        } else if (kind == "chapter" || kind == "exercise") {
            const std::size_t sp2 = rest.find(' ');
            const std::string name = rest.substr(0, sp2);
            std::string chapter;
            try {
                chapter = kind == "chapter" ? resolve_chapter(name) : find_op_exercise(name).name;
            } catch (const std::invalid_argument& e) {
                bad(e.what(), n, line);
            }
            const auto f = fields(sp2 == std::string::npos ? "" : rest.substr(sp2 + 1), n, line);
            only(f, {"full_at", "zero_at"}, n, line);
            Threshold th;
            th.full_at = number(need(f, "full_at", n, line), "full_at", n, line);
            th.zero_at = number(need(f, "zero_at", n, line), "zero_at", n, line);
            if (th.full_at <= 0 || th.full_at > 2 || th.zero_at > 2)
                bad("thresholds must lie in (0, 2] (speeds relative to the reference)", n, line);
            if (th.zero_at >= th.full_at) bad("zero_at must be < full_at", n, line);
            auto& into = kind == "chapter" ? t.by_chapter : t.by_exercise;
            if (!into.emplace(chapter, th).second) bad(kind + " " + chapter + " given twice", n, line);
        } else {
            bad("unknown line '" + kind + "'", n, line);
        }
    }
    return t;
}

std::vector<std::string> other_calibration_comments(std::istream& is, const std::string& own) {
    static const char* const kOpeners[] = {"Calibrated ", "Op exercises calibrated "};
    std::vector<std::string> kept;
    bool skipping = false, in_block = false;
    for (std::string line; std::getline(is, line);) {
        if (line.rfind("# ", 0) != 0) continue;
        const std::string c = line.substr(2);
        bool opener = false;
        for (const char* o : kOpeners) opener = opener || c.rfind(o, 0) == 0;
        if (opener) {
            in_block = true;
            skipping = c.rfind(own, 0) == 0;
        }
        if (in_block && !skipping) kept.push_back(c);  // before the first block: the fixed header
    }
    return kept;
}

void write_thresholds(std::ostream& os, const Thresholds& t, const std::string& device,
                      const std::vector<std::string>& comments) {
    os << "# Performance thresholds of the transpose track, as speeds relative to each chapter's\n"
       << "# reference solution timed in the same run (1.00 = as fast as the reference).\n"
       << "# Full points at speed >= full_at, none at speed <= zero_at, linear in between.\n";
    for (const auto& c : comments) os << "# " << c << "\n";
    os << "wbgrade-thresholds 1\n";
    if (!device.empty()) os << "device " << device << "\n";
    for (const auto& [ch, th] : t.by_chapter)
        os << "chapter " << ch << " full_at=" << fixed(th.full_at, 3) << " zero_at=" << fixed(th.zero_at, 3) << "\n";
    for (const auto& [ex, th] : t.by_exercise)
        os << "exercise " << ex << " full_at=" << fixed(th.full_at, 3) << " zero_at=" << fixed(th.zero_at, 3) << "\n";
}

std::vector<Calibration> parse_calibration(std::istream& is, std::string* device) {
    using namespace detail;
    std::vector<Calibration> out;
    Entry e;
    const int& n = e.n;
    const std::string &line = e.line, &kind = e.kind, &rest = e.rest;
    header_line(is, "wbgrade-calibration", e);
    while (next_entry(is, e)) {
        if (kind == "device") {
            if (device) *device = rest;
        } else if (kind == "calib") {
            const auto f = fields(rest, n, line);
            only(f, {"chapter", "ms", "noise"}, n, line);
            Calibration c;
            try {
                c.chapter = resolve_chapter(need(f, "chapter", n, line));
            } catch (const std::invalid_argument& e) {
                bad(e.what(), n, line);
            }
            for (const auto& prev : out)
                if (prev.chapter == c.chapter) bad("chapter " + c.chapter + " given twice", n, line);
            std::stringstream ms(need(f, "ms", n, line));
            std::string item;
            while (std::getline(ms, item, ',')) {
                const double v = number(item, "ms", n, line);
                if (v <= 0) bad("times must be > 0", n, line);
                c.ms.push_back(v);
            }
            if (c.ms.size() != perf_shapes().size())
                bad("'ms' needs one time per timed shape (" + std::to_string(perf_shapes().size()) + ")", n, line);
            c.noise = number(need(f, "noise", n, line), "noise", n, line);
            if (c.noise >= 1) bad("noise must be < 1", n, line);
            out.push_back(c);
        } else {
            bad("unknown line '" + kind + "'", n, line);
        }
    }
    if (out.empty()) throw FormatError("calibration has no 'calib' lines");
    return out;
}

void write_calibration(std::ostream& os, const std::vector<Calibration>& cal, const std::string& device) {
    os << "wbgrade-calibration 1\n";
    if (!device.empty()) os << "device " << device << "\n";
    for (const auto& c : cal) {
        os << "calib chapter=" << c.chapter << " ms=";
        for (std::size_t i = 0; i < c.ms.size(); ++i) os << (i ? "," : "") << fixed(c.ms[i], 5);
        os << " noise=" << fixed(c.noise, 4) << "\n";
    }
}

Thresholds derive_thresholds(const std::vector<Calibration>& cal, const std::string& source) {
    Thresholds t;
    t.source = source;
    for (const auto& ch : track_chapters()) {
        const auto it = std::find_if(cal.begin(), cal.end(), [&](const Calibration& c) { return c.chapter == ch; });
        if (it == cal.end()) continue;
        Threshold th;
        th.full_at = std::clamp(1.0 - std::max(0.10, 3.0 * it->noise), 0.5, 0.95);
        const auto pos = std::find(track_chapters().begin(), track_chapters().end(), ch);
        const auto prev = pos == track_chapters().begin()
                              ? cal.end()
                              : std::find_if(cal.begin(), cal.end(),
                                             [&](const Calibration& c) { return c.chapter == *(pos - 1); });
        if (prev == cal.end()) {
            th.zero_at = 0.5;
        } else {
            double log_sum = 0;  // geometric mean of t_this / t_prev = the previous step's speed
            for (std::size_t i = 0; i < it->ms.size(); ++i) log_sum += std::log(it->ms[i] / prev->ms[i]);
            const double prev_speed = std::exp(log_sum / double(it->ms.size()));
            th.zero_at = std::clamp(prev_speed + 0.05, 0.3, th.full_at - 0.15);
        }
        th.zero_at = std::min(th.zero_at, th.full_at - 0.15);
        t.by_chapter[ch] = th;
    }
    return t;
}

}  // namespace wb::grade
