// split_paths.cpp — the all-GPU paths and the shared host memory of chapter 7 (split_paths.hpp),
// measured at the start of a run on a GPU.
#include "split_paths.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "host_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace wb::ch07 {

namespace {

std::string class_name(const Case& c) { return model::peer_key(c.op, c.elem, c.fs); }

/// The measured share of the rows the hybrid ran, for the log.
std::string pct(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * f);
    return buf;
}

}  // namespace

double hybrid_miss(double measured_ms, double model_ms, double timing_error) {
    if (!(measured_ms > 0) || !(model_ms > 0)) return -1;
    const double miss = std::abs(measured_ms / model_ms - 1);
    return std::isnan(timing_error) ? miss : std::max(miss, 2 * timing_error);
}

std::string depth_factors_text(const GpuPath& p, int k0) {
    std::string s = "; the hybrid in K chunks over its model, to that at " + std::to_string(k0) + ":";
    bool first = true;
    for (const auto& [k, phi] : p.depth_factors) {
        if (k == k0) continue;
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s %d x%.4g", first ? "" : ",", k, phi);
        s += buf;
        first = false;
    }
    return s;
}

int mid_n_of(const std::string& op, const GpuCalibrationSizes& s) {
    if (op == "gemv") return s.gemv_n;
    if (op == "symv") return s.symv_n;
    if (op == "gemm") return s.gemm_n;
    if (op == "conv2d") return s.conv_n;
    throw std::invalid_argument("ch07 mid_n_of: op (" + op + ") must be one of gemv, gemm, symv, conv2d");
}

