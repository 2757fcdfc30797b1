#pragma once
/// [io] Rank output to the terminal and, with --output-filename, to per-rank files too, in order
/// per (rank, stream), whole lines at a time so that ranks do not interleave mid-line. The
/// formats are mpirun 4.1's: `[1,R]<stdout>:` tags, ctime() timestamps, DIR/1/rank.R/stdout.
/// Writes block: a slow terminal slows the job (backpressure), nothing is lost. A write that
/// fails is reported once per destination to the failure handler, when one is set; that
/// destination then takes nothing more, and what it did not take is counted (losses()).

#include <cstdint>
#include <ctime>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/protocol.hpp"
#include "common/result.hpp"

namespace mpilaunch::launcher {

struct OutputConfig {
  bool tag = false;
  bool timestamp = false;
  std::string directory;      // non-empty: DIR/1/rank.R/{stdout,stderr}, besides the terminal
  std::string job_tag = "1";  // the JOB in [JOB,RANK]: mpirun's job number
  bool merge_stderr = false;  // the files: stderr goes into DIR/1/rank.R/stdout (as mpirun)
};

/// One destination that stopped taking a rank's output.
struct OutputFailure {
  std::uint32_t rank = 0;  // the rank whose write failed first
  protocol::Stream stream = protocol::Stream::Stdout;
  std::string destination;    // a file's path, or "stdout"/"stderr" for the launcher's own
  int error = 0;              // errno
  std::uint64_t written = 0;  // bytes of that rank's stream the destination took before
  bool terminal = false;      // the launcher's own stdout or stderr
  std::uint64_t lost = 0;     // losses() only: bytes of that rank's stream it did not take
  int attempt = 0;            // losses() only: the attempt whose files these were (0: none)
};

class OutputForwarder {
 public:
  using FailureHandler = std::function<void(const OutputFailure&)>;

  explicit OutputForwarder(OutputConfig config)
      : config_(std::move(config)), base_directory_(config_.directory) {}
  ~OutputForwarder();
  OutputForwarder(const OutputForwarder&) = delete;
  OutputForwarder& operator=(const OutputForwarder&) = delete;

  /// Prepares the output directory; errors name the path.
  Status open();
  void on_failure(FailureHandler handler) { on_failure_ = std::move(handler); }
  void write(std::uint32_t rank, protocol::Stream stream, std::span<const std::byte> data);
  /// From now on per-rank files go to DIR/attempt-N/1/rank.R (used when restarts are enabled).
  void set_attempt(int attempt);
  /// The rank ended: writes any unterminated last line.
  void rank_done(std::uint32_t rank);
  void flush_all();
  std::uint64_t bytes_written() const { return bytes_; }
  /// Every (rank, stream, destination) that lost output so far, with the bytes it took and the
  /// bytes it lost: one entry per rank whose output a failed destination did not take.
  std::vector<OutputFailure> losses() const;

 private:
  using Key = std::pair<std::uint32_t, protocol::Stream>;
  struct File {
    int fd = -1;
    std::string path;
    std::uint64_t written = 0;
    bool failed = false;
    int error = 0;
    std::uint64_t lost = 0;
    protocol::Stream stream = protocol::Stream::Stdout;  // the rank's stream that failed first
  };
  struct TerminalCount {
    std::uint64_t written = 0;
    std::uint64_t lost = 0;
  };
  void emit(const Key& key, std::string_view text, bool complete_lines_only);
  /// Writes `first` then `second` to the terminal stream of `key`; reports a failure once.
  void to_terminal(const Key& key, std::string_view first, std::string_view second = {});
  /// Appends `text` to `key`'s file (when there is a directory); reports a failure once.
  void to_file(const Key& key, std::string_view text);
  File& file_for(const Key& key);
  void report(const OutputFailure& failure);

  OutputConfig config_;
  std::string base_directory_;
  std::map<Key, std::string> partial_;
  std::map<Key, File> files_;
  std::vector<OutputFailure> old_losses_;  // files of earlier attempts (set_attempt())
  int attempt_ = 0;                        // set_attempt()'s, 0 before
  std::map<Key, TerminalCount> terminal_written_;
  bool terminal_failed_[2] = {false, false};  // stdout, stderr
  int terminal_error_[2] = {0, 0};
  FailureHandler on_failure_;
  std::uint64_t bytes_ = 0;
};

/// When our stdout or stderr is a pipe, makes it hold 1 MiB (best effort): with the default
/// 64 KiB a reader such as `| tee` or `| wc` wakes and the launcher waits for every 64 KiB.
void widen_output_pipes();

/// Writes everything, retrying on EINTR and waiting on EAGAIN. False if the fd is gone (errno
/// says why).
bool write_all(int fd, std::string_view data);
/// Writes `first` then `second`, in one writev where the fd takes it.
bool write_all(int fd, std::string_view first, std::string_view second);

/// mpirun's --timestamp-output prefix for `t`: ctime() without its newline, local time
/// ("Fri Nov 27 08:38:06 2026").
std::string ctime_prefix(std::time_t t);

}  // namespace mpilaunch::launcher
