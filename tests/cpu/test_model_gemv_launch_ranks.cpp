// test_model_gemv_launch_ranks.cpp — the GEMV model orders chapter 6's launches as the card did
// (issue 40, item 3): for every GEMV case of the H200 runs in docs/results/h200/ (ch06-shapes-gemv.txt,
// ch06-sweep.txt: the held-out shapes and the page's; ch06-wave-tail.csv: the wave-tail sizes),
// the launches each case names with a measured time (derived, chapter 5's default, the sweep's best
// and worst) are predicted with gemv_launch_ms, the function chapter 6 ranks its sweep with, and
// compared pair by pair. The files are read as the runs wrote them (nothing typed in here), so a
// new run re-checks the model against new measurements.
//
// Run `wb_cpu_tests "[.gemv-ranks-report]" -s` for the table of every case (the offline checker).
#include "catch.hpp"

#include "derive/rank_correlation.hpp"
#include "device_profile.hpp"
#include "gemv_launch.hpp"
#include "gemv_launch_model.hpp"
#include "gemv_rules.hpp"
#include "launches_csv.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kResults = std::string(WB_SOURCE_DIR) + "/docs/results/h200/";

/// One launch a case names, with its measured time and the model's.
struct Named {
    std::string role;  ///< "derived", "default", "best", "worst"
    std::string text;  ///< as GemvLaunch::str() wrote it
    wb::GemvLaunch launch;
    double measured_ms = -1;
    double model_ms = -1;
};

struct SweepCase {
    std::string source, shape;
    wb::GemvShape call;
    std::vector<Named> named;
};

/// GemvLaunch::str()'s text back into a launch ("bx=8 by=64 nb=4 Q=64 Y=1 ept=8 cache=stream").
wb::GemvLaunch parse_launch(const std::string& text) {
    wb::GemvLaunch l;
    std::istringstream in(text);
    std::string tok;
    while (in >> tok) {
        const auto eq = tok.find('=');
        const std::string key = tok.substr(0, eq), val = eq == std::string::npos ? "" : tok.substr(eq + 1);
        if (key == "loop") l.loop = 1;
        else if (key == "cache") l.cache = val == "cached" ? 1 : val == "stream" ? 2 : val == "evict-first" ? 3 : 4;
        else if (key == "split") l.cluster = val == "global" ? 1 : 2;
        else if (key == "bx") l.block_x = std::stoi(val);
        else if (key == "by") l.block_y = std::stoi(val);
        else if (key == "nb") l.nb = std::stoi(val);
        else if (key == "Q") l.Q = std::stoi(val);
        else if (key == "Y") l.Y = std::stoi(val);
        else if (key == "ept") l.ept = std::stoi(val);
        else throw std::invalid_argument("parse_launch: unknown field '" + tok + "' in '" + text + "'");
    }
    return l;
}

/// "N 3000 x 3000 float" (optionally " lda 5001") as the call the rules see (aligned A and x).
bool parse_shape(const std::string& text, wb::GemvShape& s) {
    static const std::regex re(R"(^([NT]) (\d+) x (\d+) (float|double)(?: lda (\d+))?$)");
    std::smatch m;
    if (!std::regex_match(text, m, re)) return false;
    s.op = m[1] == "T" ? wb::Op::T : wb::Op::N;
    s.m = std::stoi(m[2]);
    s.n = std::stoi(m[3]);
    s.elem_bytes = m[4] == "float" ? 4 : 8;
    s.lda = m[5].matched ? std::stoi(m[5]) : std::max(1, s.m);
    return true;
}

/// The cases of one chapter-6 text report (ch06_derived --sweep's output).
std::vector<SweepCase> read_text(const std::string& file) {
    std::ifstream in(kResults + file);
    REQUIRE(in.good());
    static const std::regex head(R"(^gemv (.*)$)");
    static const std::regex launch_line(R"(^\s+(derived launch|chapter 5 default):\s+(bx=.*?)\s+predicted)");
    static const std::regex measured(R"(^\s+measured:\s+derived ([0-9.]+) ms, chapter 5 default ([0-9.]+) ms)");
    static const std::regex sweep(R"(^\s+sweep \(\d+ legal launches\): best (bx=.*) ([0-9.]+) ms, worst (bx=.*) ([0-9.]+) ms$)");
    std::vector<SweepCase> out;
    std::string line, derived, deflt;
    bool open = false;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, head)) {
            SweepCase c;
            open = parse_shape(m[1], c.call);
            if (open) {
                c.source = file;
                c.shape = m[1];
                out.push_back(c);
            }
            continue;
        }
        if (!open) continue;
        SweepCase& c = out.back();
        if (std::regex_search(line, m, launch_line)) {
            (m[1] == "derived launch" ? derived : deflt) = m[2];
        } else if (std::regex_search(line, m, measured)) {
            c.named.push_back({"derived", derived, parse_launch(derived), std::stod(m[1])});
            c.named.push_back({"default", deflt, parse_launch(deflt), std::stod(m[2])});
        } else if (std::regex_match(line, m, sweep)) {
            c.named.push_back({"best", m[1], parse_launch(m[1]), std::stod(m[2])});
            c.named.push_back({"worst", m[3], parse_launch(m[3]), std::stod(m[4])});
        }
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const SweepCase& c) { return c.named.size() < 4; }), out.end());
    return out;
}

