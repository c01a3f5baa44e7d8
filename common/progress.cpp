// progress.cpp — a one-line progress indicator on stderr (declared in progress.hpp).
//
// Long runs (a full chapter sweeps sizes x precisions x variants x steps, each benchmarked to a
// stable median) would otherwise look like a hang. The line appears only after `quiet_seconds`,
// so short runs and tests stay silent, and only where someone can see it: stderr is a terminal,
// or the environment sets WB_PROGRESS=1 (useful under `script` or a CI log). stdout, which holds
// the tables and may be redirected to a file, is never touched.
#include "progress.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <unistd.h>

namespace wb {

namespace {

bool progress_wanted() {
    const char* env = std::getenv("WB_PROGRESS");
    if (env && std::strcmp(env, "1") == 0) return true;
    if (env && std::strcmp(env, "0") == 0) return false;
    return isatty(STDERR_FILENO) == 1;
}

}  // namespace

Progress::Progress(std::string what, std::size_t total, double quiet_seconds)
    : what_(std::move(what)), total_(total), quiet_(quiet_seconds),
      start_(std::chrono::steady_clock::now()) {
    if (!progress_wanted()) quiet_ = -1;  // negative: never draw
}

Progress::~Progress() {
    if (drawn_) {
        std::fputs("\r\033[2K", stderr);  // carriage return, erase the whole line
        std::fflush(stderr);
    }
}

void Progress::step(const std::string& detail) {
    ++done_;
    if (quiet_ < 0) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < quiet_) return;
    // "\r<what> [k/N] detail", erasing what the previous, possibly longer, line left behind.
    std::fprintf(stderr, "\r\033[2K%s [%zu/%zu]%s%s", what_.c_str(), done_, total_,
                 detail.empty() ? "" : " ", detail.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

}  // namespace wb
