#include "common/text.hpp"

#include <doctest/doctest.h>

using mpilaunch::trim;

TEST_CASE("trim: ASCII white space at both ends goes, inner space stays") {
  CHECK(trim("") == "");
  CHECK(trim(" \t\r\n\v\f") == "");
  CHECK(trim("value") == "value");
  CHECK(trim("  two words\t\r\n") == "two words");
  CHECK(trim("\n0-3\n") == "0-3");
  CHECK(trim("x ") == "x");
  CHECK(trim(" x") == "x");
}

TEST_CASE("content_lines: comments and blank lines go, line numbers count every line") {
  using mpilaunch::content_lines;
  CHECK(content_lines("").empty());
  CHECK(content_lines("\n\n# only a comment\n  \t\r\n").empty());
  const auto lines = content_lines("# head\na slots=2 # two\r\n\n  b\t\nc");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].number == 2);
  CHECK(lines[0].text == "a slots=2");
  CHECK(lines[1].number == 4);
  CHECK(lines[1].text == "b");
  CHECK(lines[2].number == 5);  // the last line needs no '\n'
  CHECK(lines[2].text == "c");
  CHECK(content_lines("x#y#z\n")[0].text == "x");
}
