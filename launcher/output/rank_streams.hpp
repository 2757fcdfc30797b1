#pragma once
/// [io] RankStreams: the stdout and stderr pipes of ranks whose local agent handed them over
/// (common/stream_channel.hpp). Reads each on the launcher's loop and hands every chunk to the
/// sink, in order per (rank, stream); reads only when the sink has returned and the gate lets
/// it, so a stalled terminal leaves the data in the rank's pipe and the rank waits
/// (backpressure).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>

#include "common/asio.hpp"
#include "common/protocol.hpp"

namespace mpilaunch::launcher {

/// How long after a rank's end its pipes are read before they are closed anyway (something
/// the rank started may hold them open).
inline constexpr int kRankDrainGraceSeconds = 2;

class RankStreams {
 public:
  using Sink =
      std::function<void(std::uint32_t rank, protocol::Stream stream, std::span<const std::byte>)>;
  /// Whether reading must wait: true when it must, and then `go` is called once it may go on.
  using Gate = std::function<bool(std::function<void()> go)>;
  /// `rank`'s streams still open when the grace after its end ran out (stdout, stderr):
  /// something the rank started holds them, and what it writes to them from now on is not read.
  using Held = std::function<void(std::uint32_t rank, bool stdout_held, bool stderr_held)>;
  RankStreams(asio::io_context& io, Sink sink, Gate gate = {})
      : io_(io), sink_(std::move(sink)), gate_(std::move(gate)) {}
  ~RankStreams();
  RankStreams(const RankStreams&) = delete;
  RankStreams& operator=(const RankStreams&) = delete;

  /// Takes ownership of `rank`'s two read ends and starts reading them; a rank adopted before
  /// (an earlier attempt) has what is left in its pipes read and is closed first.
  void adopt(std::uint32_t rank, int stdout_fd, int stderr_fd);
  bool has(std::uint32_t rank) const { return entries_.contains(rank); }
  /// Told of every rank whose streams after_drain()'s grace closes while still open.
  void on_held(Held held) { held_ = std::move(held); }
  /// Runs `then` once both of `rank`'s pipes are at end of file: at once when the rank has
  /// none here. Something the rank started may hold them open: after a grace what they hold
  /// is read, they are closed, on_held() is told, and `then` runs anyway.
  void after_drain(std::uint32_t rank, std::function<void()> then);
  /// Whether some after_drain() is still waiting.
  bool draining() const;
  /// Reads what every pipe holds now, then closes them all; pending after_drain()s are dropped.
  void close_all();

 private:
  struct Entry;
  asio::awaitable<void> pump(std::shared_ptr<Entry> entry, protocol::Stream stream);
  void stream_ended(const std::shared_ptr<Entry>& entry);
  /// The rank's wait is over (its pipes ended, or the grace did): closes them, forgets the
  /// entry and runs its after_drain() callback.
  void finish(const std::shared_ptr<Entry>& entry);
  /// `flush`: first hand what the pipes hold to the sink.
  void close_entry(Entry& entry, bool flush);

  asio::io_context& io_;
  Sink sink_;
  Gate gate_;
  Held held_;
  std::map<std::uint32_t, std::shared_ptr<Entry>> entries_;
};

}  // namespace mpilaunch::launcher
