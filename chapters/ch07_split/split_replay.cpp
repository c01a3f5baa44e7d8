// split_replay.cpp — chapter 7's model replayed on a finished run (split_replay.hpp): the run's
// printed calibration read back into Machines, its CSV's measured columns into rows.
#include "split_replay.hpp"

#include "roofline.hpp"
#include "split_cpu_again.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace wb::ch07 {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
const std::string kNum = R"(([-+\d.eE]+|inf))";

double to_d(const std::string& s) { return s == "inf" ? std::numeric_limits<double>::infinity() : std::stod(s); }

std::string trim(const std::string& s) {
    const auto a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

/// "Tx 55.34 GB/s; [0, 23170.5) c0 2.0e-08 ms/B c1 0.0038 ms; [23170.5, inf) ..." (main.cpp link_line).
TransferModel link_of(const std::string& s) {
    std::smatch tx;
    if (!std::regex_search(s, tx, std::regex("Tx " + kNum + " GB/s")))
        throw std::invalid_argument("machines_from_log: a link line without 'Tx ... GB/s': " + s);
    std::vector<TransferSegment> segs;
    const std::regex seg(R"(\[)" + kNum + ", " + kNum + R"(\) c0 )" + kNum + " ms/B c1 " + kNum + " ms");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), seg); it != std::sregex_iterator(); ++it)
        segs.push_back({to_d((*it)[1]), to_d((*it)[2]), to_d((*it)[3]), to_d((*it)[4]), 0});
    return TransferModel(to_d(tx[1]), segs);
}

}  // namespace

