// split_cases.cpp — chapter 7's cases (split_cases.hpp): per op, each side's time as a function of
// the GPU's share (the CPU's from its peer class, the GPU's from its copies and its kernel class)
// and the three predicted times; split_measure.cpp runs the three ways.
#include "split_cases.hpp"

#include "hybrid_balance.hpp"

#include "memory_lab.hpp"
#include "peer_rates.hpp"
#include "roofline.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wb::ch07 {

void unknown_op(const char* fn, const std::string& op) {
    throw std::invalid_argument(std::string(fn) + ": op (" + op + ") must be one of gemv, gemm, symv, conv2d, cg");
}

namespace {

/// Powers of two from lo to hi; every other one when `sparse`.
std::vector<int> powers(int lo, int hi, bool sparse) {
    std::vector<int> v;
    for (int n = lo, i = 0; n <= hi; n *= 2, ++i)
        if (!sparse || i % 2 == 0 || n == hi) v.push_back(n);
    return v;
}

double peer_ms(const Machines& m, const char* cls, const model::CpuWork& w, std::size_t e, int fs = 0,
               double ws = -1) {
    std::string key = model::peer_key(cls, e, fs);
    // The GEMM share's class where the run measured it; a run without it, the square class.
    if (std::string(cls) == cpu::kGemmShareClass && m.cpu.peers.count(key) == 0) key = model::peer_key("gemm", e);
    return model::predict_peer_ms(m.cpu, key, w, e, ws);
}

/// The rows (columns) the CPU keeps when the GPU takes the share f of n.
long long cpu_part(double f, int n) { return std::llround((1 - f) * n); }

/// Sets o's kernel time (proportional to the share: the roofline over the class's efficiency) and
/// its fixed part (`launches` x the class's t0).
void set_kernel(split::Offload& o, const Machines& m, const char* cls, double bytes, double flops, std::size_t e,
                int fs = 0, int launches = 1) {
    const GpuRate r = m.gpu_rates.get(model::peer_key(cls, e, fs));
    o.kernel_ms = gpu_roofline_ms(m.gpu, bytes, flops, e) / r.eff_at(bytes);
    o.launch_ms = launches * r.fixed_ms;
}

/// The measured all-GPU path of a case's class, or null where it was not measured.
const GpuPath* path_of(const Case& c, const Machines& m) {
    const auto it = m.paths.find(model::peer_key(c.op, c.elem, c.fs));
    return it != m.paths.end() && it->second.t0_ms > 0 ? &it->second : nullptr;
}

/// CG's three solves of I iterations (cg_solve_iterations; White §5.2): all on the CPU (the "cg
/// iteration" class where measured), all on the GPU (A, b and x0 in once, the solve's fixed cost
/// where measured, its iterations, x out once), and the split (A once; every product p in, the tuned SYMV, q out; the
/// vector operations on the CPU). The initial residual is one product more. Where SYMV's all-GPU
/// path was measured, each product of the split pays its fixed cost (copies' set-ups, the launch,
/// the wait for q: every iteration waits for its product) less its copy of A
/// (Machines::cg_product_without_a), plus the model's growth from its tiny size to n (SYMV's
/// kernel at its rate for the rows' n: GpuRate::eff_at). That fixed cost is the path's call timed
/// again just before CG's rows ("cg product", reanchor_path), where it was.
CasePrediction predict_cg(const Case& c, const Machines& m) {
    const double I = cg_solve_iterations(c.n, m.cg_iterations), N = c.n, e = static_cast<double>(c.elem);
    CasePrediction out;
    out.hybrid_kind = "vectors on CPU";
    const double cpu_mv = peer_ms(m, "symv", model::cpu_work_symv(c.n, c.elem), c.elem);
    const double cpu_vec = peer_ms(m, "cg vectors", model::cpu_work_cg_vectors(c.n, c.elem), c.elem);
    // The CPU solve: the initial residual's product, then I iterations, each its SYMV and vector
    // calls in sequence, where that sequence was measured ("cg iteration": a solve's calls cost more
    // than each call repeated alone); else the classes of its calls.
    const double cpu = m.cpu.peers.count(model::peer_key("cg iteration", c.elem))
                           ? cpu_mv + I * peer_ms(m, "cg iteration", model::cpu_work_cg_iteration(c.n, c.elem), c.elem)
                           : (I + 1) * cpu_mv + I * cpu_vec;
    const model::CpuWork it = model::cpu_work_cg_iteration(c.n, c.elem);
    const GpuRate cg = m.gpu_rates.get(model::peer_key("cg", c.elem), kCgIterationLaunches);
    const double gpu_it = cg.fixed_ms + gpu_roofline_ms(m.gpu, it.bytes, it.flops, c.elem) / cg.eff;
    auto product_ms = [&](double n) {  // p in, the tuned SYMV, q out
        const model::CpuWork mv = model::cpu_work_symv(static_cast<long long>(n), c.elem);
        return m.links.h2d.predict(n * e) +
               gpu_kernel_ms(m.gpu_rates, model::peer_key("symv", c.elem), m.gpu, mv.bytes, mv.flops, c.elem) +
               m.links.d2h.predict(n * e);
    };
    double product = product_ms(N);
    if (const GpuPath* symv_path = path_of(Case{"symv", c.n, c.elem, 0}, m)) {
        // The path's call timed again before CG's rows ("cg product"), where it was; else its
        // anchor. Its t0 pays its copy of A (its tiny matrix); a product of the split does not.
        const double tiny = symv_path->tiny_n;
        const double path_t0 = m.gpu_rates.get(model::peer_key("cg product", c.elem), 0).fixed_ms;
        const double path_a = m.cg_product_without_a ? m.links.h2d.predict(tiny * tiny * e) : 0.0;
        product = (path_t0 > 0 ? path_t0 : symv_path->t0_ms) - path_a + std::max(0.0, product - product_ms(tiny));
    }
    const double a_in = m.links.h2d.predict(N * N * e);
    // A solve's fixed cost (its set-up around the loop; measured through the rows' path, beyond
    // its copies), where measured: paid once, whatever I.
    const double solve_fixed = m.gpu_rates.get(model::peer_key("cg solve", c.elem), 0).fixed_ms;
    const double all_gpu = cg_path_copies_ms(m.links, c.n, c.elem) + solve_fixed + I * gpu_it;
    const double split52 = a_in + (I + 1) * product + I * cpu_vec;
    out.cpu_model_ms = cpu;
    auto& p = out.split;
    p.cpu_ms = cpu;
    p.gpu_ms = all_gpu;
    p.hybrid_ms = split52;
    p.gpu_share = std::numeric_limits<double>::quiet_NaN();
    p.white = split::white_rule(cpu, 0, all_gpu);
    p.choice = p.white;
    p.margin = min_gain_of(m);
    if (split52 <= (1 - p.margin) * std::min(cpu, all_gpu)) p.choice = split::Where::Hybrid;
    return out;
}

/// The hybrid's GPU side (`hybrid`: chunked, the convolution's halos with each chunk) and the
/// all-GPU call (`all`: one chunk, SYMV as one SYMV of the whole array, the convolution without
/// halos) of one case, from the transfer model and the kernel classes.
struct Offloads {
    split::Offload hybrid, all;
};
Offloads offloads_of(const Case& c, const Machines& m, int chunks) {
    const double N = c.n, e = static_cast<double>(c.elem);
    const int n = c.n;
    const std::size_t el = c.elem;
    split::Offload o;
    if (c.op == "gemv") {  // y = A x, op N: the GPU's rows of A and of y; x whole
        o.in_split = {N * N * e};
        o.in_whole = {N * e};
        o.out_split = {N * e};
        set_kernel(o, m, "gemv", roofline::gemv_bytes(false, n, n, el, false), roofline::gemv_flops(n, n), el);
    } else if (c.op == "gemm") {  // C = A B: the GPU's columns of B and of C; A whole
        o.in_split = {N * N * e};
        o.in_whole = {N * N * e};
        o.out_split = {N * N * e};
        const model::CpuWork w = model::cpu_work_gemm(n, n, n, el, false);
        set_kernel(o, m, "gemm", w.bytes, w.flops, el);
    } else if (c.op == "symv") {  // the GPU's g whole stored columns: n g - g^2 / 2 elements (and each
                                  // chunk's diagonal block whole); the whole call's n^2 here, sides_of
                                  // scales it by what the share copies (symv_copied)
        o.in_split = {N * N * e};
        o.in_whole = {N * e};
        o.out_split = {N * e};
        set_kernel(o, m, "gemv", roofline::gemv_bytes(false, n, n, el, false), roofline::gemv_flops(n, n), el, 0, 3);
    } else if (c.op == "conv2d") {  // the GPU's band of image rows, each chunk with its halo; the filter
        o.in_split = {(N + chunks * (c.fs - 1)) * N * e};  // the halos travel in the bands' copies
        o.in_whole = {c.fs * c.fs * e};
        o.out_split = {N * N * e};
        set_kernel(o, m, "conv2d", roofline::conv_bytes(n, n, c.fs, el), roofline::conv_flops(n, n, c.fs), el, c.fs);
    } else {
        unknown_op("ch07 predict_case", c.op);
    }
    Offloads out{o, o};
    if (c.op == "symv") {
        const model::CpuWork w = model::cpu_work_symv(n, el);
        set_kernel(out.all, m, "symv", w.bytes, w.flops, el);
    }
    if (c.op == "conv2d") out.all.in_split = {N * N * e};
    return out;
}

/// The peer calls of the CPU's share when the GPU takes the share f: GEMV and the convolution
/// their rows, GEMM its columns, SYMV its rows [g, n) as a SYMV of their diagonal block (and, in
/// runs from before the GPU added the block beside it, a GEMV of that block). Each is predicted in
/// the regime its size runs in.
struct PeerCall {
    const char* cls;
    model::CpuWork w;
};
std::vector<PeerCall> cpu_share_calls(const Case& c, double f, bool symv_one_call) {
    const int n = c.n;
    const std::size_t el = c.elem;
    const long long r = cpu_part(f, n), g = n - r;
    if (r == 0) return {};
    if (c.op == "gemv") return {{"gemv", model::cpu_work_gemv(false, r, n, el, false)}};
    if (c.op == "gemm") {  // beside the GPU (f > 0) a skinny product, threaded or not
        const model::CpuWork w = model::cpu_work_gemm(n, r, n, el, false);
        return {{f > 0 && !w.single_thread ? cpu::kGemmShareClass : "gemm", w}};
    }
    if (c.op == "symv") {
        std::vector<PeerCall> v{{"symv", model::cpu_work_symv(r, el)}};
        if (g > 0 && !symv_one_call) v.push_back({"gemv", model::cpu_work_gemv(false, r, g, el, false)});
        return v;
    }
    if (c.op == "conv2d") return {{"conv2d", model::cpu_work_conv2d(r, n, c.fs, el)}};
    unknown_op("ch07 predict_case", c.op);
}

/// What the hybrid SYMV's GPU side copies at share f in K chunks, as a fraction of n^2: its g = f n
/// whole stored columns hold g n - g^2 / 2 elements, and each chunk's diagonal block travels whole
/// (g^2 / 2K more): f (1 - f / 2 + f / 2K). The chunked all-GPU call (f = 1) copies 1/2 + 1/2K.
/// symv_copied(f, K) = f * symv_triangle(f, K): per unit of f, the columns' elements and the blocks.
double symv_triangle(double f, int chunks) { return 1 - f / 2 + f / (2.0 * chunks); }
double symv_copied(double f, int chunks) { return f * symv_triangle(f, chunks); }

/// Everything split::predict needs for one case (not CG).
struct Sides {
    split::SideTime cpu, gpu;
    split::HybridCosts costs;
    double all_gpu_ms = 0;
};
/// The pipeline's depth moves what the GPU side costs by three terms (the file comment of
/// split.hpp): each chunk's own fixed cost (its copies' set-up, its launch, its events), the
/// stages that overlap (paid once for a chunk, to fill and drain the pipeline), and what the
/// copies move (the convolution's halos, one per band, in offloads_of; the SYMV's triangle of
/// each chunk's diagonal block, g^2 / 2K of its g n - g^2 / 2 + g^2 / 2K elements, not here but in
/// sides_of's symv_copied(f, K), so that it is counted once). The path's measured anchors are at
/// the calibration's depth K0 = m.chunks; at depth K each is moved by the model's ratio of K to
/// K0: the fixed cost by (K - K0) times the measured cost of one chunk, the proportional time by
/// the serial model's pipelined time at K over that at K0.
struct Depth {
    double fixed_ms = 0;     ///< what the side's chunks cost beyond the anchor's, whatever its share
    double ratio = 1;        ///< the proportional time at k over the anchor's
};
/// `at_k_offload`: the case's hybrid offload at depth k (offloads_of(c, m, k).hybrid, which the
/// caller has priced already); `at_k0`: the case's GPU side parts at K0 (gpu_side_parts).
Depth depth_of(const Machines& m, const GpuPath& path, int k, const split::Offload& at_k_offload, const GpuSideParts& at_k0) {
    Depth d;
    const int k0 = m.chunks;
    if (k == k0) return d;
    const double per_chunk = k0 > 1 ? std::max(0.0, path.t0_chunked_ms - path.t0_ms) / (k0 - 1) : 0;
    d.fixed_ms = (k - k0) * per_chunk;
    const double at_k = split::gpu_side(at_k_offload, m.links.h2d, m.links.d2h, k).per_ms;
    if (at_k0.pipelined_ms > 0) d.ratio = at_k / at_k0.pipelined_ms;
    return d;
}

Sides sides_of(const Case& c, const Machines& m, int chunks) {
    const Offloads ofs = offloads_of(c, m, chunks);
    Sides s;
    // What the GPU's share f moves of the split operands, over what the side's price covers: f,
    // except the hybrid SYMV's whole stored columns (symv_copied of n^2). `anchored`: the price is
    // the measured chunked all-GPU call, f = 1 at depth K0, which copies symv_copied(1, K0); else
    // offloads_of's n^2. Runs from before symv_gpu_columns replay SYMV as they were computed:
    // linear in f, the chunks' diagonal blocks moved from K0 to K at the share's f.
    const bool symv = c.op == "symv", columns = symv && m.symv_gpu_columns;
    const int k0 = m.chunks;
    auto moved = [symv, columns, chunks, k0](double f, bool anchored) {
        if (columns) return symv_copied(f, chunks) / (anchored ? symv_copied(1, k0) : 1.0);
        if (symv && anchored) return f * symv_triangle(f, chunks) / symv_triangle(f, k0);
        return f;
    };
    // Beside the GPU (f > 0) the convolution's share runs on hybrid_conv_threads of the threads:
    // its time (compute-bound) scaled by their ratio.
    const double fewer = c.op == "conv2d" && m.hybrid_conv_threads > 0 && m.cpu.threads > m.hybrid_conv_threads
                             ? static_cast<double>(m.cpu.threads) / m.hybrid_conv_threads
                             : 1.0;
    // Where the calling thread issues the GPU side (its arrays page-locked, as the rows' are), the
    // CPU's share begins once every chunk is issued: K chunks' issue before it (0 where the run
    // measured none: the GPU worker issued, and the share began at once).
    const GpuPath* const path = path_of(c, m);
    const double issue = path && m.price_issue ? chunks * issue_at(*path, c.n) : 0;
    s.cpu = [&m, c, fewer, issue](double f) {
        const std::vector<PeerCall> calls = cpu_share_calls(c, f, m.symv_share_one_call);
        if (calls.empty()) return 0.0;  // no row left to the CPU: nothing to wait for either
        // Several calls on different data (SYMV's share): each finds the caches holding what all
        // of them read, since the hybrid runs them back to back, call after call.
        double footprint = -1;
        if (m.share_footprint && calls.size() > 1) {
            footprint = 0;
            for (const PeerCall& p : calls) footprint += p.w.bytes;
        }
        double t = 0;
        for (const PeerCall& p : calls) t += peer_ms(m, p.cls, p.w, c.elem, c.op == "conv2d" ? c.fs : 0, footprint);
        return f > 0 ? t * fewer + issue : t;
    };
    s.all_gpu_ms = split::all_gpu_ms(ofs.all, m.links.h2d, m.links.d2h);
    s.costs.min_gain = min_gain_of(m);
    // Whole rows (split::HybridCosts::rows): a share that rounds to none or all is that single
    // side (the rows time no hybrid there). With the issue priced, one row's CPU side plus the
    // issue can outlast the GPU side near f = 1 and the balance lands there (a GEMM of 1024
    // columns was chosen "hybrid" with all of them on the GPU). Without it the kept runs' shares
    // that round so (small GEMMs) were never chosen, and they replay as they were computed.
    if (m.price_issue) s.costs.rows = c.n;
    if (path) {
        // The all-GPU call and the GPU side anchored on their measured fixed costs (one chunk; the
        // hybrid's chunks) at the tiny size, plus the model's growth from there to n; the side's
        // proportional part is the serial one times the pipeline's measured ratio.
        const GpuSideParts pn = gpu_side_parts(c, m), pt = gpu_side_parts(Case{c.op, path->tiny_n, c.elem, c.fs}, m);
        s.all_gpu_ms = path->t0_ms + std::max(0.0, pn.all_gpu_ms - pt.all_gpu_ms);
        const Depth d = depth_of(m, *path, chunks, ofs.hybrid, pn);
        const double fixed = path->t0_chunked_ms + d.fixed_ms;
        const double g0 = fixed + std::max(0.0, pn.whole_ms - pt.whole_ms), g1 = path->pipeline * pn.serial_ms * d.ratio;
        s.gpu = [g0, g1, moved](double f) { return g0 + g1 * moved(f, true); };
        s.costs.residual_ms = residual_at(*path, c.n);
        if (m.hybrid_floor) s.costs.min_saving_ms = fixed;  // the fixed cost it adds
    } else {
        split::LinearCost g = split::gpu_side(ofs.hybrid, m.links.h2d, m.links.d2h, chunks);
        g.fixed_ms += m.hybrid_overhead_ms;  // an empty hybrid call: the GPU side's issue, wait and return
        s.gpu = [g, moved](double f) { return g.fixed_ms + moved(f, false) * g.per_ms; };
    }
    if (c.op == "gemm" && m.warm_gemm_a && m.warm.measured()) {
        // The GEMM's CPU share reads all of A while the GPU side copies all of A: wherever the CPU
        // keeps a share (f < 1; at f = 0 the GPU side is only the balance's limit), A's copy moves at
        // the rate of data the host's threads just read (split_warm.hpp), on the GPU side's critical
        // path (every chunk needs A); the GPU alone (f = 1) copies A as the link does.
        const double extra = warm_copy_extra_ms(m.warm, static_cast<double>(c.n) * static_cast<double>(c.n) * static_cast<double>(c.elem));
        s.gpu = [inner = s.gpu, extra](double f) { return inner(f) + (f < 1 ? extra : 0.0); };
    }
    if (m.host_shared_gbs > 0) {
        // Host memory: the CPU's share reads its DRAM part, the copies move their bytes by DMA.
        double split_bytes = 0, whole_bytes = 0;
        for (double b : ofs.hybrid.in_split) split_bytes += b;
        for (double b : ofs.hybrid.out_split) split_bytes += b;
        for (double b : ofs.hybrid.in_whole) whole_bytes += b;
        const double llc = m.cpu.llc_bytes, rate = m.host_shared_gbs * 1e6;
        const bool one_call = m.symv_share_one_call;
        s.costs.shared = [c, llc, rate, split_bytes, whole_bytes, one_call, moved](double f) {
            double dram = 0;
            for (const PeerCall& p : cpu_share_calls(c, f, one_call)) dram += model::dram_share(llc, p.w.bytes) * p.w.bytes;
            return (dram + moved(f, false) * split_bytes + whole_bytes) / rate;
        };
    }
    if (path && !path->depth_factors.empty()) {
        // A hybrid call at this depth, as the calibration timed one at every depth (the mid size's
        // measured time over the model's, to that at K0): both sides and their shared bound scaled
        // alike, so the balanced share stays and the call's time moves. The single sides (f = 0,
        // f = 1) are no hybrid call and keep their time.
        const double phi = depth_factor_at(*path, chunks);
        auto scaled = [phi](split::SideTime inner) {
            return split::SideTime([inner, phi](double f) { return f > 0 && f < 1 ? phi * inner(f) : inner(f); });
        };
        if (phi != 1) {
            s.cpu = scaled(s.cpu);
            s.gpu = scaled(s.gpu);
            if (s.costs.shared) s.costs.shared = scaled(s.costs.shared);
        }
    }
    return s;
}

}  // namespace