/// The cases of the wave-tail CSV (ch06_derived --wave-tail --sweep --csv).
std::vector<SweepCase> read_csv(const std::string& file) {
    std::vector<SweepCase> out;
    for (const auto& f : wb::test::read_csv_rows(kResults + file)) {
        if (f.at("op") != "gemv") continue;
        SweepCase c;
        if (!parse_shape(f.at("shape"), c.call)) continue;
        c.source = file;
        c.shape = f.at("shape");
        auto named = [&](const char* name, const std::string& which) {
            const std::string& l = f.at(which + " launch");
            return Named{name, l, parse_launch(l), std::stod(f.at(which + " ms"))};
        };
        c.named = {named("derived", "derived"), named("default", "default"), named("best", "best"),
                   named("worst", "worst")};
        out.push_back(c);
    }
    return out;
}

/// Every case, each named launch predicted on the H200 preset at the bandwidth the runs printed.
std::vector<SweepCase> all_cases() {
    wb::DeviceProfile dev = wb::device_preset("h200");
    std::vector<SweepCase> cases;
    for (const char* f : {"ch06-shapes-gemv.txt", "ch06-sweep.txt"})
        for (SweepCase& c : read_text(f)) cases.push_back(c);
    for (SweepCase& c : read_csv("ch06-wave-tail.csv")) cases.push_back(c);
    for (SweepCase& c : cases)
        for (Named& n : c.named) n.model_ms = wb::gemv_launch_ms(dev, c.call, n.launch);
    return cases;
}

/// What the checker counts over the cases.
struct Tally {
    int cases = 0;
    int worst_slowest = 0;      ///< cases whose measured worst launch the model predicts slowest of the named
    int apart = 0, apart_right = 0;  ///< pairs measured >= 1.5x apart, and those the model orders alike
    int close = 0, close_right = 0;  ///< pairs measured within 1.1x, and those the model puts within 1.25x
    double rho_loss = 0;        ///< Spearman's rho of worst/best, model against card, across cases
};

Tally tally(const std::vector<SweepCase>& cases, std::ostream* report) {
    Tally t;
    std::vector<double> model_loss, card_loss;
    for (const SweepCase& c : cases) {
        // The distinct launches (derived, default and best are often one launch).
        std::vector<const Named*> d;
        for (const Named& n : c.named)
            if (std::none_of(d.begin(), d.end(), [&](const Named* o) { return o->text == n.text; })) d.push_back(&n);
        ++t.cases;
        const Named& worst = c.named[3];
        const Named& best = c.named[2];
        bool slowest = worst.model_ms > 0;
        for (const Named* n : d)
            if (n->text != worst.text && n->model_ms >= worst.model_ms) slowest = false;
        t.worst_slowest += slowest;
        for (std::size_t i = 0; i < d.size(); ++i)
            for (std::size_t j = i + 1; j < d.size(); ++j) {
                const double mr = d[i]->measured_ms / d[j]->measured_ms, pr = d[i]->model_ms / d[j]->model_ms;
                if (std::max(mr, 1 / mr) >= 1.5) {
                    ++t.apart;
                    t.apart_right += (mr > 1 && pr > 1) || (mr < 1 && pr < 1);  // a tie is no order
                } else if (std::max(mr, 1 / mr) <= 1.1) {
                    ++t.close;
                    t.close_right += std::max(pr, 1 / pr) <= 1.25;
                }
            }
        model_loss.push_back(worst.model_ms / best.model_ms);
        card_loss.push_back(worst.measured_ms / best.measured_ms);
        if (report) {
            *report << c.source << "  gemv " << c.shape << (slowest ? "" : "   <- worst not predicted slowest") << "\n";
            for (const Named& n : c.named) {
                char buf[256];
                std::snprintf(buf, sizeof buf, "    %-8s %-52s measured %8.4f ms  model %8.4f ms\n", n.role.c_str(),
                              n.text.c_str(), n.measured_ms, n.model_ms);
                *report << buf;
            }
        }
    }
    t.rho_loss = wb::derive::spearman_rho(model_loss, card_loss);
    if (report)
        *report << "cases " << t.cases << ": worst predicted slowest in " << t.worst_slowest << "; pairs >= 1.5x apart "
                << t.apart_right << " of " << t.apart << " ordered alike; pairs within 1.1x " << t.close_right << " of "
                << t.close << " predicted within 1.25x; rho of worst/best across cases " << t.rho_loss << "\n";
    return t;
}

}  // namespace