Machines machines_from_log(std::istream& log) {
    Machines m;
    m.share_footprint = false;  // a run from before the line that says so: each call at its own working set
    m.symv_share_one_call = false;  // a run from before the line: the SYMV's CPU share read its panel too
    m.hybrid_floor = false;         // a run from before the line: the margin alone chose the hybrid
    m.balanced = false;             // a run from before the line: every hybrid at its fixed share
    m.symv_gpu_columns = false;     // a run from before the line: SYMV's GPU side priced linear in f
    m.derived_chunks = false;       // a run from before the line: every hybrid in the calibration's chunks
    m.gpu = device_preset("h200");
    m.gpu_rates.source = "read from a run";
    m.links.source = "read from a run";
    // cpu_again: a group's CPU classes timed again before its rows (split_cpu_again.hpp)
    enum class Section { none, cpu, gpu, path, cpu_again } section = Section::none;
    bool host = false, curve = false, h2d = false, d2h = false;
    const std::regex host_re(R"(^host: (\d+) threads, LLC ([\d.]+) (MiB|GiB).*?([\d.]+) GFLOP/s float, ([\d.]+) double)");
    const std::regex ws_re(R"(([\d.eE+]+) MiB ([\d.]+))");
    const std::regex peer_re(R"(^([A-Za-z0-9 ]+?): t0 ([\d.eE+-]+) us \(n = \d+\)(.*))");
    const std::regex eff_re(R"(e ([\d.eE+-]+) at ([\d.eE+]+) MiB)");
    const std::regex rate_re(R"(^([A-Za-z0-9 ]+): t0 ([\d.eE+-]+) us, e ([\d.eE+-]+) at n)");
    const std::regex path_re(R"(^([A-Za-z0-9 ]+): t0 ([\d.eE+-]+) us \(one chunk\), ([\d.eE+-]+) us \((\d+) chunks\) at n = (\d+); )"
                             R"(pipeline ([\d.eE+-]+) at n = (\d+).*hybrid residual ([\d.eE+-]+) ms at n = \d+, share ([\d.]+)%)");
    const std::regex miss_re(R"(; miss ([\d.]+)%)");
    const std::regex small_re(R"(; at n = (\d+): residual ([\d.eE+-]+) ms)");
    const std::regex depths_re(R"(; the hybrid in K chunks over its model, to that at (\d+):([^;]*))");
    const std::regex depth_re(R"((\d+) x([\d.eE+-]+))");
    const std::regex issue_re(R"(; issued before the CPU's share: ([\d.eE+-]+) ms per chunk at n = \d+(?:, ([\d.eE+-]+) at n = \d+)?)");
    const std::regex gpu_re(R"(^GPU: .*?, ([\d.]+) GB/s, ([\d.]+) / ([\d.]+) GFLOP/s)");
    const std::regex overhead_re(R"(^an empty hybrid call .*: ([\d.]+) us)");
    const std::regex conv_threads_re(R"(convolution's CPU side runs on (\d+) of \d+ threads)");
    const std::regex anchored_re(R"(anchored at (\d+)\))");
    const std::regex fixed_depth_re(R"(^pipeline depth: every hybrid in (\d+) chunks)");
    const std::regex shared_re(R"(^host memory both sides share: ([\d.eE+]+) GB/s)");
    const std::regex balanced_margin_re(R"(^hybrid margin of the balanced rows: ([\d.]+)%)");
    const std::regex reanchor_re(R"(^([A-Za-z0-9 ]+): anchor timed again before its rows: t0 ([\d.eE+-]+) us \(one chunk\), ([\d.eE+-]+) us)");
    std::map<std::string, std::pair<double, double>> anchors;  // each class's, timed again before its rows
    const std::regex cg_reanchor_re(R"(^(cg solve (float|double)): anchor timed again before its rows: t0 ([\d.eE+-]+) us;)");
    const std::regex cg_product_re(R"(^(cg product (float|double)): the SYMV path timed again before CG's rows: t0 ([\d.eE+-]+) us;)");
    const std::regex rate_large_re(R"(^symv (float|double): t0 [\d.eE+-]+ us, e [\d.eE+-]+ at n = (\d+), e ([\d.eE+-]+) at n = (\d+))");
    std::map<std::string, model::PeerRate> again;               // each CPU class's, timed again before its rows
    const std::regex iterations_re(R"(^Where each call runs \(ms; CG: a solve of (\d+) iterations)");
    std::string line;
    std::smatch g;
    while (std::getline(log, line)) {
        const std::string s = trim(line);
        if (s.rfind("Measuring the CPU peers", 0) == 0) section = Section::cpu;
        else if (s.rfind("Measuring the tuned kernels", 0) == 0) section = Section::gpu;
        else if (s.rfind("Measuring each class's all-GPU path", 0) == 0) section = Section::path;
        else if (s.rfind("Measuring the host", 0) == 0) section = Section::none;
        else if (s.rfind(kCpuAgainHeader, 0) == 0) section = Section::cpu_again;
        if (std::regex_search(s, g, host_re)) {
            m.cpu.name = "read from a run";
            m.cpu.threads = std::stoi(g[1]);
            m.cpu.llc_bytes = std::stod(g[2]) * kMiB * (g[3] == "GiB" ? 1024 : 1);
            m.cpu.llc_source = "read from a run";
            m.cpu.fp32_gflops = std::stod(g[4]);
            m.cpu.fp64_gflops = std::stod(g[5]);
            host = true;
        } else if (s.rfind("read GB/s by working set:", 0) == 0) {
            for (auto it = std::sregex_iterator(s.begin(), s.end(), ws_re); it != std::sregex_iterator(); ++it)
                m.cpu.bandwidth.push_back({std::stod((*it)[1]) * kMiB, std::stod((*it)[2])});
            curve = !m.cpu.bandwidth.empty();
            if (curve) m.cpu.bandwidth_gbs = m.cpu.bandwidth.back().value;
        } else if (std::regex_search(s, g, gpu_re)) {
            m.gpu.bandwidth_gbs = std::stod(g[1]);
            // The peaks printed are SMs x lanes x 2 x clock: the clock that gives the float one.
            m.gpu.sm_clock_mhz = std::stod(g[2]) * 1e3 / (2.0 * m.gpu.sm_count * m.gpu.fp32_lanes_per_sm);
        } else if (s.rfind("link H2D:", 0) == 0) {
            m.links.h2d = link_of(s);
            h2d = true;
        } else if (s.rfind("link D2H:", 0) == 0) {
            m.links.d2h = link_of(s);
            d2h = true;
        } else if (std::regex_search(s, g, overhead_re)) {
            m.hybrid_overhead_ms = std::stod(g[1]) / 1e3;
            std::smatch t;  // runs from before it: the convolution's CPU side on every thread
            if (std::regex_search(s, t, conv_threads_re))
                m.hybrid_conv_threads = std::stoi(t[1]);
        } else if (s.rfind("hybrid CPU share: each call priced at the share's footprint", 0) == 0) {
            m.share_footprint = true;
        } else if (s.rfind("hybrid SYMV: the CPU's share is one SYMV of its diagonal block", 0) == 0) {
            m.symv_share_one_call = true;
        } else if (s.rfind("hybrid GEMV, GEMM and convolution: balanced while they run", 0) == 0 ||
                   s.rfind("hybrid GEMM and convolution: balanced while they run", 0) == 0) {  // 5a6da3f's runs
            m.balanced = true;
        } else if (s.rfind("host-to-device copies of data the host's threads just read:", 0) == 0) {
            m.warm = warm_copies_of_line(s);
        } else if (s.rfind("hybrid GEMM: A's copy priced at the rate of data the host's threads just read", 0) == 0) {
            m.warm_gemm_a = true;
        } else if (s.rfind("hybrid SYMV: balanced while it runs", 0) == 0) {
            m.symv_balanced = true;
        } else if (std::regex_search(s, g, balanced_margin_re)) {
            m.balanced_margin = std::stod(g[1]) / 100;  // a run from before the line: every row at the run's margin
        } else if (s.rfind("hybrid floor: chosen only where it also saves its GPU side's fixed cost", 0) == 0) {
            m.hybrid_floor = true;
        } else if (s.rfind("hybrid SYMV: the GPU's share priced as what it copies", 0) == 0) {
            m.symv_gpu_columns = true;
        } else if (s.rfind("hybrid CPU side: begins once the calling thread has issued", 0) == 0) {
            m.price_issue = true;
        } else if (s.rfind("pipeline depth: derived per call", 0) == 0) {
            m.derived_chunks = true;
            // the first version's line: every depth ranked, a share of 0 or 1 too
            m.depth_any_share = s.find("the model's fastest of ") != std::string::npos;
            if (std::regex_search(s, g, anchored_re)) m.chunks = std::stoi(g[1]);
        } else if (std::regex_search(s, g, fixed_depth_re)) {
            m.chunks = std::stoi(g[1]);  // --chunks: every hybrid at that depth, the calibration too
            m.derived_chunks = false;
        } else if (std::regex_search(s, g, shared_re)) {
            m.host_shared_gbs = std::stod(g[1]);
        } else if (std::regex_search(s, g, iterations_re)) {
            m.cg_iterations = std::stoi(g[1]);
        } else if ((section == Section::cpu || section == Section::cpu_again) && std::regex_search(s, g, peer_re)) {
            model::PeerRate r;
            r.fixed_ms = std::stod(g[2]) / 1e3;
            const std::string rest = g[3];
            for (auto it = std::sregex_iterator(rest.begin(), rest.end(), eff_re); it != std::sregex_iterator(); ++it)
                r.efficiency.push_back({std::stod((*it)[2]) * kMiB, std::stod((*it)[1])});
            (section == Section::cpu ? m.cpu.peers : again)[g[1]] = r;
        } else if (section == Section::gpu && std::regex_search(s, g, rate_re)) {
            GpuRate& r = m.gpu_rates.rates[g[1]];
            r = GpuRate{std::stod(g[2]) / 1e3, std::stod(g[3])};
            if (std::smatch two; std::regex_search(s, two, rate_large_re)) {  // SYMV's second point (split_calibrate.cpp)
                const std::size_t el = two[1] == "float" ? 4 : 8;
                r.mid_bytes = roofline::symv_bytes(std::stoll(two[2]), el);
                r.large_eff = std::stod(two[3]);
                r.large_bytes = roofline::symv_bytes(std::stoll(two[4]), el);
            }
        } else if (s == kCgProductLine) {
            m.cg_product_without_a = true;
        } else if (std::regex_search(s, g, cg_product_re)) {  // CG's products: the SYMV path timed again, for CG's rows
            m.gpu_rates.rates[g[1]] = GpuRate{std::stod(g[3]) / 1e3, 1};
        } else if (std::regex_search(s, g, cg_reanchor_re)) {  // CG's solve: its GPU rate, for its rows
            m.gpu_rates.rates[g[1]].fixed_ms = std::stod(g[3]) / 1e3;
        } else if (std::regex_search(s, g, reanchor_re)) {
            anchors[g[1]] = {std::stod(g[2]) / 1e3, std::stod(g[3]) / 1e3};
        } else if (section == Section::path && std::regex_search(s, g, path_re)) {
            GpuPath p;
            p.t0_ms = std::stod(g[2]) / 1e3;
            p.t0_chunked_ms = std::stod(g[3]) / 1e3;
            m.chunks = std::stoi(g[4]);
            p.tiny_n = std::stoi(g[5]);
            p.pipeline = std::stod(g[6]);
            p.mid_n = std::stoi(g[7]);
            p.residual_ms = std::stod(g[8]);
            p.residual_share = std::stod(g[9]) / 100;
            std::smatch ms;
            if (std::regex_search(s, ms, miss_re)) p.miss = std::stod(ms[1]) / 100;
            if (std::regex_search(s, ms, small_re)) {  // a run from before it: the mid size's residual alone
                p.small_n = std::stoi(ms[1]);
                p.small_residual_ms = std::stod(ms[2]);
            }
            if (std::regex_search(s, ms, issue_re)) {  // a run from before it: no issue term (its residual held it)
                p.issue_per_chunk_ms = std::stod(ms[1]);
                p.small_issue_per_chunk_ms = ms[2].matched ? std::stod(ms[2]) : p.issue_per_chunk_ms;
            }
            if (std::regex_search(s, ms, depths_re)) {  // a run from before it: the model's depths
                const std::string list = ms[2];
                p.depth_factors.push_back({std::stoi(ms[1]), 1.0});
                for (auto it = std::sregex_iterator(list.begin(), list.end(), depth_re); it != std::sregex_iterator(); ++it)
                    p.depth_factors.push_back({std::stoi((*it)[1]), std::stod((*it)[2])});
                std::sort(p.depth_factors.begin(), p.depth_factors.end());
            }
            m.paths[g[1]] = p;
        }
    }
    // A run that timed each class's anchors again before its rows predicted them with those (a run
    // from before: the calibration's everywhere).
    m.reanchor = !anchors.empty();
    // A run that timed each group's CPU classes again before its rows predicted them with those;
    // each class belongs to one group (split_cpu_again.hpp), so the last lines of a class are its rows'.
    m.cpu_again = !again.empty();
    for (const auto& [key, r] : again) m.cpu.peers[key] = r;
    for (const auto& [key, t] : anchors)
        if (auto it = m.paths.find(key); it != m.paths.end()) {
            it->second.t0_ms = t.first;
            it->second.t0_chunked_ms = t.second;
        }
    if (!host) throw std::invalid_argument("machines_from_log: no 'host: N threads, LLC ...' line");
    if (!curve) throw std::invalid_argument("machines_from_log: no 'read GB/s by working set:' line");
    if (!h2d || !d2h) throw std::invalid_argument("machines_from_log: no 'link H2D:' and 'link D2H:' lines");
    m.hybrid_margin = hybrid_margin_of(m);
    return m;
}

