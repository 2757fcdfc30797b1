#pragma once
/// Streaming, table-driven reader of orterun, prterun, Hydra and mpilaunch console output.
/// Fed line by line, it keeps only the open block of each output stream and a bounded list of
/// findings, so memory stays bounded whatever the input size. Pure: no I/O, no clock.

#include <cstddef>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

#include "launcher/diagnose/byte_set.hpp"
#include "launcher/diagnose/console_line.hpp"
#include "launcher/diagnose/console_pattern.hpp"
#include "launcher/diagnose/explanation.hpp"
#include "launcher/diagnose/finding_set.hpp"
#include "launcher/diagnose/mpilaunch_log.hpp"
#include "launcher/diagnose/root_cause.hpp"

namespace mpilaunch::launcher {

/// Lines a block keeps; older ones slide out (a block without end is mostly rank output).
inline constexpr std::size_t kMaxBlockLines = 120;
/// Output streams followed at once: the untagged one plus tagged ranks.
inline constexpr std::size_t kMaxStreams = 8;

class ConsoleParser {
 public:
  /// One line without its '\n' (a trailing '\r' is dropped).
  void feed(std::string_view line);
  /// Ends the input. `rc` is the runtime's exit code when known.
  Explanation finish(std::optional<int> rc);

 private:
  struct Stream {
    int key = 0;                    // -1 untagged, -2 tagged without a rank, else the rank
    std::deque<ConsoleLine> lines;  // a sliding window: the oldest slides out in O(1)
    bool opened_by_banner = false;
    std::size_t last_use = 0;
  };

  void feed_line(ConsoleLine line);
  bool is_quiet(const ConsoleLine& line, const ByteSet& bytes) const;
  Stream& stream_for(const ConsoleLine& line);
  void close_block(Stream& stream, bool closed_by_banner);
  void match_line(const ConsoleLine& line, const ByteSet& bytes);
  void match_block(const Stream& stream, bool bannered);
  void note_runtime(const ConsoleLine& line, const ByteSet& bytes);
  void add(Finding finding, Runtime from);
  Runtime runtime() const;

  std::vector<Stream> streams_;
  FindingSet findings_;
  HumanBlockReader human_;
  std::optional<UnmatchedBlock> unmatched_;
  std::optional<int> events_exit_code_;
  std::array<int, 5> votes_{};  // per Runtime
  std::size_t lines_seen_ = 0;
  ConsoleLine scratch_;  // reused: quiet lines cost no allocation
};

}  // namespace mpilaunch::launcher
