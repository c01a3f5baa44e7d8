/// \file model.hpp
/// \brief Execution metrics and performance models (architecture §6): "predict before you measure".
///
/// The op-independent models, each its own file under common/model/ (namespace wb::model):
///  - model/occupancy.hpp: occupancy with allocation granularity, grid metrics (total, active and
///    fragmented threads and blocks, waves; White §3.3.2-3.3.3), the launch overhead;
///  - model/memory.hpp: transactions of one warp request (half-warp segments on `t10`, 32-byte
///    sectors today), global-memory partitions, shared-memory bank conflicts, Little's law;
///  - model/white.hpp: White's closed forms and launch derivations on the T10 (Eq. 3.2-3.6,
///    4.24, 4.41, 5.19), which the unit tests reproduce.
/// Each op's prediction is the op's own file, `model/<op>.hpp`, included by whoever predicts that
/// op: this header lists no ops (the one list of ops is WB_OPS, chapters/runner/ops.hpp).
/// Everything is plain host arithmetic on a DeviceProfile (a live GPU or a preset), so it runs
/// and is unit-tested on machines without a GPU.
#pragma once

#include "model/occupancy.hpp"
#include "model/memory.hpp"
#include "model/white.hpp"
