#include <doctest/doctest.h>

#include "common/handshake.hpp"
#include "common/protocol.hpp"

#include <string>
#include <vector>

using namespace mpilaunch;

namespace {
Result<std::optional<handshake::Hello>> scan(std::string_view s) {
  return handshake::scan_for_hello(std::as_bytes(std::span(s.data(), s.size())));
}
}  // namespace

TEST_CASE("the hello line is found after shell noise and consumed exactly") {
  const std::string hello = handshake::hello_line("node1");
  const std::string input = "Welcome to node1\r\nLast login: today\n" + hello + "FRAMEBYTES";
  auto r = scan(input);
  REQUIRE(r.has_value());
  REQUIRE(r.value().has_value());
  CHECK(r.value()->hostname == "node1");
  CHECK(r.value()->protocol == protocol::kProtocolVersion);
  CHECK(input.substr(r.value()->consumed) == "FRAMEBYTES");
  CHECK(r.value()->noise.size() == 2);
}

TEST_CASE("no complete line yet means wait") {
  auto r = scan("MPILAUNCH-AGENT 1 nod");
  REQUIRE(r.has_value());
  CHECK_FALSE(r.value().has_value());
}

TEST_CASE("malformed hellos, other versions and endless noise are errors") {
  CHECK(scan("MPILAUNCH-AGENT x node\n").error().kind == ErrorKind::MalformedFrame);
  CHECK(scan("MPILAUNCH-AGENT 1\n").error().kind == ErrorKind::MalformedFrame);
  CHECK(scan("MPILAUNCH-AGENT 1 two words\n").error().kind == ErrorKind::MalformedFrame);
  const auto other = scan("MPILAUNCH-AGENT 99 node\n");
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error().kind == ErrorKind::ProtocolMismatch);
  // The version is the whole word between two single spaces; the host name one word after it.
  const std::string v = std::to_string(protocol::kProtocolVersion);
  for (const std::string& line : std::vector<std::string>{
           "MPILAUNCH-AGENT\n", "MPILAUNCH-AGENT" + v + " node\n",
           "MPILAUNCH-AGENT  " + v + " node\n", "MPILAUNCH-AGENT " + v + "x node\n",
           "MPILAUNCH-AGENT +" + v + " node\n", "MPILAUNCH-AGENT " + v + " \n",
           "MPILAUNCH-AGENT " + v + "  node\n", "MPILAUNCH-AGENT 99999999999999999999 node\n"})
    CHECK_MESSAGE(scan(line).error().kind == ErrorKind::MalformedFrame, line);
  CHECK(scan("MPILAUNCH-AGENT " + v + " node\r\n").value()->hostname == "node");
  CHECK(scan("MPILAUNCH-AGENT -1 node\n").error().kind == ErrorKind::ProtocolMismatch);
  const std::string noise(handshake::kMaxNoiseBytes + 10, 'x');
  CHECK(scan(noise).error().kind == ErrorKind::MalformedFrame);
}
