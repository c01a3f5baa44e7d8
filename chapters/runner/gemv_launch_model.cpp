// gemv_launch_model.cpp — the model's time of one tuned GEMV launch (gemv_launch_model.hpp).
//
// The model sees the whole launch, as the tuned launcher runs it: the kernel it picks (32 lanes
// per column, short columns or looping for T; 16-byte or element loads for N), the block's
// shape, the columns per block or the unroll, and the blocks per tile the launcher derives where
// the launch leaves Y at 0. A model that saw only the block's threads would predict a 256 x 1
// block of 4 tiles (4 SMs busy, 2048 dependent round trips each) like a 16 x 16 one of 256 tiles.
#include "gemv_launch_model.hpp"

#include "gemv_problem.hpp"
#include "model/gemv.hpp"
#include "stage.hpp"

namespace wb {

double gemv_launch_ms(const DeviceProfile& dev, const GemvShape& s, const GemvLaunch& in) {
    const GemvLaunch l = check_tuned_gemv_launch(s.op, in.block_x > 0 ? in : gemv_derived_launch(dev, s),
                                                 "gemv_launch_ms");
    if (l.block_x * l.block_y > dev.max_threads_per_block) return -1;
    return model::predict_gemv(Stage::kTuned, s.op == Op::T, s.m, s.n, s.elem_bytes, gemv_model_launch_of(l, s, dev), dev)
        .predicted_ms;
}

}  // namespace wb