namespace {

/// What the calling thread spent issuing one chunk before the CPU's share of hybrid timing r: its
/// issue over the chunks it covered (a balanced call's first issue; else every chunk of the call,
/// `chunks`).
double issue_per_chunk_ms(const Measured& r, int chunks) {
    return r.hybrid_issue_ms / (r.hybrid_issue_chunks > 0 ? r.hybrid_issue_chunks : chunks);
}

/// A hybrid timing `r` of c (its hybrid_part rows, in `chunks` chunks) timed a second time, the
/// threads settled first, and the faster of the two kept; nothing where r ran no hybrid.
void timed_again(const Case& c, int chunks, Measured& r) {
    if (!(r.hybrid_part > 0)) return;
    const int g = r.hybrid_part;
    MeasurePlan again;
    again.cpu = again.gpu = false;
    again.hybrid_part = [g](const Measured&) { return g; };
    const int pieces = r.balanced_pieces;  // the same call: balanced where the first was
    again.pieces = [pieces](int) { return pieces; };
    cpu::settle_threads();
    const Measured r2 = measure_case(c, again, chunks);
    if (r2.hybrid_ms < r.hybrid_ms) {
        r.hybrid_ms = r2.hybrid_ms;
        r.hybrid_error = r2.hybrid_error;
        r.hybrid_issue_ms = r2.hybrid_issue_ms;
        r.hybrid_issue_chunks = r2.hybrid_issue_chunks;
    }
}

/// The class's hybrid at the mid size `mc` (timing r, at share f in m.chunks chunks; model_ms the
/// model's there without a residual) timed again at every other depth of kDepths, each timing
/// kept as timed_again keeps it: at depth K its time over the model's at K, over r's over
/// model_ms (GpuPath::depth_factors, the key's path). A depth whose timing or model is not > 0
/// is left out; the factor is clamped to [0.25, 4] (a broken timing). Throws what the calls throw.
void measure_depth_factors(Machines& m, const std::string& key, const Case& mc, const Measured& r, double f,
                           double model_ms) {
    const double at_k0 = r.hybrid_ms / model_ms;
    std::vector<std::pair<int, double>> v{{m.chunks, 1.0}};
    const int g = r.hybrid_part, pieces = r.balanced_pieces;
    for (int k : kDepths) {
        if (k == m.chunks) continue;
        MeasurePlan at_k;
        at_k.cpu = at_k.gpu = false;
        at_k.hybrid_part = [g](const Measured&) { return g; };
        at_k.pieces = [pieces](int) { return pieces; };
        Measured rk = measure_case(mc, at_k, k);
        timed_again(mc, k, rk);
        const double model_k = hybrid_model_ms_at(mc, m, f, k);
        if (!(rk.hybrid_ms > 0) || !(model_k > 0)) continue;
        v.push_back({k, std::clamp(rk.hybrid_ms / model_k / at_k0, 0.25, 4.0)});
    }
    std::sort(v.begin(), v.end());
    m.paths[key].depth_factors = v;
}

/// A calibration hybrid of c at the share the model predicts at the calibration's depth (clamped
/// to [5%, 95%]): returns its GPU rows and sets *f to them over n and *model_ms to the model's
/// hybrid there without a residual (what the timing's residual is measured against).
int model_share_rows(const Case& c, const Machines& m, double* f, double* model_ms) {
    const double want = std::clamp(predict_case_at(c, m, m.chunks).split.gpu_share, 0.05, 0.95);
    const int g = split::gpu_rows(c.n, want, 1);
    *f = static_cast<double>(g) / c.n;
    *model_ms = hybrid_model_ms(c, m, *f);
    return g;
}

/// One class's GpuPath (calibrate_paths) from its tiny calls' times `t` (measure_paths_in_turn);
/// throws what the calls throw.
void calibrate_path(Machines& m, const Case& cls, int tiny_n, const Measured& t, const GpuCalibrationSizes& mid,
                    std::vector<std::string>* log) {
    const std::string key = class_name(cls);
    const Case tiny{cls.op, tiny_n, cls.elem, cls.fs}, mc{cls.op, mid_n_of(cls.op, mid), cls.elem, cls.fs};
    GpuPath p;
    p.tiny_n = tiny_n;
    p.mid_n = mc.n;
    p.t0_ms = t.gpu_ms;
    p.t0_chunked_ms = t.gpu_chunked_ms;
    m.paths[key] = p;
    // At the mid size, as a row is timed: the CPU peer, the GPU in one chunk and in chunks (the
    // pipeline's ratio, which the model then uses), the hybrid at the share the model predicts.
    double f = 0, model_ms = 0;
    MeasurePlan at_mid;
    at_mid.chunked = true;
    at_mid.hybrid_part = [&](const Measured& r) {
        GpuPath& q = m.paths[key];
        const GpuSideParts pm = gpu_side_parts(mc, m), pt = gpu_side_parts(tiny, m);
        const double beyond = r.gpu_chunked_ms - q.t0_chunked_ms - std::max(0.0, pm.whole_ms - pt.whole_ms);
        // The clamp only guards against a broken timing.
        if (pm.serial_ms > 0 && beyond > 0) q.pipeline = std::clamp(beyond / pm.serial_ms, 0.1, 50.0);
        // At the calibration's depth: the hybrid is timed in m.chunks chunks (measure_case below).
        return model_share_rows(mc, m, &f, &model_ms);
    };
    // The hybrid the rows run: balanced where they are (GEMM, the convolution), its CPU share
    // predicted at the model's hybrid there (set by hybrid_part, called first).
    at_mid.pieces = [&](int g) { return m.balanced ? balanced_pieces(mc, g, model_ms, m) : 0; };
    Measured r = measure_case(mc, at_mid, m.chunks);
    // The residual and the miss are one hybrid timing, added to every prediction of the class and
    // setting the run's margin: a disturbance that lasted through it would stay in both. So the
    // hybrid is timed a second time, after the threads settle, and the faster timing kept.
    timed_again(mc, m.chunks, r);
    GpuPath& q = m.paths[key];
    q.residual_share = f;
    // The calling thread's issue before the CPU's share (per chunk), then the model at the same
    // share with it where it is priced (--price-issue): the residual is what is left beyond both.
    if (r.hybrid_issue_ms > 0) {
        q.issue_per_chunk_ms = issue_per_chunk_ms(r, m.chunks);
        model_ms = hybrid_model_ms(mc, m, f);
    }
    if (!std::isnan(r.hybrid_ms)) {
        q.residual_ms = std::max(0.0, r.hybrid_ms - model_ms);
        q.miss = hybrid_miss(r.hybrid_ms, model_ms, r.hybrid_error);
    }
    // The same hybrid at every other depth the rows may run (where the depth is derived): what a
    // depth costs the call beyond the model's chunks (GpuPath::depth_factors). A failure here
    // leaves the class without factors (the model's depths), its line says so.
    std::string depths_failed;
    if (m.measured_depths && m.derived_chunks && r.hybrid_part > 0 && r.hybrid_ms > 0 && model_ms > 0) {
        try {
            measure_depth_factors(m, key, mc, r, f, model_ms);
        } catch (const std::exception& e) {
            m.paths[key].depth_factors.clear();
            depths_failed = e.what();
        }
    }
    // A third of the mid size (a multiple of 32, off the table's powers of two): a hybrid's fixed
    // costs beyond its sides (the GPU share's issue before the CPU's share starts, the waiting
    // thread's wake-up beside a short threaded share) weigh more in
    // a smaller call than the mid size's residual says. Timed the same way, at the share the model
    // predicts there; residual_at interpolates between the two.
    // A failure here leaves the class its mid-size anchors (the residual of the mid size at every n).
    const Case sc{cls.op, small_n_of(mc.n), cls.elem, cls.fs};
    double fs = 0, small_model_ms = 0;
    Measured rs;
    bool small_failed = false;
    std::string why;
    try {
        if (sc.n > tiny_n) {
            MeasurePlan at_small;
            at_small.cpu = at_small.gpu = false;
            at_small.hybrid_part = [&](const Measured&) { return model_share_rows(sc, m, &fs, &small_model_ms); };
            at_small.pieces = [&](int g) { return m.balanced ? balanced_pieces(sc, g, small_model_ms, m) : 0; };
            rs = measure_case(sc, at_small, m.chunks);
            timed_again(sc, m.chunks, rs);
        }
    } catch (const std::exception& e) {
        small_failed = true;
        why = e.what();
    }
    if (!small_failed && !std::isnan(rs.hybrid_ms)) {
        q.small_n = sc.n;
        if (rs.hybrid_issue_ms > 0) {
            q.small_issue_per_chunk_ms = issue_per_chunk_ms(rs, m.chunks);
            small_model_ms = hybrid_model_ms(sc, m, fs);
        } else {
            q.small_issue_per_chunk_ms = q.issue_per_chunk_ms;
        }
        q.small_residual_ms = std::max(0.0, rs.hybrid_ms - small_model_ms);
    }
    if (!log) return;
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "%s: t0 %.4g us (one chunk), %.4g us (%d chunks) at n = %d; pipeline %.4g at n = %d (one chunk "
                  "%.4g ms, %d chunks %.4g ms, CPU %.4g ms); hybrid residual %.4g ms at n = %d, share %s (measured "
                  "%.4g ms, model %.4g ms, timing error %s; miss %s)",
                  key.c_str(), q.t0_ms * 1e3, q.t0_chunked_ms * 1e3, m.chunks, tiny_n, q.pipeline, mc.n, r.gpu_ms,
                  m.chunks, r.gpu_chunked_ms, r.cpu_ms, q.residual_ms, mc.n, pct(f).c_str(), r.hybrid_ms, model_ms,
                  pct(r.hybrid_error).c_str(), q.miss >= 0 ? pct(q.miss).c_str() : "not measured");
    std::string line = buf;
    if (q.small_n > 0) {
        std::snprintf(buf, sizeof buf, "; at n = %d: residual %.4g ms, share %s (measured %.4g ms, model %.4g ms)",
                      q.small_n, q.small_residual_ms, pct(fs).c_str(), rs.hybrid_ms, small_model_ms);
        line += buf;
    } else if (small_failed) {
        line += "; at n = " + std::to_string(sc.n) + ": not measured (" + why + ")";
    }
    if (!q.depth_factors.empty()) line += depth_factors_text(q, m.chunks);
    else if (!depths_failed.empty()) line += "; the hybrid at each depth: not measured (" + depths_failed + ")";
    if (q.issue_per_chunk_ms > 0 || q.small_issue_per_chunk_ms > 0) {
        std::snprintf(buf, sizeof buf, "; issued before the CPU's share: %.4g ms per chunk at n = %d", q.issue_per_chunk_ms,
                      mc.n);
        line += buf;
        if (q.small_n > 0) {
            std::snprintf(buf, sizeof buf, ", %.4g at n = %d", q.small_issue_per_chunk_ms, q.small_n);
            line += buf;
        }
    }
    log->push_back(line);
}

}  // namespace

