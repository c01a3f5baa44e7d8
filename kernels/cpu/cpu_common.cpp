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

ScopedOmpThreads::ScopedOmpThreads(int n) {
#if defined(_OPENMP)
    before_ = omp_get_max_threads();
    omp_set_num_threads(n < 1 ? 1 : n);
#else
    (void)n;
#endif
}

ScopedOmpThreads::~ScopedOmpThreads() {
#if defined(_OPENMP)
    omp_set_num_threads(before_);
#endif
}

}  // namespace wb::cpu
