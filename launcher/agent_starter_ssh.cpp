#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "launcher/agent_starter.hpp"
#include "launcher/ssh_failure.hpp"

namespace mpilaunch::launcher {

SshAgentStarter::SshAgentStarter(SshSettings settings, int fanout)
    : settings_(std::move(settings)), slots_(std::max(fanout, 1)) {}

SshAgentStarter::~SshAgentStarter() {
  stop_.store(true);
  for (std::thread& t : threads_) t.join();
}

std::string SshAgentStarter::describe() const {
  return remote_agent_command(settings_.agent_path);
}

std::optional<Error> SshAgentStarter::failure_for(const HostEntry& host) const {
  const std::lock_guard lock(mutex_);
  const auto it = failures_.find(host.name);
  if (it == failures_.end()) return std::nullopt;
  return it->second;
}

std::vector<StarterEvent> SshAgentStarter::take_events(const HostEntry& host) {
  const std::lock_guard lock(mutex_);
  const auto it = events_.find(host.name);
  if (it == events_.end()) return {};
  std::vector<StarterEvent> taken = std::move(it->second);
  events_.erase(it);
  return taken;
}

Result<AgentProcess> SshAgentStarter::start(const HostEntry& host) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Error{.kind = ErrorKind::AgentStartFailed,
                 .host = host.name,
                 .phase = "connect",
                 .detail = fmt::format("socketpair: {}", std::strerror(errno))};
  widen_agent_socket(sv);
  {
    const std::lock_guard lock(mutex_);
    failures_.erase(host.name);  // a restarted agent starts with a clean slate
  }
  try {
    threads_.emplace_back([this, host, fd = sv[1]] { run_session(host, fd); });
  } catch (const std::system_error& e) {
    ::close(sv[0]);
    ::close(sv[1]);
    return Error{.kind = ErrorKind::OutOfResources,
                 .host = host.name,
                 .detail = fmt::format("no thread for the ssh session: {}", e.what())};
  }
  return AgentProcess{sv[0], -1};
}

void SshAgentStarter::run_session(const HostEntry& host, int fd) {
  std::optional<Error> failure;
  {
    SshSession session(host, settings_, stop_);
    // The fan-out bound covers bring-up only; an established session just moves bytes.
    bool admitted = false;
    while (!stop_.load() && !(admitted = slots_.try_acquire_for(std::chrono::milliseconds(100)))) {
    }
    if (admitted) {
      const Status opened = session.open();
      slots_.release();
      if (const auto& d = session.deployment();
          d && (d->action == DeployAction::Upload || d->action == DeployAction::UseCached)) {
        const std::lock_guard lock(mutex_);
        events_[host.name].push_back(
            StarterEvent{d->action == DeployAction::Upload ? "agent-deployed" : "agent-cached",
                         {{"path", d->path}, {"sha256", d->sha256}, {"reason", d->reason}}});
      }
      if (!opened) {
        failure = opened.error();
      } else {
        failure = classify_remote_exit(host.name, session.command(), session.pump(fd));
      }
    }
  }  // the session ends here: the channel closes and the remote agent sees EOF
  if (failure) {
    const std::lock_guard lock(mutex_);
    failures_[host.name] = *failure;
  }
  // Recorded first, closed second: the supervisor asks failure_for() once it reads EOF.
  // Only our sending side closes; the socket stays open until the supervisor closes its end,
  // so its pending writes (the LauncherHello) land in a buffer instead of raising SIGPIPE.
  ::shutdown(fd, SHUT_WR);
  pollfd pfd{fd, POLLIN, 0};
  char sink[4096];
  while (!stop_.load()) {
    if (::poll(&pfd, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;
  }
  ::close(fd);
}

}  // namespace mpilaunch::launcher