namespace {
/// A quantity measured at the path's small and mid sizes, at size n: the small size's value up to
/// small_n, the mid size's from mid_n on, linear in log n between; the mid size's everywhere where
/// small_n was not measured.
double at_size(const GpuPath& p, int n, double small_v, double mid_v) {
    if (p.small_n <= 0 || p.small_n >= p.mid_n) return mid_v;
    if (n <= p.small_n) return small_v;
    if (n >= p.mid_n) return mid_v;
    const double x = std::log(static_cast<double>(n) / p.small_n) / std::log(static_cast<double>(p.mid_n) / p.small_n);
    return (1 - x) * small_v + x * mid_v;
}
}  // namespace

double residual_at(const GpuPath& p, int n) { return at_size(p, n, p.small_residual_ms, p.residual_ms); }
double issue_at(const GpuPath& p, int n) { return at_size(p, n, p.small_issue_per_chunk_ms, p.issue_per_chunk_ms); }

double depth_factor_at(const GpuPath& p, int chunks) {
    const auto& v = p.depth_factors;
    if (v.empty()) return 1;
    if (chunks <= v.front().first) return v.front().second;
    if (chunks >= v.back().first) return v.back().second;
    for (std::size_t i = 1; i < v.size(); ++i)
        if (chunks <= v[i].first) {
            const double x = std::log2(static_cast<double>(chunks) / v[i - 1].first) /
                             std::log2(static_cast<double>(v[i].first) / v[i - 1].first);
            return (1 - x) * v[i - 1].second + x * v[i].second;
        }
    return v.back().second;
}

