// The grader's outputs (grading.hpp): the rubric table on the terminal, Gradescope's
// results.json and JUnit XML, with the escaping each format needs.
#include "grading.hpp"

#include <cstdio>
#include <ostream>
#include <sstream>

namespace wb::grade {

std::string fixed(double v, int decimals) {
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(decimals);
    os << v;
    return os.str();
}

namespace {

std::string pad(const std::string& s, std::size_t w, bool right = false) {
    if (s.size() >= w) return s;
    return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

}  // namespace

std::string json_escape(const std::string& s) {
    std::string out;
    for (unsigned char ch : s) {
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (ch < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                    out += buf;
                } else {
                    out += static_cast<char>(ch);
                }
        }
    }
    return out;
}

std::string xml_escape(const std::string& s) {
    std::string out;
    for (unsigned char ch : s) {
        switch (ch) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                if (ch < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') break;  // not allowed in XML 1.0
                out += static_cast<char>(ch);
        }
    }
    return out;
}

void print_rubric(std::ostream& os, const Rubric& r) {
    os << "Grading " << r.chapter << " (" << r.variant << ")";
    if (!r.device.empty()) os << " on " << r.device;
    if (!r.date.empty()) os << ", " << r.date;
    os << "\n";
    std::size_t w = 6;
    for (const auto& i : r.items) w = std::max(w, i.name.size());
    os << "  " << pad("item", w) << "  " << pad("score", 6, true) << "  " << pad("max", 6, true) << "\n";
    os << "  " << std::string(w + 16, '-') << "\n";
    for (const auto& i : r.items) {
        os << "  " << pad(i.name, w) << "  " << pad(fixed(i.score, 1), 6, true) << "  "
           << pad(i.max_score > 0 ? fixed(i.max_score, 1) : "-", 6, true) << "\n";
        std::istringstream lines(i.output);
        std::string line;
        while (std::getline(lines, line)) os << "      " << line << "\n";
    }
    os << "  " << std::string(w + 16, '-') << "\n";
    os << "  " << pad("total", w) << "  " << pad(fixed(r.total(), 1), 6, true) << "  "
       << pad(fixed(r.max_total(), 1), 6, true) << "\n";
    for (const auto& n : r.notes) os << "  note: " << n << "\n";
}

void write_results_json(std::ostream& os, const Rubric& r) {
    std::ostringstream summary;
    summary << r.chapter << " (" << r.variant << ")";
    if (!r.device.empty()) summary << " on " << r.device;
    if (!r.date.empty()) summary << ", " << r.date;
    for (const auto& n : r.notes) summary << "\nnote: " << n;
    os << "{\n  \"score\": " << fixed(r.total(), 1) << ",\n  \"output\": \"" << json_escape(summary.str())
       << "\",\n  \"tests\": [";
    for (std::size_t k = 0; k < r.items.size(); ++k) {
        const auto& i = r.items[k];
        os << (k ? "," : "") << "\n    {\"name\": \"" << json_escape(r.chapter + " " + i.name)
           << "\", \"score\": " << fixed(i.score, 1) << ", \"max_score\": " << fixed(i.max_score, 1)
           << ", \"output\": \"" << json_escape(i.output) << "\"}";
    }
    os << "\n  ]\n}\n";
}

void write_junit_xml(std::ostream& os, const Rubric& r) {
    int failures = 0;
    for (const auto& i : r.items)
        if (i.score < i.max_score) ++failures;
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       << "<testsuites name=\"wb-grade\" tests=\"" << r.items.size() << "\" failures=\"" << failures << "\">\n"
       << "  <testsuite name=\"" << xml_escape(r.chapter) << "\" tests=\"" << r.items.size() << "\" failures=\""
       << failures << "\" errors=\"0\">\n"
       << "    <properties>\n"
       << "      <property name=\"variant\" value=\"" << xml_escape(r.variant) << "\"/>\n"
       << "      <property name=\"device\" value=\"" << xml_escape(r.device) << "\"/>\n"
       << "      <property name=\"score\" value=\"" << fixed(r.total(), 1) << "/" << fixed(r.max_total(), 1) << "\"/>\n"
       << "    </properties>\n";
    for (const auto& i : r.items) {
        os << "    <testcase classname=\"" << xml_escape(r.chapter) << "\" name=\"" << xml_escape(i.name)
           << "\" time=\"0\">\n";
        if (i.score < i.max_score)
            os << "      <failure message=\"" << fixed(i.score, 1) << " of " << fixed(i.max_score, 1)
               << " points\">" << xml_escape(i.output) << "</failure>\n";
        os << "      <system-out>" << xml_escape(i.output) << "</system-out>\n    </testcase>\n";
    }
    os << "  </testsuite>\n</testsuites>\n";
}

}  // namespace wb::grade
