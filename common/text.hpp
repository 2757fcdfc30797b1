#pragma once
/// Small text helpers shared by the parsers of both programs. Pure.

#include <charconv>
#include <concepts>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace mpilaunch {

/// `s` without leading and trailing ASCII white space (space, \t, \n, \v, \f, \r).
constexpr std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

/// The whole of `text` as a decimal integer of type T within [lo, hi]: nullopt when it is
/// empty, has anything but digits (and, for a signed T, one leading '-'; never '+' or white
/// space), does not fit T, or lies outside the bounds. std::from_chars, so no locale.
template <std::integral T>
std::optional<T> parse_int(std::string_view text, T lo = std::numeric_limits<T>::min(),
                           T hi = std::numeric_limits<T>::max()) {
  T value{};
  const char* const end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || stop != end || value < lo || value > hi) return std::nullopt;
  return value;
}

/// The decimal integer of type T at the start of `text`, whatever follows it (digits and, for a
/// signed T, one leading '-'): nullopt when `text` does not start with one or it does not fit T.
template <std::integral T>
std::optional<T> leading_int(std::string_view text) {
  T value{};
  const auto [stop, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || stop == text.data()) return std::nullopt;
  return value;
}

/// One line of a file that has something on it once its comment is gone.
struct ContentLine {
  int number = 0;         // from 1, counting every line of the file
  std::string_view text;  // without its comment and the white space around it; never empty
};

/// The lines of `text` (split at '\n', so CRLF reads alike) that are not blank once '#' and
/// what follows it on the line are removed and the rest is trimmed: host files, rankfiles,
/// appfiles and config files all read their lines so.
inline std::vector<ContentLine> content_lines(std::string_view text) {
  std::vector<ContentLine> out;
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    const std::string_view content = trim(line.substr(0, line.find('#')));
    if (!content.empty()) out.push_back({number, content});
  }
  return out;
}

}  // namespace mpilaunch
