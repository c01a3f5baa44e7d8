// cpu_common.cpp — what every CPU peer shares: whether CBLAS is in, how many threads run.
#include "cpu_peers.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace wb::cpu {

bool have_cblas() {
#if defined(WB_HAVE_CBLAS)
    return true;
#else
    return false;
#endif
}

int threads() {
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

}  // namespace wb::cpu
