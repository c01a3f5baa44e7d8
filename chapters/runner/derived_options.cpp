// derived_options.cpp — chapter 6's reading of the shared options (derived_options.hpp).
#include "derived_options.hpp"

#include "derived_comparison.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wb::ch06 {

namespace {

std::vector<std::string> op_list(const std::string& value) {
    if (value == "all") return compared_ops();
    std::vector<std::string> v;
    std::stringstream ss(value);
    for (std::string s; std::getline(ss, s, ',');) v.push_back(s);
    return v;
}

bool runs(const ChapterOptions& opt, const std::string& op) {
    const auto ops = op_list(opt.op);
    return std::find(ops.begin(), ops.end(), op) != ops.end();
}

}  // namespace

CaseSelection case_selection(const ChapterOptions& opt, bool shapes, bool wave_tail) {
    for (const std::string& op : op_list(opt.op))
        if (std::find(compared_ops().begin(), compared_ops().end(), op) == compared_ops().end()) {
            std::string all;
            for (const std::string& o : compared_ops()) all += (all.empty() ? "" : ", ") + o;
            throw std::invalid_argument("chapter 6 options: --op (" + opt.op + ") must be \"all\" or a comma list of: " +
                                        all + " (\"" + op + "\" is not one)");
        }
    CaseSelection c;
    for (const std::string& op : op_list(opt.op))
        if (std::find(c.ops.begin(), c.ops.end(), op) == c.ops.end()) c.ops.push_back(op);
    for (std::size_t i = 0; i < opt.sizes.size(); ++i) {
        const int n = opt.sizes[i];
        if (n < 1 || n > kMaxSize)
            throw std::invalid_argument("chapter 6 options: --sizes (" + std::to_string(n) + ", entry " +
                                        std::to_string(i + 1) + ") must be in [1, " + std::to_string(kMaxSize) + "]");
        if (std::find(c.sizes.begin(), c.sizes.end(), n) == c.sizes.end()) c.sizes.push_back(n);
    }
    c.op_n = opt.trans != "T";
    c.op_t = opt.trans != "N";
    c.quick = opt.quick;
    if (static_cast<int>(shapes) + static_cast<int>(wave_tail) + static_cast<int>(!opt.sizes.empty()) > 1)
        throw std::invalid_argument(std::string("chapter 6 options: ") + (shapes ? "--shapes" : "--wave-tail") +
                                    " and " + (shapes && wave_tail ? "--wave-tail" : "--sizes") +
                                    " each replace the page's shapes: give one of them");
    c.shapes = shapes;
    c.wave_tail = wave_tail;
    if (wave_tail) {  // GEMV and SYMV only, in the order given
        std::vector<std::string> kept;
        for (const std::string& op : c.ops)
            if (op == "gemv" || op == "symv") kept.push_back(op);
        if (kept.empty())
            throw std::invalid_argument("chapter 6 options: --wave-tail runs GEMV and SYMV: --op (" + opt.op +
                                        ") must name gemv or symv, or be \"all\"");
        c.ops = kept;
    }
    return c;
}

void check_launches_csv(const std::string& path, bool sweep, bool wave_tail) {
    if (path.empty()) return;
    if (!sweep && !wave_tail)
        throw std::invalid_argument("chapter 6 options: --launches-csv (" + path +
                                    ") writes the launches a sweep times: it needs --sweep or --wave-tail");
    require_writable_output("--launches-csv", path);
}

std::vector<std::string> option_notes(const ChapterOptions& opt, bool live, bool sweep, bool wave_tail,
                                      const std::string& launches_csv) {
    std::vector<std::string> notes;
    if (opt.full)
        notes.push_back("--full: chapter 6 has one set of cases (the page's shapes, --shapes or --sizes); nothing to add");
    if (!live && sweep) notes.push_back("--sweep times launches on a GPU: without one nothing is swept");
    if (!live && opt.quick) notes.push_back("--quick shortens the timings on a GPU: without one nothing is timed");
    if (!live && opt.device != 0)
        notes.push_back("--device " + std::to_string(opt.device) + ": " +
                        (opt.device_preset.empty() ? "no CUDA device here" : "--device-preset predicts instead") +
                        ", so no device is read");
    if (wave_tail && !live)
        notes.push_back("--wave-tail times launches on a GPU: without one the rows hold the launches only");
    if (wave_tail && opt.csv.empty())
        notes.push_back("--wave-tail without --csv: no file for scripts/plot_wave_tail.py");
    if (wave_tail && sweep) notes.push_back("--sweep: --wave-tail sweeps every case already");
    if (!launches_csv.empty() && !live)
        notes.push_back("--launches-csv " + launches_csv + ": without a GPU nothing is swept, so it holds the header only");
    if (opt.trans != "both" && runs(opt, "gemm") && !wave_tail)
        notes.push_back("--trans " + opt.trans + " selects GEMV's cases; GEMM's are op(A) = op(B) = N");
    return notes;
}

}  // namespace wb::ch06
