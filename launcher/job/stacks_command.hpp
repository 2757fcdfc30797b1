#pragma once
/// [io] `mpilaunch stacks [--json] [JOB]`: asks a running job's launcher, on this machine, for
/// every rank's stack, merged (launcher/job/control_socket.hpp), and prints the tree (or the
/// whole document with --json). JOB is the job's id, its --status file or its --events file;
/// without it, the only running job of this user here. Every wait is bounded.

#include <string>
#include <vector>

namespace mpilaunch::launcher {

/// Returns the exit status: 0 printed, 1 the job answered without stacks (not running any
/// more), 64 bad usage, 66 no such job here, 69 its launcher did not answer.
int run_stacks(const std::vector<std::string>& args);

}  // namespace mpilaunch::launcher
