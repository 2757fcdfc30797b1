#include "launcher/output/output_forwarder.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "common/text_format.hpp"

#include "launcher/output/event_log.hpp"
#include "launcher/output/terminal_writer.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::size_t kMaxHeldLine = 64 * 1024;  // a longer unterminated line is written as is
constexpr int kOutputPipeBytes = 1 << 20;        // the default most users may set (pipe-max-size)
constexpr auto kSocketRetry = std::chrono::milliseconds(20);  // a full socket as our stdout

const char* stream_name(protocol::Stream stream) {
  return stream == protocol::Stream::Stdout ? "stdout" : "stderr";
}

}  // namespace

std::string ctime_prefix(std::time_t t) {
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[64];
  // ctime()'s own layout ("%.3s %.3s%3d %.2d:%.2d:%.2d %d") in the C locale.
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

void widen_output_pipes() {
  for (int fd : {1, 2}) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) continue;
    if (::fcntl(fd, F_GETPIPE_SZ) >= kOutputPipeBytes) continue;
    (void)::fcntl(fd, F_SETPIPE_SZ, kOutputPipeBytes);
  }
}

bool write_all(int fd, std::string_view data) {
  return write_all(fd, data, {});
}

bool write_all(int fd, std::string_view first, std::string_view second) {
  while (!first.empty() || !second.empty()) {
    iovec parts[2] = {{const_cast<char*>(first.data()), first.size()},
                      {const_cast<char*>(second.data()), second.size()}};
    const bool both = !first.empty();
    const ssize_t n = ::writev(fd, both ? parts : parts + 1, both ? 2 : 1);
    if (n > 0) {
      auto done = static_cast<std::size_t>(n);
      const std::size_t from_first = std::min(done, first.size());
      first.remove_prefix(from_first);
      second.remove_prefix(done - from_first);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      return false;
    }
  }
  return true;
}

OutputForwarder::~OutputForwarder() {
  flush_all();
  for (const auto& [key, file] : files_)
    if (file.fd >= 0) ::close(file.fd);
  for (Terminal& t : terminals_) {
    if (t.watch) {
      boost::system::error_code ignored;
      t.watch->close(ignored);
    }
    if (t.retry) t.retry->cancel();
    if (t.owned) ::close(t.fd);
  }
}

void OutputForwarder::attach(asio::io_context& io) {
  for (int index : {0, 1}) {
    Terminal& t = terminals_[index];
    if (t.nonblocking) continue;
    const NonblockingTerminal own = open_nonblocking_terminal(index + 1);
    t.fd = own.fd;
    t.owned = own.owned;
    t.socket = own.socket;
    if (!own.nonblocking) continue;  // a file or /dev/null: a write does not wait for a reader
    if (own.socket) {
      t.retry = std::make_unique<asio::steady_timer>(io);
      t.nonblocking = true;
      continue;
    }
    const int watched = ::fcntl(t.fd, F_DUPFD_CLOEXEC, 3);
    if (watched < 0) {
      if (t.owned) ::close(t.fd);
      t.fd = index + 1;
      t.owned = t.socket = false;
      continue;
    }
    t.watch = std::make_unique<asio::posix::stream_descriptor>(io, watched);
    t.nonblocking = true;
  }
}

bool OutputForwarder::congested() const {
  if (released_) return false;
  for (const Terminal& t : terminals_)
    if (t.pending > kHighWater) return true;
  return false;
}

void OutputForwarder::when_room(std::function<void()> go) {
  if (!congested()) return go();
  room_waiters_.push_back(std::move(go));
}

void OutputForwarder::release() {
  released_ = true;
  notify();
}

std::size_t OutputForwarder::pending() const {
  return terminals_[0].pending + terminals_[1].pending;
}

void OutputForwarder::when_drained(std::function<void()> then) {
  if (pending() == 0) return then();
  drain_waiters_.push_back(std::move(then));
}

void OutputForwarder::abandon() {
  for (int index : {0, 1}) {
    Terminal& t = terminals_[index];
    if (t.pending == 0) continue;
    t.stalled = true;
    drop_queue(t);
  }
  notify();
}

void OutputForwarder::notify() {
  if (!room_waiters_.empty()) {
    const bool below =
        released_ || (terminals_[0].pending <= kLowWater && terminals_[1].pending <= kLowWater);
    if (below) {
      auto waiters = std::move(room_waiters_);
      room_waiters_.clear();
      for (auto& go : waiters) go();
    }
  }
  if (!drain_waiters_.empty() && pending() == 0) {
    auto waiters = std::move(drain_waiters_);
    drain_waiters_.clear();
    for (auto& then : waiters) then();
  }
}

void OutputForwarder::drop_queue(Terminal& t) {
  for (const Chunk& c : t.queue) terminal_written_[c.key].lost += c.data.size();
  if (!t.queue.empty()) terminal_written_[t.queue.front().key].lost -= t.offset;
  t.queue.clear();
  t.offset = t.pending = 0;
}

