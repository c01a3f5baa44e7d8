// The measurement record: written line by line by the GPU runner (so a crash leaves every line
// before it), parsed strictly by the scorer (grading.hpp describes the format).
#include "grading.hpp"
#include "grading_parse.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <istream>
#include <ostream>
#include <set>
#include <sstream>

namespace wb::grade {
namespace {

std::string one_line(std::string s) {  // messages must stay on their line
    for (char& ch : s)
        if (ch == '\n' || ch == '\r') ch = ' ';
    return s;
}

std::string num(double v) {
    std::ostringstream os;
    os.precision(6);
    os << v;
    return os.str();
}

}  // namespace

// ---- shared parsing helpers (grading_parse.hpp) ----
namespace detail {

[[noreturn]] void bad(const std::string& what, int line_no, const std::string& line) {
    throw FormatError(what + " at line " + std::to_string(line_no) + ": \"" + line + "\"");
}

/// "kind k=v k=v msg=rest" -> kind and fields; "msg" takes the rest of the line.
std::map<std::string, std::string> fields(const std::string& rest, int line_no, const std::string& line) {
    std::map<std::string, std::string> f;
    std::size_t pos = 0;
    while (pos < rest.size()) {
        while (pos < rest.size() && rest[pos] == ' ') ++pos;
        if (pos >= rest.size()) break;
        const std::size_t eq = rest.find('=', pos);
        const std::size_t sp = rest.find(' ', pos);
        if (eq == std::string::npos || (sp != std::string::npos && sp < eq)) bad("expected key=value", line_no, line);
        const std::string key = rest.substr(pos, eq - pos);
        if (key.empty()) bad("empty key", line_no, line);
        std::string value;
        if (key == "msg") {
            value = rest.substr(eq + 1);
            pos = rest.size();
        } else {
            const std::size_t end = rest.find(' ', eq);
            value = rest.substr(eq + 1, end == std::string::npos ? std::string::npos : end - eq - 1);
            pos = end == std::string::npos ? rest.size() : end;
        }
        if (!f.emplace(key, value).second) bad("key '" + key + "' given twice", line_no, line);
    }
    return f;
}

double number(const std::string& s, const std::string& key, int line_no, const std::string& line) {
    if (s.empty()) bad("empty value of '" + key + "'", line_no, line);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
        bad("'" + key + "' (" + s + ") is not a finite number", line_no, line);
    if (v < 0) bad("'" + key + "' (" + s + ") must be >= 0", line_no, line);
    return v;
}

int integer(const std::string& s, const std::string& key, int line_no, const std::string& line) {
    if (s.empty() || s.size() > 10) bad("'" + key + "' (" + s + ") is not an integer", line_no, line);
    for (char ch : s)
        if (ch < '0' || ch > '9') bad("'" + key + "' (" + s + ") is not a non-negative integer", line_no, line);
    const long v = std::strtol(s.c_str(), nullptr, 10);
    if (v > 2147483647L) bad("'" + key + "' (" + s + ") is too large", line_no, line);
    return static_cast<int>(v);
}

const std::string& need(const std::map<std::string, std::string>& f, const std::string& key, int line_no,
                        const std::string& line) {
    const auto it = f.find(key);
    if (it == f.end()) bad("missing '" + key + "'", line_no, line);
    return it->second;
}

void only(const std::map<std::string, std::string>& f, const std::set<std::string>& allowed, int line_no,
          const std::string& line) {
    for (const auto& [k, v] : f)
        if (!allowed.count(k)) bad("unknown key '" + k + "'", line_no, line);
}

bool getline_clean(std::istream& is, std::string& line) {
    if (!std::getline(is, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

bool next_entry(std::istream& is, Entry& e) {
    while (getline_clean(is, e.line)) {
        ++e.n;
        if (e.line.empty() || e.line[0] == '#') continue;
        const std::size_t sp = e.line.find(' ');
        e.kind = e.line.substr(0, sp);
        e.rest = sp == std::string::npos ? "" : e.line.substr(sp + 1);
        return true;
    }
    return false;
}

bool next_record_entry(std::istream& is, Entry& e, bool& header, bool complete, const std::string& magic,
                       const std::string& what) {
    while (next_entry(is, e)) {
        if (complete) bad("text after 'end'", e.n, e.line);
        if (header) return true;
        if (e.kind != magic) bad("not " + what + " (expected '" + magic + " 1')", e.n, e.line);
        if (e.rest != "1") bad("unsupported record version '" + e.rest + "'", e.n, e.line);
        header = true;
    }
    return false;
}

SanitizerResult sanitize_fields(const std::map<std::string, std::string>& f, std::set<std::string>& seen_tools,
                                int line_no, const std::string& line) {
    SanitizerResult z;
    z.tool = need(f, "tool", line_no, line);
    const auto& tools = sanitizer_tools();
    if (std::find(tools.begin(), tools.end(), z.tool) == tools.end())
        bad("unknown sanitizer tool '" + z.tool + "'", line_no, line);
    if (!seen_tools.insert(z.tool).second) bad("tool " + z.tool + " given twice", line_no, line);
    z.result = need(f, "result", line_no, line);
    if (z.result != "pass" && z.result != "fail" && z.result != "error" && z.result != "notrun")
        bad("result must be pass, fail, error or notrun", line_no, line);
    if (f.count("findings")) z.findings = integer(f.at("findings"), "findings", line_no, line);
    if (f.count("kernel")) z.kernel = f.at("kernel");
    if (f.count("msg")) z.msg = f.at("msg");
    return z;
}

}  // namespace detail

void write_record_header(std::ostream& os, const Record& r) {
    os << "wbgrade-record 1\n"
       << "chapter " << r.chapter << "\n"
       << "variant " << r.variant << "\n"
       << "reference " << r.reference << "\n"
       << "device " << one_line(r.device) << "\n"
       << "date " << r.date << "\n"
       << "seed " << r.seed << "\n";
}

void write_case(std::ostream& os, const CaseResult& c) {
    os << "case class=" << c.c.size_class << " rows=" << c.c.rows << " cols=" << c.c.cols << " lda=" << c.c.lda
       << " ldb=" << c.c.ldb << " result=" << c.result;
    if (!c.msg.empty()) os << " msg=" << one_line(c.msg);
    os << "\n" << std::flush;
}

void write_perf(std::ostream& os, const PerfResult& p) {
    os << "perf shape=" << p.shape.label() << " sub_ms=" << num(p.sub_ms) << " ref_ms=" << num(p.ref_ms);
    if (p.prev_ms > 0) os << " prev_ms=" << num(p.prev_ms);
    if (p.copy_ms > 0) os << " copy_ms=" << num(p.copy_ms);
    os << "\n" << std::flush;
}

void write_extra(std::ostream& os, const ExtraResult& e) {
    os << "extra name=" << e.name << " result=" << e.result;
    if (e.ms > 0) os << " ms=" << num(e.ms);
    if (e.ref_ms > 0) os << " ref_ms=" << num(e.ref_ms);
    if (!e.msg.empty()) os << " msg=" << one_line(e.msg);
    os << "\n" << std::flush;
}

void write_sanitizer(std::ostream& os, const SanitizerResult& s) {
    os << "sanitize tool=" << s.tool << " result=" << s.result;
    if (s.findings > 0) os << " findings=" << s.findings;
    if (s.has_case)
        os << " rows=" << s.c.rows << " cols=" << s.c.cols << " lda=" << s.c.lda << " ldb=" << s.c.ldb
           << " grid=" << (s.grid.empty() ? "as_written" : s.grid);
    if (!s.kernel.empty()) os << " kernel=" << short_kernel_name(s.kernel);
    if (!s.msg.empty()) os << " msg=" << one_line(s.msg);
    os << "\n" << std::flush;
}

void write_abort(std::ostream& os, const std::string& msg) { os << "abort msg=" << one_line(msg) << "\n" << std::flush; }

void write_end(std::ostream& os) { os << "end\n" << std::flush; }

void write_record(std::ostream& os, const Record& r) {
    write_record_header(os, r);
    for (const auto& c : r.cases) write_case(os, c);
    for (const auto& p : r.perf) write_perf(os, p);
    for (const auto& e : r.extras) write_extra(os, e);
    for (const auto& z : r.sanitizers) write_sanitizer(os, z);
    if (!r.abort_msg.empty()) write_abort(os, r.abort_msg);
    if (r.complete) write_end(os);
}

Record parse_record(std::istream& is) {
    using namespace detail;
    Record r;
    Entry e;
    const int& n = e.n;
    const std::string &line = e.line, &kind = e.kind, &rest = e.rest;
    bool header = false;
    std::set<std::string> seen_keys;
    std::set<std::string> seen_cases, seen_shapes, seen_tools;
    while (next_record_entry(is, e, header, r.complete, "wbgrade-record", "a grading record")) {
        if (kind == "chapter" || kind == "variant" || kind == "reference" || kind == "device" || kind == "date" ||
            kind == "seed") {
            if (!seen_keys.insert(kind).second) bad("'" + kind + "' given twice", n, line);
            if (kind == "chapter") {
                try {
                    if (resolve_chapter(rest) != rest) bad("chapter must be a full name", n, line);
                } catch (const std::invalid_argument& e) {
                    bad(e.what(), n, line);
                }
                r.chapter = rest;
            } else if (kind == "variant") r.variant = rest;
            else if (kind == "reference") r.reference = rest;
            else if (kind == "device") r.device = rest;
            else if (kind == "date") r.date = rest;
            else r.seed = rest;
        } else if (kind == "case") {
            const auto f = fields(rest, n, line);
            only(f, {"class", "rows", "cols", "lda", "ldb", "result", "msg"}, n, line);
            CaseResult c;
            c.c.size_class = need(f, "class", n, line);
            c.c.rows = integer(need(f, "rows", n, line), "rows", n, line);
            c.c.cols = integer(need(f, "cols", n, line), "cols", n, line);
            c.c.lda = integer(need(f, "lda", n, line), "lda", n, line);
            c.c.ldb = integer(need(f, "ldb", n, line), "ldb", n, line);
            c.result = need(f, "result", n, line);
            if (c.result != "pass" && c.result != "fail" && c.result != "error")
                bad("result must be pass, fail or error", n, line);
            if (f.count("msg")) c.msg = f.at("msg");
            bool known = false;
            for (const auto& g : graded_cases()) known = known || g == c.c;
            if (!known) bad("case " + c.c.size_class + " " + c.c.label() + " is not a graded case", n, line);
            if (!seen_cases.insert(c.c.size_class + " " + c.c.label()).second) bad("case given twice", n, line);
            r.cases.push_back(c);
        } else if (kind == "perf") {
            const auto f = fields(rest, n, line);
            only(f, {"shape", "sub_ms", "ref_ms", "prev_ms", "copy_ms"}, n, line);
            PerfResult p;
            const std::string shape = need(f, "shape", n, line);
            bool known = false;
            for (const auto& s : perf_shapes())
                if (s.label() == shape) {
                    p.shape = s;
                    known = true;
                }
            if (!known) bad("shape " + shape + " is not a timed shape", n, line);
            if (!seen_shapes.insert(shape).second) bad("shape given twice", n, line);
            p.sub_ms = number(need(f, "sub_ms", n, line), "sub_ms", n, line);
            p.ref_ms = number(need(f, "ref_ms", n, line), "ref_ms", n, line);
            if (p.sub_ms <= 0 || p.ref_ms <= 0) bad("times must be > 0", n, line);
            if (f.count("prev_ms")) p.prev_ms = number(f.at("prev_ms"), "prev_ms", n, line);
            if (f.count("copy_ms")) p.copy_ms = number(f.at("copy_ms"), "copy_ms", n, line);
            r.perf.push_back(p);
        } else if (kind == "extra") {
            const auto f = fields(rest, n, line);
            only(f, {"name", "result", "ms", "ref_ms", "msg"}, n, line);
            ExtraResult e;
            e.name = need(f, "name", n, line);
            e.result = need(f, "result", n, line);
            if (e.result != "pass" && e.result != "fail" && e.result != "error")
                bad("result must be pass, fail or error", n, line);
            if (f.count("ms")) e.ms = number(f.at("ms"), "ms", n, line);
            if (f.count("ref_ms")) e.ref_ms = number(f.at("ref_ms"), "ref_ms", n, line);
            if (f.count("msg")) e.msg = f.at("msg");
            r.extras.push_back(e);
        } else if (kind == "sanitize") {
            const auto f = fields(rest, n, line);
            only(f, {"tool", "result", "findings", "rows", "cols", "lda", "ldb", "grid", "kernel", "msg"}, n, line);
            SanitizerResult z = sanitize_fields(f, seen_tools, n, line);
            const int given = int(f.count("rows") + f.count("cols") + f.count("lda") + f.count("ldb"));
            if (given != 0 && given != 4) bad("a sanitized shape needs rows, cols, lda and ldb", n, line);
            if (given == 4) {
                z.has_case = true;
                z.c.size_class = "sanitizer";
                z.c.rows = integer(f.at("rows"), "rows", n, line);
                z.c.cols = integer(f.at("cols"), "cols", n, line);
                z.c.lda = integer(f.at("lda"), "lda", n, line);
                z.c.ldb = integer(f.at("ldb"), "ldb", n, line);
                bool shape = false;
                for (const auto& g : sanitizer_cases()) shape = shape || g == z.c;
                if (!shape) bad("shape " + z.c.label() + " is not a sanitized shape", n, line);
                z.grid = f.count("grid") ? f.at("grid") : "as_written";
                if (z.grid != "as_written" && z.grid != "looped") bad("grid must be as_written or looped", n, line);
            } else if (f.count("grid")) {
                bad("grid without a shape", n, line);
            }
            r.sanitizers.push_back(z);
        } else if (kind == "abort") {
            const auto f = fields(rest, n, line);
            only(f, {"msg"}, n, line);
            r.abort_msg = f.count("msg") ? f.at("msg") : "aborted";
        } else if (kind == "end") {
            if (!rest.empty()) bad("'end' takes no fields", n, line);
            r.complete = true;
        } else {
            bad("unknown line '" + kind + "'", n, line);
        }
    }
    if (!header) throw FormatError("empty grading record (expected 'wbgrade-record 1')");
    for (const char* k : {"chapter", "variant", "reference"})
        if (!seen_keys.count(k)) throw FormatError(std::string("grading record has no '") + k + "' line");
    return r;
}

}  // namespace wb::grade
