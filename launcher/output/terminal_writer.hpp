#pragma once
/// [io] One of our own stdout (1) and stderr (2), written from a poll() loop without ever
/// blocking it (issue 23, items 4 and 5, for wrap mode): what the pipe or terminal does not take
/// at once queues, the loop asks poll() for POLLOUT on poll_fd() and calls flush(); the caller
/// stops reading its producer while pending() is above kHighWater. A write that fails (EPIPE:
/// the reader went away) is kept in error(): from then on nothing is written, and what was not
/// taken is counted in lost(). Files and /dev/null are written at once, as they never wait for
/// a reader.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace mpilaunch::launcher {

/// How our stdout or stderr can be written without blocking: a pipe or a terminal through a
/// description of our own in non-blocking mode (so that O_NONBLOCK does not reach the others
/// that share it: the shell after us), a socket with send(MSG_DONTWAIT).
struct NonblockingTerminal {
  int fd = -1;               // where writes go
  bool owned = false;        // a descriptor of our own, to close at the end
  bool socket = false;       // written with send(MSG_DONTWAIT | MSG_NOSIGNAL)
  bool nonblocking = false;  // false: a file, /dev/null, or a pipe we cannot reopen
};
NonblockingTerminal open_nonblocking_terminal(int fd);

class TerminalWriter {
 public:
  explicit TerminalWriter(int fd);
  ~TerminalWriter();
  TerminalWriter(const TerminalWriter&) = delete;
  TerminalWriter& operator=(const TerminalWriter&) = delete;

  /// Writes what the destination takes now and queues the rest (in order).
  void write(std::string_view data);
  /// Writes on from the queue (poll() said poll_fd() is writable).
  void flush();
  /// The descriptor to poll for POLLOUT, -1 when nothing is queued.
  int poll_fd() const { return queue_.empty() || error_ != 0 ? -1 : out_.fd; }
  std::size_t pending() const { return pending_; }
  /// The errno of the write that failed, 0 while none did.
  int error() const { return error_; }
  /// Gives up on what is queued (the reader stalled and the job must end): counted as lost.
  void abandon();
  /// Counts `bytes` as lost without writing them (the job is ending and too much is queued).
  void discard(std::size_t bytes) { lost_ += bytes; }
  bool abandoned() const { return abandoned_; }
  std::uint64_t written() const { return written_; }
  std::uint64_t lost() const { return lost_; }

 private:
  void fail(int error);

  NonblockingTerminal out_;
  std::deque<std::string> queue_;  // the front one is written from offset_
  std::size_t offset_ = 0;
  std::size_t pending_ = 0;
  int error_ = 0;
  bool abandoned_ = false;
  std::uint64_t written_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace mpilaunch::launcher