void OutputForwarder::fail_terminal(int index, Key key, int error) {
  Terminal& t = terminals_[index];
  terminal_failed_[index] = true;
  terminal_error_[index] = error;
  drop_queue(t);
  report(OutputFailure{key.first, key.second, stream_name(key.second), error,
                       terminal_written_[key].written, true});
  notify();
}

void OutputForwarder::drain(int index) {
  Terminal& t = terminals_[index];
  while (!t.queue.empty() && !terminal_failed_[index]) {
    Chunk& c = t.queue.front();
    const char* from = c.data.data() + t.offset;
    const std::size_t size = c.data.size() - t.offset;
    const ssize_t n = t.socket ? ::send(t.fd, from, size, MSG_DONTWAIT | MSG_NOSIGNAL)
                               : ::write(t.fd, from, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) return fail_terminal(index, c.key, n < 0 ? errno : EIO);
    const auto done = static_cast<std::size_t>(n);
    terminal_written_[c.key].written += done;
    bytes_ += done;
    t.pending -= done;
    t.offset += done;
    if (t.offset == c.data.size()) {
      t.queue.pop_front();
      t.offset = 0;
    }
  }
  if (!t.queue.empty() && !terminal_failed_[index]) arm(index);
  notify();
}

void OutputForwarder::arm(int index) {
  Terminal& t = terminals_[index];
  if (t.waiting) return;
  t.waiting = true;
  const auto then = [this, index](const boost::system::error_code& ec) {
    terminals_[index].waiting = false;
    if (!ec) drain(index);
  };
  if (t.watch) return t.watch->async_wait(asio::posix::stream_descriptor::wait_write, then);
  // A socket: Asio's wait would make the description it shares with others non-blocking (our
  // local agents' stderr): it is tried again shortly instead.
  t.retry->expires_after(kSocketRetry);
  t.retry->async_wait(then);
}

Status OutputForwarder::open() {
  widen_output_pipes();
  if (config_.directory.empty()) return {};
  std::error_code ec;
  std::filesystem::create_directories(config_.directory, ec);
  if (ec)
    return Error{
        .kind = ErrorKind::BadOption,
        .detail = mpilaunch::format("--output-filename {}: {}", config_.directory, ec.message())};
  return {};
}

void OutputForwarder::report(const OutputFailure& failure) {
  if (on_failure_) on_failure_(failure);
}

OutputForwarder::File& OutputForwarder::file_for(const Key& key) {
  // mpirun merges only the files: stderr lines join the rank's stdout file.
  const Key file_key{key.first, config_.merge_stderr ? protocol::Stream::Stdout : key.second};
  const auto [it, added] = files_.try_emplace(file_key);
  File& file = it->second;
  if (!added) return file;
  const auto [job, rank] = job_rank(key.first);
  const std::string dir = mpilaunch::format("{}/{}/rank.{}", config_.directory, job, rank);
  file.path = mpilaunch::format("{}/{}", dir, stream_name(file_key.second));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  file.fd = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file.fd < 0) {
    file.failed = true;
    file.error = errno;
    file.stream = key.second;
    report(OutputFailure{key.first, key.second, file.path, file.error, 0, false});
  }
  return file;
}

void OutputForwarder::to_file(const Key& key, std::string_view text) {
  if (config_.directory.empty() || text.empty()) return;
  File& file = file_for(key);
  if (file.failed) {
    file.lost += text.size();
    return;
  }
  if (!write_all(file.fd, text)) {
    // What a partial write took is not known apart from the rest: the whole text counts as lost.
    file.failed = true;
    file.error = errno;
    file.stream = key.second;
    file.lost += text.size();
    report(OutputFailure{key.first, key.second, file.path, file.error, file.written, false});
    return;
  }
  file.written += text.size();
}

void OutputForwarder::to_terminal(const Key& key, std::string_view first, std::string_view second) {
  const int index = key.second == protocol::Stream::Stdout ? 0 : 1;
  if (first.empty() && second.empty()) return;
  TerminalCount& count = terminal_written_[key];
  if (terminal_failed_[index]) {
    count.lost += first.size() + second.size();
    return;
  }
  Terminal& t = terminals_[index];
  if (t.nonblocking) {
    if (t.pending > kMaxQueued && released_) {
      // Torn down behind a reader that takes nothing: what the ranks still wrote is lost.
      t.stalled = true;
      count.lost += first.size() + second.size();
      return;
    }
    if (t.queue.empty()) {
      // Straight out when the fd takes it; the rest queues.
      iovec parts[2] = {{const_cast<char*>(first.data()), first.size()},
                        {const_cast<char*>(second.data()), second.size()}};
      ssize_t n;
      do {
        if (t.socket) {
          msghdr msg{};
          msg.msg_iov = parts;
          msg.msg_iovlen = 2;
          n = ::sendmsg(t.fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        } else {
          n = ::writev(t.fd, parts, 2);
        }
      } while (n < 0 && errno == EINTR);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        count.lost += first.size() + second.size();
        return fail_terminal(index, key, errno);
      }
      const auto done = static_cast<std::size_t>(std::max<ssize_t>(n, 0));
      count.written += done;
      bytes_ += done;
      const std::size_t from_first = std::min(done, first.size());
      first.remove_prefix(from_first);
      second.remove_prefix(done - from_first);
      if (first.empty() && second.empty()) return;
    }
    std::string rest;
    rest.reserve(first.size() + second.size());
    rest.append(first).append(second);
    t.pending += rest.size();
    t.queue.push_back(Chunk{key, std::move(rest)});
    // Written on until the fd says EAGAIN: only then does a wait for writability end.
    if (!t.waiting) drain(index);
    return;
  }
  if (!write_all(index + 1, first, second)) {
    terminal_failed_[index] = true;
    terminal_error_[index] = errno;
    count.lost += first.size() + second.size();
    report(OutputFailure{key.first, key.second, stream_name(key.second), terminal_error_[index],
                         count.written, true});
    return;
  }
  count.written += first.size() + second.size();
  bytes_ += first.size() + second.size();
}

