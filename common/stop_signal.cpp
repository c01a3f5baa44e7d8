// stop_signal.cpp — the stop flag set by SIGINT/SIGTERM (declared in stop_signal.hpp).
#include "stop_signal.hpp"

#include <csignal>

namespace wb {

namespace {

volatile std::sig_atomic_t g_stop = 0;

void record_stop(int sig) { g_stop = sig; }  // the only thing a handler may safely do

}  // namespace

void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = record_stop;
    sigemptyset(&sa.sa_mask);
    // SA_RESETHAND: the first signal asks the loop to stop cleanly; a second one (a user who does
    // not want to wait for the measurement in flight) takes the default action and ends the process.
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

int stop_signal() { return g_stop; }

void clear_stop() { g_stop = 0; }

const char* stop_signal_name(int sig) {
    if (sig == SIGINT) return "SIGINT";
    if (sig == SIGTERM) return "SIGTERM";
    return "a signal";
}

}  // namespace wb
