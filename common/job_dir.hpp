#pragma once
/// [io] A job's directory on one machine (`<base>/mpilaunch-<uid>-<job>`, docs/reliability.md):
/// created mode 0700, and held, for as long as a launcher or agent of the job lives, by a
/// shared flock on its `owner.lock`. A directory whose lock nobody holds belongs to a job whose
/// processes are all gone (killed with SIGKILL, a crashed machine's /dev/shm is not kept, but
/// a container's may be): the next launcher or agent of the same user on that machine removes
/// it at its start.

#include <string>

#include "common/result.hpp"

namespace mpilaunch {

/// Where a machine's job directories go: $MPILAUNCH_TMPDIR, else /dev/shm (tmpfs, where Open
/// MPI's shared-memory segments belong), else $TMPDIR, else /tmp.
std::string job_dir_base();

/// The file whose flock marks a job directory as owned.
inline constexpr const char* kJobDirLock = "owner.lock";

/// Holds a job directory: creates it (0700; an existing one must be a directory of ours that
/// no one else can enter) and takes a shared flock on its lock file, kept until destruction.
class JobDirHold {
 public:
  JobDirHold() = default;
  ~JobDirHold();
  JobDirHold(JobDirHold&& other) noexcept;
  JobDirHold& operator=(JobDirHold&& other) noexcept;
  JobDirHold(const JobDirHold&) = delete;
  JobDirHold& operator=(const JobDirHold&) = delete;

  static Result<JobDirHold> take(const std::string& dir);
  /// Removes the lock file, a killed launcher's request socket and the directory when this is
  /// the last holder and the directory is otherwise empty (an agent's end); the hold is
  /// released either way.
  void release_and_remove_if_last();
  bool held() const { return fd_ >= 0; }

 private:
  std::string dir_;
  int fd_ = -1;
};

/// Removes every `<base>/mpilaunch-<uid>-*` directory of this user that is stale: its lock file
/// is unheld and older than a few seconds (so a job still creating its directory is never
/// taken). Directories of other users, and anything that is not such a directory, are left
/// alone. Returns how many were removed.
int remove_stale_job_dirs(const std::string& base);

}  // namespace mpilaunch
