#include <doctest/doctest.h>

#include "launcher/cli/options.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("ssh options: config file, connect timeout, fan-out, and their defaults") {
  const auto defaults = parse_options({"a"});
  REQUIRE(defaults);
  CHECK(defaults->ssh_config.empty());
  CHECK(defaults->connect_timeout_seconds == 10.0);
  CHECK(defaults->ssh_fanout == 64);
  const auto set = parse_options(
      {"-F", "cfg", "--connect-timeout", "2.5", "--ssh-fanout=8", "--agent-path", "/x", "a"});
  REQUIRE(set);
  CHECK(set->ssh_config == "cfg");
  CHECK(set->connect_timeout_seconds == 2.5);
  CHECK(set->ssh_fanout == 8);
  CHECK(set->agent_path == "/x");
  CHECK(parse_options({"--ssh-config=other", "a"})->ssh_config == "other");
  CHECK(parse_options({"--connect-timeout", "0", "a"}).error().detail.find("more than 0") !=
        std::string::npos);
  CHECK(parse_options({"--ssh-fanout", "0", "a"}).error().detail.find("at least 1") !=
        std::string::npos);
}
