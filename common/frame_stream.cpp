#include "common/frame_stream.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <memory>

namespace mpilaunch {

FrameStream::FrameStream(asio::io_context& io, int in_fd, int out_fd, std::string peer)
    : in_(io, in_fd),
      out_(io, in_fd == out_fd ? ::dup(out_fd) : out_fd),
      peer_(std::move(peer)),
      progress_(io, asio::steady_timer::time_point::max()) {}

asio::awaitable<void> FrameStream::read_loop(FrameSink& sink, bool expect_hello) {
  // Bytes are read straight into the tail of one buffer and decoded in place: [begin, end) is
  // what has arrived but not been decoded yet. The leftover (a partial frame) moves to the front
  // only when the free tail gets small, and the buffer grows only for a frame larger than it.
  // The buffer is not zero-filled: its pages become resident only as bytes arrive, so a peer
  // that sends little (an agent's control frames) costs little memory.
  constexpr std::size_t kReadChunk = 256 * 1024;
  std::size_t capacity = 2 * kReadChunk;
  auto buffer = std::make_unique_for_overwrite<std::byte[]>(capacity);
  std::size_t begin = 0, end = 0;
  bool hello_seen = !expect_hello;
  // A decoding error ends the stream, named after its peer.
  const auto close_from_peer = [&](Error e) {
    e.host = peer_;
    sink.on_closed(std::move(e));
  };
  for (;;) {
    if (capacity - end < kReadChunk) {
      std::copy(buffer.get() + begin, buffer.get() + end, buffer.get());
      end -= begin;
      begin = 0;
      if (capacity - end < kReadChunk) {  // a frame larger than the buffer: grow
        const std::size_t grown = end + kReadChunk;
        auto bigger = std::make_unique_for_overwrite<std::byte[]>(grown);
        std::copy(buffer.get(), buffer.get() + end, bigger.get());
        buffer = std::move(bigger);
        capacity = grown;
      }
    }
    co_await sink.ready_to_read();
    boost::system::error_code ec;
    const std::size_t n =
        co_await in_.async_read_some(asio::buffer(buffer.get() + end, capacity - end),
                                     asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::eof || ec == asio::error::operation_aborted) {
        sink.on_closed(std::nullopt);
      } else {
        sink.on_closed(Error{.kind = ErrorKind::AgentLost, .host = peer_, .detail = ec.message()});
      }
      co_return;
    }
    end += n;
    if (!hello_seen) {
      auto hello = handshake::scan_for_hello(std::span(buffer.get() + begin, end - begin));
      if (!hello) {
        close_from_peer(hello.error());
        co_return;
      }
      if (!hello.value()) continue;
      begin += hello.value()->consumed;
      hello_seen = true;
      sink.on_hello(*hello.value());
    }
    for (;;) {  // the pure decoder does the work; this loop only feeds it
      auto frame = protocol::decode_frame(std::span(buffer.get() + begin, end - begin));
      if (!frame) {
        close_from_peer(frame.error());
        co_return;
      }
      if (!frame.value()) break;
      begin += frame.value()->wire_size();
      auto envelope = protocol::decode_message(*frame.value());
      if (!envelope) {
        close_from_peer(envelope.error());
        co_return;
      }
      sink.on_message(std::move(envelope).value());
    }
    if (begin == end) begin = end = 0;
  }
}

void FrameStream::send(const protocol::Message& message, std::uint32_t id,
                       std::uint32_t refers_to) {
  send_raw(protocol::encode(message, id, refers_to));
}

void FrameStream::send_raw(std::vector<std::byte> bytes) {
  if (broken_) return;
  queued_bytes_ += bytes.size();
  queue_.push_back(std::move(bytes));
  if (!writing_) {
    writing_ = true;
    asio::co_spawn(out_.get_executor(), write_loop(), asio::detached);
  }
}

asio::awaitable<void> FrameStream::write_loop() {
  std::vector<asio::const_buffer> batch;
  while (!queue_.empty() && !broken_) {
    // Gather up to 64 queued frames into one write.
    batch.clear();
    std::size_t count = 0;
    for (const auto& frame : queue_) {
      batch.emplace_back(frame.data(), frame.size());
      if (++count == 64) break;
    }
    boost::system::error_code ec;
    co_await asio::async_write(out_, batch, asio::redirect_error(asio::use_awaitable, ec));
    // close() may have emptied the queue while the write was in flight: pop nothing then.
    if (ec || broken_) {
      broken_ = true;
      queue_.clear();
      queued_bytes_ = 0;
      break;
    }
    for (std::size_t i = 0; i < count; ++i) {
      queued_bytes_ -= queue_.front().size();
      queue_.pop_front();
    }
    notify();
  }
  writing_ = false;
  notify();
}

void FrameStream::notify() {
  progress_.cancel();
}

asio::awaitable<void> FrameStream::wait_below(std::size_t limit) {
  while (!broken_ && queued_bytes_ >= limit) {
    progress_.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ec;
    co_await progress_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

void FrameStream::close() {
  boost::system::error_code ec;
  in_.close(ec);
  out_.close(ec);
  broken_ = true;
  queue_.clear();
  queued_bytes_ = 0;
  notify();
}

}  // namespace mpilaunch
