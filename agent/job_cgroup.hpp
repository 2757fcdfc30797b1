#pragma once
/// [io] What a job started on this node, found and ended at the end of each attempt and of
/// the agent, whatever it did to get away (setsid, double fork): docs/reliability.md.
///  * The agent is a child subreaper (PR_SET_CHILD_SUBREAPER): an orphaned descendant of a
///    rank becomes the agent's child, not init's; sweep_strays() kills and reaps them.
///  * Where the agent may create a cgroup v2 directory under its own (root, or a delegated
///    subtree), every rank starts in a fresh one for the agent's life (`procs_fd()` is written
///    by the rank before exec); kill_all() ends everything in it with cgroup.kill, even a
///    process that is no longer our descendant. MPILAUNCH_CGROUP=off leaves cgroups alone.

#include <sys/types.h>

#include <string>
#include <vector>

namespace mpilaunch::agent {

class JobCgroup {
 public:
  JobCgroup() = default;
  ~JobCgroup();
  JobCgroup(const JobCgroup&) = delete;
  JobCgroup& operator=(const JobCgroup&) = delete;

  /// Makes this process a child subreaper, then tries to create `name` under its cgroup.
  void start(const std::string& name);
  /// The new cgroup's cgroup.procs, open for writing, or -1 where there is none.
  int procs_fd() const { return procs_fd_; }
  const std::string& dir() const { return dir_; }
  /// Kills everything in the cgroup (cgroup.kill, else each pid in cgroup.procs), then every
  /// child of this process not in `keep`, and reaps what it killed. Returns how many
  /// processes it found left.
  int kill_all(const std::vector<pid_t>& keep);
  /// kill_all(), then removes the cgroup directory.
  void remove();

 private:
  /// Removes the cgroups under `parent` that agents killed before their end left behind.
  static void remove_stale(const std::string& parent);

  std::string dir_;
  int procs_fd_ = -1;
};

}  // namespace mpilaunch::agent
