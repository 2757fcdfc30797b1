#pragma once
/// [io] Runs a ConsoleParser on its own thread, so that passing a runtime's output through is
/// never slowed down by reading it. Chunks are queued in order per stream; when the parser falls
/// kMaxQueuedBytes behind, push() waits (output is never dropped, memory stays bounded).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "launcher/diagnose/console_parser.hpp"
#include "launcher/diagnose/explanation.hpp"

namespace mpilaunch::launcher {

class ParseWorker {
 public:
  static constexpr std::size_t kMaxQueuedBytes = 16 * 1024 * 1024;
  static constexpr int kStreams = 2;  // 0 stdout, 1 stderr

  ParseWorker();  // the thread starts with the first chunk
  ~ParseWorker();
  ParseWorker(const ParseWorker&) = delete;
  ParseWorker& operator=(const ParseWorker&) = delete;

  /// Queues bytes read from `stream` (0 or 1), in the order they were read.
  void push(int stream, std::string_view chunk);
  /// `stream` ended: its last line, even without '\n', is fed now.
  void close(int stream);
  /// Feeds what is left, ends the input and returns the parser's explanation. Call once.
  Explanation finish(std::optional<int> rc);

 private:
  struct Chunk {
    int stream = -1;  // -1: no more input at all
    std::string bytes;
    bool end = false;  // the stream ended
  };
  void enqueue(Chunk chunk);
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Chunk> queue_;
  std::size_t queued_bytes_ = 0;
  ConsoleParser parser_;  // touched only by the worker thread until it is joined
  std::thread thread_;
};

}  // namespace mpilaunch::launcher
