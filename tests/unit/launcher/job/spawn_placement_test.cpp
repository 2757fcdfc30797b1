#include "launcher/job/spawn_placement.hpp"

#include <doctest/doctest.h>

#include <string>

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

// mpirun 4.1.4 on virtual nodes (measured, session 8): free slots first, from the bookmark (or
// the first node with room), then the rest evenly from there, ranked in node order
// (--oversubscribe -H dyn1:1,dyn2:2 -n 2, spawn 4: dyn1, dyn2, dyn2, dyn2). Until session 8
// the expectation here was the unmeasured filling order {1, 0, 1, 0}.
TEST_CASE("spawn placement: --oversubscribe fills free slots, then evenly from the start node") {
  std::vector<SpawnNode> nodes{{"a", 1, 1}, {"b", 2, 1}};
  const auto placed = place_spawn(nodes, "", 4, true, "", SpawnMapping::Slot, 1);
  REQUIRE(placed);
  CHECK(placed.value() == std::vector<int>{0, 1, 1, 1});
  // -H dyn1:2,dyn2:2 -n 2 (dyn1 full), spawn 3: all on dyn2, the first node with room.
  std::vector<SpawnNode> full_first{{"dyn1", 2, 2}, {"dyn2", 2, 0}};
  CHECK(place_spawn(full_first, "", 3, true, "", SpawnMapping::Slot, 0).value() ==
        std::vector<int>{1, 1, 1});
  // -H dyn1:1,dyn2:1,dyn3:1 -n 2, spawn 4: dyn1, dyn2, dyn3, dyn3.
  std::vector<SpawnNode> ones{{"dyn1", 1, 1}, {"dyn2", 1, 1}, {"dyn3", 1, 0}};
  CHECK(place_spawn(ones, "", 4, true, "", SpawnMapping::Slot, 1).value() ==
        std::vector<int>{0, 1, 2, 2});
  // -H dyn1:2,dyn2:2,dyn3:2 -n 3, spawn 5 map_by node: dyn1, dyn2, dyn2, dyn3, dyn3.
  std::vector<SpawnNode> by_node{{"dyn1", 2, 2}, {"dyn2", 2, 1}, {"dyn3", 2, 0}};
  CHECK(place_spawn(by_node, "", 5, true, "", SpawnMapping::Node, 1).value() ==
        std::vector<int>{0, 1, 1, 2, 2});
}

// mpirun 4.1.4 (measured: -H dyn1:2,dyn2:2,dyn3:2 -n 1, host=dyn3,dyn2, spawn 2: dyn2, dyn2):
// the key picks nodes, which are then taken in the job's node order, not the key's.
TEST_CASE("spawn placement: the host info key picks nodes, taken in node order") {
  std::vector<SpawnNode> nodes{{"a", 4, 0}, {"b", 1, 0}, {"c", 1, 0}};
  const auto placed = place_spawn(nodes, "c, b:1", 2, false);
  REQUIRE(placed);
  CHECK(placed.value() == std::vector<int>{1, 2});
  std::vector<SpawnNode> three{{"dyn1", 2, 1}, {"dyn2", 2, 0}, {"dyn3", 2, 0}};
  const auto both = place_spawn(three, "dyn3,dyn2", 2, false);
  REQUIRE(both);
  CHECK(both.value() == std::vector<int>{1, 1});
}

