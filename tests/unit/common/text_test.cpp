#include "common/text.hpp"
#include "common/text_split.hpp"

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

TEST_CASE("parse_int: the whole text as one decimal integer of the type, within the bounds") {
  using mpilaunch::parse_int;
  CHECK(parse_int<int>("0") == 0);
  CHECK(parse_int<int>("42") == 42);
  CHECK(parse_int<int>("007") == 7);  // decimal, never octal
  CHECK(parse_int<int>("-3") == -3);
  CHECK(parse_int<int>("2147483647") == 2147483647);
  CHECK(parse_int<int>("-2147483648") == -2147483647 - 1);
  // Empty, signs it does not take, white space, trailing or leading junk, other bases.
  for (const char* bad :
       {"", "-", "+3", " 3", "3 ", "3\n", "3x", "x3", "1.5", "0x10", "1e3", "--1", "3-"})
    CHECK_MESSAGE(!parse_int<int>(bad).has_value(), bad);
  // Overflow of the type.
  CHECK(!parse_int<int>("2147483648"));
  CHECK(!parse_int<int>("-2147483649"));
  CHECK(!parse_int<int>("99999999999999999999"));
  CHECK(!parse_int<unsigned char>("256"));
  CHECK(parse_int<unsigned char>("255") == 255);
  // Unsigned types take no sign at all.
  CHECK(!parse_int<unsigned>("-1"));
  CHECK(!parse_int<std::size_t>("-0"));
  CHECK(parse_int<std::size_t>("65536") == 65536U);
  // Bounds, both inclusive.
  CHECK(parse_int<int>("1", 1, 65536) == 1);
  CHECK(parse_int<int>("65536", 1, 65536) == 65536);
  CHECK(!parse_int<int>("0", 1, 65536));
  CHECK(!parse_int<int>("65537", 1, 65536));
  CHECK(!parse_int<int>("-1", 0, 10));
}

TEST_CASE("leading_int: the integer a text starts with, whatever follows") {
  using mpilaunch::leading_int;
  CHECK(leading_int<int>("42") == 42);
  CHECK(leading_int<int>("3],1]") == 3);
  CHECK(leading_int<int>("-7 more") == -7);
  CHECK(leading_int<long>("12345678901 (LWP)") == 12345678901L);
  for (const char* none : {"", " 3", "+3", "x3", "-", "]"})
    CHECK_MESSAGE(!leading_int<int>(none).has_value(), none);
  CHECK(!leading_int<int>("99999999999x"));  // does not fit
  CHECK(!leading_int<unsigned>("-1"));
}

TEST_CASE("split_at: every item between the separators, empty ones kept") {
  using V = std::vector<std::string_view>;
  CHECK(mpilaunch::split_at("", ',') == V{""});
  CHECK(mpilaunch::split_at("a", ',') == V{"a"});
  CHECK(mpilaunch::split_at("a,b", ',') == V{"a", "b"});
  CHECK(mpilaunch::split_at("a,,b", ',') == V{"a", "", "b"});
  CHECK(mpilaunch::split_at(",a,", ',') == V{"", "a", ""});
  CHECK(mpilaunch::split_at("ns:0;ns:1;", ';') == V{"ns:0", "ns:1", ""});
  CHECK(mpilaunch::split_at(" a , b ", ',') == V{" a ", " b "});  // no trimming
  const std::string_view text = "x,y";
  CHECK(mpilaunch::split_at(text, ',')[1].data() == text.data() + 2);  // views, not copies
}

TEST_CASE("split_at_any: any of several separators, empty items kept") {
  using V = std::vector<std::string_view>;
  CHECK(mpilaunch::split_at_any("", ":,") == V{""});
  CHECK(mpilaunch::split_at_any("a:b,c", ":,") == V{"a", "b", "c"});
  CHECK(mpilaunch::split_at_any(":a,,b:", ":,") == V{"", "a", "", "b", ""});
}

TEST_CASE("words_of: runs of blanks separate words, no empty word anywhere") {
  using V = std::vector<std::string_view>;
  CHECK(mpilaunch::words_of("", " \t") == V{});
  CHECK(mpilaunch::words_of(" \t ", " \t") == V{});
  CHECK(mpilaunch::words_of("a", " \t") == V{"a"});
  CHECK(mpilaunch::words_of("\t a  \tb c ", " \t") == V{"a", "b", "c"});
  CHECK(mpilaunch::words_of("a\nb", " \t") == V{"a\nb"});  // only the blanks given
}
