#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/text_format.hpp"

#include "launcher/start/agent_starter.hpp"
#include "launcher/start/fd_wait.hpp"
#include "launcher/start/ssh_failure.hpp"

namespace mpilaunch::launcher {

SshAgentStarter::SshAgentStarter(asio::io_context& io, SshSettings settings, int fanout)
    : io_(io), settings_(std::move(settings)), free_slots_(std::max(fanout, 1)) {}

SshAgentStarter::~SshAgentStarter() {
  stop_->store(true);
}

std::string SshAgentStarter::describe() const {
  return remote_agent_command(settings_.agent_path);
}

std::optional<Error> SshAgentStarter::failure_for(const HostEntry& host) const {
  const auto it = failures_.find(host.name);
  if (it == failures_.end()) return std::nullopt;
  return it->second;
}

std::vector<StarterEvent> SshAgentStarter::take_events(const HostEntry& host) {
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
                 .detail = mpilaunch::format("socketpair: {}", std::strerror(errno))};
  widen_agent_socket(sv);
  failures_.erase(host.name);  // a restarted agent starts with a clean slate
  asio::co_spawn(io_, run_session(host, sv[1]), asio::detached);
  return AgentProcess{sv[0], -1};
}

asio::awaitable<bool> SshAgentStarter::take_slot() {
  while (free_slots_ == 0) {
    if (stop_->load()) co_return false;
    auto turn = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(100));
    waiting_.push_back(turn);
    boost::system::error_code ignored;
    co_await turn->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    std::erase(waiting_, turn);
  }
  --free_slots_;
  co_return true;
}

void SshAgentStarter::give_back_slot() {
  ++free_slots_;
  if (!waiting_.empty()) waiting_.front()->cancel();  // the longest waiter goes first
}

asio::awaitable<void> SshAgentStarter::run_session(HostEntry host, int fd) {
  // Only the stop flag is shared with the session: io may destroy this coroutine after the
  // starter is gone (the session then closes), and nothing here touches the starter then.
  const std::shared_ptr<std::atomic<bool>> stop = stop_;
  std::optional<Error> failure;
  {
    SshSession session(host, settings_, stop);
    // The fan-out bound covers bring-up only; an established session just moves bytes.
    if (co_await take_slot()) {
      const Status opened = co_await session.open();
      give_back_slot();
      if (const auto& d = session.deployment();
          d && (d->action == DeployAction::Upload || d->action == DeployAction::UseCached))
        events_[host.name].push_back(
            StarterEvent{d->action == DeployAction::Upload ? "agent-deployed" : "agent-cached",
                         {{"path", d->path}, {"sha256", d->sha256}, {"reason", d->reason}}});
      if (!opened) {
        failure = opened.error();
      } else {
        failure = classify_remote_exit(host.name, session.command(), co_await session.pump(fd));
      }
    }
  }  // the session ends here: the channel closes and the remote agent sees EOF
  if (failure) failures_[host.name] = *failure;
  // Recorded first, closed second: the supervisor asks failure_for() once it reads EOF.
  // Only our sending side closes; the socket stays open until the supervisor closes its end,
  // so its pending writes (the LauncherHello) land in a buffer instead of raising SIGPIPE.
  ::shutdown(fd, SHUT_WR);
  std::vector<char> sink(4096);
  while (!stop->load()) {
    const ssize_t n = ::recv(fd, sink.data(), sink.size(), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;
    if (n < 0) co_await wait_fds(std::chrono::milliseconds(100), FdWait{fd, POLLIN});
  }
  ::close(fd);
}

}  // namespace mpilaunch::launcher
