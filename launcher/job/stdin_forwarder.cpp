#include "launcher/job/stdin_forwarder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mpilaunch::launcher {

StdinForwarder::StdinForwarder(asio::io_context& io, int fd, Send send)
    : io_(io), send_(std::move(send)), buffer_(kChunk) {
  fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (fd_ < 0) {
    eof_ = true;  // no stdin at all: the stdin ranks read end of file
    return;
  }
  // A terminal we do not own (a job in the shell's background) would stop us with SIGTTIN at
  // the first read: it is not ours to read, as for mpirun.
  if (::isatty(fd_) == 1 && ::tcgetpgrp(fd_) != ::getpgrp()) {
    eof_ = true;
    return;
  }
  // Pipes, terminals and sockets are watched by the loop; a regular file or /dev/null cannot
  // be (EPERM from epoll) and never blocks: it is read directly, a chunk per turn of the loop.
  stream_ = std::make_unique<asio::posix::stream_descriptor>(io_);
  boost::system::error_code ec;
  stream_->assign(fd_, ec);
  if (ec) stream_.reset();
}

StdinForwarder::~StdinForwarder() {
  stop();
  if (stream_) {
    boost::system::error_code ignored;
    stream_->close(ignored);
  } else if (fd_ >= 0) {
    ::close(fd_);
  }
}

void StdinForwarder::start(const std::vector<int>& nodes) {
  for (int node : nodes) {
    if (outstanding_.contains(node)) continue;
    outstanding_[node] = 0;
    if (eof_) send_(node, protocol::StdinData{{}, true});
  }
  started_ = true;
  read_more();
}

void StdinForwarder::credit(int node, std::uint32_t bytes) {
  const auto it = outstanding_.find(node);
  if (it != outstanding_.end()) it->second -= std::min<std::uint64_t>(bytes, it->second);
  read_more();
}

void StdinForwarder::node_lost(int node) {
  outstanding_.erase(node);
  read_more();
}

void StdinForwarder::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (stream_) {
    boost::system::error_code ignored;
    stream_->cancel(ignored);
  }
  // The loop's reads made the descriptor non-blocking, and it is shared with whoever started
  // us (a shell's terminal): put it back.
  if (stream_) {
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) != 0) (void)::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  }
}

void StdinForwarder::send_all(const protocol::StdinData& data) {
  for (auto& [node, bytes] : outstanding_) {
    send_(node, data);
    bytes += data.data.size();
  }
}

void StdinForwarder::read_more() {
  if (!started_ || reading_ || eof_ || stopped_) return;
  for (const auto& [node, bytes] : outstanding_)
    if (bytes >= kWindow) return;  // that agent's ranks have not taken enough yet
  reading_ = true;
  if (!stream_) {
    asio::post(io_, [this] { read_now(); });
    return;
  }
  stream_->async_read_some(asio::buffer(buffer_),
                           [this](const boost::system::error_code& ec, std::size_t n) {
                             reading_ = false;
                             if (stopped_) return;
                             if (!ec) return deliver(n);
                             end_of_input(ec == asio::error::eof ? std::string{} : ec.message());
                           });
}

void StdinForwarder::read_now() {
  reading_ = false;
  if (stopped_) return;
  const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
  if (n < 0 && errno == EINTR) return read_more();
  if (n > 0) return deliver(static_cast<std::size_t>(n));
  end_of_input(n < 0 ? std::strerror(errno) : std::string{});
}

void StdinForwarder::deliver(std::size_t n) {
  const auto* p = reinterpret_cast<const std::byte*>(buffer_.data());
  send_all(protocol::StdinData{{p, p + n}, false});
  read_more();
}

void StdinForwarder::end_of_input(const std::string& error) {
  if (!error.empty())
    std::fprintf(stderr, "mpilaunch: reading stdin: %s; the ranks get end of file\n",
                 error.c_str());
  eof_ = true;
  send_all(protocol::StdinData{{}, true});
}

}  // namespace mpilaunch::launcher
