#pragma once
/// A command running in the background (its own process group, output to files), for tests
/// that must act on a job while it runs: signal the launcher, kill it, kill an agent.

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "tests/e2e/support/command.hpp"

namespace mpilaunch::e2e {

class Background {
 public:
  /// Starts `command`; stdout and stderr go to `out_path` and `err_path`.
  Background(const Command& command, const std::string& out_path, const std::string& err_path);
  ~Background();  // SIGKILLs the group if still running
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  pid_t pid() const { return pid_; }
  /// Waits for the exit, at most `deadline`; the wait status's shell view (code or 128+signal),
  /// or nullopt when it is still running.
  std::optional<int> wait(Millis deadline);

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

/// Polls `condition` every few milliseconds until it holds or `deadline` passes.
bool eventually(const std::function<bool()>& condition, Millis deadline);

}  // namespace mpilaunch::e2e