double hybrid_margin_of(const Machines& m) {
    std::vector<double> v;
    for (const auto& [key, p] : m.paths)
        if (p.miss >= 0) v.push_back(p.miss);
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    const std::size_t k = v.size();
    const double med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    return std::min(med, 0.999);
}

double min_gain_of(const Machines& m) { return m.hybrid_margin >= 0 ? m.hybrid_margin : split::kMinHybridGain; }

GpuSideParts gpu_side_parts(const Case& c, const Machines& m) {
    const Offloads ofs = offloads_of(c, m, m.chunks);
    GpuSideParts p;
    p.serial_ms = split::gpu_side(ofs.hybrid, m.links.h2d, m.links.d2h, 1).per_ms;
    p.pipelined_ms = split::gpu_side(ofs.hybrid, m.links.h2d, m.links.d2h, m.chunks).per_ms;
    for (double b : ofs.hybrid.in_whole) p.whole_ms += b > 0 ? m.links.h2d.predict(b) : 0;
    p.all_gpu_ms = split::all_gpu_ms(ofs.all, m.links.h2d, m.links.d2h);
    return p;
}

double hybrid_model_ms(const Case& c, const Machines& m, double f) { return hybrid_model_ms_at(c, m, f, m.chunks); }

double hybrid_model_ms_at(const Case& c, const Machines& m, double f, int chunks) {
    if (chunks < 1) throw std::invalid_argument("ch07 hybrid_model_ms_at: chunks (" + std::to_string(chunks) + ") must be >= 1");
    Sides s = sides_of(c, m, chunks);
    s.costs.residual_ms = 0;
    return split::hybrid_ms_at(s.cpu, s.gpu, s.costs, f);
}

