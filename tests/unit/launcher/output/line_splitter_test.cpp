#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "launcher/output/line_splitter.hpp"

using mpilaunch::launcher::LineSplitter;

TEST_CASE("line splitter: lines across chunk borders, a last line without newline") {
  const std::string text = "alpha\nbeta\n\ngamma delta\nlast";
  for (std::size_t step = 1; step <= text.size(); ++step) {
    CAPTURE(step);
    LineSplitter splitter;
    std::vector<std::string> lines;
    auto add = [&](std::string_view l) { lines.emplace_back(l); };
    for (std::size_t at = 0; at < text.size(); at += step)
      splitter.push(std::string_view(text).substr(at, step), add);
    splitter.finish(add);
    CHECK(lines == std::vector<std::string>{"alpha", "beta", "", "gamma delta", "last"});
  }
}

TEST_CASE("line splitter: an endless line is handed on in bounded pieces") {
  LineSplitter splitter;
  std::size_t pieces = 0, bytes = 0, longest = 0;
  auto add = [&](std::string_view l) {
    ++pieces;
    bytes += l.size();
    longest = std::max(longest, l.size());
  };
  const std::string chunk(4096, 'x');
  for (int i = 0; i < 100; ++i) splitter.push(chunk, add);
  splitter.finish(add);
  CHECK(bytes == 409600);
  CHECK(pieces > 1);
  CHECK(longest <= LineSplitter::kMaxPendingBytes + chunk.size());
}
