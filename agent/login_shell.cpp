#include "agent/login_shell.hpp"

#include <unistd.h>

#include <ctime>
#include <string>

#include "agent/proc_stat.hpp"
#include "common/file_text.hpp"

namespace mpilaunch::agent {
namespace {

std::optional<ProcStat> read_stat(int pid) {
  return parse_proc_stat(file_text("/proc/" + std::to_string(pid) + "/stat"));
}

bool is_sshd(const ProcStat& p) {
  return p.comm.starts_with("sshd");
}

bool is_shell(const ProcStat& p) {
  for (const char* shell : {"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh"})
    if (p.comm == shell) return true;
  return false;
}

std::optional<long> ms_since_start(const ProcStat& p) {
  timespec now{};  // the start time counts clock ticks from boot, as CLOCK_BOOTTIME does
  const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
  if (::clock_gettime(CLOCK_BOOTTIME, &now) != 0 || ticks_per_second <= 0) return std::nullopt;
  const long long started_ms = static_cast<long long>(p.start_ticks) * 1000 / ticks_per_second;
  const long long now_ms = static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
  return static_cast<long>(now_ms > started_ms ? now_ms - started_ms : 0);
}

}  // namespace

std::optional<long> login_shell_ms() {
  // Only the process sshd forked for this very command counts: the agent itself (the shell
  // exec'd it) or a shell between them. An sshd further up is someone's interactive login,
  // as when mpilaunch runs in an ssh session and starts local agents or doctor's check.
  const auto self = read_stat(static_cast<int>(::getpid()));
  const auto parent = self ? read_stat(self->ppid) : std::nullopt;
  if (!parent) return std::nullopt;
  if (is_sshd(*parent)) return ms_since_start(*self);
  if (!is_shell(*parent)) return std::nullopt;
  const auto grandparent = read_stat(parent->ppid);
  if (!grandparent || !is_sshd(*grandparent)) return std::nullopt;
  return ms_since_start(*parent);
}

}  // namespace mpilaunch::agent
