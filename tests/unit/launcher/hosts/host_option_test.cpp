#include <doctest/doctest.h>

#include <string>

#include "launcher/hosts/host_entry.hpp"
#include "launcher/hosts/host_option.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("-H values: slots, repeats, users and IPv6") {
  struct Case {
    const char* value;
    std::vector<HostEntry> expected;
  };
  const Case cases[] = {
      {"a", {{.name = "a"}}},
      {"a,b", {{.name = "a"}, {.name = "b"}}},
      {"a,a", {{.name = "a", .slots = 2}}},  // Open MPI: a repeated name adds a slot
      {"a:2,b,a:3", {{.name = "a", .slots = 5, .slots_given = true}, {.name = "b"}}},
      {"h1,h2:4,user@h3:2",
       {{.name = "h1"},
        {.name = "h2", .slots = 4, .slots_given = true},
        {.name = "h3", .slots = 2, .slots_given = true, .user = "user"}}},
      {" a , b ", {{.name = "a"}, {.name = "b"}}},
      {"[::1]", {{.name = "::1"}}},
      {"[::1]:3", {{.name = "::1", .slots = 3, .slots_given = true}}},
      {"root@[fe80::2]:2", {{.name = "fe80::2", .slots = 2, .slots_given = true, .user = "root"}}},
      {"fe80::1", {{.name = "fe80::1"}}},  // bare IPv6: no ":N"
      {"fe80::1%eth0", {{.name = "fe80::1%eth0"}}},
      {"node-1.cluster_x", {{.name = "node-1.cluster_x"}}},
      {"u@a,a", {{.name = "a", .user = "u"}, {.name = "a"}}},
  };
  for (const Case& c : cases) {
    INFO(c.value);
    const auto hosts = parse_host_option(c.value);
    REQUIRE_MESSAGE(hosts.has_value(), hosts.error().detail);
    CHECK(hosts.value() == c.expected);
  }
}

// host:N, slots=N and the resource managers' counts: digits only, 1 to 1'000'000, seven at most.
TEST_CASE("slot counts: 1 to kMaxSlotsPerHost, digits only") {
  const struct {
    const char* text;
    std::optional<int> slots;
  } cases[] = {
      {"1", 1},
      {"16", 16},
      {"1000000", 1000000},
      {"0000001", 1},
      {"00000001", std::nullopt},  // eight digits
      {"1000001", std::nullopt},
      {"9999999", std::nullopt},
      {"99999999999", std::nullopt},
      {"0", std::nullopt},
      {"", std::nullopt},
      {"-1", std::nullopt},
      {"-0", std::nullopt},
      {"+1", std::nullopt},
      {" 1", std::nullopt},
      {"1 ", std::nullopt},
      {"1x", std::nullopt},
      {"0x1", std::nullopt},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(parse_slot_count(c.text) == c.slots);
  }
}

TEST_CASE("-H errors are BadOption and name the item and the fix") {
  struct Case {
    const char* value;
    const char* detail;
  };
  const Case cases[] = {
      {"a,,b", "-H a,,b: item 2: empty; remove the extra comma"},
      {",a", "-H ,a: item 1: empty"},
      {"a,", "-H a,: item 2: empty"},
      {"", "-H : item 1: empty"},
      {"a:0", "item 1: '0' is not a slot count; write a:N with 1 <= N <= 1000000"},
      {"a:-1", "item 1: '-1' is not a slot count"},
      {"a:x", "item 1: 'x' is not a slot count"},
      {"a:", "item 1: '' is not a slot count"},
      {"a:99999999", "'99999999' is not a slot count"},
      {"@a", "item 1: '' is not a user name in '@a'"},
      {"a:2:x", "'a:2:x' is neither a host name nor an IPv6 address"},
      {"[::1", "'[::1' has an unmatched bracket"},
      {"[a]:2", "'[a]' is not an IPv6 address"},
      {"-oProxyCommand=x", "starts with '-'"},
      {"a b", "'a b' contains ' '"},
      {"b,a/b", "item 2: 'a/b' contains '/'"},
      {"a:600000,a:600000", "item 2: a has more than 1000000 slots in all"},
  };
  for (const Case& c : cases) {
    INFO(c.value);
    const auto r = parse_host_option(c.value);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::BadOption);
    CHECK_MESSAGE(r.error().detail.find(c.detail) != std::string::npos, r.error().detail);
  }
}

TEST_CASE("-H: names longer than 255 characters are refused") {
  const std::string long_name(256, 'a');
  CHECK(parse_host_option(std::string(255, 'a')).has_value());
  const auto r = parse_host_option(long_name);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().detail.find("longer than 255 characters") != std::string::npos);
}

TEST_CASE("this machine's names: loopback, and its short name with any domain") {
  struct Case {
    const char* name;
    const char* hostname;
    bool local;
  };
  const Case cases[] = {
      {"localhost", "vm", true},
      {"127.0.0.1", "vm", true},
      {"::1", "vm", true},
      {"vm", "vm", true},
      {"vm.example.org", "vm", true},
      {"vm", "vm.example.org", true},  // mpirun compares nodes without their domain
      {"vm2", "vm", false},
      {"vmx.example.org", "vm", false},
      {"10.0.0.1", "10", false},  // an address keeps its dots
      {"vm", "", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.hostname);
    CHECK(is_local_name(c.name, c.hostname) == c.local);
  }
  CHECK(short_host_name("node1.cluster.local") == "node1");
  CHECK(short_host_name("192.168.1.5") == "192.168.1.5");
  CHECK(short_host_name("fe80::1") == "fe80::1");
}