const std::vector<std::string>& split_ops() {
    static const std::vector<std::string> ops{"gemv", "gemm", "symv", "conv2d", "cg"};
    return ops;
}

std::vector<int> default_sizes(const std::string& op, SizeSet set) {
    const bool sparse = set == SizeSet::normal;
    if (op == "gemv" || op == "symv") return set == SizeSet::quick ? std::vector<int>{256, 4096} : powers(64, 16384, sparse);
    if (op == "gemm") return set == SizeSet::quick ? std::vector<int>{64, 1024} : powers(16, 4096, sparse);
    if (op == "conv2d") return set == SizeSet::quick ? std::vector<int>{256, 2048} : powers(64, 8192, sparse);
    if (op == "cg") return set == SizeSet::quick ? std::vector<int>{256, 2048} : powers(256, 16384, sparse);
    unknown_op("ch07 default_sizes", op);
}

std::vector<int> default_filter_sizes() { return {3, 9}; }

Links h200_pinned_links() {
    const double inf = std::numeric_limits<double>::infinity();
    return {TransferModel(55.5, {{0, inf, 0, 0.010, 0}}), TransferModel(55.4, {{0, inf, 0, 0.010, 0}}),
            "assumed: chapter 0's pinned rates on the H200 (55.5 / 55.4 GB/s), 10 us set-up"};
}

