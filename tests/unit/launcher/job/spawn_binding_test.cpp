// A spawn's binding, as mpirun 4.1.4 binds its children (measured on 2 cores, 1 socket, 1 NUMA
// node): docs/dynamic-processes.md.
#include <doctest/doctest.h>

#include "launcher/job/spawn_binding.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;
using Pus = std::vector<std::vector<std::uint32_t>>;

namespace {

// `cores` cores of one hwthread each, `numas` NUMA nodes sharing them evenly, one socket.
NodeTopology machine(int cores, int numas = 1) {
  NodeTopology t;
  for (int c = 0; c < cores; ++c)
    t.pus.push_back({.os_index = static_cast<std::uint32_t>(c),
                     .core = c,
                     .numa = c / (cores / numas),
                     .socket = 0});
  return t;
}

}  // namespace

TEST_CASE("a spawn of at most 2 goes to the least used cores, the parent's core counting") {
  const NodeTopology two = machine(2);
  // -n 1, parent on core 0: the child gets core 1.
  CHECK(bind_spawned({{&two, {{0}}, 2, 1}}, {0}, false) == Pus{{1}});
  // --bind-to none or socket: the parent counts on no core; the child gets core 0.
  CHECK(bind_spawned({{&two, {}, 2, 1}}, {0}, false) == Pus{{0}});
  CHECK(bind_spawned({{&two, {{0, 1}}, 2, 1}}, {0}, false) == Pus{{0}});
  // 4 cores, parent on core 0: cores 1 and 2.
  const NodeTopology four = machine(4);
  CHECK(bind_spawned({{&four, {{0}}, 4, 1}}, {0, 0}, false) == Pus{{1}, {2}});
  CHECK(bind_spawned({{&four, {{0}}, 4, 1}}, {0, 0}, true) == Pus{{1}, {2}});
}

// mpirun 4.1.4 (measured, session 9): of equally used cores, the first from the (P-1)-th for
// the P processes already on the node: -H localhost:4 -n 2 --bind-to none (or parents bound by
// --bind-to cpu-list:ordered, which count on no core), spawn 1: core 1; spawn 2: cores 1, 0.
TEST_CASE("a spawn's equally used cores are taken from where the node's processes ended") {
  const NodeTopology two = machine(2);
  CHECK(bind_spawned({{&two, {}, 4, 2}}, {0}, false) == Pus{{1}});
  CHECK(bind_spawned({{&two, {}, 4, 2}}, {0, 0}, false) == Pus{{1}, {0}});
  CHECK(bind_spawned({{&two, {}, 4, 1}}, {0, 0}, false) == Pus{{0}, {1}});
  // Used cores still go last: parents on cores 0 and 1 of 4, spawn 1 from core 1 on: core 2.
  const NodeTopology four = machine(4);
  CHECK(bind_spawned({{&four, {{0}, {1}}, 4, 2}}, {0}, false) == Pus{{2}});
  CHECK(bind_spawned({{&four, {{1}}, 8, 3}}, {0, 0}, false) == Pus{{2}, {3}});
}

TEST_CASE("a spawn that would overload a core or oversubscribe a node is not bound at all") {
  const NodeTopology two = machine(2);
  // -H localhost:4 -n 1, spawn 2: the second child would share a core.
  CHECK(bind_spawned({{&two, {{0}}, 4, 1}}, {0, 0}, false) == Pus{{}, {}});
  // 3 children: a NUMA node of 2 cores would hold 3.
  CHECK(bind_spawned({{&two, {{0}}, 4, 1}}, {0, 0, 0}, false) == Pus{{}, {}, {}});
  // --oversubscribe -n 2, spawn 2 on 2 slots.
  CHECK(bind_spawned({{&two, {{0}, {1}}, 2, 2}}, {0, 0}, false) == Pus{{}, {}});
  // Slots exceeded while the cores would still be free.
  const NodeTopology four = machine(4);
  CHECK(bind_spawned({{&four, {}, 1, 1}}, {0}, false) == Pus{{}});
}

TEST_CASE("a spawn of 3 or more is bound to NUMA nodes, each to the least used") {
  const NodeTopology eight = machine(8, 2);
  const std::vector<std::uint32_t> numa0{0, 1, 2, 3}, numa1{4, 5, 6, 7};
  CHECK(bind_spawned({{&eight, {numa0}, 8, 1}}, {0, 0, 0}, false) == Pus{numa1, numa0, numa1});
}

TEST_CASE("children across nodes are bound on their own node; an unknown topology unbinds") {
  const NodeTopology two = machine(2);
  CHECK(bind_spawned({{&two, {{0}}, 2, 1}, {&two, {{0}}, 2, 1}}, {0, 1}, false) == Pus{{1}, {1}});
  CHECK(bind_spawned({{&two, {{0}}, 2, 1}, {nullptr, {}, 2, 1}}, {0, 1}, false) == Pus{{}, {}});
  CHECK(bind_spawned({{&two, {}, 2, 0}}, {1}, false) == Pus{{}});
}
