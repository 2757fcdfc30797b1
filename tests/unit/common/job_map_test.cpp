#include <doctest/doctest.h>

#include "common/job_map.hpp"

using namespace mpilaunch;

namespace {
std::vector<int> placement(const JobMap& map) {
  std::vector<int> out;
  for (int r = 0; r < map.size(); ++r) out.push_back(map.node_of(r));
  return out;
}
}  // namespace

TEST_CASE("map by slot fills each host in order") {
  const auto map = map_job({{"a", 2}, {"b", 2}}, {.np = 3});
  REQUIRE(map.has_value());
  CHECK(placement(map.value()) == std::vector<int>{0, 0, 1});
  CHECK(map->local_rank(2) == 0);
  CHECK(map->node_list() == "a,b");
  CHECK(map->proc_list() == "0,1;2");
}

TEST_CASE("default np is every slot; unused hosts are dropped") {
  CHECK(map_job({{"a", 2}, {"b", 3}}, {})->size() == 5);
  const auto map = map_job({{"a", 4}, {"b", 4}}, {.np = 2});
  CHECK(map->node_count() == 1);
  CHECK(map->nodes() == std::vector<std::string>{"a"});
}

TEST_CASE("map by node goes round robin") {
  const auto map = map_job({{"a", 2}, {"b", 2}}, {.np = 3, .map_by = MapBy::Node});
  CHECK(placement(map.value()) == std::vector<int>{0, 1, 0});
  CHECK(map->proc_list() == "0,2;1");
}

TEST_CASE("-N places a fixed count per node") {
  const auto map = map_job({{"a", 2}, {"b", 2}, {"c", 2}}, {.per_node = 2});
  CHECK(placement(map.value()) == std::vector<int>{0, 0, 1, 1, 2, 2});
  CHECK(map_job({{"a", 1}}, {.per_node = 2}).error().kind == ErrorKind::NotEnoughSlots);
  CHECK(map_job({{"a", 1}}, {.per_node = 2, .oversubscribe = true})->size() == 2);
  CHECK(map_job({{"a", 2}}, {.np = 3, .per_node = 2}).error().kind == ErrorKind::BadOption);
}

