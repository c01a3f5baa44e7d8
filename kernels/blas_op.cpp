/// \file blas_op.cpp
/// \brief Parsing of the BLAS transpose flag (blas_op.hpp).
#include "blas_op.hpp"

#include <stdexcept>

namespace wb {

Op parse_op(const std::string& s, const char* arg) {
    if (s == "N" || s == "n") return Op::N;
    if (s == "T" || s == "t") return Op::T;
    throw std::invalid_argument(std::string(arg) + " (\"" + s + "\") must be N or T");
}

}  // namespace wb
