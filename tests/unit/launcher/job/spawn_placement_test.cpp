#include "launcher/job/spawn_placement.hpp"

#include <doctest/doctest.h>

namespace mpilaunch::launcher {

TEST_CASE("spawn placement: free slots first, node after node") {
  std::vector<SpawnNode> nodes{{"a", 2, 1}, {"b", 2, 0}};
  const auto placed = place_spawn(nodes, "", 3, false);
  REQUIRE(placed);
  CHECK(placed.value() == std::vector<int>{0, 1, 1});
  CHECK(nodes[0].used == 2);
  CHECK(nodes[1].used == 2);
}

TEST_CASE("spawn placement: beyond the free slots is refused without --oversubscribe") {
  std::vector<SpawnNode> nodes{{"a", 2, 1}};
  const auto placed = place_spawn(nodes, "", 2, false);
  REQUIRE(!placed);
  CHECK(placed.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(placed.error().detail.find("2 processes; 1 slots are free") != std::string::npos);
  CHECK(nodes[0].used == 1);  // nothing placed
}

TEST_CASE("spawn placement: --oversubscribe fills free slots, then one per node in turn") {
  std::vector<SpawnNode> nodes{{"a", 1, 1}, {"b", 2, 1}};
  const auto placed = place_spawn(nodes, "", 4, true);
  REQUIRE(placed);
  CHECK(placed.value() == std::vector<int>{1, 0, 1, 0});
}

TEST_CASE("spawn placement: the host info key picks nodes, in its order") {
  std::vector<SpawnNode> nodes{{"a", 4, 0}, {"b", 1, 0}, {"c", 1, 0}};
  const auto placed = place_spawn(nodes, "c, b:1", 2, false);
  REQUIRE(placed);
  CHECK(placed.value() == std::vector<int>{2, 1});
}

TEST_CASE("spawn placement: a host that is not a node of the job") {
  std::vector<SpawnNode> nodes{{"a", 4, 0}};
  const auto placed = place_spawn(nodes, "zz", 1, true);
  REQUIRE(!placed);
  CHECK(placed.error().kind == ErrorKind::UnknownHost);
  CHECK(placed.error().host == "zz");
}

TEST_CASE("spawn placement: localhost, 127.0.0.1 and the hostname name this machine's node") {
  for (const char* alias : {"localhost", "127.0.0.1", "vm", "vm.example.org", "localhost:1"}) {
    CAPTURE(alias);
    std::vector<SpawnNode> nodes{{"a", 2, 0, false}, {"vm", 2, 0, true}};
    const auto placed = place_spawn(nodes, alias, 1, false, "vm");
    REQUIRE(placed);
    CHECK(placed.value() == std::vector<int>{1});
  }
  // Virtual nodes are not this machine by name: localhost names none of them.
  std::vector<SpawnNode> nodes{{"dyn1", 2, 0, false}, {"dyn2", 2, 0, false}};
  const auto placed = place_spawn(nodes, "localhost", 1, false, "vm");
  REQUIRE(!placed);
  CHECK(placed.error().kind == ErrorKind::UnknownHost);
}

TEST_CASE("spawn placement: unknown slots count as one") {
  std::vector<SpawnNode> nodes{{"a", 0, 0}};
  CHECK(place_spawn(nodes, "", 1, false));
  CHECK(!place_spawn(nodes, "", 1, false));
}

}  // namespace mpilaunch::launcher
