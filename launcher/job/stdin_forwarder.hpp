#pragma once
/// [io] The launcher's stdin to the ranks that read it (mpirun's rule: rank 0, or --stdin):
/// read only while every agent of a stdin rank has room in its window (StdinData sent minus
/// StdinCredit received), sent to those agents in order, end of file included. A rank that
/// does not read stops the reads (backpressure); memory stays bounded on both sides.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "common/protocol.hpp"

namespace mpilaunch::launcher {

class StdinForwarder {
 public:
  using Send = std::function<void(int node, const protocol::StdinData&)>;
  /// Sends to `node`'s agent; `fd` is read (a copy of it: the caller's stays as it was).
  StdinForwarder(asio::io_context& io, int fd, Send send);
  ~StdinForwarder();
  StdinForwarder(const StdinForwarder&) = delete;
  StdinForwarder& operator=(const StdinForwarder&) = delete;

  /// `nodes` host the stdin ranks and have just been told to spawn them: reading starts (the
  /// first time) or carries on, and a node that is new gets end of file at once when stdin
  /// has already ended.
  void start(const std::vector<int>& nodes);
  /// `node`'s agent wrote `bytes` to its ranks.
  void credit(int node, std::uint32_t bytes);
  /// `node`'s agent is gone: nothing more goes there, nor waits for it.
  void node_lost(int node);
  /// No more reads (the job ends); the descriptor's blocking mode is put back.
  void stop();

  static constexpr std::uint64_t kWindow = 1 << 20;  // bytes per agent not yet credited
  static constexpr std::size_t kChunk = 64 * 1024;

 private:
  void read_more();
  void read_now();
  /// The first `n` bytes of buffer_ go to every agent; then the next read.
  void deliver(std::size_t n);
  /// Stdin ended (`error` empty) or failed (said once): the ranks get end of file.
  void end_of_input(const std::string& error);
  void send_all(const protocol::StdinData& data);

  asio::io_context& io_;
  Send send_;
  int fd_ = -1;                                             // our copy of stdin
  std::unique_ptr<asio::posix::stream_descriptor> stream_;  // when the reactor can watch it
  std::map<int, std::uint64_t> outstanding_;                // node -> bytes not yet credited
  std::vector<char> buffer_;
  bool started_ = false;
  bool reading_ = false;
  bool eof_ = false;
  bool stopped_ = false;
};

}  // namespace mpilaunch::launcher
