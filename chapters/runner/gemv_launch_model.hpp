/// \file gemv_launch_model.hpp
/// \brief The GEMV model's time for one launch of the tuned step on one call: what chapter 6
///        prints beside the derived launch and ranks every swept launch with (Spearman's rho).
#pragma once

#include "device_profile.hpp"
#include "gemv_launch.hpp"
#include "gemv_rules.hpp"

namespace wb {

/// The model's time (ms) of the tuned GEMV running `l` on call `s` (common/model/gemv.hpp);
/// negative where the launch's block cannot exist on `dev`.
double gemv_launch_ms(const DeviceProfile& dev, const GemvShape& s, const GemvLaunch& l);

}  // namespace wb