void calibrate_paths(Machines& m, const std::vector<Case>& classes, int tiny_n, const GpuCalibrationSizes& mid,
                     std::vector<std::string>* log) {
    // The model of each class is measured at the run's margin so far (none: kMinHybridGain); the
    // margin is set from the misses once every class is measured.
    m.hybrid_margin = -1;
    // The fixed costs first: every class's tiny call in one chunk and in the hybrid's chunks, all
    // timed in turn (measure_paths_in_turn: the host's state during one class's timing does not
    // set that class's anchor).
    std::vector<Case> tiny;
    for (const Case& cls : classes)
        if (cls.op != "cg") tiny.push_back(Case{cls.op, tiny_n, cls.elem, cls.fs});
    std::vector<Measured> fixed;
    try {
        fixed = measure_paths_in_turn(tiny, m.chunks);
    } catch (const std::exception& e) {
        // Every class keeps the model of its copies and kernel; the run goes on.
        if (log) log->push_back(std::string("the tiny all-GPU calls: not measured (") + e.what() + "): the copies' and kernels' model");
        m.hybrid_margin = hybrid_margin_of(m);
        return;
    }
    for (std::size_t i = 0; i < tiny.size(); ++i) {
        const Case& cls = tiny[i];
        try {
            calibrate_path(m, cls, tiny_n, fixed[i], mid, log);
        } catch (const std::exception& e) {
            // The class keeps the model of its copies and kernel; the run goes on.
            m.paths.erase(class_name(cls));
            if (log) log->push_back(class_name(cls) + ": not measured (" + e.what() + "): its copies' and kernel's model");
        }
    }
    m.hybrid_margin = hybrid_margin_of(m);
    if (log) {
        int k = 0;
        for (const auto& [key, q] : m.paths) k += q.miss >= 0;
        log->push_back(m.hybrid_margin >= 0
                           ? "hybrid margin: " + pct(m.hybrid_margin) + " (the median miss of " + std::to_string(k) +
                                 " classes): the hybrid is chosen where it predicts a larger gain"
                           : "hybrid margin: not measured (" + pct(split::kMinHybridGain) + " assumed)");
    }
}

