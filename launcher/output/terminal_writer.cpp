#include "launcher/output/terminal_writer.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/text_format.hpp"

#include "launcher/output/output_forwarder.hpp"

namespace mpilaunch::launcher {

NonblockingTerminal open_nonblocking_terminal(int fd) {
  NonblockingTerminal t{.fd = fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return t;
  if (S_ISSOCK(st.st_mode)) {
    t.socket = t.nonblocking = true;
  } else if (S_ISFIFO(st.st_mode) || (S_ISCHR(st.st_mode) && ::isatty(fd) == 1)) {
    // Where it cannot be opened (another user's pipe, no /proc) writes block, as before.
    const std::string self = mpilaunch::format("/proc/self/fd/{}", fd);
    const int own = ::open(self.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (own >= 0) t = {.fd = own, .owned = true, .socket = false, .nonblocking = true};
  }
  return t;
}

TerminalWriter::TerminalWriter(int fd) : out_(open_nonblocking_terminal(fd)) {}

TerminalWriter::~TerminalWriter() {
  if (out_.owned) ::close(out_.fd);
}

void TerminalWriter::write(std::string_view data) {
  if (data.empty()) return;
  if (error_ != 0 || abandoned_) {
    lost_ += data.size();
    return;
  }
  if (!out_.nonblocking) {
    if (write_all(out_.fd, data)) {
      written_ += data.size();
    } else {
      lost_ += data.size();
      fail(errno != 0 ? errno : EIO);
    }
    return;
  }
  queue_.emplace_back(data);
  pending_ += data.size();
  flush();
}

void TerminalWriter::flush() {
  while (!queue_.empty() && error_ == 0) {
    const std::string& front = queue_.front();
    const char* from = front.data() + offset_;
    const std::size_t size = front.size() - offset_;
    const ssize_t n = out_.socket ? ::send(out_.fd, from, size, MSG_DONTWAIT | MSG_NOSIGNAL)
                                  : ::write(out_.fd, from, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) return fail(n < 0 ? errno : EIO);
    const auto done = static_cast<std::size_t>(n);
    written_ += done;
    pending_ -= done;
    offset_ += done;
    if (offset_ == front.size()) {
      queue_.pop_front();
      offset_ = 0;
    }
  }
}

void TerminalWriter::abandon() {
  if (pending_ > 0) abandoned_ = true;
  lost_ += pending_;
  queue_.clear();
  offset_ = pending_ = 0;
}

void TerminalWriter::fail(int error) {
  error_ = error;
  lost_ += pending_;
  queue_.clear();
  offset_ = pending_ = 0;
}

}  // namespace mpilaunch::launcher
