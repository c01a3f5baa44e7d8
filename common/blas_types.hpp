/// \file blas_types.hpp
/// \brief The BLAS vocabulary every linear-algebra op shares (GEMV, GEMM, SYMV, CG): the transpose
///        flag and the stored triangle. Here in common/ because the float64 references (common/)
///        and the kernels (kernels/) both speak it, and common/ includes nothing from kernels/
///        (the architecture page, "Layers").
#pragma once

#include <string>

namespace wb {

/// op(A) = A (N) or A^T (T), as in BLAS and cuBLAS.
enum class Op { N, T };

/// "N"/"n" -> N, "T"/"t" -> T; anything else throws std::invalid_argument naming `arg`.
Op parse_op(const std::string& s, const char* arg = "op");
inline char op_char(Op op) { return op == Op::N ? 'N' : 'T'; }

/// Which triangle of A is stored (and read), as BLAS's uplo.
enum class Uplo { Lower, Upper };

/// "L"/"l"/"lower" -> Lower, "U"/"u"/"upper" -> Upper; anything else throws std::invalid_argument
/// naming `arg`.
Uplo parse_uplo(const std::string& s, const char* arg = "uplo");
inline char uplo_char(Uplo u) { return u == Uplo::Lower ? 'L' : 'U'; }

}  // namespace wb