std::string reanchor_line(const std::string& key, double t0_ms, double t0_chunked_ms, int chunks, double was_t0_ms,
                          double was_chunked_ms) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  ": anchor timed again before its rows: t0 %.4g us (one chunk), %.4g us (%d chunks); calibration %.4g, %.4g",
                  1e3 * t0_ms, 1e3 * t0_chunked_ms, chunks, 1e3 * was_t0_ms, 1e3 * was_chunked_ms);
    return key + buf;
}

std::string cg_product_line(std::size_t elem, double t0_ms, double was_t0_ms) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ": the SYMV path timed again before CG's rows: t0 %.4g us; calibration %.4g",
                  1e3 * t0_ms, 1e3 * was_t0_ms);
    return model::peer_key("cg product", elem) + buf;
}

namespace {

/// CG's anchors (reanchor_path): the solve's fixed cost, and the SYMV path's tiny call that each
/// product of the split pays.
std::vector<std::string> reanchor_cg(Machines& m, const Case& cls) {
    std::vector<std::string> lines;
    const std::string key = model::peer_key("cg solve", cls.elem);
    if (const auto rate = m.gpu_rates.rates.find(key); rate != m.gpu_rates.rates.end()) {
        const double was = rate->second.fixed_ms;
        try {
            rate->second.fixed_ms = cg_path_fixed_ms(cls.elem, GpuCalibrationSizes{}.tiny_n,
                                                     m.gpu_rates.get(model::peer_key("cg", cls.elem)).fixed_ms, m.links);
            char buf[160];
            std::snprintf(buf, sizeof buf, ": anchor timed again before its rows: t0 %.4g us; calibration %.4g",
                          1e3 * rate->second.fixed_ms, 1e3 * was);
            lines.push_back(key + buf);
        } catch (const std::exception& e) {
            lines.push_back(key + ": anchor not timed again (" + e.what() + "): the calibration's kept");
        }
    }
    const auto symv = m.paths.find(model::peer_key("symv", cls.elem));
    if (!m.cg_product_without_a || symv == m.paths.end() || symv->second.tiny_n <= 0) return lines;
    const std::string product = model::peer_key("cg product", cls.elem);
    try {
        const Measured t = measure_paths_in_turn({Case{"symv", symv->second.tiny_n, cls.elem, 0}}, m.chunks).front();
        m.gpu_rates.rates[product] = GpuRate{t.gpu_ms, 1};
        lines.push_back(cg_product_line(cls.elem, t.gpu_ms, symv->second.t0_ms));
    } catch (const std::exception& e) {
        lines.push_back(product + ": not timed (" + e.what() + "): the SYMV path's anchor kept");
    }
    return lines;
}

}  // namespace

