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