// mpirun 4.1.4's ppr mapper, measured on virtual nodes (mpirun-facts "ppr (s11)"): N per object
// of each host in turn, until -n are placed; the contexts before (`used`) leave only the hosts
// with a free slot.
TEST_CASE("map_ppr: N per node or per object of each host, over the hosts with a free slot") {
  struct Row {
    std::vector<NodeSlots> hosts;
    std::vector<int> used;  // processes of the contexts before
    MapRequest request;
    std::vector<int> placed;  // host of each process; empty: refused with `kind`
    ErrorKind kind = ErrorKind::Unknown;
    std::vector<int> used_after = {};
  };
  const std::vector<NodeSlots> ab22 = {{"a", 2}, {"b", 2}};
  const std::vector<Row> rows = {
      {ab22, {0, 0}, {.np = 2, .per_node = 1}, {0, 1}},
      {ab22, {0, 0}, {.np = 1, .per_node = 1}, {0}},
      {ab22, {0, 0}, {.per_node = 1}, {0, 1}},
      {ab22, {0, 0}, {.np = 3, .per_node = 2}, {0, 0, 1}},
      // ppr:3:node -n 2 on 2 slots runs: the first host takes only the 2 asked for.
      {ab22, {0, 0}, {.np = 2, .per_node = 3}, {0, 0}},
      {ab22, {0, 0}, {.np = 4, .per_node = 3}, {}, ErrorKind::NotEnoughSlots},
      {ab22, {0, 0}, {.np = 3, .per_node = 1}, {}, ErrorKind::BadOption},
      {ab22, {0, 0}, {.np = 3, .per_node = 1, .oversubscribe = true}, {}, ErrorKind::BadOption},
      {{{"a", 1}, {"b", 1}}, {0, 0}, {.np = 3, .per_node = 2, .oversubscribe = true}, {0, 0, 1}},
      {{{"a", 1}, {"b", 3}}, {0, 0}, {.np = 2, .per_node = 2}, {}, ErrorKind::NotEnoughSlots},
      // ppr:N:socket: N per socket of each host.
      {ab22, {0, 0}, {.np = 2, .per_node = 1, .objects = {1, 1}, .object = "socket"}, {0, 1}},
      {ab22,
       {0, 0},
       {.np = 4, .per_node = 1, .objects = {2, 1}, .object = "socket"},
       {},
       ErrorKind::BadOption},
      {{{"a", 4}, {"b", 4}}, {0, 0}, {.np = 3, .per_node = 1, .objects = {2, 2}}, {0, 0, 1}},
      {ab22, {0, 0}, {.per_node = 1, .objects = {2, 2}}, {0, 0, 1, 1}},
      // A later context: a is full, so its ranks start on b ...
      {ab22, {2, 0}, {.np = 1, .per_node = 1}, {1}, ErrorKind::Unknown, {2, 1}},
      {ab22, {2, 1}, {.np = 1, .per_node = 2}, {1}, ErrorKind::Unknown, {2, 2}},
      // ... N counts this context's own ranks, a host's slots all of them ...
      {ab22, {1, 0}, {.np = 2, .per_node = 1}, {0, 1}, ErrorKind::Unknown, {2, 1}},
      {ab22, {1, 1}, {.np = 2, .per_node = 2}, {}, ErrorKind::NotEnoughSlots},
      // ... without -n N per host of the context, full or not ...
      {ab22, {2, 0}, {.per_node = 1}, {}, ErrorKind::BadOption},
      // ... and with every host full, nothing can start.
      {{{"a", 1}, {"b", 1}}, {1, 1}, {.np = 1, .per_node = 1}, {}, ErrorKind::NotEnoughSlots},
      {{{"a", 1}, {"b", 1}}, {1, 1}, {.np = 2, .per_node = 1, .oversubscribe = true}, {0, 1}},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    CAPTURE(i);
    std::vector<int> used = row.used;
    const auto placed = map_ppr(row.hosts, used, row.request);
    if (row.placed.empty()) {
      REQUIRE_FALSE(placed.has_value());
      CHECK(placed.error().kind == row.kind);
    } else {
      REQUIRE_MESSAGE(placed.has_value(), placed.error().detail);
      CHECK(placed.value() == row.placed);
      if (!row.used_after.empty()) CHECK(used == row.used_after);
    }
  }
  const std::vector<int> none = {0, 0};
  std::vector<int> full = {1, 1};
  const auto filled = map_ppr({{"a", 1}, {"b", 1}}, full, {.np = 1, .per_node = 1});
  CHECK(filled.error().detail.find("already filled") != std::string::npos);
  std::vector<int> used = none;
  const auto over =
      map_ppr(ab22, used, {.np = 2, .per_node = 2, .objects = {1, 1}, .object = "socket"});
  CHECK(over.value() == std::vector<int>{0, 0});
  used = {1, 1};
  const auto refused = map_ppr(ab22, used, {.np = 2, .per_node = 2});
  CHECK(refused.error().detail.find("puts 3 processes on a, which has 2 slots") !=
        std::string::npos);
}

TEST_CASE("too many ranks need --oversubscribe; max_slots limits nothing (mpirun 4.1.4)") {
  const auto refused = map_job({{"a", 2}}, {.np = 3});
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(refused.error().detail.find("3 processes") != std::string::npos);
  CHECK(refused.error().detail.find("--oversubscribe") != std::string::npos);
  const auto over = map_job({{"a", 1}, {"b", 1}}, {.np = 5, .oversubscribe = true});
  CHECK(placement(over.value()) == std::vector<int>{0, 0, 0, 1, 1});
  // Host file "a slots=1 max_slots=2": -n 2 is refused, -n 3 --oversubscribe runs.
  CHECK(map_job({{"a", 1, 2}}, {.np = 2}).error().kind == ErrorKind::NotEnoughSlots);
  CHECK(placement(map_job({{"a", 1, 2}}, {.np = 3, .oversubscribe = true}).value()) ==
        std::vector<int>{0, 0, 0});
  CHECK(placement(map_job({{"a", 1, 1}, {"b", 1}}, {.np = 4, .oversubscribe = true}).value()) ==
        std::vector<int>{0, 0, 1, 1});
}

