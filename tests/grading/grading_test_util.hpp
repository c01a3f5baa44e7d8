// Helpers of the grading CPU tests: reading the recorded files under tests/grading/data.
#pragma once

#include "grading.hpp"

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::grade::test {

inline std::string data_path(const std::string& name) { return std::string(WB_GRADING_DATA) + "/" + name; }

inline Record load_record(const std::string& name) {
    std::ifstream in(data_path(name));
    if (!in) throw std::runtime_error("missing test data " + data_path(name));
    return parse_record(in);
}

inline Record parse_text(const std::string& text) {
    std::istringstream in(text);
    return parse_record(in);
}

inline Thresholds load_thresholds(const std::string& name) {
    std::ifstream in(data_path(name));
    if (!in) throw std::runtime_error("missing test data " + data_path(name));
    return parse_thresholds(in, name);
}

/// A known-wrong submission of tests/grading/wrong/ and what it must score: its line
/// "// grading: chapter=<chapter> zero=<classes>" (size = the four size classes).
struct WrongVariant {
    std::string name;                ///< file stem; the runner calls it wrong_<name>
    std::string chapter;
    std::vector<std::string> zero;   ///< rubric item names that must score 0
};

/// The rubric item names a "zero=" token stands for; throws on an unknown token.
inline std::vector<std::string> zero_items(const std::string& token) {
    if (token == "size") {
        std::vector<std::string> v;
        for (const auto& c : size_classes()) v.push_back("correctness: " + c);
        return v;
    }
    for (const auto& c : size_classes())
        if (token == c) return {"correctness: " + c};
    for (const auto& t : sanitizer_tools())
        if (token == t) return {"sanitizer: " + t};
    throw std::runtime_error("unknown class '" + token + "' in a zero= list");
}

/// Every wrong/*.cu of `dir`, sorted by name; throws when one lacks a valid "// grading:" line.
inline std::vector<WrongVariant> wrong_variants(const std::string& dir) {
    std::vector<std::string> files;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 3 && n.compare(n.size() - 3, 3, ".cu") == 0) files.push_back(n);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    std::vector<WrongVariant> out;
    for (const auto& f : files) {
        std::ifstream in(dir + "/" + f);
        std::string line;
        WrongVariant w;
        w.name = f.substr(0, f.size() - 3);
        const std::string key = "// grading: chapter=";
        while (std::getline(in, line)) {
            if (line.rfind(key, 0) != 0) continue;
            const std::size_t z = line.find(" zero=");
            if (z == std::string::npos) break;
            w.chapter = line.substr(key.size(), z - key.size());
            std::stringstream list(line.substr(z + 6));
            std::string tok;
            while (std::getline(list, tok, ','))
                for (const auto& item : zero_items(tok)) w.zero.push_back(item);
            break;
        }
        if (w.chapter.empty() || w.zero.empty())
            throw std::runtime_error(dir + "/" + f + ": no line '// grading: chapter=<chapter> zero=<classes>'");
        out.push_back(w);
    }
    return out;
}

}  // namespace wb::grade::test
