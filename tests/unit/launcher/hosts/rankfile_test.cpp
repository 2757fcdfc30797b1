#include <doctest/doctest.h>

#include "launcher/hosts/rankfile.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("rankfile: mpirun 4.1's lines, comments and blanks around '='") {
  const auto lines = parse_rankfile(
      "# two nodes\nrank 0=n1 slot=1:0-2\n\n  rank 1 = me@n2 slot = 0,3 # comment\r\nrank 2=n1 "
      "slot=1\n",
      "rf");
  REQUIRE_MESSAGE(lines.has_value(), lines.error().detail);
  REQUIRE(lines->size() == 3);
  CHECK((*lines)[0].rank == 0);
  CHECK((*lines)[0].host == "n1");
  CHECK((*lines)[0].slot.socket == 1);
  CHECK((*lines)[0].slot.cpus == std::vector<int>{0, 1, 2});
  CHECK((*lines)[0].line == 2);
  CHECK((*lines)[1].host == "me@n2");
  CHECK((*lines)[1].slot.cpus == std::vector<int>{0, 3});
  CHECK((*lines)[1].line == 4);
  CHECK((*lines)[2].rank == 2);
}

TEST_CASE("rankfile errors name the line and the form") {
  struct Case {
    const char* text;
    const char* detail;
  };
  const Case cases[] = {
      {"rank 0=a\n", "--rankfile rf:1: 'rank 0=a' is not a rankfile line; write 'rank N=HOST"},
      {"\nrank x=a slot=0\n", "--rankfile rf:2: 'x' is not a rank number"},
      {"rank -1=a slot=0\n", "--rankfile rf:1: '-1' is not a rank number"},
      {"rank 0=+n0 slot=0\n", "--rankfile rf:1: '+n0' is Open MPI's relative host syntax"},
      {"rank 0=a slot=x\n", "--rankfile rf:1: slot=x: 'x' is not a list of CPU numbers"},
      {"rank 0=a slot=0\nrank 0=b slot=1\n", "--rankfile rf:2: rank 0 is also on line 1"},
      {"# nothing\n", "--rankfile rf: no ranks in the file"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const auto lines = parse_rankfile(c.text, "rf");
    REQUIRE_FALSE(lines.has_value());
    CHECK(lines.error().kind == ErrorKind::BadOption);
    CHECK(lines.error().detail.starts_with(c.detail));
  }
}

TEST_CASE("rankfile hosts: the file's own, or a check against the job's") {
  const auto lines = parse_rankfile("rank 0=n2 slot=1\nrank 1=n1 slot=0\nrank 2=n2 slot=0\n", "rf");
  REQUIRE(lines.has_value());
  // No hosts given: the file's, in first appearance, a slot per rank.
  const auto own = rankfile_hosts(lines.value(), {}, "rf");
  REQUIRE(own.has_value());
  REQUIRE(own->size() == 2);
  CHECK((*own)[0].name == "n2");
  CHECK((*own)[0].slots == 2);
  CHECK((*own)[1].name == "n1");
  CHECK((*own)[1].slots == 1);
  // Hosts given: each named host must be one of them (mpirun: "not allocated").
  const std::vector<HostEntry> given{{.name = "n1", .slots = 2}, {.name = "n2", .slots = 2}};
  CHECK(rankfile_hosts(lines.value(), given, "rf").value() == given);
  const auto missing = rankfile_hosts(lines.value(), {{.name = "n1", .slots = 2}}, "rf");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().detail.starts_with(
      "--rankfile rf:1: rank 0 is on n2, which is not among the job's hosts"));
}
