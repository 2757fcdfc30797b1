#pragma once
/// [io] Forks ranks into their own process groups, owns SIGCHLD and reaps them.
/// A rank dies with its agent (parent-death signal); exec failures come back as Errors.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "common/executable_path.hpp"
#include "common/exit_reason.hpp"
#include "common/result.hpp"

namespace mpilaunch::agent {

struct SpawnRequest {
  std::uint32_t rank = 0;
  std::vector<std::string> argv;  // argv[0] is the program as the user wrote it
  std::vector<std::string> env;
  std::string wdir;     // empty: the agent's own
  int inherit_fd = -1;  // a close-on-exec descriptor the rank keeps, same number (PMI_FD)
};

struct SpawnedChild {
  pid_t pid = -1;
  int stdout_fd = -1;  // read ends, owned by the caller
  int stderr_fd = -1;
};

class ChildSet {
 public:
  using ReapHandler = std::function<void(pid_t pid, ExitReason reason)>;
  ChildSet(asio::io_context& io, ReapHandler on_reaped);

  /// Forks and execs one rank with stdout/stderr on fresh pipes. The rank is in its own
  /// process group, has /dev/null as stdin and is killed if the agent dies.
  Result<SpawnedChild> spawn(const SpawnRequest& request);
  /// Sends `signal` to the process group of every child not yet reaped.
  void signal_all(int signal);
  std::size_t running() const { return children_.size(); }

 private:
  void wait_for_sigchld();
  void reap();

  asio::signal_set sigchld_;
  ReapHandler on_reaped_;
  std::map<pid_t, std::uint32_t> children_;  // pid -> rank
};

}  // namespace mpilaunch::agent
