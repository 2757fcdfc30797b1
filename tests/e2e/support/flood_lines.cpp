#include "tests/e2e/support/flood_lines.hpp"

#include <charconv>
#include <string_view>

namespace mpilaunch::e2e {
namespace {

constexpr std::size_t kMaxProblems = 5;

// Parses "R:NNNNNNNN:xxx" (without '\n') into rank and index; false if it is not such a line.
bool parse_flood_line(std::string_view line, int& rank, long long& index) {
  if (line.size() != static_cast<std::size_t>(kFloodLineBytes - 1)) return false;
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon + 10 > line.size() || line[colon + 9] != ':')
    return false;
  const auto r = std::from_chars(line.data(), line.data() + colon, rank);
  const auto i = std::from_chars(line.data() + colon + 1, line.data() + colon + 9, index);
  if (r.ptr != line.data() + colon || i.ptr != line.data() + colon + 9) return false;
  return line.find_first_not_of('x', colon + 10) == std::string_view::npos;
}

std::string shown(const std::string& line) {
  return line.size() > 120 ? line.substr(0, 120) + "..." : line;
}

}  // namespace

FloodExpectation every_rank(int ranks, long long lines) {
  FloodExpectation expected;
  for (int rank = 0; rank < ranks; ++rank) expected[rank] = lines;
  return expected;
}

std::vector<std::string> flood_problems(const std::string& text, const FloodExpectation& expected,
                                        const LinePayload& payload) {
  std::vector<std::string> problems;
  auto report = [&](std::string p) {
    if (problems.size() < kMaxProblems) problems.push_back(std::move(p));
  };
  std::map<int, long long> next;
  for (const auto& [rank, lines] : expected) next[rank] = 0;
  std::size_t at = 0;
  for (long long number = 1; at < text.size(); ++number) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) {
      report("output ends without a newline: " + shown(text.substr(at)));
      break;
    }
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const std::string where = "line " + std::to_string(number) + ": ";
    std::string own;
    int rank = -1;
    long long index = -1;
    if (!payload(line, own) || !parse_flood_line(own, rank, index)) {
      report(where + "not a whole flood line: " + shown(line));
      continue;
    }
    if (!expected.contains(rank)) {
      report(where + "a line from an unexpected rank: " + shown(line));
      continue;
    }
    long long& want = next[rank];
    if (index != want)
      report(where + "rank " + std::to_string(rank) + " sent line " + std::to_string(index) +
             " where line " + std::to_string(want) + " was due");
    want = index + 1;
  }
  for (const auto& [rank, lines] : expected)
    if (next[rank] != lines)
      report("rank " + std::to_string(rank) + " ended at line " + std::to_string(next[rank]) +
             " of " + std::to_string(lines));
  return problems;
}

std::vector<std::string> flood_problems(const std::string& text, const FloodExpectation& expected) {
  return flood_problems(text, expected, [](const std::string& line, std::string& payload) {
    payload = line;
    return true;
  });
}

}  // namespace mpilaunch::e2e
