#include <doctest/doctest.h>

#include "launcher/job/fence_relay.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;
using protocol::FenceContribute;

namespace {
std::vector<std::byte> b(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}
const std::string kAll = "ns:4294967294;";
}  // namespace

TEST_CASE("a wildcard fence completes when every node contributed, blobs in node order") {
  const JobMap map({"a", "b", "c"}, {0, 0, 1, 2});
  FenceRelay relay(map);
  auto r = relay.contribute(2, FenceContribute{"ns", kAll, 1, 0, true, b("C")});
  REQUIRE(r.has_value());
  CHECK_FALSE(r.value().has_value());
  r = relay.contribute(0, FenceContribute{"ns", kAll, 1, 0, true, b("A")});
  CHECK_FALSE(r.value().has_value());
  r = relay.contribute(1, FenceContribute{"ns", kAll, 1, 0, true, b("B")});
  REQUIRE(r.value().has_value());
  CHECK(r.value()->message.data == b("ABC"));
  CHECK(r.value()->nodes == std::vector<int>{0, 1, 2});
  CHECK(relay.pending() == 0);
}

TEST_CASE("fences with different sequence numbers do not mix; a fast node may run ahead") {
  const JobMap map({"a", "b"}, {0, 1});
  FenceRelay relay(map);
  CHECK_FALSE(
      relay.contribute(0, FenceContribute{"ns", kAll, 1, 0, true, b("a1")}).value().has_value());
  CHECK_FALSE(
      relay.contribute(0, FenceContribute{"ns", kAll, 2, 0, false, {}}).value().has_value());
  auto first = relay.contribute(1, FenceContribute{"ns", kAll, 1, 0, true, b("b1")});
  CHECK(first.value()->message.seq == 1);
  CHECK(first.value()->message.data == b("a1b1"));
  CHECK(relay.pending() == 1);
}

TEST_CASE("a subset fence waits only for the nodes that host its ranks") {
  const JobMap map({"a", "b", "c"}, {0, 1, 2});
  FenceRelay relay(map);
  const std::string procs = "ns:0;ns:2;";
  CHECK_FALSE(
      relay.contribute(0, FenceContribute{"ns", procs, 1, 0, false, {}}).value().has_value());
  auto done = relay.contribute(2, FenceContribute{"ns", procs, 1, 0, false, {}});
  CHECK(done.value()->nodes == std::vector<int>{0, 2});
  CHECK(relay.contribute(1, FenceContribute{"ns", procs, 2, 0, false, {}}).error().kind ==
        ErrorKind::MalformedFrame);
}

TEST_CASE("a failing local status is carried into the release; duplicates are malformed") {
  const JobMap map({"a", "b"}, {0, 1});
  FenceRelay relay(map);
  CHECK_FALSE(
      relay.contribute(0, FenceContribute{"ns", kAll, 1, -25, false, {}}).value().has_value());
  CHECK(relay.contribute(0, FenceContribute{"ns", kAll, 1, 0, false, {}}).error().kind ==
        ErrorKind::MalformedFrame);
  CHECK(relay.contribute(1, FenceContribute{"ns", kAll, 1, 0, false, {}}).value()->message.status ==
        -25);
  CHECK(relay.contribute(0, FenceContribute{"ns", "ns:99;", 3, 0, false, {}}).error().kind ==
        ErrorKind::MalformedFrame);
  CHECK(relay.contribute(0, FenceContribute{"ns", "garbage", 3, 0, false, {}}).error().kind ==
        ErrorKind::MalformedFrame);
}

// A participant is nspace:rank, the rank all digits (PMIx's wildcard rank for every rank): a
// trailing word, a sign, a missing or too large rank is a malformed frame.
TEST_CASE("fence participants: nspace:rank with a whole decimal rank") {
  const JobMap map({"a", "b", "c"}, {0, 1, 2});
  const FenceRelay relay(map);
  CHECK(relay.participants("ns:1;").value() == std::set<int>{1});
  CHECK(relay.participants("ns:1").value() == std::set<int>{1});
  CHECK(relay.participants("ns:0;;ns:2;").value() == std::set<int>{0, 2});
  CHECK(relay.participants("a:b:1;").value() == std::set<int>{1});  // the last ':' splits
  CHECK(relay.participants("ns:4294967294;").value() == std::set<int>{0, 1, 2});
  for (const char* bad :
       {"ns:;", "ns;", "ns:-1;", "ns:+1;", "ns: 1;", "ns:1 ;", "ns:1x;", "ns:0x1;", "ns:3;",
        "ns:4294967293;", "ns:4294967296;", "ns:99999999999999999999;", ";", ""}) {
    INFO(std::string(bad));
    const auto r = relay.participants(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::MalformedFrame);
  }
  CHECK(relay.participants("ns:1x;").error().detail ==
        "fence participant 'ns:1x' is not nspace:rank");
}

TEST_CASE("failing all pending fences releases every waiting node with the status") {
  const JobMap map({"a", "b"}, {0, 1});
  FenceRelay relay(map);
  (void)relay.contribute(0, FenceContribute{"ns", kAll, 1, 0, true, b("x")});
  const auto released = relay.fail_all(-61);
  REQUIRE(released.size() == 1);
  CHECK(released[0].message.status == -61);
  CHECK(released[0].nodes == std::vector<int>{0, 1});
  CHECK(relay.pending() == 0);
}

TEST_CASE("a spawned namespace's fence waits for the nodes of its own ranks only") {
  const JobMap map({"a", "b", "c"}, {0, 1, 2});
  FenceRelay relay(map);
  relay.add_namespace("ns-job2", {1, 2, 2});
  const std::string all = "ns-job2:4294967294;";
  CHECK(relay.participants(all).value() == std::set<int>{1, 2});
  CHECK(relay.participants("ns-job2:0;").value() == std::set<int>{1});
  CHECK(relay.participants("ns:0;ns-job2:2;").value() == std::set<int>{0, 2});
  CHECK_FALSE(relay.participants("ns-job2:3;").has_value());
  CHECK_FALSE(
      relay.contribute(2, FenceContribute{"ns-job2", all, 1, 0, true, b("C")}).value().has_value());
  auto r = relay.contribute(1, FenceContribute{"ns-job2", all, 1, 0, true, b("B")});
  REQUIRE(r.value().has_value());
  CHECK(r.value()->message.data == b("BC"));
  CHECK(r.value()->nodes == std::vector<int>{1, 2});
}
