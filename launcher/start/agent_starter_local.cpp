#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/text_format.hpp"

#include "common/stream_channel.hpp"
#include "launcher/start/agent_starter.hpp"

namespace mpilaunch::launcher {

std::string find_agent_binary(const std::string& configured) {
  auto executable = [](const std::string& p) {
    return !p.empty() && ::access(p.c_str(), X_OK) == 0;
  };
  if (!configured.empty()) return configured;
  if (const char* env = std::getenv("MPILAUNCH_AGENT"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto dir = self.parent_path();
    for (const auto& candidate :
         {dir / "mpilaunch-agent", dir.parent_path() / "agent" / "mpilaunch-agent"})
      if (executable(candidate.string())) return candidate.string();
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string candidate = std::string(rest.substr(0, colon)) + "/mpilaunch-agent";
      if (executable(candidate)) return candidate;
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return {};
}

void widen_agent_socket(const int (&fds)[2]) {
  for (int fd : fds) {
    const int bytes = 2 << 20;
    (void)::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
    (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
  }
}

bool can_hold_rank_pipes(int local_ranks) {
  constexpr rlim_t kSpare = 256;  // agents' links, output files, libraries, the events file
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  return limit.rlim_cur == RLIM_INFINITY ||
         static_cast<rlim_t>(local_ranks) * 2 + kSpare <= limit.rlim_cur;
}

std::string LocalAgentStarter::describe() const {
  return agent_path_ + " --stdio" +
         (pass_streams_ ? mpilaunch::format(" {} 3", stream_channel::kAgentOption) : "");
}

Result<AgentProcess> LocalAgentStarter::start(const HostEntry& host) {
  const auto failed = [&](const char* call) {
    return Error{.kind = ErrorKind::AgentStartFailed,
                 .host = host.name,
                 .phase = "exec",
                 .detail = mpilaunch::format("{}: {}", call, std::strerror(errno))};
  };
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return failed("socketpair");
  widen_agent_socket(sv);
  int channel[2] = {-1, -1};
  if (pass_streams_ &&
      ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, channel) != 0) {
    ::close(sv[0]), ::close(sv[1]);
    return failed("socketpair");
  }
  // The agent's end blocks: a full queue makes it wait for the launcher.
  if (channel[1] >= 0) (void)::fcntl(channel[1], F_SETFL, 0);
  const std::string path = agent_path_;
  const std::string option = stream_channel::kAgentOption;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The agent dies with the launcher's process only through its closed stream. It stays in
    // our process group, and signals sent to the whole group (a terminal's Ctrl-C, GNU
    // timeout, a shell's job control, a container runtime) are the launcher's to handle: it
    // tears the job down through the agents, SIGTERM to every rank first. An agent dying of
    // them killed its ranks at once and raced the launcher into agent-lost. The ranks get
    // default dispositions back (agent/child_set.cpp).
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(s, SIG_IGN);
    // The channel goes to descriptor 3, by way of one above the ones about to be replaced.
    const int moved = channel[1] >= 0 ? ::fcntl(channel[1], F_DUPFD, 10) : -1;
    ::dup2(sv[1], 0);
    ::dup2(sv[1], 1);
    if (moved >= 0) ::dup2(moved, 3), ::close(moved);
    ::close_range(moved >= 0 ? 4 : 3, ~0U, 0);  // nothing else of ours reaches the agent
    if (::getppid() != parent) ::_exit(127);
    if (moved >= 0)
      ::execl(path.c_str(), path.c_str(), "--stdio", option.c_str(), "3",
              static_cast<char*>(nullptr));
    else
      ::execl(path.c_str(), path.c_str(), "--stdio", static_cast<char*>(nullptr));
    const char msg[] = "mpilaunch: cannot execute the agent\n";
    [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  const int saved = errno;
  ::close(sv[1]);
  if (channel[1] >= 0) ::close(channel[1]);
  if (pid < 0) {
    ::close(sv[0]);
    if (channel[0] >= 0) ::close(channel[0]);
    errno = saved;
    return failed("fork");
  }
  return AgentProcess{sv[0], pid, channel[0]};
}

}  // namespace mpilaunch::launcher