Links measured_pinned_links() {
    const auto rows = lab::run_transfers(lab::Scale::quick);
    return {lab::fit_transfers(rows, true, true), lab::fit_transfers(rows, true, false),
            "fitted to this GPU's pinned copies (chapter 0's model)"};
}

namespace {
/// predict_case at the derived depth, at the run's margin.
CasePrediction predict_case_depth(const Case& c, const Machines& m) {
    // A depth is derived only where a chunk's cost was measured (the class's path, its calls in
    // K0 chunks dearer than in one: without that the model's chunks cost nothing and the deepest
    // would always win).
    const GpuPath* path = path_of(c, m);
    const bool chunk_cost = path && path->t0_chunked_ms > path->t0_ms;
    if (!m.derived_chunks || (!m.depth_any_share && !chunk_cost)) return predict_case_at(c, m, m.chunks);
    // The pipeline's depth, derived per call: the hybrid predicted at every depth of kDepths, the
    // fastest kept among those that give the GPU a share inside (0, 1) (a depth whose fixed cost
    // leaves the GPU no share predicts the single side, not a hybrid; none: the calibration's).
    // Where another bound sets the hybrid's time (the CPU's side, the host memory both read),
    // depths tie: then the one whose GPU side ends first at its share, the most room for that side
    // to run long.
    CasePrediction out;
    bool found = false;
    for (int k : kDepths) {
        const CasePrediction p = predict_case_at(c, m, k);
        if (!m.depth_any_share && !p.has_hybrid_share()) continue;
        const double tie = 1e-9 * out.split.hybrid_ms;
        if (!found || p.split.hybrid_ms < out.split.hybrid_ms - tie ||
            (p.split.hybrid_ms <= out.split.hybrid_ms + tie && p.gpu_side_ms < out.gpu_side_ms)) {
            out = p;
            found = true;
        }
    }
    return found ? out : predict_case_at(c, m, m.chunks);
}

/// p with the balanced rows' margin where the row runs the balanced call (Machines::balanced_margin).
CasePrediction with_balanced_margin(CasePrediction p, const Case& c, const Machines& m) {
    if (m.balanced_margin < 0 || !m.balanced || !p.split.splits()) return p;
    if (balanced_pieces(c, p.gpu_part, p.split.hybrid_ms, m) <= 1) return p;
    p.split = split::with_margin(p.split, m.balanced_margin);
    return p;
}
}  // namespace

