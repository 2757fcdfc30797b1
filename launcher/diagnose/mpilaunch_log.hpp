#pragma once
/// mpilaunch's own output, read back by `explain`: the console block render_human() prints
/// ("mpilaunch: error: ..." then "  kind: ..." lines) and events-file lines (JSON, "v":1).
/// Pure.

#include <optional>
#include <string_view>

#include "common/error.hpp"

namespace mpilaunch::launcher {

/// One error read from an events-file line.
struct EventError {
  Error error;
  bool job_failed = false;  // the "job-failed" event: the job's own failure
};

/// An events-file line with an "error" object; nullopt for any other line.
std::optional<EventError> parse_event_line(std::string_view line);
/// The exit code of an events-file "job-end" line; nullopt for any other line.
std::optional<int> parse_job_end_exit_code(std::string_view line);

/// Reads render_human() blocks line by line (lines already stripped of leading spaces).
class HumanBlockReader {
 public:
  /// Feeds one line; returns a finished block's error when this line ends one.
  std::optional<Error> feed(std::string_view text, std::string_view raw);
  /// Ends the input: returns the block still open, if any.
  std::optional<Error> finish();
  /// True when feed(text) would do nothing: no block open and `text` starts none.
  bool ignores(std::string_view text) const;

 private:
  std::optional<Error> open_;
};

}  // namespace mpilaunch::launcher