// --rank-by over the mapper's placement, as mpirun 4.1.4 ranks on virtual nodes (measured,
// /work/coord/mpirun-facts.md "rankby"): hosts, request, node of each rank.
TEST_CASE("--rank-by node deals the ranks round the nodes, --rank-by slot node after node") {
  struct Row {
    std::vector<NodeSlots> hosts;
    MapRequest request;
    std::vector<int> nodes;
  };
  const std::vector<NodeSlots> ab22 = {{"a", 2}, {"b", 2}}, ab31 = {{"a", 3}, {"b", 1}},
                               abc122 = {{"a", 1}, {"b", 2}, {"c", 2}};
  const std::vector<Row> rows = {
      {ab22, {.np = 3, .rank_by = RankBy::Node}, {0, 1, 0}},
      {ab22, {.np = 4, .rank_by = RankBy::Node}, {0, 1, 0, 1}},
      {ab22, {.np = 3, .map_by = MapBy::Node, .rank_by = RankBy::Node}, {0, 1, 0}},
      {ab22, {.np = 3, .map_by = MapBy::Node, .rank_by = RankBy::Slot}, {0, 0, 1}},
      {ab22, {.np = 4, .map_by = MapBy::Node, .rank_by = RankBy::Slot}, {0, 0, 1, 1}},
      {ab31, {.np = 3, .rank_by = RankBy::Node}, {0, 0, 0}},
      {ab31, {.np = 4, .rank_by = RankBy::Node}, {0, 1, 0, 0}},
      {ab31, {.np = 3, .map_by = MapBy::Node, .rank_by = RankBy::Node}, {0, 1, 0}},
      {ab31, {.np = 3, .map_by = MapBy::Node, .rank_by = RankBy::Slot}, {0, 0, 1}},
      {ab31, {.np = 4, .map_by = MapBy::Node, .rank_by = RankBy::Slot}, {0, 0, 0, 1}},
      {abc122, {.np = 3, .rank_by = RankBy::Node}, {0, 1, 1}},
      {abc122, {.np = 4, .rank_by = RankBy::Node}, {0, 1, 2, 1}},
      {abc122, {.np = 5, .rank_by = RankBy::Node}, {0, 1, 2, 1, 2}},
      {abc122, {.np = 3, .map_by = MapBy::Node, .rank_by = RankBy::Slot}, {0, 1, 2}},
      {abc122, {.np = 4, .map_by = MapBy::Node, .rank_by = RankBy::Slot}, {0, 1, 1, 2}},
      {abc122, {.np = 5, .map_by = MapBy::Node, .rank_by = RankBy::Slot}, {0, 1, 1, 2, 2}},
      {ab22, {.np = 5, .oversubscribe = true, .rank_by = RankBy::Node}, {0, 1, 0, 1, 0}},
      {ab22,
       {.np = 6, .map_by = MapBy::Node, .oversubscribe = true, .rank_by = RankBy::Slot},
       {0, 0, 0, 1, 1, 1}},
      {ab22, {.per_node = 2, .rank_by = RankBy::Node}, {0, 1, 0, 1}},
      // By node beyond the slots: round all the nodes, whatever their slots.
      {{{"a", 1}, {"b", 3}},
       {.np = 5, .map_by = MapBy::Node, .oversubscribe = true},
       {0, 1, 0, 1, 0}},
      {{{"a", 1}, {"b", 3}}, {.np = 4, .map_by = MapBy::Node, .oversubscribe = true}, {0, 1, 1, 1}},
      {{{"a", 1}, {"b", 2}, {"c", 3}},
       {.np = 8, .map_by = MapBy::Node, .oversubscribe = true},
       {0, 1, 2, 0, 1, 2, 0, 1}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.request.np);
    CAPTURE(static_cast<int>(row.request.map_by));
    CAPTURE(static_cast<int>(row.request.rank_by));
    const auto map = map_job(row.hosts, row.request);
    REQUIRE(map.has_value());
    CHECK(placement(map.value()) == row.nodes);
    // Local ranks follow the ranks on each node.
    for (int node = 0; node < map->node_count(); ++node)
      for (std::size_t i = 0; i < map->ranks_on(node).size(); ++i)
        CHECK(map->local_rank(map->ranks_on(node)[i]) == static_cast<int>(i));
  }
  CHECK(rank_places({1, 0, 1}, RankBy::Mapping) == std::vector<int>{1, 0, 1});
  CHECK(rank_places({}, RankBy::Node).empty());
}