CasePrediction predict_case(const Case& c, const Machines& m) {
    if (c.op == "cg") return predict_cg(c, m);
    return with_balanced_margin(predict_case_depth(c, m), c, m);
}

std::string depths_list() {
    std::string s;
    for (int k : kDepths) s += (s.empty() ? "" : ", ") + std::to_string(k);
    return s;
}

CasePrediction predict_case_at(const Case& c, const Machines& m, int chunks) {
    if (c.op == "cg") return predict_cg(c, m);
    if (chunks < 1) throw std::invalid_argument("ch07 predict_case_at: chunks (" + std::to_string(chunks) + ") must be >= 1");
    CasePrediction out;
    out.hybrid_kind = c.op == "gemm" ? "columns" : "rows";
    const Sides s = sides_of(c, m, chunks);
    out.split = split::predict(s.cpu, s.gpu, s.all_gpu_ms, s.costs);
    out.chunks = chunks;
    out.gpu_side_ms = s.gpu(out.split.gpu_share);
    out.cpu_model_ms = out.split.cpu_ms;
    out.gpu_part = split::gpu_rows(c.n, out.split.gpu_share, 1);
    return out;
}

bool has_balanced_call(const std::string& op) { return op == "gemv" || op == "gemm" || op == "symv" || op == "conv2d"; }

int balanced_pieces(const Case& c, int g, double hybrid_ms, const Machines& m) {
    if (!has_balanced_call(c.op) || g <= 0 || g >= c.n || (c.op == "symv" && !m.symv_balanced)) return 0;
    const double a_bytes = static_cast<double>(c.n) * c.n * static_cast<double>(c.elem);
    const int min_piece = c.op == "gemm"   ? hybrid::gemm_min_piece_cols(c.elem, m.cpu.gflops(c.elem), m.cpu.bandwidth_at(a_bytes))
                          : c.op == "gemv" ? hybrid::kGemvMinPieceCols
                                           : 1;
    return hybrid::balance_pieces(hybrid_ms, c.n - g, min_piece);
}

double cg_path_copies_ms(const Links& links, int n, std::size_t elem) {
    const double N = n, E = static_cast<double>(elem);
    return links.h2d.predict(N * N * E) + 2 * links.h2d.predict(N * E) + links.d2h.predict(N * E);
}

}  // namespace wb::ch07
