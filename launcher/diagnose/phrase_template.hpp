#pragma once
/// Phrase templates: literal text with named holes, matched against whitespace-normalised text.
/// A space in a template matches any run of spaces and line breaks, so re-wrapped help text
/// still matches. Holes: {rank} {pid} {exit} {signal} {status} {count} {lineno} read an integer
/// (exit may be negative); {host} {exe} {detail} {detail2} {procname} {topic} {statuses} {_}
/// read a word, which ends at whitespace or at the literal character that follows the hole;
/// {line} reads to the end of the line (or to that character); {*} skips to the first place on
/// the line where the rest of the template matches.
/// Pure; never reads outside `text`; cost is bounded by text size times template size.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mpilaunch::launcher {

struct Captures {
  std::optional<int> rank, pid, exit_code, signal, status, count, lineno;
  std::string host, executable, detail, detail2, procname, topic, statuses;
  std::size_t begin = 0, end = 0;  // the matched span of the text
};

/// The first match of `tmpl` in `text` at or after `from`. A template must start with a
/// literal character.
std::optional<Captures> match_template(std::string_view text, std::string_view tmpl,
                                       std::size_t from = 0);

}  // namespace mpilaunch::launcher
