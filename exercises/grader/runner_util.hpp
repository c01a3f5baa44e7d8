/// \file runner_util.hpp
/// \brief What both GPU runners (runner_main.cpp for the transpose track, op_runner_main.cpp of
///        tests/grading for the op exercises) share: running themselves under compute-sanitizer
///        (finding the tool, this program's path, shell quoting, reading a log back) and the
///        record's UTC date. Header-only: each runner defines
///        WB_CUDA_BIN_DIR (the build's CUDA toolkit) for find_sanitizer().
#pragma once

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#ifndef WB_CUDA_BIN_DIR
#define WB_CUDA_BIN_DIR "/usr/local/cuda/bin"
#endif

namespace wb::grade {

/// A runner's command line: `<command> --key value ... [--no-perf] [--no-sanitize]`.
struct Args {
    std::string command;
    std::map<std::string, std::string> opt;
    bool has(const std::string& k) const { return opt.count(k) > 0; }
    std::string get(const std::string& k, const std::string& def = "") const {
        const auto it = opt.find(k);
        return it == opt.end() ? def : it->second;
    }
    std::string need(const std::string& k) const {
        if (!has(k)) throw std::invalid_argument(command + ": option --" + k + " is required");
        return opt.at(k);
    }
};

inline Args parse_args(int argc, char** argv, const std::string& usage) {
    Args a;
    if (argc < 2) throw std::invalid_argument(usage);
    a.command = argv[1];
    for (int i = 2; i < argc; ++i) {
        std::string k = argv[i];
        if (k.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument (" + k + ")");
        k = k.substr(2);
        if (k == "no-perf" || k == "no-sanitize") {
            a.opt.insert_or_assign(k, std::string(1, '1'));
            continue;
        }
        if (i + 1 >= argc) throw std::invalid_argument("option --" + k + " needs a value");
        a.opt[k] = argv[++i];
    }
    return a;
}

/// Now, UTC, ISO 8601 (the records' date line).
inline std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::string self_exe() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) throw std::runtime_error("cannot find this program's path (/proc/self/exe)");
    buf[n] = 0;
    return buf;
}

inline bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

/// compute-sanitizer: $WB_COMPUTE_SANITIZER (empty: none), PATH, the CUDA toolkit of the build,
/// /usr/local/cuda/bin. Empty when there is none.
inline std::string find_sanitizer(std::string* searched) {
    if (const char* e = std::getenv("WB_COMPUTE_SANITIZER")) {
        *searched = "$WB_COMPUTE_SANITIZER (" + std::string(e) + ")";
        return executable(e) ? std::string(e) : std::string();
    }
    *searched = "PATH, " WB_CUDA_BIN_DIR ", /usr/local/cuda/bin";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty() && executable(dir + "/compute-sanitizer")) return dir + "/compute-sanitizer";
    }
    for (const std::string& d : {std::string(WB_CUDA_BIN_DIR), std::string("/usr/local/cuda/bin")})
        if (executable(d + "/compute-sanitizer")) return d + "/compute-sanitizer";
    return "";
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::string tail_text(const std::string& s, std::size_t n) {
    std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
    for (char& c : t)
        if (c == '\n' || c == '\r') c = ' ';
    return t;
}

}  // namespace wb::grade
