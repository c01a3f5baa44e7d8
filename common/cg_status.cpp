/// \file cg_status.cpp
/// \brief The names of CG's outcomes (cg_status.hpp).
#include "cg_status.hpp"

namespace wb {

const char* cg_status_name(CgStatus s) {
    switch (s) {
        case CgStatus::Converged: return "converged";
        case CgStatus::MaxIter: return "max_iter";
        case CgStatus::Breakdown: return "breakdown";
    }
    return "?";
}

}  // namespace wb