void OutputForwarder::emit(const Key& key, std::string_view text, bool complete_lines_only) {
  if (!config_.tag && !config_.timestamp) {
    to_terminal(key, text);
    return;
  }
  std::string out;
  out.reserve(text.size() + 64);
  // mpirun's order: the time, the [job,rank] tag, then the stream (which the time alone gets
  // too), then the line with no space between.
  std::string prefix = config_.timestamp ? ctime_prefix(std::time(nullptr)) : std::string();
  if (config_.tag) {
    const auto [job, rank] = job_rank(key.first);
    prefix += mpilaunch::format("[{},{}]", job, rank);
  }
  prefix += mpilaunch::format("<{}>:", stream_name(key.second));
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (complete_lines_only) break;
      end = text.size() - 1;  // a last unterminated line: tagged, and left unterminated
    }
    out += prefix;
    out.append(text.substr(start, end - start + 1));
    start = end + 1;
  }
  to_terminal(key, out);
  to_file(key, out);
}

void OutputForwarder::write(std::uint32_t rank, protocol::Stream stream,
                            std::span<const std::byte> data) {
  const Key key{rank, stream};
  const std::string_view chunk(reinterpret_cast<const char*>(data.data()), data.size());
  const bool formatted = config_.tag || config_.timestamp;
  if (!formatted) to_file(key, chunk);  // files need no line assembly
  std::string& held = partial_[key];
  const std::size_t last_newline = chunk.rfind('\n');
  if (last_newline == std::string_view::npos) {
    held.append(chunk);
    if (held.size() > kMaxHeldLine) {
      if (formatted)
        emit(key, held, false);
      else
        to_terminal(key, held);
      held.clear();
    }
    return;
  }
  if (!formatted) {
    // The held partial line, completed, and the chunk's whole lines go out in one writev: the
    // chunk is not copied behind the held line first.
    const std::size_t first_newline = chunk.find('\n');
    held.append(chunk.substr(0, first_newline + 1));
    const std::string_view lines = chunk.substr(first_newline + 1, last_newline - first_newline);
    to_terminal(key, held, lines);
    held.assign(chunk.substr(last_newline + 1));
    return;
  }
  if (held.empty()) {
    emit(key, chunk.substr(0, last_newline + 1), true);
  } else {
    held.append(chunk.substr(0, last_newline + 1));
    emit(key, held, true);
    held.clear();
  }
  held.append(chunk.substr(last_newline + 1));
}

std::vector<OutputFailure> OutputForwarder::losses() const {
  std::vector<OutputFailure> all = old_losses_;
  for (const auto& [key, file] : files_)
    if (file.failed)
      all.push_back(OutputFailure{key.first, file.stream, file.path, file.error, file.written,
                                  false, file.lost, attempt_});
  for (const auto& [key, count] : terminal_written_) {
    const int index = key.second == protocol::Stream::Stdout ? 0 : 1;
    if (count.lost > 0)
      all.push_back(OutputFailure{key.first, key.second, stream_name(key.second),
                                  terminal_error_[index], count.written, true, count.lost, 0,
                                  !terminal_failed_[index]});
  }
  return all;
}

void OutputForwarder::set_attempt(int attempt) {
  if (base_directory_.empty()) return;
  flush_all();
  for (const auto& [key, file] : files_) {
    if (file.fd >= 0) ::close(file.fd);
    if (file.failed)
      old_losses_.push_back(OutputFailure{key.first, file.stream, file.path, file.error,
                                          file.written, false, file.lost, attempt_});
  }
  files_.clear();
  attempt_ = attempt;
  config_.directory = mpilaunch::format("{}/attempt-{}", base_directory_, attempt);
}

void OutputForwarder::rank_done(std::uint32_t rank) {
  for (auto stream : {protocol::Stream::Stdout, protocol::Stream::Stderr}) {
    const auto it = partial_.find({rank, stream});
    if (it == partial_.end()) continue;
    if (!it->second.empty()) emit(it->first, it->second, false);
    partial_.erase(it);
  }
}

void OutputForwarder::flush_all() {
  for (auto& [key, held] : partial_)
    if (!held.empty()) emit(key, held, false);
  partial_.clear();
}

}  // namespace mpilaunch::launcher
