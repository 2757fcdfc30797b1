#pragma once
/// Runs one command to completion with a deadline, capturing its stdout and stderr. The command
/// gets its own process group; at the deadline the whole group is SIGKILLed and the outcome says
/// so, so a hung command can fail a test but never hang it.

#include <chrono>
#include <string>
#include <vector>

namespace mpilaunch::e2e {

using Millis = std::chrono::milliseconds;

struct Command {
  std::vector<std::string> argv;  // argv[0] is a path: no PATH lookup
  std::vector<std::string> env;   // the whole environment, "NAME=value" each
  std::string stdin_text;         // written to the command's stdin, which is then closed
  int stdin_fd = -1;  // else the command's stdin is this descriptor of the test's (which keeps it)
  std::string cwd;    // empty: the test's own
  Millis deadline{60'000};
  // After the command exits, how long its stdout/stderr may stay open (held by children).
  Millis pipe_grace{3'000};
};

struct Outcome {
  std::string out, err;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal killed it
  bool timed_out = false;
  bool pipes_left_open = false;  // a process it left behind still held its stdout or stderr
  Millis elapsed{0};

  /// The shell's view: the exit code, or 128+signal.
  int status() const { return signal != 0 ? 128 + signal : exit_code; }
  /// One line for failure messages: status, time and the tail of stderr.
  std::string summary() const;
};

Outcome run(const Command& command);

/// The test's environment minus variables that would leak an outer MPI job or launcher into the
/// command (OMPI_*, PMIX_*, PMI_*, MPILAUNCH_*), plus `extra` ("NAME=value" each, last one wins).
std::vector<std::string> clean_environment(const std::vector<std::string>& extra);

// In a forked child (async-signal-safe): makes in, out and err descriptors 0, 1 and 2. One of
// them may already be its slot when the test started with that descriptor closed (CI has no
// stdin); dup2 onto itself would keep its close-on-exec flag, so that flag is cleared instead.
void install_standard_descriptors(int in, int out, int err);

}  // namespace mpilaunch::e2e