std::vector<std::string> reanchor_path(Machines& m, const Case& cls) {
    if (cls.op == "cg") return reanchor_cg(m, cls);
    const std::string key = class_name(cls);
    const auto it = m.paths.find(key);
    if (it == m.paths.end() || it->second.tiny_n <= 0) return {};
    GpuPath& p = it->second;
    const double was = p.t0_ms, was_chunked = p.t0_chunked_ms;
    try {
        const Measured t = measure_paths_in_turn({Case{cls.op, p.tiny_n, cls.elem, cls.fs}}, m.chunks).front();
        p.t0_ms = t.gpu_ms;
        p.t0_chunked_ms = t.gpu_chunked_ms;
    } catch (const std::exception& e) {
        return {key + ": anchor not timed again (" + e.what() + "): the calibration's kept"};
    }
    return {reanchor_line(key, p.t0_ms, p.t0_chunked_ms, m.chunks, was, was_chunked)};
}

double measure_host_shared_gbs(int threads, double ws_bytes, std::string* log) {
    using Clock = std::chrono::steady_clock;
    constexpr std::size_t kCopy = 128u << 20;
    constexpr int kCopies = 32;  // ~75 ms each way at 55 GB/s: longer than the reads below
    PinnedBuffer<unsigned char> hsrc(kCopy), hdst(kCopy);
    DeviceBuffer<unsigned char> dsrc(kCopy), ddst(kCopy);
    std::memset(hsrc.data(), 1, kCopy);
    std::memset(hdst.data(), 0, kCopy);
    model::ReadLoad load(threads, ws_bytes);
    const double alone = load.run(0.03);
    cudaStream_t s[2];
    for (auto& st : s) WB_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t start;
    WB_CUDA(cudaEventCreate(&start));
    std::vector<cudaEvent_t> ev[2];
    for (auto& v : ev) {
        v.resize(kCopies);
        for (auto& e : v) WB_CUDA(cudaEventCreate(&e));
    }
    WB_CUDA(cudaEventRecord(start, s[0]));
    WB_CUDA(cudaStreamWaitEvent(s[1], start, 0));
    for (int i = 0; i < kCopies; ++i) {
        WB_CUDA(cudaMemcpyAsync(dsrc.data(), hsrc.data(), kCopy, cudaMemcpyHostToDevice, s[0]));
        WB_CUDA(cudaEventRecord(ev[0][static_cast<std::size_t>(i)], s[0]));
        WB_CUDA(cudaMemcpyAsync(hdst.data(), ddst.data(), kCopy, cudaMemcpyDeviceToHost, s[1]));
        WB_CUDA(cudaEventRecord(ev[1][static_cast<std::size_t>(i)], s[1]));
    }
    WB_CUDA(cudaEventSynchronize(start));
    const auto g0 = Clock::now();  // the copies' clock starts here (to the wait's latency)
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    const auto ta = Clock::now();
    const double cpu = load.run(0.04);
    const auto tb = Clock::now();
    for (auto& st : s) WB_CUDA(cudaStreamSynchronize(st));
    auto ms = [&](Clock::time_point t) { return std::chrono::duration<double, std::milli>(t - g0).count(); };
    const double a = ms(ta), b = ms(tb);
    double moved[2] = {0, 0}, last_end[2] = {0, 0};
    for (int d = 0; d < 2; ++d) {
        float prev = 0;
        for (int i = 0; i < kCopies; ++i) {  // each copy's bytes pro rata of its time inside [a, b]
            float end = 0;
            WB_CUDA(cudaEventElapsedTime(&end, start, ev[d][static_cast<std::size_t>(i)]));
            const double len = std::max(1e-6, static_cast<double>(end - prev));
            const double inside = std::max(0.0, std::min(b, static_cast<double>(end)) - std::max(a, static_cast<double>(prev)));
            moved[d] += static_cast<double>(kCopy) * inside / len;
            prev = end;
        }
        last_end[d] = prev;
    }
    for (auto& v : ev)
        for (auto& e : v) cudaEventDestroy(e);
    cudaEventDestroy(start);
    for (auto& st : s) cudaStreamDestroy(st);
    const double window_s = (b - a) / 1e3;
    const double up = moved[0] / window_s / 1e9, down = moved[1] / window_s / 1e9;
    const double shared = cpu + up + down;
    if (log) {
        char buf[400];
        std::snprintf(buf, sizeof buf,
                      "host memory both sides share: %.4g GB/s (%d threads read %.4g GB/s of a %.4g MiB buffer, %.4g "
                      "alone; pinned copies moved %.4g GB/s up and %.4g down at the same time)%s",
                      shared, threads, cpu, ws_bytes / (1024.0 * 1024.0), alone, up, down,
                      std::min(last_end[0], last_end[1]) < b ? " (the copies ended before the reads: a lower bound)" : "");
        *log = buf;
    }
    return shared;
}

}  // namespace wb::ch07
