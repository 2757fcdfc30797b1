#pragma once
/// One console line made safe and stripped of the prefixes runtimes and log collectors add.
/// Pure: byte cleaning (ANSI, CR, NUL, tabs, invalid UTF-8, a length cap) and prefix removal.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "launcher/diagnose/byte_set.hpp"

namespace mpilaunch::launcher {

/// Longest line kept, in bytes: the rest is cut off, so memory stays bounded.
inline constexpr std::size_t kMaxLineBytes = 16 * 1024;

struct ConsoleLine {
  std::string raw;   // the cleaned line with its prefixes: the evidence
  std::string text;  // the line with its prefixes stripped, whitespace collapsed
  std::string host;  // from "[host:pid]", "[proxy:P:N@host]" or "[mpiexec@host]"
  std::optional<int> pid;
  std::optional<int> rank;    // from a rank tag ("[1,3]<stderr>:", Hydra "-l" "[3] ")
  bool rank_output = false;   // tagged as a rank's own stdout/stderr (or a timestamp tag)
  bool hydra_prefix = false;  // "[mpiexec@...]" or "[proxy:...]"
};

/// Removes ANSI escape sequences, CR and NUL, expands tabs, replaces invalid UTF-8 with '?',
/// and caps the result at kMaxLineBytes.
std::string clean_bytes(std::string_view line);

/// Cleans `line` and strips, in a loop, every known prefix, keeping what they say.
ConsoleLine parse_console_line(std::string_view line);

/// What one pass over a raw line tells: whether cleaning would leave it as it is, whether it
/// is already whitespace-collapsed, and every byte it holds (a superset of its text's bytes).
struct LineScan {
  bool clean = false;      // clean_bytes(line) == line: printable ASCII within kMaxLineBytes
  bool collapsed = false;  // no leading, trailing or double blank
  ByteSet bytes;
};
LineScan scan_line(std::string_view line);

/// Fills `line` from a line that scan_line found clean, without allocating when its strings
/// have room: the same result as parse_console_line, for reusing a ConsoleLine.
void parse_clean_line_into(std::string_view clean, const LineScan& scan, ConsoleLine& line);

/// A banner line: 50 or more '-' or '=' alone (after prefixes).
bool is_separator(std::string_view text);

}  // namespace mpilaunch::launcher
