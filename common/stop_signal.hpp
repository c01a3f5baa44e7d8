/// \file stop_signal.hpp
/// \brief A run stopped with Ctrl-C (SIGINT) or SIGTERM keeps what it measured: the handler only
///        records the signal (async-signal-safe), the chapter loop looks at it between
///        measurements, writes the rows measured so far (the CSV marked incomplete), leaves the
///        GPU idle and exits with 128 + the signal (130, 143). A second signal ends the process
///        at once (the handler is reset after the first).
#pragma once

namespace wb {

/// Installs the handler for SIGINT and SIGTERM (once per process; again after clear_stop()).
void install_stop_handlers();
/// The signal that asked the run to stop (SIGINT, SIGTERM), or 0.
int stop_signal();
/// Forgets a recorded signal (tests; a new run in the same process).
void clear_stop();
/// The exit code of a run stopped by `sig`: 128 + sig (130 for SIGINT, 143 for SIGTERM).
inline int stop_exit_code(int sig) { return 128 + sig; }
/// "SIGINT", "SIGTERM", or "a signal".
const char* stop_signal_name(int sig);

}  // namespace wb
