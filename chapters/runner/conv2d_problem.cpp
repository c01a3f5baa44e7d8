/// \file conv2d_problem.cpp
/// \brief Convolution problems: inputs, reference, checked call and timed call (conv2d_problem.hpp).
#include "conv2d_problem.hpp"

#include "error_norm.hpp"  // tolerance()
#include "random.hpp"
#include "reference_conv2d.hpp"
#include "roofline.hpp"
#include "time_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace wb {

std::string Conv2dShape::str() const {
    std::ostringstream os;
    os << rows << 'x' << cols << " FS=" << fs;
    const int tight = std::max(1, cols);
    if (in_pitch != 0 && in_pitch != tight) os << " in_pitch=" << in_pitch;
    if (out_pitch != 0 && out_pitch != tight) os << " out_pitch=" << out_pitch;
    if (offset != 0) os << " offset=" << offset;
    return os.str();
}

namespace {

template <class T>
ref::Conv2dOperands<T> operands(const Conv2dProblem<T>& p) {
    ref::Conv2dOperands<T> o;
    o.rows = p.shape.rows;
    o.cols = p.shape.cols;
    o.fs = p.shape.fs;
    o.in = &p.hin;
    o.in_pitch = p.shape.in_pitch;
    o.offset = static_cast<std::size_t>(p.shape.offset);
    o.filter = &p.hfilter;
    return o;
}

template <class T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

std::size_t array_size(int rows, int pitch, int offset) {
    return static_cast<std::size_t>(offset) + static_cast<std::size_t>(std::max(0, rows)) * pitch;
}

}  // namespace

template <class T>
Conv2dArgs<T> Conv2dProblem<T>::args() {
    Conv2dArgs<T> a;
    a.rows = shape.rows;
    a.cols = shape.cols;
    a.fs = shape.fs;
    a.in = in.size() == 0 ? nullptr : in.data() + shape.offset;
    a.in_pitch = shape.in_pitch;
    a.filter = filter.data();
    a.out = out.size() == 0 ? nullptr : out.data() + shape.offset;
    a.out_pitch = shape.out_pitch;
    return a;
}

template <class T>
double Conv2dProblem<T>::useful_flops() const {
    return roofline::conv_flops(shape.rows, shape.cols, shape.fs);
}

template <class T>
double Conv2dProblem<T>::useful_bytes() const {
    return roofline::conv_bytes(shape.rows, shape.cols, shape.fs, sizeof(T));
}

template <class T>
const std::vector<int>& Conv2dProblem<T>::checked_rows() const {
    if (rows_set_) return rows_;
    rows_set_ = true;
    const int rows = shape.rows;
    if (rows <= 0) return rows_;
    const double per_row = std::max(1.0, static_cast<double>(shape.cols) * shape.fs * shape.fs);
    if (per_row * rows <= 2147483648.0) {
        rows_.resize(rows);
        for (int r = 0; r < rows; ++r) rows_[r] = r;
        return rows_;
    }
    const int want = std::max(8, static_cast<int>(1073741824.0 / per_row));
    std::vector<int> all(rows);
    for (int r = 0; r < rows; ++r) all[r] = r;
    std::mt19937_64 g(seed ^ 0x9e3779b97f4a7c15ull);
    std::shuffle(all.begin() + 1, all.end() - 1, g);  // keep the first and the last row
    rows_.assign({0, rows - 1});
    for (int e = 1; e < rows - 1 && static_cast<int>(rows_.size()) < want; ++e) rows_.push_back(all[e]);
    std::sort(rows_.begin(), rows_.end());
    return rows_;
}

template <class T>
std::vector<double> Conv2dProblem<T>::reference() const {
    const auto& rows = checked_rows();
    if (rows.empty() || shape.cols <= 0) return {};
    std::vector<double> scale;
    std::vector<double> r = ref::conv2d_rows<T>(operands(*this), rows, false, &scale);
    if (!scale_set_) {
        scale_ = std::move(scale);
        scale_set_ = true;
    }
    return r;
}

