#pragma once
/// [io] Rank output to the terminal and, with --output-filename, to per-rank files too, in order
/// per (rank, stream), whole lines at a time so that ranks do not interleave mid-line. The
/// formats are mpirun 4.1's: `[1,R]<stdout>:` tags, ctime() timestamps, DIR/1/rank.R/stdout.
/// Once attach()ed to the loop, writes to our stdout and stderr never block it (issue 23, item
/// 4): when the terminal or pipe does not take them (a stalled `| less`, a terminal stopped
/// with ^S), they queue, and beyond kHighWater queued bytes congested() tells the producers to
/// stop reading rank output until when_room() calls them back: the ranks then wait in their
/// writes, as under mpirun, and nothing is lost. Files (--output-filename, a regular file as
/// stdout) are written at once. A write that fails is reported once per destination to the
/// failure handler, when one is set; that destination then takes nothing more, and what it
/// did not take is counted (losses()).

#include <cstdint>
#include <ctime>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/asio.hpp"
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
  bool stalled = false;       // losses() only: the reader took nothing more before the job's end
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
  /// From now on writes to our stdout and stderr do not block when they are a pipe, a
  /// terminal or a socket: they go through a descriptor of their own in non-blocking mode.
  void attach(asio::io_context& io);
  /// Our stdout or stderr holds more than kHighWater bytes that its reader has not taken yet.
  bool congested() const;
  /// Runs `go` once the queues are below kLowWater again (or failed, or released).
  void when_room(std::function<void()> go);
  /// No more backpressure (the job is being torn down): producers read on, and what queues
  /// beyond kMaxQueued is counted as lost.
  void release();
  /// Backpressure again (a new attempt's ranks start).
  void hold() { released_ = false; }
  /// Bytes queued for our stdout and stderr.
  std::size_t pending() const;
  /// Runs `then` once nothing is queued (at once when nothing is).
  void when_drained(std::function<void()> then);
  /// Gives up on what is queued (the job must end now): it is counted as lost, stalled.
  void abandon();
  /// Whether our stderr's queue was abandoned (a blocking write to it could hang).
  bool stderr_stalled() const { return terminals_[1].stalled; }
  /// Whether rank output is changed on its way (tags, timestamps) or also goes to files.
  bool formats() const { return config_.tag || config_.timestamp || !config_.directory.empty(); }
  void write(std::uint32_t rank, protocol::Stream stream, std::span<const std::byte> data);
  /// From now on per-rank files go to DIR/attempt-N/1/rank.R (used when restarts are enabled).
  void set_attempt(int attempt);
  /// Process `index` (a spawned job's, issue 24) is rank `rank` of mpirun's job `job`: its tag
  /// is [job,rank] and its files DIR/job/rank.R. Others are rank `index` of job_tag.
  void name_process(std::uint32_t index, std::uint32_t job, std::uint32_t rank) {
    names_[index] = {std::to_string(job), rank};
  }
  /// Forgets every name_process() (a new attempt).
  void forget_names() { names_.clear(); }
  /// The rank ended: writes any unterminated last line.
  void rank_done(std::uint32_t rank);
  void flush_all();
  std::uint64_t bytes_written() const { return bytes_; }
  /// Every (rank, stream, destination) that lost output so far, with the bytes it took and the
  /// bytes it lost: one entry per rank whose output a failed destination did not take.
  std::vector<OutputFailure> losses() const;

 private:
  using Key = std::pair<std::uint32_t, protocol::Stream>;
  /// The [JOB,RANK] of process `index`.
  std::pair<std::string_view, std::uint32_t> job_rank(std::uint32_t index) const {
    const auto it = names_.find(index);
    if (it == names_.end()) return {config_.job_tag, index};
    return {it->second.first, it->second.second};
  }
  std::map<std::uint32_t, std::pair<std::string, std::uint32_t>> names_;  // name_process()
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
  struct Chunk {
    Key key;
    std::string data;
  };
  /// One of our own stdout (0) and stderr (1).
  struct Terminal {
    int fd = -1;               // where writes go
    bool owned = false;        // fd is a descriptor of our own (closed at the end)
    bool socket = false;       // written with send(MSG_DONTWAIT)
    bool nonblocking = false;  // writes never block: the queue takes what the fd does not
    std::deque<Chunk> queue;   // in order; the front one is written from `offset`
    std::size_t offset = 0;
    std::size_t pending = 0;                                // bytes in the queue
    bool waiting = false;                                   // a wait for writability is armed
    bool stalled = false;                                   // abandon()ed
    std::unique_ptr<asio::posix::stream_descriptor> watch;  // a dup of fd, for the waits
    std::unique_ptr<asio::steady_timer> retry;              // a socket's waits (no watch)
  };
  /// Writes what `t`'s queue holds until the fd takes no more; arms a wait if it did not take
  /// everything; reports a failure.
  void drain(int index);
  void arm(int index);
  /// `index`'s destination failed with `error`: counts its queue as lost, reports once.
  void fail_terminal(int index, Key key, int error);
  /// What `t` still holds is not written: counted as lost for the ranks it came from.
  void drop_queue(Terminal& t);
  void notify();
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
  Terminal terminals_[2];
  bool released_ = false;
  std::vector<std::function<void()>> room_waiters_;
  std::vector<std::function<void()>> drain_waiters_;
  FailureHandler on_failure_;
  std::uint64_t bytes_ = 0;
};

/// When our stdout or stderr is a pipe, makes it hold 1 MiB (best effort): with the default
/// 64 KiB a reader such as `| tee` or `| wc` wakes and the launcher waits for every 64 KiB.
void widen_output_pipes();

/// Bytes queued for one of our stdout and stderr before the producers wait, and again when
/// they go on; what a queue holds beyond kMaxQueued is lost (counted) in a teardown only.
inline constexpr std::size_t kHighWater = 4 << 20;
inline constexpr std::size_t kLowWater = 1 << 20;
inline constexpr std::size_t kMaxQueued = 64 << 20;

/// Writes everything, retrying on EINTR and waiting on EAGAIN. False if the fd is gone (errno
/// says why).
bool write_all(int fd, std::string_view data);
/// Writes `first` then `second`, in one writev where the fd takes it.
bool write_all(int fd, std::string_view first, std::string_view second);

/// mpirun's --timestamp-output prefix for `t`: ctime() without its newline, local time
/// ("Fri Nov 27 08:38:06 2026").
std::string ctime_prefix(std::time_t t);

}  // namespace mpilaunch::launcher
