// The grader's scorer (wb_grade_score): plain C++, no GPU and no submission code, so it builds
// even when a submission does not compile and can then write that result.
//   score --record FILE [--thresholds FILE] [--out DIR]   rubric, results.json, junit.xml
//   build-failed --chapter CH --log FILE [--out DIR]      the all-zero result with the compiler output
// Exit 0 after writing results, 2 on a malformed record or bad usage.
#include "grading.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

using namespace wb::grade;

std::map<std::string, std::string> parse_opts(int argc, char** argv) {
    std::map<std::string, std::string> o;
    for (int i = 2; i < argc; ++i) {
        std::string k = argv[i];
        if (k.rfind("--", 0) != 0 || i + 1 >= argc)
            throw std::invalid_argument("argument (" + k + ") must be an option --name followed by its value");
        o.insert_or_assign(k.substr(2), std::string(argv[++i]));
    }
    return o;
}

std::string need(const std::map<std::string, std::string>& o, const std::string& k) {
    const auto it = o.find(k);
    if (it == o.end()) throw std::invalid_argument("option --" + k + " is required");
    return it->second;
}

std::string get(const std::map<std::string, std::string>& o, const std::string& k) {
    const auto it = o.find(k);
    return it == o.end() ? std::string() : it->second;
}

Thresholds load_thresholds(const std::string& path) {
    if (path.empty()) return Thresholds{};
    std::ifstream in(path);
    if (!in) {
        Thresholds t;
        t.source = "built-in defaults (" + path + " not found: run ./workbook grade --calibrate)";
        return t;
    }
    return parse_thresholds(in, path);
}

void write_outputs(const Rubric& rb, const std::string& out_dir) {
    print_rubric(std::cout, rb);
    if (out_dir.empty()) return;
    std::ofstream json(out_dir + "/results.json"), xml(out_dir + "/junit.xml");
    if (!json || !xml) throw std::runtime_error("cannot write results into " + out_dir);
    write_results_json(json, rb);
    write_junit_xml(xml, rb);
    std::cout << "  wrote " << out_dir << "/results.json and " << out_dir << "/junit.xml\n";
}

int cmd_score(const std::map<std::string, std::string>& a) {
    std::ifstream in(need(a, "record"));
    if (!in) throw std::runtime_error("score: cannot read the record (" + need(a, "record") + ")");
    const Record r = parse_record(in);
    write_outputs(score(r, load_thresholds(get(a, "thresholds"))), get(a, "out"));
    return 0;
}

int cmd_build_failed(const std::map<std::string, std::string>& a) {
    std::ifstream in(need(a, "log"));
    std::stringstream log;
    log << in.rdbuf();
    std::string text = log.str();
    if (text.size() > 20000) text = text.substr(0, 20000) + "\n[... cut ...]";
    write_outputs(score_build_failure(resolve_chapter(need(a, "chapter")), text), get(a, "out"));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (argc < 2) throw std::invalid_argument("usage: wb_grade_score score|build-failed [options]");
        const std::string cmd = argv[1];
        const auto opts = parse_opts(argc, argv);
        if (cmd == "score") return cmd_score(opts);
        if (cmd == "build-failed") return cmd_build_failed(opts);
        throw std::invalid_argument("unknown command (" + cmd + "): score|build-failed");
    } catch (const FormatError& e) {
        std::cerr << "wb_grade_score: malformed input: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "wb_grade_score: " << e.what() << "\n";
        return 2;
    }
}
