#include "launcher/diagnose/parse_worker.hpp"

#include <array>
#include <utility>

#include "launcher/output/line_splitter.hpp"

namespace mpilaunch::launcher {

ParseWorker::ParseWorker() = default;

ParseWorker::~ParseWorker() {
  if (!thread_.joinable()) return;  // never started, or finished
  enqueue(Chunk{.end = true});
  thread_.join();
}

void ParseWorker::push(int stream, std::string_view chunk) {
  enqueue(Chunk{.stream = stream, .bytes = std::string(chunk)});
}

void ParseWorker::close(int stream) {
  enqueue(Chunk{.stream = stream, .end = true});
}

Explanation ParseWorker::finish(std::optional<int> rc) {
  enqueue(Chunk{.end = true});
  thread_.join();
  return parser_.finish(rc);
}

void ParseWorker::enqueue(Chunk chunk) {
  // Started on first use: the caller forks mpirun first, while it has only one thread.
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queued_bytes_ < kMaxQueuedBytes; });
  queued_bytes_ += chunk.bytes.size();
  queue_.push_back(std::move(chunk));
  lock.unlock();
  changed_.notify_all();
}

void ParseWorker::run() {
  std::array<LineSplitter, kStreams> splitters;
  auto feed = [this](std::string_view line) { parser_.feed(line); };
  for (;;) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !queue_.empty(); });
    Chunk chunk = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= chunk.bytes.size();
    lock.unlock();
    changed_.notify_all();
    if (chunk.stream < 0) {
      for (LineSplitter& s : splitters) s.finish(feed);
      return;
    }
    LineSplitter& splitter = splitters[static_cast<std::size_t>(chunk.stream)];
    splitter.push(chunk.bytes, feed);
    if (chunk.end) splitter.finish(feed);
  }
}

}  // namespace mpilaunch::launcher
