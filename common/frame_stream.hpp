#pragma once
/// [io] Frames in and out of a pair of file descriptors (a socket, or an agent's stdin/stdout),
/// for both sides. Sending never blocks: frames queue in order and one writer drains them.
/// Producers of bulk data (rank output) call wait_below() first, so memory stays bounded and
/// a slow reader slows the producers down (backpressure) instead of growing the queue.

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "common/error.hpp"
#include "common/handshake.hpp"
#include "common/protocol.hpp"

namespace mpilaunch {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  /// The peer's hello line (only when the stream was asked to expect one).
  virtual void on_hello(const handshake::Hello& hello) = 0;
  virtual void on_message(protocol::Envelope envelope) = 0;
  /// The stream ended: nullopt for a clean EOF, else why (malformed frame, I/O error, ...).
  virtual void on_closed(std::optional<Error> why) = 0;
  /// Awaited before each read: a sink that cannot take more yet (the launcher behind a stalled
  /// terminal) returns once it can, and the peer's frames wait in the stream meanwhile
  /// (backpressure). By default at once.
  virtual asio::awaitable<void> ready_to_read() { co_return; }
};

class FrameStream {
 public:
  /// Takes ownership of both descriptors (they may be the same socket).
  FrameStream(asio::io_context& io, int in_fd, int out_fd, std::string peer);
  FrameStream(const FrameStream&) = delete;
  FrameStream& operator=(const FrameStream&) = delete;

  /// Reads until EOF or error, handing every message to `sink`. With `expect_hello`, first
  /// skips shell noise up to the agent's hello line.
  asio::awaitable<void> read_loop(FrameSink& sink, bool expect_hello);

  /// Queues one message (or raw bytes, e.g. the hello line). Never blocks.
  void send(const protocol::Message& message, std::uint32_t id = 0, std::uint32_t refers_to = 0);
  void send_raw(std::vector<std::byte> bytes);
  /// Waits until fewer than `limit` bytes are queued (or the stream broke).
  asio::awaitable<void> wait_below(std::size_t limit);
  /// Waits until everything queued has been written (or the stream broke).
  asio::awaitable<void> flush() { return wait_below(1); }
  std::size_t queued_bytes() const { return queued_bytes_; }
  bool broken() const { return broken_; }
  /// Closes both directions; pending reads end, queued frames are dropped.
  void close();
  const std::string& peer() const { return peer_; }

 private:
  asio::awaitable<void> write_loop();
  void notify();

  asio::posix::stream_descriptor in_;
  asio::posix::stream_descriptor out_;
  std::string peer_;
  std::deque<std::vector<std::byte>> queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool broken_ = false;
  asio::steady_timer progress_;  // cancelled whenever bytes were written: a condition variable
};

}  // namespace mpilaunch
