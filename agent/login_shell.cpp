#include "agent/login_shell.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "agent/proc_stat.hpp"

namespace mpilaunch::agent {
namespace {

constexpr int kGenerations = 6;  // agent, shell, a wrapper or two

std::optional<ProcStat> read_stat(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return parse_proc_stat(text.str());
}

}  // namespace

std::optional<long> login_shell_ms() {
  int pid = static_cast<int>(::getpid());
  for (int generation = 0; generation < kGenerations && pid > 1; ++generation) {
    const auto self = read_stat(pid);
    const auto parent = self ? read_stat(self->ppid) : std::nullopt;
    if (!parent) return std::nullopt;
    if (parent->comm.starts_with("sshd")) {
      timespec now{};  // the start time counts clock ticks from boot, as CLOCK_BOOTTIME does
      const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
      if (::clock_gettime(CLOCK_BOOTTIME, &now) != 0 || ticks_per_second <= 0) return std::nullopt;
      const long long started_ms =
          static_cast<long long>(self->start_ticks) * 1000 / ticks_per_second;
      const long long now_ms = static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
      return static_cast<long>(now_ms > started_ms ? now_ms - started_ms : 0);
    }
    pid = self->ppid;
  }
  return std::nullopt;
}

}  // namespace mpilaunch::agent
