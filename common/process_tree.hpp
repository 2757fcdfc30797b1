#pragma once
/// [io] A process and its descendants, read from Linux's /proc/PID/task/TID/children.

#include <sys/types.h>

#include <cstddef>
#include <vector>

namespace mpilaunch {

/// `pid` first, then its descendants, parents before their children; at most `limit` in all.
/// A process that forks or ends meanwhile may be missed: callers that must catch every one stop
/// (SIGSTOP) what they found and look again.
std::vector<pid_t> process_tree(pid_t pid, std::size_t limit = 4096);

}  // namespace mpilaunch
