#pragma once
/// [io] Forks ranks into their own process groups, owns SIGCHLD and reaps them.
/// A rank dies with its agent (parent-death signal); exec failures come back as Errors.
/// An ended rank stays a zombie until release_ended(): as long as its pid is not reused, its
/// process group can still be signalled, so whatever the rank left running (a child holding
/// its output, a helper) goes with the job's teardown instead of outliving it.

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
  std::string argv0;              // the argv[0] the rank sees, when not argv[0] (empty)
  std::vector<std::string> env;
  std::string wdir;          // empty: the agent's own
  std::string exec_path;     // --path: directories searched for argv[0] before PATH
  int inherit_fd = -1;       // a close-on-exec descriptor the rank keeps, same number (PMI_FD)
  int cgroup_procs_fd = -1;  // the job's cgroup.procs (agent/job_cgroup.hpp): joined before exec
  std::string cpus;          // CPUs (kernel list of OS indexes) to bind the rank to; empty: unbound
  bool stdin_pipe = false;   // stdin is a fresh pipe (SpawnedChild::stdin_fd), not /dev/null
  /// stdout is a pseudo-terminal, as under mpirun (C stdio line-buffers it): the rank gets the
  /// slave side, set as mpirun sets it (no newline translation, no echo), not as controlling
  /// terminal; the caller reads the master. When no pty can be had, a pipe instead
  /// (SpawnedChild::pty_refusal says why).
  bool stdout_pty = false;
  /// The rank's descriptor 2 is its stdout (pipe or pty) too, as Open MPI's
  /// iof_base_redirect_app_stderr_to_stdout makes it under mpirun; the stderr pipe then only
  /// ends.
  bool stderr_to_stdout = false;
};

struct SpawnedChild {
  pid_t pid = -1;
  int stdout_fd = -1;  // read ends (a pty's master for a pty), owned by the caller; a pty's
                       // master reads EIO, not 0, once every slave descriptor is closed
  int stderr_fd = -1;
  int stdin_fd = -1;        // the write end of the rank's stdin pipe, when asked for; the caller's
  int exec_status_fd = -1;  // closes when the exec succeeded; confirm_exec() reads it
  std::string program;      // as the user wrote it, for the exec error
  std::string wdir;
  bool stdout_is_pty = false;
  std::string pty_refusal;  // stdout_pty asked for and a pipe given: why (errno text)
};

class ChildSet {
 public:
  using ReapHandler = std::function<void(pid_t pid, ExitReason reason)>;
  ChildSet(asio::io_context& io, ReapHandler on_reaped);

  /// Forks one rank, which execs with stdout (a pty when asked) and stderr on fresh pipes. The rank
  /// is in its own process group, has /dev/null (or a pipe, when asked) as stdin and is killed if
  /// the agent dies. Returns at once: several ranks exec at the same time; confirm_exec() says
  /// whether this one did.
  Result<SpawnedChild> spawn(const SpawnRequest& request);
  /// Waits until `child` has exec'd or failed to. On failure its pipes are closed and the Error
  /// says why, without host or rank (the caller's to add); its exit is reaped like any other
  /// and callers ignore that pid.
  Status confirm_exec(SpawnedChild& child);
  /// Sends `signal` to the process group of every child, ended ones included.
  void signal_all(int signal);
  /// SIGKILLs what is left of ended children's process groups and reaps them: at the end of an
  /// attempt and of the agent.
  void release_ended();
  std::size_t running() const { return children_.size(); }
  /// Reports every child that has ended by now, without waiting for SIGCHLD's turn on the loop.
  void reap();
  /// Whether `pid` is already on its way out (the kernel's PF_EXITING, set as exit begins and
  /// before its sockets and pipes close) or a zombie: its end is its own, not a signal's we
  /// send now.
  static bool exiting(pid_t pid);

 private:
  void wait_for_sigchld();

  asio::signal_set sigchld_;
  ReapHandler on_reaped_;
  std::map<pid_t, std::uint32_t> children_;  // pid -> rank, still running
  std::vector<pid_t> ended_;                 // zombies kept to pin their process groups
};

}  // namespace mpilaunch::agent