template <class T>
const std::vector<double>& Conv2dProblem<T>::error_scale() const {
    if (!scale_set_) {
        scale_set_ = true;
        if (!checked_rows().empty() && shape.cols > 0) ref::conv2d_rows<T>(operands(*this), checked_rows(), false, &scale_);
    }
    return scale_;
}

template <class T>
Conv2dProblem<T> make_conv2d_problem(const Conv2dShape& s, std::uint64_t seed) {
    auto bad = [](const std::string& what) { throw std::invalid_argument("make_conv2d_problem: " + what); };
    if (s.rows < 0 || s.cols < 0)
        bad("rows, cols (" + std::to_string(s.rows) + ", " + std::to_string(s.cols) + ") must be >= 0");
    if (s.fs < 1 || s.fs % 2 == 0 || s.fs > kConv2dMaxFilter)
        bad("fs (" + std::to_string(s.fs) + ") must be odd, in [1, " + std::to_string(kConv2dMaxFilter) + "]");
    if (s.offset < 0) bad("offset (" + std::to_string(s.offset) + ") must be >= 0");
    Conv2dProblem<T> p;
    p.shape = s;
    p.seed = seed;
    const int tight = std::max(1, s.cols);
    auto resolve = [&](int pitch, const char* name) {
        if (pitch == 0) return tight;
        if (pitch < tight) bad(std::string(name) + " (" + std::to_string(pitch) + ") must be 0 or >= " + std::to_string(tight));
        return pitch;
    };
    p.shape.in_pitch = resolve(s.in_pitch, "in_pitch");
    p.shape.out_pitch = resolve(s.out_pitch, "out_pitch");
    const T nan = std::numeric_limits<T>::quiet_NaN();
    p.hin = random_vector<T>(array_size(s.rows, p.shape.in_pitch, s.offset), seed);
    for (int e = 0; e < s.offset && e < static_cast<int>(p.hin.size()); ++e) p.hin[e] = nan;
    for (int r = 0; r < s.rows; ++r)
        for (int c = s.cols; c < p.shape.in_pitch; ++c)
            p.hin[s.offset + static_cast<std::size_t>(r) * p.shape.in_pitch + c] = nan;
    p.hfilter = random_vector<T>(static_cast<std::size_t>(s.fs) * s.fs, seed + 1);
    p.in = DeviceBuffer<T>(p.hin);
    p.filter = DeviceBuffer<T>(p.hfilter);
    p.out = DeviceBuffer<T>(array_size(s.rows, p.shape.out_pitch, s.offset));
    return p;
}

std::size_t conv2d_reduction_length(const std::string& stage, int rows, int cols, int fs) {
    std::size_t k = static_cast<std::size_t>(fs) * fs;
    if (stage == "cufft" || stage == "cudnn") {
        const double n = std::max(2.0, (static_cast<double>(rows) + fs) * (static_cast<double>(cols) + fs));
        const double t = 2.0 * std::log2(n);
        k = std::max(k, static_cast<std::size_t>(t * t));
    }
    return k;
}

