#pragma once
/// [io] `mpilaunch doctor [-H ...|--hostfile F] [-F CFG] [--connect-timeout S] [--agent-path P]
/// [--launcher local|ssh] [--json]`: probes every host in parallel (at most --ssh-fanout at a
/// time) by running `mpilaunch-agent --self-check` there, over ssh or locally, and prints one
/// row per host (doctor.hpp). Exit codes (docs/exit-codes.md): 0 every host passed, 1 a host
/// failed a check, 64 bad usage, 65 a hostfile error.

#include <string>
#include <vector>

namespace mpilaunch::launcher {

/// `args` are the words after "doctor".
int run_doctor(const std::vector<std::string>& args);

}  // namespace mpilaunch::launcher
