#include "launcher/output/rank_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>

namespace mpilaunch::launcher {
namespace {

constexpr std::size_t kStdoutChunk = 256 * 1024;  // one read, as the agent's frames were
constexpr std::size_t kStderrChunk = 64 * 1024;
constexpr auto kDrainGrace = std::chrono::seconds(kRankDrainGraceSeconds);  // as the agent's

}  // namespace

struct RankStreams::Entry {
  Entry(asio::io_context& io, std::uint32_t rank, int out_fd, int err_fd)
      : rank(rank), out(io, out_fd), err(io, err_fd), grace(io) {}
  std::uint32_t rank;
  asio::posix::stream_descriptor out, err;
  bool out_is_pty = false;  // a pty's master, non-blocking: each chunk takes what else waits
  asio::steady_timer grace;
  int open = 2;
  bool ended[2] = {false, false};  // stdout, stderr at end of file
  bool closed = false;
  bool discard = false;  // closed without reading on (the RankStreams goes)
  std::function<void()> then;
};

RankStreams::~RankStreams() {
  for (auto& [rank, entry] : entries_) close_entry(*entry, false);
}

void RankStreams::adopt(std::uint32_t rank, int stdout_fd, int stderr_fd) {
  if (const auto it = entries_.find(rank); it != entries_.end()) {
    close_entry(*it->second, true);
    entries_.erase(it);
  }
  for (int fd : {stdout_fd, stderr_fd}) (void)::fcntl(fd, F_SETFL, O_NONBLOCK);
  auto entry = std::make_shared<Entry>(io_, rank, stdout_fd, stderr_fd);
  boost::system::error_code nb_error;
  if (::isatty(stdout_fd) == 1) entry->out.non_blocking(true, nb_error);
  entry->out_is_pty = ::isatty(stdout_fd) == 1 && !nb_error;
  entries_[rank] = entry;
  asio::co_spawn(io_, pump(entry, protocol::Stream::Stdout), asio::detached);
  asio::co_spawn(io_, pump(entry, protocol::Stream::Stderr), asio::detached);
}

asio::awaitable<void> RankStreams::pump(std::shared_ptr<Entry> entry, protocol::Stream stream) {
  const bool is_out = stream == protocol::Stream::Stdout;
  asio::posix::stream_descriptor& source = is_out ? entry->out : entry->err;
  const std::size_t chunk = is_out ? kStdoutChunk : kStderrChunk;
  // Not zero-filled: a rank that prints little keeps only a page or two of this resident.
  const auto buffer = std::make_unique_for_overwrite<std::byte[]>(chunk);
  for (;;) {
    boost::system::error_code ec;
    std::size_t n = co_await source.async_read_some(asio::buffer(buffer.get(), chunk),
                                                    asio::redirect_error(asio::use_awaitable, ec));
    if (entry->closed) {
      // Closed (a grace ran out, the job ends) after this read had taken its bytes from the
      // pipe but before they were handed on: they are the rank's output all the same.
      if (!ec && n > 0 && !entry->discard) sink_(entry->rank, stream, {buffer.get(), n});
      break;
    }
    if (ec) break;
    // A pty's master gives a few KiB per read: take what else is waiting into the same chunk.
    // Would-block ends the filling; so does EIO, which the next read sees again.
    for (std::size_t more = 1; is_out && entry->out_is_pty && more > 0 && n < chunk; n += more)
      more = source.read_some(asio::buffer(buffer.get() + n, chunk - n), ec);
    sink_(entry->rank, stream, {buffer.get(), n});
    if (gate_) {
      // The output has nowhere to go yet: the data stays in the rank's pipe until it has.
      auto room = std::make_shared<asio::steady_timer>(io_, asio::steady_timer::time_point::max());
      if (gate_([room] { room->cancel(); })) {
        boost::system::error_code ignored;
        co_await room->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      }
      if (entry->closed) break;
    }
  }
  if (entry->closed) co_return;
  entry->ended[is_out ? 0 : 1] = true;
  stream_ended(entry);
}

void RankStreams::stream_ended(const std::shared_ptr<Entry>& entry) {
  if (--entry->open == 0 && entry->then) finish(entry);
}

void RankStreams::after_drain(std::uint32_t rank, std::function<void()> then) {
  const auto it = entries_.find(rank);
  if (it == entries_.end()) return then();
  const std::shared_ptr<Entry> entry = it->second;
  entry->then = std::move(then);
  if (entry->open == 0) return finish(entry);
  entry->grace.expires_after(kDrainGrace);
  entry->grace.async_wait([this, entry](const boost::system::error_code& ec) {
    // What the rank left running still holds a pipe: take what is there and stop reading, and
    // say so: what it writes from now on is not forwarded.
    if (ec || entry->closed || !entry->then) return;
    if (held_) held_(entry->rank, !entry->ended[0], !entry->ended[1]);
    finish(entry);
  });
}

void RankStreams::finish(const std::shared_ptr<Entry>& entry) {
  auto then = std::move(entry->then);
  entry->then = nullptr;
  close_entry(*entry, true);  // also cancels the grace
  if (const auto it = entries_.find(entry->rank); it != entries_.end() && it->second == entry)
    entries_.erase(it);
  then();
}

bool RankStreams::draining() const {
  for (const auto& [rank, entry] : entries_)
    if (entry->then) return true;
  return false;
}

void RankStreams::close_entry(Entry& entry, bool flush) {
  if (entry.closed) return;
  entry.closed = true;
  entry.discard = !flush;
  entry.grace.cancel();
  // Whatever is already in the pipes is output the rank wrote: it goes out before the close.
  const auto buffer = std::make_unique_for_overwrite<std::byte[]>(kStderrChunk);
  for (auto stream : {protocol::Stream::Stdout, protocol::Stream::Stderr}) {
    asio::posix::stream_descriptor& d = stream == protocol::Stream::Stdout ? entry.out : entry.err;
    if (!d.is_open()) continue;
    while (flush) {
      const ssize_t n = ::read(d.native_handle(), buffer.get(), kStderrChunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      sink_(entry.rank, stream, {buffer.get(), static_cast<std::size_t>(n)});
    }
    boost::system::error_code ignored;
    d.close(ignored);
  }
}

void RankStreams::close_all() {
  for (auto& [rank, entry] : entries_) close_entry(*entry, true);
  entries_.clear();
}

}  // namespace mpilaunch::launcher
