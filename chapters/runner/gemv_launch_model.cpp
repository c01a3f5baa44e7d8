// gemv_launch_model.cpp — the model's time of one tuned GEMV launch (gemv_launch_model.hpp).
#include "gemv_launch_model.hpp"

#include "model/gemv.hpp"
#include "stage.hpp"

#include <algorithm>

namespace wb {

double gemv_launch_ms(const DeviceProfile& dev, const GemvShape& shape, const GemvLaunch& l) {
    const bool trans = shape.op == Op::T;
    const int wl = tuned_gemv_rows_per_load(shape);
    const int per = trans ? 2 * (std::max(1, l.nb) + 1) : 2 * std::max(1, l.ept);
    const int threads = std::max(1, l.block_x) * std::max(1, l.block_y);
    if (threads > dev.max_threads_per_block) return -1;
    model::GemvStageDesign d = model::gemv_stage_design(Stage::kTuned, trans, shape.elem_bytes, threads, dev);
    d.loads_in_flight = per * wl;
    return model::predict_gemv(d, trans, shape.m, shape.n, shape.elem_bytes, threads, dev).predicted_ms;
}

}  // namespace wb
