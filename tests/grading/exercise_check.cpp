// What the five ops' exercise checks share (exercise_check.hpp).
#include "exercise_check.hpp"

#include "bench.hpp"
#include "error_norm.hpp"

#include <cstring>

namespace wb::grade::test {

std::string compare_output(const std::vector<float>& out, const std::vector<bool>& is_entry,
                           const std::vector<double>& ref, double tol,
                           const std::function<std::string(std::size_t)>& where) {
    std::vector<float> got;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (is_entry[i]) {
            got.push_back(out[i]);
        } else if (std::memcmp(&out[i], &kSentinel, sizeof(float)) != 0) {
            return "wrote " + where(i);
        }
    }
    if (!(wb::relative_error(got, ref) <= tol)) return "wrong values: " + wb::first_bad_element(got, ref, tol);
    return "";
}

std::string check_guard(const std::vector<float>& buf, std::size_t from, const std::string& name) {
    for (std::size_t i = from; i < buf.size(); ++i)
        if (std::memcmp(&buf[i], &kSentinel, sizeof(float)) != 0)
            return "wrote outside " + name + " (index " + std::to_string(i) + ", past its end)";
    return "";
}

double median_ms(const std::function<void(cudaStream_t)>& launch) {
    wb::BenchOptions opt;
    opt.warmup = 1;
    opt.min_reps = 3;
    opt.max_reps = 20;
    return wb::benchmark(launch, opt).median_ms;
}

}  // namespace wb::grade::test