TEST_CASE("bad counts are usage errors") {
  CHECK(map_job({{"a", 1}}, {.np = 0}).error().kind == ErrorKind::BadOption);
  CHECK(map_job({{"a", 1}}, {.per_node = 0}).error().kind == ErrorKind::BadOption);
  CHECK(map_job({}, {.np = 1}).error().kind == ErrorKind::BadOption);
}

TEST_CASE("PMI process mapping folds equal blocks") {
  CHECK(map_job({{"a", 2}, {"b", 2}}, {})->pmi_process_mapping() == "(vector,(0,2,2))");
  CHECK(map_job({{"a", 3}, {"b", 1}}, {})->pmi_process_mapping() == "(vector,(0,1,3),(1,1,1))");
  CHECK(map_job({{"a", 2}, {"b", 2}}, {.map_by = MapBy::Node})->pmi_process_mapping() ==
        "(vector,(0,2,1),(0,2,1))");
}

// mpirun 4.1.4's byobj_span over two hosts of two sockets each (session 12, -H a:8,b:8
// --map-by socket:SPAN --display-map --do-not-launch): np / 4 objects each, the first objects one
// more, host after host, whatever the slots; --rank-by node deals them round the hosts.
TEST_CASE("map by OBJECT:SPAN divides the processes over every host's objects") {
  const auto span = [](std::vector<NodeSlots> hosts, int np, RankBy rank_by = RankBy::Mapping,
                       bool oversubscribe = false) {
    MapRequest request{.np = np, .oversubscribe = oversubscribe, .rank_by = rank_by};
    request.objects = std::vector<int>(hosts.size(), 2);
    request.object = "socket";
    request.span = true;
    return map_job(hosts, request);
  };
  CHECK(placement(span({{"a", 8}, {"b", 8}}, 4).value()) == std::vector<int>{0, 0, 1, 1});
  CHECK(placement(span({{"a", 8}, {"b", 8}}, 6).value()) == std::vector<int>{0, 0, 0, 0, 1, 1});
  CHECK(placement(span({{"a", 8}, {"b", 8}}, 3).value()) == std::vector<int>{0, 0, 1});
  CHECK(placement(span({{"a", 8}, {"b", 8}}, 10).value()) ==
        std::vector<int>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(placement(span({{"a", 2}, {"b", 8}}, 6).value()) == std::vector<int>{0, 0, 0, 0, 1, 1});
  CHECK(placement(span({{"a", 8}, {"b", 8}}, 6, RankBy::Node).value()) ==
        std::vector<int>{0, 1, 0, 1, 0, 0});
  CHECK(span({{"a", 1}, {"b", 1}}, 4).error().kind == ErrorKind::NotEnoughSlots);
  CHECK(placement(span({{"a", 1}, {"b", 1}}, 4, RankBy::Mapping, true).value()) ==
        std::vector<int>{0, 0, 1, 1});
}
