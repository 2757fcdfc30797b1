#pragma once
// Formatting text with fmt through its public API only, at the cost of one compilation of
// fmt's formatting engine for the whole project.
//
// fmt is used header-only (FMT_HEADER_ONLY, set by meson.build for every file): Debian's
// libfmt.so would bring libstdc++.so back into executables that link the C++ runtime
// statically (meson.build, static_cxx_runtime), and reaching into fmt's versioned internals to
// compile its out-of-line functions once broke on fmt 10. Calling fmt::format directly would
// compile the whole engine again in every file that formats (it doubled the compile time of
// small files at -O2 -g), so the project formats through mpilaunch::format: the format string is
// still checked at compile time, the arguments are type-erased here and formatted by
// vformat_text(), the one place that instantiates fmt::vformat.
#include <fmt/format.h>

#include <string>

namespace mpilaunch {

/// fmt::vformat, compiled once (common/text_format.cpp).
std::string vformat_text(fmt::string_view format, fmt::format_args args);

/// fmt::format's replacement: the same format strings, checked at compile time.
template <typename... T>
std::string format(fmt::format_string<T...> format, T&&... args) {
  return mpilaunch::vformat_text(format, fmt::make_format_args(args...));
}

}  // namespace mpilaunch
