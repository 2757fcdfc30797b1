#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "launcher/diagnose/byte_set.hpp"

using mpilaunch::launcher::ByteSet;

TEST_CASE("byte set: a template needs its literal bytes, not its holes or spaces") {
  const ByteSet needs = ByteSet::of_template("rank {rank} on {host}!");
  for (char c : std::string("rankon!")) CHECK(needs.contains(c));
  for (char c : std::string(" {}h")) CHECK_FALSE(needs.contains(c));
  CHECK(ByteSet::of("rank 3 on node7!").covers(needs));
  CHECK_FALSE(ByteSet::of("rank 3 on node7").covers(needs));  // no '!'
  CHECK(ByteSet::of("").covers(ByteSet::of_template("{rank}")));
}

TEST_CASE("byte set: every byte value, intersection and enumeration") {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const ByteSet full = ByteSet::of(all);
  std::vector<int> seen;
  CHECK_FALSE(full.any_of([&](int b) {
    seen.push_back(b);
    return false;
  }));
  REQUIRE(seen.size() == 256);
  for (int b = 0; b < 256; ++b) CHECK(seen[static_cast<std::size_t>(b)] == b);
  const ByteSet both = ByteSet::of("abc\xff") & ByteSet::of("bc\xff\x01");
  CHECK(both == ByteSet::of("bc\xff"));
  CHECK(both.any_of([](int b) { return b == 0xff; }));
  CHECK(ByteSet::from_words(1, 1) == ByteSet::of(std::string("\0@", 2)));
}
