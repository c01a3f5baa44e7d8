// Helpers of the grading CPU tests: reading the recorded files under tests/grading/data.
#pragma once

#include "grading.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

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

}  // namespace wb::grade::test
