// SshSession::pump(): the byte bridge between the channel and the local socket. Each direction
// has one bounded buffer: a full buffer stops reading that side (the ssh window then stops the
// remote writer, a full socket stops the supervisor's writes), so memory stays bounded.

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <libssh/libssh.h>

#include "launcher/start/libssh_loader.hpp"
#include "launcher/start/ssh_session.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::size_t kBufferBytes = 256 * 1024;
constexpr std::size_t kStderrTailBytes = 8 * 1024;
constexpr auto kExitStatusWait = std::chrono::milliseconds(1000);

// A bounded byte queue: bytes appended at the back, consumed from the front.
struct ByteQueue {
  std::vector<char> bytes;
  std::size_t room() const { return bytes.size() < kBufferBytes ? kBufferBytes - bytes.size() : 0; }
  void consume(std::size_t n) { bytes.erase(bytes.begin(), bytes.begin() + static_cast<long>(n)); }
};

}  // namespace

void SshSession::drain_stderr(std::string& tail) {
  char buf[4096];
  for (;;) {
    const int n = ssh_channel_read_nonblocking(channel_, buf, sizeof buf, 1);
    if (n <= 0) return;
    tail.append(buf, static_cast<std::size_t>(n));
    if (tail.size() > kStderrTailBytes) tail.erase(0, tail.size() - kStderrTailBytes);
  }
}

asio::awaitable<RemoteExit> SshSession::pump(int local_fd) {
  RemoteExit out;
  ByteQueue to_local, to_remote;
  to_local.bytes.assign(pending_.begin(), pending_.end());  // read by open() already
  pending_.clear();
  bool local_eof = false;   // the supervisor closed its end
  bool remote_eof = false;  // the agent's stdout ended (or the connection broke)
  bool eof_sent = false;
  std::vector<char> chunk(64 * 1024);
  int busy_rounds = 0;
  while (!stopping()) {
    bool progress = false;
    // channel -> buffer, only while there is room: the unread window stalls the agent.
    while (!remote_eof && to_local.room() > 0) {
      const int n = ssh_channel_read_nonblocking(
          channel_, chunk.data(),
          static_cast<std::uint32_t>(std::min(chunk.size(), to_local.room())), 0);
      if (n > 0) {
        to_local.bytes.insert(to_local.bytes.end(), chunk.data(), chunk.data() + n);
        progress = true;
      } else if (n == SSH_EOF || (n == 0 && ssh_channel_is_eof(channel_) != 0)) {
        remote_eof = true;
      } else if (n < 0) {
        out.dropped = ssh_get_error(session_);
        remote_eof = true;
      } else {
        break;
      }
    }
    drain_stderr(out.stderr_tail);
    // buffer -> local socket
    if (!to_local.bytes.empty()) {
      const ssize_t n = ::send(local_fd, to_local.bytes.data(), to_local.bytes.size(),
                               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        to_local.consume(static_cast<std::size_t>(n));
        progress = true;
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        local_eof = true;  // nobody reads any more: the supervisor closed the link
        to_local.bytes.clear();
      }
    }
    if (remote_eof && to_local.bytes.empty()) break;
    // local socket -> buffer
    if (!local_eof && to_remote.room() > 0) {
      const ssize_t n =
          ::recv(local_fd, chunk.data(), std::min(chunk.size(), to_remote.room()), MSG_DONTWAIT);
      if (n > 0) {
        to_remote.bytes.insert(to_remote.bytes.end(), chunk.data(), chunk.data() + n);
        progress = true;
      } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        local_eof = true;
        progress = true;
      }
    }
    // buffer -> channel, never more than the remote window, so libssh never waits for it.
    if (!to_remote.bytes.empty() && !remote_eof) {
      const std::uint32_t window = ssh_channel_window_size(channel_);
      const auto len = static_cast<std::uint32_t>(
          std::min<std::size_t>({to_remote.bytes.size(), window, chunk.size()}));
      if (len > 0) {
        const int n = ssh_channel_write(channel_, to_remote.bytes.data(), len);
        if (n > 0) {
          to_remote.consume(static_cast<std::size_t>(n));
          progress = true;
        } else if (n == SSH_ERROR) {
          out.dropped = ssh_get_error(session_);
          break;
        }
      }
    }
    if (local_eof && to_remote.bytes.empty() && !eof_sent) {
      ssh_channel_send_eof(channel_);  // the agent reads EOF on stdin: it cleans up and exits
      eof_sent = true;
      co_return out;
    }
    if (progress) {
      // Other sessions and the supervisor share this thread: let them in now and then.
      if (++busy_rounds % 16 == 0)
        co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
      continue;
    }
    short local_events = 0;
    if (!local_eof && to_remote.room() > 0) local_events |= POLLIN;
    if (!to_local.bytes.empty()) local_events |= POLLOUT;
    co_await wait_socket(std::chrono::milliseconds(100), local_fd, local_events);
  }
  if (!stopping() && out.dropped.empty()) {
    // The agent's output ended: its exit status follows within moments. Keep stderr coming.
    const auto until = Clock::now() + kExitStatusWait;
    while (ssh_channel_is_closed(channel_) == 0 && Clock::now() < until && !stopping()) {
      drain_stderr(out.stderr_tail);
      if (channel_exit_status(channel_) != -1) break;
      co_await wait_socket(until - Clock::now());
    }
    drain_stderr(out.stderr_tail);
    const int status = channel_exit_status(channel_);
    if (status >= 0) out.exit_status = status;
  }
  co_return out;
}

}  // namespace mpilaunch::launcher
