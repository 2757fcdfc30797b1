#pragma once
/// ExitReason = Exited{code} | Signaled{signal, core_dumped}: a wait status as a value.

#include <sys/wait.h>

#include <variant>

namespace mpilaunch {

struct Exited {
  int code = 0;
  friend bool operator==(const Exited&, const Exited&) = default;
};
struct Signaled {
  int signal = 0;
  bool core_dumped = false;
  friend bool operator==(const Signaled&, const Signaled&) = default;
};
using ExitReason = std::variant<Exited, Signaled>;

/// Converts a waitpid() status of a terminated child (WIFEXITED or WIFSIGNALED).
inline ExitReason exit_reason_from_wait_status(int status) {
  if (WIFSIGNALED(status)) return Signaled{WTERMSIG(status), WCOREDUMP(status) != 0};
  return Exited{WEXITSTATUS(status)};
}

}  // namespace mpilaunch