std::vector<CsvRow> rows_from_csv(std::istream& csv) {
    auto split = [](const std::string& s) {
        std::vector<std::string> v;
        std::stringstream ss(s);
        std::string cell;
        while (std::getline(ss, cell, ',')) v.push_back(trim(cell));
        return v;
    };
    std::string line;
    std::vector<std::string> hdr;
    std::vector<CsvRow> out;
    std::map<std::string, std::size_t> col;
    auto at = [&](const std::vector<std::string>& r, const char* name) -> const std::string& {
        const auto it = col.find(name);
        if (it == col.end() || it->second >= r.size())
            throw std::invalid_argument(std::string("rows_from_csv: no column '") + name + "'");
        return r[it->second];
    };
    auto num = [](const std::string& s) { return s.empty() || s == "-" ? NAN : std::stod(s); };
    while (std::getline(csv, line)) {
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> r = split(line);
        if (hdr.empty() || r == hdr) {  // the header; again: an appended run, keep the last
            hdr = r;
            col.clear();
            for (std::size_t i = 0; i < hdr.size(); ++i) col[hdr[i]] = i;
            out.clear();
            continue;
        }
        CsvRow row;
        row.c.op = at(r, "op");
        row.c.elem = at(r, "T") == "float" ? 4 : 8;
        row.c.fs = at(r, "FS") == "-" ? 0 : std::stoi(at(r, "FS"));
        row.c.n = std::stoi(at(r, "n"));
        row.cpu_model_ms = num(at(r, "CPU model"));
        row.gpu_model_ms = num(at(r, "GPU+comm model"));
        row.hybrid_model_ms = num(at(r, "hybrid model"));
        row.choice = at(r, "model's choice");
        if (col.count("chunks") && at(r, "chunks") != "-") row.chunks = std::stoi(at(r, "chunks"));
        row.m.cpu_ms = num(at(r, "CPU measured"));
        row.m.gpu_ms = num(at(r, "GPU+comm measured"));
        const std::string& share = at(r, "GPU share");
        // The hybrid ran where its share was inside (0, 100%), and always for CG (White's split).
        if (share != "0.0%" && share != "100.0%") row.m.hybrid_ms = num(at(r, "hybrid measured"));
        if (col.count("balanced measured")) row.m.balanced_ms = num(at(r, "balanced measured"));  // --balance runs
        if (col.count("pieces") && at(r, "pieces") != "-") row.m.balanced_pieces = std::stoi(at(r, "pieces"));
        out.push_back(row);
    }
    return out;
}

std::vector<RowResult> replay(const std::vector<CsvRow>& rows, const Machines& m) {
    std::vector<RowResult> out;
    for (const CsvRow& r : rows) out.push_back({r.c, predict_case(r.c, m), r.m});
    return out;
}

}  // namespace wb::ch07