// The info keys hostfile, host and add-host as mpirun 4.1.4 reads them (measured on virtual
// nodes): each restricts the job's nodes, together to their common ones; a file's slots=
// change nothing; add-host of a new host is refused by name (mpirun's job fails there).
TEST_CASE("spawn placement: hostfile, host and add-host restrict the nodes") {
  const std::vector<SpawnNode> nodes{
      {"dyn1", 2, 1}, {"dyn2", 2, 0}, {"dyn3", 2, 0}, {"vm", 2, 0, true}};
  const auto filter = [&](SpawnHostKeys keys) { return spawn_host_filter(nodes, keys, "vm"); };
  CHECK(filter({}).value().empty());  // every node
  CHECK(filter({.hostfile = "hf", .hostfile_hosts = {"dyn3", "dyn2"}}).value() == "dyn2,dyn3");
  CHECK(filter({.host = "dyn3", .hostfile = "hf", .hostfile_hosts = {"dyn3", "dyn2"}}).value() ==
        "dyn3");
  CHECK(filter({.hostfile = "hf", .hostfile_hosts = {"localhost"}}).value() == "vm");
  CHECK(filter({.add_host = "dyn2"}).value() == "dyn2");
  CHECK(filter({.host = "dyn1", .add_host = "dyn1:3"}).value() == "dyn1");
  // No node in common: mpirun's "already filled".
  const auto none = filter({.host = "dyn1", .hostfile = "hf", .hostfile_hosts = {"dyn2"}});
  REQUIRE(!none);
  CHECK(none.error().kind == ErrorKind::NotEnoughSlots);
  // A name that is not a node of the job.
  const auto unknown = filter({.hostfile = "hf", .hostfile_hosts = {"dyn9"}});
  REQUIRE(!unknown);
  CHECK(unknown.error().kind == ErrorKind::UnknownHost);
  CHECK(unknown.error().detail.find("info hostfile hf names dyn9") != std::string::npos);
  const auto added = filter({.add_host = "dyn4"});
  REQUIRE(!added);
  CHECK(added.error().kind == ErrorKind::BadOption);
  CHECK(added.error().detail.find("add-host dyn4") != std::string::npos);
  const auto empty = filter({.hostfile = "hf"});
  REQUIRE(!empty);
  CHECK(empty.error().kind == ErrorKind::HostfileError);
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

// mpirun 4.1.4, measured on virtual nodes: its own node heads the node order, and a spawn by
// slot starts where the parent job's map ended (the bookmark: its last node) when that node has
// room; the ranks are numbered in node order.
TEST_CASE("spawn placement: this machine first, from the parent job's last node, as mpirun") {
  struct Case {
    std::vector<SpawnNode> nodes;
    int bookmark;
    int count;
    std::vector<int> placed;
  };
  const Case cases[] = {
      // --nolocal -H localhost:2,dyn1:3 -n 1, spawn 1: the parent's node has room: dyn1.
      {{{"dyn1", 3, 1}, {"localhost", 2, 0, true}}, 0, 1, {0}},
      // --nolocal -H localhost:2,dyn1:1,dyn2:2 -n 1, spawn 1 (any order of -H): this machine.
      {{{"dyn1", 1, 1}, {"dyn2", 2, 0}, {"localhost", 2, 0, true}}, 0, 1, {2}},
      // ... spawn 3: vm, vm, dyn2.
      {{{"dyn1", 1, 1}, {"dyn2", 2, 0}, {"localhost", 2, 0, true}}, 0, 3, {2, 2, 1}},
      // -H dyn1:2,dyn2:2 --map-by node -n 2, spawn 1: dyn2; spawn 2: dyn1 (rank 0), dyn2.
      {{{"dyn1", 2, 1}, {"dyn2", 2, 1}}, 1, 1, {1}},
      {{{"dyn1", 2, 1}, {"dyn2", 2, 1}}, 1, 2, {0, 1}},
      // -H dyn1:2,dyn2:2,dyn3:2 --map-by node -n 3, spawn 2: dyn1 (rank 0), dyn3.
      {{{"dyn1", 2, 1}, {"dyn2", 2, 1}, {"dyn3", 2, 1}}, 2, 2, {0, 2}},
      // -n 2 by slot on dyn1:2 (full): the first node with room.
      {{{"dyn1", 2, 2}, {"dyn2", 2, 0}, {"dyn3", 2, 0}}, 0, 3, {1, 1, 2}},
  };
  for (const Case& c : cases) {
    INFO(c.count, " from node ", c.bookmark, " of ", c.nodes.size());
    std::vector<SpawnNode> nodes = c.nodes;
    const auto placed =
        place_spawn(nodes, "", c.count, false, "vm", SpawnMapping::Slot, c.bookmark);
    REQUIRE(placed);
    CHECK(placed.value() == c.placed);
  }
}

TEST_CASE("spawn placement: unknown slots count as one") {
  std::vector<SpawnNode> nodes{{"a", 0, 0}};
  CHECK(place_spawn(nodes, "", 1, false));
  CHECK(!place_spawn(nodes, "", 1, false));
}

// mpirun 4.1.4 with the info key map_by=node (measured on virtual nodes, -H as the slots, the
// parents' ranks as used): the children spread over the nodes with free slots, ranked node
// after node.
TEST_CASE("spawn placement: map_by node as mpirun 4.1.4") {
  struct Case {
    std::vector<SpawnNode> nodes;
    int count;
    std::vector<int> placed;
  };
  const Case cases[] = {
      {{{"dyn1", 3, 1}, {"dyn2", 3, 0}}, 2, {0, 1}},                        // -n 1 spawn 2
      {{{"dyn1", 3, 2}, {"dyn2", 3, 0}, {"dyn3", 3, 0}}, 4, {0, 1, 1, 2}},  // -n 2 spawn 4
      {{{"dyn1", 2, 2}, {"dyn2", 2, 0}}, 2, {1, 1}},  // a full node is skipped
      {{{"dyn1", 2, 1}, {"dyn2", 2, 0}, {"dyn3", 2, 0}}, 3, {0, 1, 2}},
  };
  for (const Case& c : cases) {
    INFO(c.count, " on ", c.nodes.size(), " nodes");
    std::vector<SpawnNode> nodes = c.nodes;
    const auto placed = place_spawn(nodes, "", c.count, false, {}, SpawnMapping::Node);
    REQUIRE(placed);
    CHECK(placed.value() == c.placed);
  }
  // Too few free slots: refused without --oversubscribe; with it every node takes its share
  // (the first one more), as mpirun's by-node mapper does.
  std::vector<SpawnNode> full{{"a", 1, 1}, {"b", 1, 1}};
  CHECK(!place_spawn(full, "", 3, false, {}, SpawnMapping::Node));
  const auto over = place_spawn(full, "", 3, true, {}, SpawnMapping::Node);
  REQUIRE(over);
  CHECK(over.value() == std::vector<int>{0, 0, 1});
  CHECK(full[0].used == 3);
  CHECK(full[1].used == 2);
}

TEST_CASE("spawn placement: the map_by values served") {
  for (const char* slot : {"", "slot", "core", "Socket", "numa", "hwthread", "l3cache"}) {
    INFO(slot);
    const auto m = spawn_mapping(slot);
    REQUIRE(m);
    CHECK(m.value() == SpawnMapping::Slot);
  }
  for (const char* node : {"node", "NODE", " node "}) {
    const auto m = spawn_mapping(node);
    REQUIRE(m);
    CHECK(m.value() == SpawnMapping::Node);
  }
  for (const char* refused : {"ppr:1:node", "node:span", "seq", "rankfile", "dist:mlx5_0", "x"}) {
    INFO(refused);
    const auto m = spawn_mapping(refused);
    REQUIRE(!m);
    CHECK(m.error().kind == ErrorKind::BadOption);
    CHECK(m.error().detail.find(refused) != std::string::npos);
  }
}

// mpirun 4.1.4 on virtual nodes (measured): the spawn's map_by node starts dealing at the
// bookmark (the node where the job's map ended) when it has room; a job ranked by node
// (--map-by node, or --rank-by node) gets its children ranked by node, whatever their mapping.
TEST_CASE("spawn placement: map_by node from the bookmark; ranked by node as the job") {
  const auto place = [](std::vector<SpawnNode> nodes, int count, SpawnMapping mapping, int bookmark,
                        bool by_node) {
    return place_spawn(nodes, "", count, false, "", mapping, bookmark, by_node).value();
  };
  // -H dyn1:2,dyn2:2,dyn3:2 --map-by node -n 2 (bookmark dyn2), spawn 1 / 2 / 4, map_by node.
  const std::vector<SpawnNode> two_each{{"dyn1", 2, 1}, {"dyn2", 2, 1}, {"dyn3", 2, 0}};
  CHECK(place(two_each, 1, SpawnMapping::Node, 1, true) == std::vector<int>{1});
  CHECK(place(two_each, 2, SpawnMapping::Node, 1, true) == std::vector<int>{1, 2});
  CHECK(place(two_each, 3, SpawnMapping::Node, 1, true) == std::vector<int>{0, 1, 2});
  CHECK(place(two_each, 4, SpawnMapping::Node, 1, true) == std::vector<int>{0, 1, 2, 2});
  // -H dyn1:3,dyn2:3,dyn3:3 --map-by node -n 2, spawn 4 map_by node: dyn2 takes the extra one;
  // spawn 2: dyn2, dyn3; map_by slot, spawn 4: dyn2 and dyn3 filled, ranked by node.
  const std::vector<SpawnNode> three_each{{"dyn1", 3, 1}, {"dyn2", 3, 1}, {"dyn3", 3, 0}};
  CHECK(place(three_each, 4, SpawnMapping::Node, 1, true) == std::vector<int>{0, 1, 2, 1});
  CHECK(place(three_each, 2, SpawnMapping::Node, 1, true) == std::vector<int>{1, 2});
  CHECK(place(three_each, 4, SpawnMapping::Slot, 1, true) == std::vector<int>{1, 2, 1, 2});
  // -H dyn1:3,dyn2:3 --map-by node -n 2, spawn 4 (by slot from dyn2, then dyn1).
  CHECK(place({{"dyn1", 3, 1}, {"dyn2", 3, 1}}, 4, SpawnMapping::Slot, 1, true) ==
        std::vector<int>{0, 1, 0, 1});
  // --rank-by node -H dyn1:3,dyn2:3,dyn3:3 -n 2 (bookmark dyn1), spawn 4 map_by node.
  CHECK(place({{"dyn1", 3, 2}, {"dyn2", 3, 0}, {"dyn3", 3, 0}}, 4, SpawnMapping::Node, 0, true) ==
        std::vector<int>{0, 1, 2, 1});
  // The same without ranking by node: node after node (-H dyn1:3,dyn2:3,dyn3:3 -n 2).
  CHECK(place({{"dyn1", 3, 2}, {"dyn2", 3, 0}, {"dyn3", 3, 0}}, 4, SpawnMapping::Node, 0, false) ==
        std::vector<int>{0, 1, 1, 2});
  // A full bookmark: dealt from the first node (-H dyn1:3,dyn2:1,dyn3:3 --map-by node -n 2,
  // spawn 3 map_by node: dyn1, dyn3, dyn1).
  CHECK(place({{"dyn1", 3, 1}, {"dyn2", 1, 1}, {"dyn3", 3, 0}}, 3, SpawnMapping::Node, 1, true) ==
        std::vector<int>{0, 2, 0});
}

// mpirun 4.1.4 on virtual nodes, spawns of spawned processes (session 9, 25 lines measured): no
// node has room (--oversubscribe): the filling starts at the bookmark, or at the node before it
// when that one is less overloaded; the new job's own bookmark (last_node) is the node of the
// last process placed, where its own spawn starts.
TEST_CASE("spawn placement: every node full; the new job's own bookmark") {
  const auto place = [](std::vector<SpawnNode>& nodes, int count, SpawnMapping mapping,
                        int bookmark, bool by_node, int& last) {
    return place_spawn(nodes, "", count, true, "", mapping, bookmark, by_node, &last).value();
  };
  int last = -1;
  // -H dyn1:1,dyn2:1 -n 2 (bookmark dyn2), spawn 1: dyn2; its spawn of 1 (dyn2 now 1 over,
  // dyn1 none): dyn1.
  std::vector<SpawnNode> two{{"dyn1", 1, 1}, {"dyn2", 1, 1}};
  CHECK(place(two, 1, SpawnMapping::Slot, 1, false, last) == std::vector<int>{1});
  CHECK(last == 1);
  CHECK(place(two, 1, SpawnMapping::Slot, last, false, last) == std::vector<int>{0});
  // -H dyn1:1,dyn2:1,dyn3:1 -n 3, a child on dyn1 (bookmark dyn1, 1 over): the node before it,
  // round the list, is dyn3.
  std::vector<SpawnNode> three{{"dyn1", 1, 2}, {"dyn2", 1, 1}, {"dyn3", 1, 1}};
  CHECK(place(three, 1, SpawnMapping::Slot, 0, false, last) == std::vector<int>{2});
  // -H dyn1:1,dyn2:1,dyn3:1 -n 3, spawn 2 from dyn3: dyn3 then dyn1 filled (ranked dyn1, dyn3),
  // so the child job's bookmark is dyn1, where its spawn of 2 starts: dyn1, dyn2.
  std::vector<SpawnNode> ones{{"dyn1", 1, 1}, {"dyn2", 1, 1}, {"dyn3", 1, 1}};
  CHECK(place(ones, 2, SpawnMapping::Slot, 2, false, last) == std::vector<int>{0, 2});
  CHECK(last == 0);
  CHECK(place(ones, 2, SpawnMapping::Slot, last, false, last) == std::vector<int>{0, 1});
  // By node: the last node dealt to. --map-by node -H dyn1:1,...,dyn4:1 -n 4 (bookmark dyn4),
  // spawn 3 map_by node: dyn4, dyn1, dyn2 dealt (ranked dyn1, dyn2, dyn4); its spawn of 2 by
  // slot, ranked by node: dyn2, dyn3.
  std::vector<SpawnNode> four{{"dyn1", 1, 1}, {"dyn2", 1, 1}, {"dyn3", 1, 1}, {"dyn4", 1, 1}};
  CHECK(place(four, 3, SpawnMapping::Node, 3, true, last) == std::vector<int>{0, 1, 3});
  CHECK(last == 1);
  CHECK(place(four, 2, SpawnMapping::Slot, last, true, last) == std::vector<int>{1, 2});
  // By slot in a job ranked by node, with free slots: its last rank's node.
  // -H dyn1:2,dyn2:2,dyn3:2,dyn4:3 --map-by node -n 2, spawn 4: dyn2, dyn3, dyn4, dyn3.
  std::vector<SpawnNode> mixed{{"dyn1", 2, 1}, {"dyn2", 2, 1}, {"dyn3", 2, 0}, {"dyn4", 3, 0}};
  CHECK(place_spawn(mixed, "", 4, false, "", SpawnMapping::Slot, 1, true, &last).value() ==
        std::vector<int>{1, 2, 3, 2});
  CHECK(last == 2);
}

// mpirun 4.1.4 (measured, session 9): a spawn from a job placed by a rankfile fails without
// --oversubscribe, also with -H localhost:4 ("All nodes which are allocated for this job are
// already filled"); with it, spawned rank i runs on the line for rank i (rf "rank 0=localhost
// slot=1", -n 1, spawn 1: the child on CPU 1), and a rank without a line fails ("A rank is
// missing its location specification").
TEST_CASE("spawn placement: a rankfile job's children by the file's lines") {
  auto line = [](int rank, int node, std::string slot) {
    return RankfilePlace{rank, node, node < 0 ? "elsewhere" : "n" + std::to_string(node),
                         parse_rank_slot(slot).value()};
  };
  const std::vector<RankfilePlace> lines{line(0, 0, "1"), line(1, 1, "0-1"), line(2, -1, "0")};
  const auto filled = place_spawn_by_rankfile(lines, "rf", 0, 1, false);
  REQUIRE_FALSE(filled);
  CHECK(filled.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(filled.error().phase == "spawn");
  CHECK(filled.error().detail.starts_with(
      "all nodes which are allocated for this job are already filled: the job is placed by the "
      "rankfile rf"));
  const auto placed = place_spawn_by_rankfile(lines, "rf", 0, 2, true);
  REQUIRE(placed);
  REQUIRE(placed->size() == 2);
  CHECK(placed.value()[0].node == 0);
  CHECK(placed.value()[0].slot.text == "1");
  CHECK(placed.value()[1].node == 1);
  // A second application context of the same spawn goes on from its first rank.
  const auto second = place_spawn_by_rankfile(lines, "rf", 1, 1, true);
  REQUIRE(second);
  CHECK(second.value()[0].slot.text == "0-1");
  const auto elsewhere = place_spawn_by_rankfile(lines, "rf", 2, 1, true);
  REQUIRE_FALSE(elsewhere);
  CHECK(elsewhere.error().kind == ErrorKind::BadOption);
  CHECK(elsewhere.error().host == "elsewhere");
  const auto past = place_spawn_by_rankfile(lines, "rf", 3, 1, true);
  REQUIRE_FALSE(past);
  CHECK(past.error().kind == ErrorKind::BadOption);
  CHECK(past.error().detail.starts_with("the rankfile rf has no line for rank 3"));
}

}  // namespace mpilaunch::launcher
