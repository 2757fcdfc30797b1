#include "common/stream_channel.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "common/text_format.hpp"

namespace mpilaunch::stream_channel {
namespace {

constexpr std::size_t kFds = 2;

Error channel_error(std::string detail) {
  return Error{.kind = ErrorKind::MalformedFrame, .detail = "stream channel: " + detail};
}

// One record's buffers, and the msghdr pointing at them (not copyable: it points into itself).
struct Record {
  std::array<std::uint32_t, 2> body{};
  iovec iov{body.data(), sizeof body};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * kFds)> control{};
  msghdr msg{nullptr, 0, &iov, 1, control.data(), control.size(), 0};
  Record() = default;
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;
};

}  // namespace

Status send(int channel, const RankStreams& streams) {
  Record record;
  record.body = {streams.rank, streams.attempt};
  msghdr& msg = record.msg;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * kFds);
  const std::array<int, kFds> fds{streams.stdout_fd, streams.stderr_fd};
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof fds);
  for (;;) {
    if (::sendmsg(channel, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof record.body))
      return {};
    if (errno == EINTR) continue;
    return channel_error(mpilaunch::format("sendmsg: {}", std::strerror(errno)));
  }
}

Result<std::optional<RankStreams>> receive(int channel) {
  Record record;
  msghdr& msg = record.msg;
  const auto& body = record.body;
  ssize_t n;
  do {
    n = ::recvmsg(channel, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return std::optional<RankStreams>();
  if (n < 0) return channel_error(mpilaunch::format("recvmsg: {}", std::strerror(errno)));
  if (n == 0) return channel_error("closed by the agent");
  // Whatever descriptors arrived are ours to close, whether or not the record is good.
  std::array<int, kFds> fds{-1, -1};
  std::size_t received = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      if (received < kFds)
        fds[received] = fd;
      else
        ::close(fd);
      ++received;
    }
  }
  const bool good = n == static_cast<ssize_t>(sizeof body) && received == kFds &&
                    (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) == 0;
  if (!good) {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
    return channel_error(
        mpilaunch::format("a record of {} bytes with {} descriptors", n, received));
  }
  return std::optional<RankStreams>(RankStreams{body[0], body[1], fds[0], fds[1]});
}

}  // namespace mpilaunch::stream_channel