TEST_CASE("gemv launch ranks: the checker reads every case of the H200 runs", "[cpu][model][gemv]") {
    const auto cases = all_cases();
    // 28 + 6 cases in the text reports, 50 GEMV rows in the CSV (of its 118: SYMV's too).
    CHECK(cases.size() >= 84);
    for (const SweepCase& c : cases)
        for (const Named& n : c.named) {
            INFO(c.source << " " << c.shape << " " << n.role << " " << n.text);
            CHECK(n.measured_ms > 0);
            CHECK(n.model_ms > 0);
        }
    CHECK(parse_launch("bx=32 by=8 nb=4 Q=8 Y=11 ept=4 cache=stream256 split=global loop") ==
          wb::GemvLaunch{32, 8, 4, 8, 11, 4, 4, 1, 1});
    CHECK_THROWS_AS(parse_launch("bx=32 zz=1"), std::invalid_argument);
}

TEST_CASE("gemv launch ranks: the model orders the named launches as the card did", "[cpu][model][gemv]") {
    std::ostringstream report;
    const Tally t = tally(all_cases(), &report);
    INFO(report.str());
    // Before the model saw whole launches (it saw threads per block only): worst slowest in 19 of
    // 84 cases, 53 of 159 pairs apart ordered alike, 63 of 67 close pairs within 1.25x, rho 0.39.
    // Now 84, 157, 67 and 0.93. The two pairs it misses: N 1000 x 30000 lda 1003 (float and
    // double, element loads), where the derived 32 x 16 block with Y = 4 ran 1.5x slower than
    // 128 x 2 (or 128 x 4) with Y = 33 (16); the model has both bandwidth-bound and does not say why.
    CHECK(t.worst_slowest == t.cases);
    CHECK(t.apart_right >= 0.95 * t.apart);
    CHECK(t.close_right == t.close);
    CHECK(t.rho_loss >= 0.8);
}

TEST_CASE("gemv launch ranks: gemv_launch_ms sees the whole launch, not its threads", "[cpu][model][gemv]") {
    const auto dev = wb::device_preset("h200");
    const wb::GemvShape sq{wb::Op::N, 4096, 4096, 4096, 4, 0, 0};
    // 256 x 1 threads: 4 tiles of 1024 rows, 4 SMs busy, 2048 batches of 2 columns per thread;
    // 16 x 16: 64 tiles, 128 batches. Same threads, same U: the card ran the first 37x slower
    // than the sweep's best (ch06-sweep.txt).
    const double narrow = wb::gemv_launch_ms(dev, sq, wb::GemvLaunch{256, 1, 4, 1, 1, 2});
    const double square = wb::gemv_launch_ms(dev, sq, wb::GemvLaunch{16, 16, 4, 16, 1, 2});
    CHECK(narrow > 8 * square);
    // Y = 0: the blocks per tile the launcher derives (rules 3-5), not one.
    const wb::GemvShape wide{wb::Op::N, 96, 100000, 96, 4, 0, 0};
    wb::GemvLaunch l{8, 64, 4, 64, 0, 8};
    const double derived_y = wb::gemv_launch_ms(dev, wide, l);
    wb::GemvMachine mc;
    mc.sm_count = dev.sm_count;
    mc.max_threads_per_sm = dev.max_threads_per_sm;
    l.Y = wb::tuned_gemv_split(wide, l, mc);
    REQUIRE(l.Y > 1);
    CHECK(derived_y == Approx(wb::gemv_launch_ms(dev, wide, l)));
    l.Y = 1;
    CHECK(wb::gemv_launch_ms(dev, wide, l) > 4 * derived_y);
    // A block the device cannot hold: no prediction.
    wb::DeviceProfile small = dev;
    small.max_threads_per_block = 128;
    CHECK(wb::gemv_launch_ms(small, sq, wb::GemvLaunch{16, 16, 4, 16, 1, 2}) < 0);
}

TEST_CASE("gemv launch ranks: the report", "[.gemv-ranks-report]") {
    tally(all_cases(), &std::cout);
}
