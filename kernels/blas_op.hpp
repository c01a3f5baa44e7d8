/// \file blas_op.hpp
/// \brief The BLAS transpose flag, shared by every linear-algebra op (GEMV, GEMM, SYMV, CG).
#pragma once

#include <string>

namespace wb {

/// op(A) = A (N) or A^T (T), as in BLAS and cuBLAS.
enum class Op { N, T };

/// "N"/"n" -> N, "T"/"t" -> T; anything else throws std::invalid_argument naming `arg`.
Op parse_op(const std::string& s, const char* arg = "op");
inline char op_char(Op op) { return op == Op::N ? 'N' : 'T'; }

}  // namespace wb
