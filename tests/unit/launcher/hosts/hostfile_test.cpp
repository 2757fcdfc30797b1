#include <doctest/doctest.h>

#include <string>

#include "launcher/hosts/hostfile.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("host files in Open MPI and MPICH syntax") {
  struct Case {
    const char* text;
    std::vector<HostEntry> expected;
  };
  const Case cases[] = {
      // One line without slots=: the node's cores, counted by its agent (mpirun 4.1.4).
      {"a\n", {{.name = "a", .count_cores = true}}},
      {"a", {{.name = "a", .count_cores = true}}},  // no final newline
      {"a\na\na\n", {{.name = "a", .slots = 3}}},   // one line per slot (PBS style)
      {"a slots=2\n", {{.name = "a", .slots = 2, .slots_given = true}}},
      {"a slots = 2\n", {{.name = "a", .slots = 2, .slots_given = true}}},
      {"a slots =2\tmax_slots= 4",
       {{.name = "a", .slots = 2, .slots_given = true, .max_slots = 4}}},
      {"a count=3\n", {{.name = "a", .slots = 3, .slots_given = true}}},
      {"a cpu=3\n", {{.name = "a", .slots = 3, .slots_given = true}}},
      {"a max-slots=3\n", {{.name = "a", .slots = 3, .slots_given = true, .max_slots = 3}}},
      {"a slots=1 max_cpu=2", {{.name = "a", .slots = 1, .slots_given = true, .max_slots = 2}}},
      {"a:3\n", {{.name = "a", .slots = 3, .slots_given = true}}},  // MPICH
      {"me@a slots=2", {{.name = "a", .slots = 2, .slots_given = true, .user = "me"}}},
      {"a username=me", {{.name = "a", .count_cores = true, .user = "me"}}},
      {"a port=2222", {{.name = "a", .count_cores = true, .port = 2222}}},
      {"a slots=2 boards=1 sockets=2 cores=8", {{.name = "a", .slots = 2, .slots_given = true}}},
      {"[::1] slots=2", {{.name = "::1", .slots = 2, .slots_given = true}}},
      {"fe80::1\n", {{.name = "fe80::1", .count_cores = true}}},
      {"# cluster\r\na slots=2\r\n\r\n  b  # trailing\r\n",
       {{.name = "a", .slots = 2, .slots_given = true}, {.name = "b", .count_cores = true}}},
      {"\n\n   \n\tb\n", {{.name = "b", .count_cores = true}}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const auto hosts = parse_hostfile(c.text, "hosts.txt");
    REQUIRE_MESSAGE(hosts.has_value(), hosts.error().detail);
    CHECK(hosts.value() == c.expected);
  }
}

TEST_CASE("host file errors are HostfileError with path:line, what is wrong and the fix") {
  struct Case {
    const char* text;
    const char* detail;
  };
  const Case cases[] = {
      {"a\nb slots=abc\n", "hosts.txt:2: 'slots=abc' is not a number; write slots=N with N >= 1"},
      {"a slots=0\n", "hosts.txt:1: 'slots=0' gives no slots; write slots=N with N >= 1"},
      {"a slots=-2\n", "hosts.txt:1: 'slots=-2' is negative"},
      {"a slots=99999999\n", "hosts.txt:1: 'slots=99999999' is more than 1000000"},
      {"a count=x\n", "hosts.txt:1: 'count=x' is not a number; write count=N"},
      {"a max_slots=0\n", "hosts.txt:1: 'max_slots=0' gives no slots"},
      {"\n\na colour=blue\n", "hosts.txt:3: 'colour' is not a hostfile keyword"},
      {"a slots=4 max_slots=2\n", "hosts.txt:1: max_slots=2 is less than slots=4"},
      {"a slots\n", "hosts.txt:1: 'slots' is not key=value"},
      {"a slots=\n", "hosts.txt:1: 'slots=' has no value; write slots=N"},
      {"a = 2\n", "hosts.txt:1: '=' has no keyword before it"},
      {"= a\n", "hosts.txt:1: the line starts with '='"},
      {"a slots=2 slots=3\n", "hosts.txt:1: the slots are given twice"},
      {"a:2 slots=3\n", "hosts.txt:1: the slots are given twice"},
      {"a max_slots=2 max-slots=3\n", "hosts.txt:1: 'max-slots' is given twice"},
      {"a port=0\n", "hosts.txt:1: 'port=0' is not a port"},
      {"a port=70000\n", "hosts.txt:1: 'port=70000' is not a port"},
      {"a username=@x\n", "hosts.txt:1: 'username=@x' is not one user name"},
      {"a cores=x\n", "hosts.txt:1: 'cores=x' is not a number"},
      {"a rank=0\n", "hosts.txt:1: 'rank=' belongs in a rankfile"},
      {"a:0\n", "hosts.txt:1: '0' is not a slot count"},
      {"a:x\n", "hosts.txt:1: 'x' is not a slot count"},
      {"+n0\n", "hosts.txt:1: '+n0' is Open MPI's relative or excluded host syntax"},
      {"^a\n", "hosts.txt:1: '^a' is Open MPI's relative"},
      {"a,b\n", "hosts.txt:1: 'a,b' contains ','"},
      {"a\nb\na slots=2\n", "hosts.txt:3: a is also on line 1 and one of them gives its slots"},
      {"a slots=2\na\n", "hosts.txt:2: a is also on line 1"},
      {"# only a comment\n\n", "hosts.txt: no hosts in the file"},
      {"", "hosts.txt: no hosts in the file"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const auto r = parse_hostfile(c.text, "hosts.txt");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::HostfileError);
    CHECK_MESSAGE(r.error().detail.find(c.detail) == 0, r.error().detail);
  }
}
