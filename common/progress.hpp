/// \file progress.hpp
/// \brief A one-line progress indicator on stderr, shown only once a run has lasted a few
///        seconds, so short runs stay quiet and long ones are not mistaken for a hang.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace wb {

class Progress {
public:
    Progress(std::string what, std::size_t total, double quiet_seconds = 2.0);
    ~Progress();  ///< clears the line if one was drawn
    void step(const std::string& detail = {});

private:
    std::string what_;
    std::size_t total_, done_ = 0;
    double quiet_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace wb
