/// \file ops.hpp
/// \brief The list of ops (see docs/pages/architecture.md). Registering an op is one line in
///        WB_OPS below; the op supplies `make_op_chapter_<op>()` in `chapters/runner/<op>_op.cpp`.
///        The chapter binaries, --op and the scripts that ask the binaries (--list-ops) follow it.
#pragma once

#include "op_chapter.hpp"

#include <memory>
#include <string>
#include <vector>

/// Every op, in the order the chapters show them.
#define WB_OPS(X) \
    X(gemv)       \
    X(gemm)       \
    X(conv2d)     \
    X(symv)       \
    X(cg)

namespace wb {

#define WB_DECLARE_OP(name) std::unique_ptr<OpChapter> make_op_chapter_##name();
WB_OPS(WB_DECLARE_OP)
#undef WB_DECLARE_OP

/// The registered ops, built once.
const std::vector<std::unique_ptr<OpChapter>>& registered_ops();

/// The ops `--op` names ("all" or a comma list such as "gemv,gemm"); throws
/// std::invalid_argument naming an unknown op and listing the known ones.
std::vector<const OpChapter*> select_ops(const std::string& list);

/// "gemv, gemm": the names of the registered ops.
std::string op_names();

}  // namespace wb
