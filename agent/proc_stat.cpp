#include "agent/proc_stat.hpp"

#include "common/text.hpp"

namespace mpilaunch::agent {
namespace {

template <class Number>
bool parse_number(std::string_view word, Number& out) {
  const auto value = parse_int<Number>(word);
  if (value) out = *value;
  return value.has_value();
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses; it ends at the last ')'.
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  ProcStat out;
  out.comm = std::string(text.substr(open + 1, close - open - 1));
  std::string_view rest = text.substr(close + 1);
  for (int field = 3; field <= 22; ++field) {  // the first word after COMM is field 3
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.empty()) return std::nullopt;
    const std::size_t end = rest.find_first_of(" \n");
    const std::string_view word = rest.substr(0, end);
    rest.remove_prefix(word.size());
    if (field == 4 && !parse_number(word, out.ppid)) return std::nullopt;
    if (field == 22 && !parse_number(word, out.start_ticks)) return std::nullopt;
  }
  return out;
}

}  // namespace mpilaunch::agent
