// cli.cpp — the command-line options every chapter binary shares (declared in cli.hpp).
//
// Parsing is CLI11's (help text, "--opt=value", repeated options, error messages); this file
// only declares the options and the rules their values must follow. The rules are checked twice
// on purpose: CLI11 rejects a bad word at parse time with the allowed set in the message, and
// validate_chapter_options() checks a ChapterOptions built in code (tests, the grader) the same
// way, throwing std::invalid_argument that names the option, the value and the rule.
#include "cli.hpp"

#include "device_profile.hpp"

#include <CLI/CLI.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb {

namespace {

const std::vector<std::string> kPrecisions = {"float", "double", "both"};
const std::vector<std::string> kTrans = {"N", "T", "both"};

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

void require_member(const char* option, const std::string& value, const std::vector<std::string>& allowed) {
    if (!contains(allowed, value))
        throw std::invalid_argument(std::string("chapter options: ") + option + " (" + value +
                                    ") must be one of: " + join(allowed));
}

/// --op: "all" or a comma list of op names (from `ops` when it is not empty).
void require_ops(const std::string& value, const std::vector<std::string>& ops) {
    auto bad = [&](const std::string& why) {
        throw std::invalid_argument("chapter options: --op (" + value + ") must be " + why);
    };
    if (value == "all") return;
    if (value.empty()) bad("\"all\" or a comma list of ops");
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t end = std::min(value.find(',', start), value.size());
        const std::string name = value.substr(start, end - start);
        const bool lower = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        });
        if (!lower) bad("\"all\" or a comma list of op names (lowercase letters, digits, _)");
        if (!ops.empty() && !contains(ops, name)) bad("\"all\" or a comma list of: " + join(ops));
        start = end + 1;
    }
}

}  // namespace

void require_writable_output(const char* option, const std::string& path) {
    auto bad = [&](const std::string& why) {
        throw std::invalid_argument(std::string("chapter options: ") + option + " (" + path + ") cannot be written: " +
                                    why);
    };
    if (path.empty()) return;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {  // an existing file: it must be a file we may write
        if (S_ISDIR(st.st_mode)) bad("it is a folder");
        if (::access(path.c_str(), W_OK) != 0) bad(std::strerror(errno));
        return;
    }
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (::stat(dir.c_str(), &st) != 0) bad("its folder " + dir + " does not exist");
    if (!S_ISDIR(st.st_mode)) bad(dir + " is not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) bad("its folder " + dir + ": " + std::strerror(errno));
}

void add_chapter_options(CLI::App& app, ChapterOptions& opt, const std::vector<std::string>& ops) {
    app.add_option("--op", opt.op,
                   "Computations to run: all, or a comma list" + (ops.empty() ? std::string() : " of " + join(ops)))
        ->check([ops](const std::string& v) {
            try {
                require_ops(v, ops);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        })
        ->capture_default_str();
    app.add_option("--sizes", opt.sizes,
                   "Square sizes n for every op, e.g. --sizes 1024,4096 or --sizes 1024 4096 "
                   "(default: each op's list)")
        ->delimiter(',');
    app.add_option("--precision", opt.precision, "Element type")
        ->check(CLI::IsMember(kPrecisions))
        ->capture_default_str();
    app.add_option("--trans", opt.trans, "op(A): N, T or both (GEMV: A x or A^T x; GEMM: op(B) = N)")
        ->check(CLI::IsMember(kTrans))
        ->capture_default_str();
    app.add_option("--csv", opt.csv, "Also write the tables to this CSV file");
    app.add_option("--device", opt.device, "CUDA device ordinal")
        ->check(CLI::Range(0, std::numeric_limits<int>::max()))  // the rule in the ordinal's own type
        ->capture_default_str();
    app.add_option("--device-preset", opt.device_preset,
                   "Predict for a named device instead of measuring: " + join(device_preset_names()))
        ->check(CLI::IsMember(device_preset_names()));
    auto* quick =
        app.add_flag("--quick", opt.quick, "Fewer repetitions and sizes: each op's smallest set (smoke runs)");
    app.add_flag("--full", opt.full,
                 "Each op's whole set of sizes (and filter sizes): longer runs; the default set is shorter and still "
                 "shows each step's point")
        ->excludes(quick);
}

void validate_chapter_options(const ChapterOptions& opt, const std::vector<std::string>& ops) {
    require_ops(opt.op, ops);
    for (std::size_t i = 0; i < opt.sizes.size(); ++i)
        if (opt.sizes[i] < 0)
            throw std::invalid_argument("chapter options: --sizes (" + std::to_string(opt.sizes[i]) +
                                        ", entry " + std::to_string(i + 1) + ") must be >= 0");
    require_member("--precision", opt.precision, kPrecisions);
    require_member("--trans", opt.trans, kTrans);
    if (opt.device < 0)
        throw std::invalid_argument("chapter options: --device (" + std::to_string(opt.device) +
                                    ") must be >= 0");
    if (!opt.device_preset.empty()) require_member("--device-preset", opt.device_preset, device_preset_names());
    if (opt.quick && opt.full)
        throw std::invalid_argument("chapter options: --quick and --full (both given) exclude each other");
    // Checked before the first measurement: a run must not lose its table to a path it cannot write.
    require_writable_output("--csv", opt.csv);
}

int parse_chapter_cli(int argc, char** argv, const std::string& name, const std::string& description,
                      ChapterOptions& opt, const std::vector<ChapterFlag>& flags,
                      const std::function<void(CLI::App&)>& add_own) {
    CLI::App app{description, name};
    for (const ChapterFlag& f : flags) app.add_flag(f.name, *f.value, f.description);
    if (add_own) add_own(app);
    add_chapter_options(app, opt);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);  // prints the help on stdout, returns 0
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // prints the error (and a hint to --help) on stderr
        return 2;
    }
    try {
        validate_chapter_options(opt);
    } catch (const std::invalid_argument& e) {
        std::cerr << name << ": " << e.what() << "\nRun with --help for more information.\n";
        return 2;
    }
    return -1;
}

}  // namespace wb
