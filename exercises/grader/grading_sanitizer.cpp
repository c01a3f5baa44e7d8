// Reading compute-sanitizer's text output (grading.hpp): how many errors the tool counted, its
// first report and the kernel it names. The runner calls this on each tool's --log-file; the CPU
// tests call it on logs recorded on the GPU (tests/grading/data/sanitizer_*.log).
#include "grading.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <istream>
#include <string>
#include <vector>

namespace wb::grade {
namespace {

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

/// The first run of digits after `key` in `s` (-1 when none).
long first_number_after(const std::string& s, const std::string& key) {
    const std::size_t p = s.find(key);
    if (p == std::string::npos) return -1;
    std::size_t i = p + key.size();
    while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size()) return -1;
    return std::strtol(s.c_str() + i, nullptr, 10);
}

/// The kernel named by a report line, e.g. "Invalid ... at k(float*)+0x1b0 in f.cu:12" or
/// "at 0x1b0 in /f.cu:12:k(float*)"; empty when the line names none.
std::string kernel_in(const std::string& line) {
    std::size_t at = line.find("at ");
    while (at != std::string::npos) {
        if (at == 0 || line[at - 1] == ' ') {
            const std::string rest = line.substr(at + 3);
            const std::size_t plus = rest.find("+0x");
            if (plus != std::string::npos && !starts_with(rest, "0x")) return short_kernel_name(rest.substr(0, plus));
            if (starts_with(rest, "0x")) {  // older layout: at 0xPC in FILE:LINE:SYMBOL
                const std::size_t in = rest.find(" in ");
                if (in != std::string::npos) {
                    const std::string where = rest.substr(in + 4);
                    // skip "FILE:LINE:" (the first ':' followed by digits and another ':')
                    for (std::size_t c = where.find(':'); c != std::string::npos; c = where.find(':', c + 1)) {
                        std::size_t d = c + 1;
                        while (d < where.size() && std::isdigit(static_cast<unsigned char>(where[d]))) ++d;
                        if (d > c + 1 && d < where.size() && where[d] == ':') return short_kernel_name(where.substr(d + 1));
                    }
                }
            }
        }
        at = line.find("at ", at + 1);
    }
    return "";
}

bool is_noise_detail(const std::string& t) {
    return starts_with(t, "Saved host backtrace") || starts_with(t, "Host Frame") || starts_with(t, "Device Frame") ||
           starts_with(t, "#") || t.empty();
}

}  // namespace

std::string short_kernel_name(const std::string& symbol) {
    std::string s = trim(symbol);
    if (starts_with(s, "void ")) s = s.substr(5);
    // Drop the parameter list: the last top-level "(...)" at the end of the name.
    if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (std::size_t i = s.size(); i-- > 0;) {
            if (s[i] == ')') ++depth;
            if (s[i] == '(' && --depth == 0) {
                // keep "(anonymous namespace)" and casts like "(bool)0" inside template arguments
                if (i > 0 && s[i - 1] != ':' && s[i - 1] != '<' && s[i - 1] != ',' && s[i - 1] != ' ') s = s.substr(0, i);
                break;
            }
        }
    }
    for (const std::string& anon : {std::string("(anonymous namespace)"), std::string("<unnamed>")}) {
        for (std::size_t p = s.find(anon); p != std::string::npos; p = s.find(anon, p + 1))
            s.replace(p, anon.size(), "(anonymous)");
    }
    for (char& c : s)
        if (c == ' ' || c == '\t') c = '_';
    return s;
}

SanitizerLog parse_sanitizer_log(std::istream& is) {
    SanitizerLog out, warn;  // warn: the first warning's headline, kernel and detail
    SanitizerLog* current = &out;
    std::string raw;
    bool in_first = false;  // reading the detail lines of the first error (or first warning)
    int details = 0;
    while (std::getline(is, raw)) {
        if (!raw.empty() && raw.back() == '\r') raw.pop_back();
        if (!starts_with(raw, "=========")) continue;  // the program's own output
        std::string t = raw.substr(9);
        if (!t.empty() && t[0] == ' ') t = t.substr(1);
        if (trim(t).empty()) {
            in_first = false;
            continue;
        }
        const bool indented = t[0] == ' ' || t[0] == '\t';
        const std::string tt = trim(t);
        if (indented) {
            if (!in_first) continue;
            if (current->kernel.empty()) current->kernel = kernel_in(tt);
            if (details < 3 && !is_noise_detail(tt)) {
                current->detail += (current->detail.empty() ? "" : "; ") + tt;
                ++details;
            }
            continue;
        }
        in_first = false;
        if (starts_with(tt, "ERROR SUMMARY:")) {
            out.summary = true;
            out.errors = std::max(out.errors, static_cast<int>(std::max(0L, first_number_after(tt, "ERROR SUMMARY:"))));
            continue;
        }
        if (starts_with(tt, "RACECHECK SUMMARY:")) {  // "N hazards displayed (E errors, W warnings)"
            out.summary = true;
            const std::size_t paren = tt.find('(');
            if (paren != std::string::npos) {
                const std::string counts = tt.substr(paren);
                out.errors = std::max(out.errors, static_cast<int>(std::max(0L, first_number_after(counts, "("))));
                out.warnings = std::max(out.warnings, static_cast<int>(std::max(0L, first_number_after(counts, ","))));
            }
            continue;
        }
        if (starts_with(tt, "COMPUTE-SANITIZER") || starts_with(tt, "LEAK SUMMARY") ||
            starts_with(tt, "Target application returned") || starts_with(tt, "This ") || starts_with(tt, "Note"))
            continue;
        const bool warning = starts_with(tt, "Warning") || starts_with(tt, "WARNING");
        if (warning ? warn.first.empty() : out.first.empty()) {
            SanitizerLog& dst = warning ? warn : out;
            dst.first = tt;
            dst.kernel = kernel_in(tt);
            dst.detail.clear();
            current = &dst;
            in_first = true;
            details = 0;
        }
    }
    if (out.first.empty() && !warn.first.empty()) {  // no error: report the first warning
        out.first = warn.first;
        out.kernel = warn.kernel;
        out.detail = warn.detail;
    }
    return out;
}

}  // namespace wb::grade
