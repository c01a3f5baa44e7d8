/// \file runner_util.hpp
/// \brief What both GPU runners (runner_main.cpp for the transpose track, op_runner_main.cpp of
///        tests/grading for the op exercises) share: running themselves under compute-sanitizer
///        (finding the tool, this program's path, shell quoting, reading a log back, the sanitizer
///        classes side by side), the record's UTC date and main()'s error handling. Header-only:
///        each runner defines
///        WB_CUDA_BIN_DIR (the build's CUDA toolkit) for find_sanitizer().
#pragma once

#include "grading.hpp"
#include "harness.hpp"

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <sys/wait.h>
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

/// The header fields both records (Record, OpRecord) share: the variant, the reference's name
/// ("none" without one), this device, now, the seed.
template <class RunRecord>
void set_run_header(RunRecord& r, const std::string& variant, const std::string& reference, std::uint64_t seed) {
    r.variant = variant;
    r.reference = reference;
    r.device = device_description();
    r.date = utc_now();
    r.seed = std::to_string(seed);
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

/// Runs this program's `sanitize-child <child_args>` under compute-sanitizer's `tool` (stopped
/// after 300 s; a finding exits 86): the tool's log goes to `log`, the child's own stdout and
/// stderr to `out`; `log` and `result` (the child's) are removed first, so that a stale one is
/// never read back. Returns the exit code (128 + the signal when killed, -1 when it did not start).
inline int run_self_under_sanitizer(const std::string& san, const std::string& tool, const std::string& child_args,
                                    const std::string& log, const std::string& result, const std::string& out) {
    std::remove(log.c_str());
    std::remove(result.c_str());
    const std::string cmd = "timeout 300 " + shell_quote(san) + " --tool " + tool +
                            " --error-exitcode 86 --print-limit 10 --log-file " + shell_quote(log) + " " +
                            shell_quote(self_exe()) + " sanitize-child " + child_args + " > " + shell_quote(out) +
                            " 2>&1";
    const int rc = std::system(cmd.c_str());
    return rc == -1 ? -1 : (WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc));
}

/// The message of a sanitizer class whose child left no result: the exit code and the tail of
/// what it printed (`output`).
inline std::string no_result_message(const std::string& tool, int exit_code, const std::string& output) {
    return "compute-sanitizer --tool " + tool + " exited " + std::to_string(exit_code) +
           (exit_code == 124 ? " (timed out after 300 s)" : "") + " without a result: " + tail_text(output, 300);
}

/// The sanitizer classes of a `run`, one result per tool in sanitizer_tools() order. A tool that
/// does not run (--no-sanitize, left out of --sanitize, no compute-sanitizer) is "notrun" and says
/// why; the others run side by side (separate processes on the same GPU: the slowest one, not
/// their sum, sets the time), each as `sanitize(san, tool, dir)`, `dir` being the folder of
/// `record` (the logs go beside it).
template <class Sanitize>
std::vector<SanitizerResult> run_sanitizer_classes(const Args& a, const std::string& record, Sanitize sanitize) {
    std::string skip_msg, searched;
    if (a.has("no-sanitize")) skip_msg = "skipped (run with --no-sanitize)";
    const std::string san = skip_msg.empty() ? find_sanitizer(&searched) : std::string();
    if (skip_msg.empty() && san.empty()) skip_msg = "compute-sanitizer not found (looked in " + searched + ")";
    const std::string wanted = a.get("sanitize", "");
    const std::size_t slash = record.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : record.substr(0, slash == 0 ? 1 : slash);
    std::vector<SanitizerResult> out;
    std::vector<std::future<SanitizerResult>> running;
    for (const auto& tool : sanitizer_tools()) {
        SanitizerResult z;
        z.tool = tool;
        if (!skip_msg.empty()) {
            z.result = "notrun";
            z.msg = skip_msg;
        } else if (!wanted.empty() && ("," + wanted + ",").find("," + tool + ",") == std::string::npos) {
            z.result = "notrun";
            z.msg = "skipped (run with --sanitize " + wanted + ")";
        } else {
            running.push_back(std::async(std::launch::async, sanitize, san, tool, dir));
        }
        out.push_back(z);  // a running tool's result (empty here) is filled below
    }
    std::size_t k = 0;
    for (auto& z : out)
        if (z.result.empty()) z = running[k++].get();
    return out;
}

/// One of a runner's commands: its name and what runs it.
using RunnerCommand = std::pair<std::string, std::function<int(const Args&)>>;

/// A runner's main(): parses the command line and runs the command it names; bad arguments, an
/// unknown command or a malformed file say so on stderr, after the program's name, and exit 2.
inline int runner_main(const char* program, int argc, char** argv, const std::string& usage,
                       const std::vector<RunnerCommand>& commands) {
    try {
        const Args a = parse_args(argc, argv, usage);
        std::string known;
        for (const auto& [name, run] : commands) {
            if (name == a.command) return run(a);
            known += (known.empty() ? "" : "|") + name;
        }
        throw std::invalid_argument("unknown command (" + a.command + "): " + known);
    } catch (const FormatError& e) {
        std::cerr << program << ": malformed input: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << program << ": " << e.what() << "\n";
        return 2;
    }
}

}  // namespace wb::grade
