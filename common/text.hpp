#pragma once
/// Small text helpers shared by the parsers of both programs. Pure.

#include <string_view>

namespace mpilaunch {

/// `s` without leading and trailing ASCII white space (space, \t, \n, \v, \f, \r).
constexpr std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

}  // namespace mpilaunch
