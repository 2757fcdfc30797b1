#pragma once
/// The fields of Linux's /proc/PID/stat that the agent reads to time the login shell
/// (agent/login_shell.cpp, for the self-check and the AgentHello): the command name, the
/// parent and the start time.

#include <optional>
#include <string>
#include <string_view>

namespace mpilaunch::agent {

struct ProcStat {
  std::string comm;                    // the name between the parentheses (may hold spaces)
  int ppid = 0;                        // field 4
  unsigned long long start_ticks = 0;  // field 22: start time, in clock ticks since boot
};

/// Parses the text of /proc/PID/stat; nullopt when it is not in that format.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

}  // namespace mpilaunch::agent