template <class T>
CheckResult check_conv2d(const Step<Conv2dArgs<T>>& step, const Conv2dLaunch& launch, Conv2dProblem<T>& p,
                         const std::vector<double>& ref) {
    const Conv2dShape& s = p.shape;
    p.out.fill_bytes(0xFF);  // NaN everywhere: an output not written fails
    step.launch(p.args(), launch, nullptr);
    WB_CUDA(cudaDeviceSynchronize());
    const std::vector<T> all = p.out.download();
    const T poison = [] {
        T v;
        std::memset(&v, 0xFF, sizeof v);
        return v;
    }();
    // Outside the rows x cols window nothing may change (nothing at all with an empty image).
    const bool empty = s.rows == 0 || s.cols == 0;
    auto inside = [&](std::size_t e) {
        if (empty || e < static_cast<std::size_t>(s.offset)) return false;
        return (e - s.offset) % s.out_pitch < static_cast<std::size_t>(s.cols);
    };
    for (std::size_t e = 0; e < all.size(); ++e)
        if (!inside(e) && !same_bits(all[e], poison)) {
            CheckResult c;
            c.rel_error = INFINITY;
            c.first_bad = "element " + std::to_string(e) + " of the output array lies outside the " +
                          std::to_string(s.rows) + " x " + std::to_string(s.cols) + " image (out_pitch " +
                          std::to_string(s.out_pitch) + ", offset " + std::to_string(s.offset) + ") and was written";
            return c;
        }
    const std::size_t k = conv2d_reduction_length(step.stage, s.rows, s.cols, s.fs);
    if (empty) return CheckResult{0, tolerance<T>(k), ""};
    const auto& rows = p.checked_rows();
    std::vector<T> out(rows.size() * static_cast<std::size_t>(s.cols));
    for (std::size_t q = 0; q < rows.size(); ++q)
        for (int c = 0; c < s.cols; ++c)
            out[q * s.cols + c] = all[s.offset + static_cast<std::size_t>(rows[q]) * s.out_pitch + c];
    return compare_output<T>(out, ref, p.error_scale(), k);
}

template <class T>
BenchStats time_conv2d(const Step<Conv2dArgs<T>>& step, const Conv2dLaunch& launch, Conv2dProblem<T>& p,
                       BenchOptions opt) {
    return time_step(step, launch, p.args(), p.useful_bytes(), opt);
}

template struct Conv2dProblem<float>;
template struct Conv2dProblem<double>;
template Conv2dProblem<float> make_conv2d_problem<float>(const Conv2dShape&, std::uint64_t);
template Conv2dProblem<double> make_conv2d_problem<double>(const Conv2dShape&, std::uint64_t);
template CheckResult check_conv2d<float>(const Step<Conv2dArgs<float>>&, const Conv2dLaunch&, Conv2dProblem<float>&,
                                         const std::vector<double>&);
template CheckResult check_conv2d<double>(const Step<Conv2dArgs<double>>&, const Conv2dLaunch&,
                                          Conv2dProblem<double>&, const std::vector<double>&);
template BenchStats time_conv2d<float>(const Step<Conv2dArgs<float>>&, const Conv2dLaunch&, Conv2dProblem<float>&,
                                       BenchOptions);
template BenchStats time_conv2d<double>(const Step<Conv2dArgs<double>>&, const Conv2dLaunch&, Conv2dProblem<double>&,
                                        BenchOptions);

MemoryNeed conv2d_memory_need(std::size_t elem, const Conv2dShape& sh) {
    const double s = static_cast<double>(elem);
    const double rows = std::max(0, sh.rows), cols = std::max(0, sh.cols), fs = std::max(1, sh.fs);
    auto image = [&](int pitch) { return s * (sh.offset + rows * (pitch > 0 ? pitch : std::max(1.0, cols))); };
    const double in = image(sh.in_pitch), out = image(sh.out_pitch);
    const double padded = s * (rows + fs) * (cols + fs);
    constexpr double kPeerPaddedImages = 2;  // the chapter-0 peer's (NPP: a bordered image and output)
    // checked_rows(): every row while rows cols FS^2 <= 2^31, else about 2^30 / (cols FS^2) rows.
    const double per_row = std::max(1.0, cols * fs * fs);
    const double checked = per_row * rows <= 2147483648.0 ? rows : std::min(rows, std::max(8.0, 1073741824.0 / per_row));
    MemoryNeed need;
    need.device_bytes = in + out + s * fs * fs + (rows > 0 && cols > 0 ? kPeerPaddedImages * padded : 0);
    need.host_bytes = in + out + s * fs * fs + (s + 2 * 8.0) * checked * cols;
    return need;
}

}  // namespace wb
