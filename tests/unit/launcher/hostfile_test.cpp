#include <doctest/doctest.h>

#include "launcher/hostfile.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("-H values: slots, repeats, users and IPv6") {
  auto hosts = parse_host_option("a,b:4,a,root@c:2,[::1]:3");
  REQUIRE(hosts.has_value());
  REQUIRE(hosts->size() == 4);
  CHECK((*hosts)[0].name == "a");
  CHECK((*hosts)[0].slots == 2);
  CHECK((*hosts)[1].slots == 4);
  CHECK((*hosts)[1].slots_given);
  CHECK((*hosts)[2].user == "root");
  CHECK((*hosts)[2].name == "c");
  CHECK((*hosts)[3].name == "::1");
  CHECK((*hosts)[3].slots == 3);
  CHECK(parse_host_option("::1")->front().name == "::1");
}

TEST_CASE("-H errors name the item") {
  for (const char* bad : {"a,,b", ",a", "a:0", "a:x", "a:", "@a", "a:2:x"}) {
    CAPTURE(bad);
    const auto r = parse_host_option(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::BadOption);
    CHECK(r.error().detail.find("-H ") == 0);
  }
}

TEST_CASE("host files in Open MPI and MPICH syntax") {
  const auto hosts = parse_hostfile(
      "# cluster\r\n"
      "node1 slots=2 max_slots=4\r\n"
      "\n"
      "node2:3   # MPICH style\n"
      "node3 slots = 2\n"
      "node4\n"
      "node4\n"
      "me@node5 count=2",
      "hosts.txt");
  REQUIRE(hosts.has_value());
  REQUIRE(hosts->size() == 5);
  CHECK((*hosts)[0].slots == 2);
  CHECK((*hosts)[0].max_slots == 4);
  CHECK((*hosts)[1].slots == 3);
  CHECK((*hosts)[2].slots == 2);
  CHECK((*hosts)[3].slots == 2);  // one line per slot
  CHECK((*hosts)[4].user == "me");
  CHECK((*hosts)[4].slots == 2);
}

TEST_CASE("host file errors carry path:line and the fix") {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"a\nb slots=abc\n", "hosts:2: 'abc' is not a slot count"},
      {"a slots=0\n", "hosts:1: '0' is not a slot count"},
      {"a slots=-2\n", "hosts:1:"},
      {"\n\na colour=blue\n", "hosts:3: unknown keyword 'colour'"},
      {"a slots=4 max_slots=2\n", "hosts:1: max_slots=2 is smaller than slots=4"},
      {"a slots\n", "hosts:1: 'slots' is not key=value"},
      {"a:0\n", "hosts:1:"},
      {"# only a comment\n\n", "hosts: no hosts"},
      {"", "hosts: no hosts"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const auto r = parse_hostfile(c.text, "hosts");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::HostfileError);
    CHECK(r.error().detail.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("max_slots alone sets the slots") {
  const auto hosts = parse_hostfile("a max_slots=3\n", "h");
  CHECK(hosts->front().slots == 3);
  CHECK(hosts->front().max_slots == 3);
}
