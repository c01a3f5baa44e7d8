/// \file blas_types.cpp
/// \brief Parsing of the BLAS flags (blas_types.hpp).
#include "blas_types.hpp"

#include <cctype>
#include <stdexcept>

namespace wb {

Op parse_op(const std::string& s, const char* arg) {
    if (s == "N" || s == "n") return Op::N;
    if (s == "T" || s == "t") return Op::T;
    throw std::invalid_argument(std::string(arg) + " (\"" + s + "\") must be N or T");
}

Uplo parse_uplo(const std::string& s, const char* arg) {
    std::string l;
    for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == "l" || l == "lower") return Uplo::Lower;
    if (l == "u" || l == "upper") return Uplo::Upper;
    throw std::invalid_argument(std::string(arg) + " (\"" + s + "\") must be L (lower) or U (upper)");
}

}  // namespace wb
