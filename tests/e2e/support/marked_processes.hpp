#pragma once
/// Processes found by a marker in their environment: every process of a job inherits the
/// launcher's MPILAUNCH_E2E_MARK=<random>, so any such process alive after the launcher
/// exited was left behind.

#include <sys/types.h>

#include <string>
#include <vector>

namespace mpilaunch::e2e {

inline constexpr const char* kMarkVariable = "MPILAUNCH_E2E_MARK";

struct MarkedProcess {
  pid_t pid = 0;
  std::string command;  // /proc/PID/cmdline, arguments joined by spaces
};

/// Live processes whose /proc/PID/environ holds exactly MPILAUNCH_E2E_MARK=`mark`. Zombies have
/// no readable environment, so they are not listed.
std::vector<MarkedProcess> marked_processes(const std::string& mark);

/// "pid command" lines, for a failure message.
std::string describe(const std::vector<MarkedProcess>& processes);

/// SIGKILLs every process marked with `mark` (cleanup after a failed test).
void kill_marked(const std::string& mark);

/// A marker unlikely to collide with another test run's.
std::string random_mark();

}  // namespace mpilaunch::e2e
