#pragma once
/// Items of a separated list ("a,b,c"), for the parsers of both programs. Pure.

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

}  // namespace mpilaunch
