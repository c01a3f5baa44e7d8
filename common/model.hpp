/// \file model.hpp
/// \brief Execution metrics and performance models (architecture §6): "predict before you measure".
///
/// An umbrella header: each model is its own file under common/model/, and including this one
/// includes them all (namespace wb::model):
///  - model/occupancy.hpp: occupancy with allocation granularity, grid metrics (total, active and
///    fragmented threads and blocks, waves; White §3.3.2-3.3.3), the launch overhead;
///  - model/memory.hpp: transactions of one warp request (half-warp segments on `t10`, 32-byte
///    sectors today), global-memory partitions, shared-memory bank conflicts, Little's law;
///  - model/gemv.hpp: the GEMV prediction of each ladder stage;
///  - model/gemm.hpp, model/symv.hpp, model/conv2d.hpp: the GEMM, SYMV and convolution
///    predictions of each ladder stage;
///  - model/white.hpp: White's closed forms and launch derivations on the T10 (Eq. 3.2-3.6,
///    4.24, 4.41, 5.19), which the unit tests reproduce.
/// Everything is plain host arithmetic on a DeviceProfile (a live GPU or a preset), so it runs
/// and is unit-tested on machines without a GPU.
#pragma once

#include "model/occupancy.hpp"
#include "model/memory.hpp"
#include "model/gemv.hpp"
#include "model/white.hpp"
#include "model/gemm.hpp"
#include "model/symv.hpp"
#include "model/conv2d.hpp"
