#pragma once
/// [io] Rank output to the terminal or to per-rank files, in order per (rank, stream), whole
/// lines at a time so that ranks do not interleave mid-line. Optional [job,rank]<stream>: tags
/// and timestamps. Writes block: a slow terminal slows the job (backpressure), nothing is lost.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>

#include "common/protocol.hpp"
#include "common/result.hpp"

namespace mpilaunch::launcher {

struct OutputConfig {
  bool tag = false;
  bool timestamp = false;
  std::string directory;  // non-empty: DIR/rank-R/{stdout,stderr}
  std::string job_tag;    // the JOB in [JOB,RANK]
};

class OutputForwarder {
 public:
  explicit OutputForwarder(OutputConfig config)
      : config_(std::move(config)), base_directory_(config_.directory) {}
  ~OutputForwarder();
  OutputForwarder(const OutputForwarder&) = delete;
  OutputForwarder& operator=(const OutputForwarder&) = delete;

  /// Prepares the output directory; errors name the path.
  Status open();
  void write(std::uint32_t rank, protocol::Stream stream, std::span<const std::byte> data);
  /// From now on per-rank files go to DIR/attempt-N/rank-R (used when restarts are enabled).
  void set_attempt(int attempt);
  /// The rank ended: writes any unterminated last line.
  void rank_done(std::uint32_t rank);
  void flush_all();
  std::uint64_t bytes_written() const { return bytes_; }

 private:
  using Key = std::pair<std::uint32_t, protocol::Stream>;
  void emit(const Key& key, std::string_view text, bool complete_lines_only);
  int fd_for(const Key& key);

  OutputConfig config_;
  std::string base_directory_;
  std::map<Key, std::string> partial_;
  std::map<Key, int> files_;
  std::uint64_t bytes_ = 0;
};

/// When our stdout or stderr is a pipe, makes it hold 1 MiB (best effort): with the default
/// 64 KiB a reader such as `| tee` or `| wc` wakes and the launcher waits for every 64 KiB.
void widen_output_pipes();

/// Writes everything, retrying on EINTR and waiting on EAGAIN. False if the fd is gone.
bool write_all(int fd, std::string_view data);
/// Writes `first` then `second`, in one writev where the fd takes it.
bool write_all(int fd, std::string_view first, std::string_view second);

}  // namespace mpilaunch::launcher
