#pragma once
/// Items of a separated list ("a,b,c"), for the parsers of both programs. Pure.

#include <algorithm>
#include <boost/algorithm/string/classification.hpp>
#include <boost/algorithm/string/split.hpp>
#include <string_view>
#include <vector>

namespace mpilaunch {

/// The items of `text` between the `separator`s, views into `text`, empty ones kept: "a,,b" is
/// {a, "", b}, "a," is {a, ""} and "" is {""} (boost::algorithm::split).
inline std::vector<std::string_view> split_at(std::string_view text, char separator) {
  std::vector<std::string_view> items;
  boost::algorithm::split(items, text, [separator](char c) { return c == separator; });
  return items;
}

/// The same with any of `separators` between items: split_at_any("a:b,c", ":,") is {a, b, c}.
inline std::vector<std::string_view> split_at_any(std::string_view text,
                                                  std::string_view separators) {
  std::vector<std::string_view> items;
  boost::algorithm::split(items, text, boost::algorithm::is_any_of(separators));
  return items;
}

/// The words of `text` between runs of any of `blanks`, none empty: words_of(" a \tb ", " \t")
/// is {a, b} and words_of("  ", " ") is {}.
inline std::vector<std::string_view> words_of(std::string_view text, std::string_view blanks) {
  std::vector<std::string_view> words;
  boost::algorithm::split(words, text, boost::algorithm::is_any_of(blanks),
                          boost::algorithm::token_compress_on);
  // A run at either end still leaves one empty word there.
  std::erase_if(words, [](std::string_view w) { return w.empty(); });
  return words;
}

}  // namespace mpilaunch
