// The grader's scorer (wb_grade_score): plain C++, no GPU and no submission code, so it builds
// even when a submission does not compile and can then write that result.
//   score --record FILE [--thresholds FILE] [--out DIR]   rubric, results.json, junit.xml
//   score-op --record FILE [--thresholds FILE] [--out DIR]
//                                                 the same for an op exercise's record (grading_op.hpp)
//   build-failed --chapter CH [--exercise E] --log FILE [--out DIR]
//                                                 the all-zero result with the compiler output
//   class-csv --dir DIR --csv FILE [--timeout S]          one row per student folder of DIR (grading_class.hpp)
// Exit 0 after writing results, 2 on a malformed record or bad usage.
#include "grading.hpp"
#include "grading_class.hpp"
#include "grading_op.hpp"

#include <algorithm>
#include <filesystem>
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
    std::ofstream json(out_dir + "/results.json"), xml(out_dir + "/junit.xml"), items(out_dir + "/items.tsv");
    if (!json || !xml || !items) throw std::runtime_error("cannot write results into " + out_dir);
    write_results_json(json, rb);
    write_junit_xml(xml, rb);
    write_items_tsv(items, rb);  // the class CSV's summary of this student
    std::cout << "  wrote " << out_dir << "/results.json and " << out_dir << "/junit.xml\n";
}

int cmd_score(const std::map<std::string, std::string>& a) {
    std::ifstream in(need(a, "record"));
    if (!in) throw std::runtime_error("score: cannot read the record (" + need(a, "record") + ")");
    const Record r = parse_record(in);
    write_outputs(score(r, load_thresholds(get(a, "thresholds"))), get(a, "out"));
    return 0;
}

int cmd_score_op(const std::map<std::string, std::string>& a) {
    std::ifstream in(need(a, "record"));
    if (!in) throw std::runtime_error("score-op: cannot read the record (" + need(a, "record") + ")");
    const OpRecord r = parse_op_record(in);
    write_outputs(score_op(r, load_thresholds(get(a, "thresholds"))), get(a, "out"));
    return 0;
}

int cmd_build_failed(const std::map<std::string, std::string>& a) {
    std::ifstream in(need(a, "log"));
    std::stringstream log;
    log << in.rdbuf();
    std::string text = log.str();
    if (text.size() > 20000) text = text.substr(0, 20000) + "\n[... cut ...]";
    const std::string exercise = get(a, "exercise");  // an op exercise: its own rubric's items
    write_outputs(exercise.empty() ? score_build_failure(resolve_chapter(need(a, "chapter")), text)
                                   : score_op_build_failure(exercise, text),
                  get(a, "out"));
    return 0;
}

int to_seconds(const std::string& s) {
    if (s.empty()) return 0;
    if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 6)
        throw std::invalid_argument("class-csv: --timeout (" + s + ") must be a whole number of seconds");
    return std::stoi(s);
}

// Every folder of --dir that holds an `exit` file (scripts/grade-class.sh writes one per student).
int cmd_class_csv(const std::map<std::string, std::string>& a) {
    namespace fs = std::filesystem;
    const fs::path dir = need(a, "dir");
    const int timeout_s = to_seconds(get(a, "timeout"));
    if (!fs::is_directory(dir)) throw std::invalid_argument("class-csv: --dir (" + dir.string() + ") must be a folder");
    std::vector<ClassRow> rows;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_directory() || !fs::exists(e.path() / "exit")) continue;
        ClassRow row;
        row.student = e.path().filename().string();
        std::ifstream code(e.path() / "exit");
        if (!(code >> row.exit_code)) row.exit_code = -1;
        std::ifstream items(e.path() / "items.tsv");
        if (items) {
            row.items = parse_items_tsv(items);
            row.has_summary = true;
        }
        rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end(), [](const ClassRow& x, const ClassRow& y) { return x.student < y.student; });
    std::ofstream csv(need(a, "csv"));
    if (!csv) throw std::runtime_error("class-csv: cannot write " + need(a, "csv"));
    write_class_csv(csv, rows, timeout_s);
    std::cout << "wrote " << need(a, "csv") << " (" << rows.size() << " students)\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (argc < 2) throw std::invalid_argument("usage: wb_grade_score score|score-op|build-failed|class-csv [options]");
        const std::string cmd = argv[1];
        const auto opts = parse_opts(argc, argv);
        if (cmd == "score") return cmd_score(opts);
        if (cmd == "score-op") return cmd_score_op(opts);
        if (cmd == "build-failed") return cmd_build_failed(opts);
        if (cmd == "class-csv") return cmd_class_csv(opts);
        throw std::invalid_argument("unknown command (" + cmd + "): score|score-op|build-failed|class-csv");
    } catch (const FormatError& e) {
        std::cerr << "wb_grade_score: malformed input: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "wb_grade_score: " << e.what() << "\n";
        return 2;
    }
}
