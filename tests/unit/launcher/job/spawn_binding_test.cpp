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

TEST_CASE("a spawn of at most 2 goes to free cores, the parent's core counting") {
  const NodeTopology two = machine(2);
  // -n 1, parent on core 0: the child gets core 1.
  CHECK(bind_spawned({{&two, {{0}}, 2, 1}}, {0}, false, false) == Pus{{1}});
  // --bind-to none or socket: the parent counts on no core; the child gets core 0.
  CHECK(bind_spawned({{&two, {}, 2, 1}}, {0}, false, false) == Pus{{0}});
  CHECK(bind_spawned({{&two, {{0, 1}}, 2, 1}}, {0}, false, false) == Pus{{0}});
  // 4 cores, parent on core 0: cores 1 and 2.
  const NodeTopology four = machine(4);
  CHECK(bind_spawned({{&four, {{0}}, 4, 1}}, {0, 0}, false, false) == Pus{{1}, {2}});
  CHECK(bind_spawned({{&four, {{0}}, 4, 1}}, {0, 0}, true, false) == Pus{{1}, {2}});
}

// mpirun 4.1.4 (measured, session 9): of equally used cores, the first from the (P-1)-th for
// the P processes already on the node: -H localhost:4 -n 2 --bind-to none (or parents bound by
// --bind-to cpu-list:ordered, which count on no core), spawn 1: core 1; spawn 2: cores 1, 0.
TEST_CASE("a spawn's free cores are taken from where the node's processes ended") {
  const NodeTopology two = machine(2);
  CHECK(bind_spawned({{&two, {}, 4, 2}}, {0}, false, false) == Pus{{1}});
  CHECK(bind_spawned({{&two, {}, 4, 2}}, {0, 0}, false, false) == Pus{{1}, {0}});
  CHECK(bind_spawned({{&two, {}, 4, 1}}, {0, 0}, false, false) == Pus{{0}, {1}});
  // Used cores still go last: parents on cores 0 and 1 of 4, spawn 1 from core 1 on: core 2.
  const NodeTopology four = machine(4);
  CHECK(bind_spawned({{&four, {{0}, {1}}, 4, 2}}, {0}, false, false) == Pus{{2}});
  CHECK(bind_spawned({{&four, {{1}}, 8, 3}}, {0, 0}, false, false) == Pus{{2}, {3}});
}

TEST_CASE("a spawn that would overload a core or oversubscribe a node is not bound at all") {
  const NodeTopology two = machine(2);
  // -H localhost:4 -n 1, spawn 2: the second child would share a core.
  CHECK(bind_spawned({{&two, {{0}}, 4, 1}}, {0, 0}, false, false) == Pus{{}, {}});
  // 3 children: a NUMA node of 2 cores would hold 3.
  CHECK(bind_spawned({{&two, {{0}}, 4, 1}}, {0, 0, 0}, false, false) == Pus{{}, {}, {}});
  // --oversubscribe -n 2, spawn 2 on 2 slots.
  CHECK(bind_spawned({{&two, {{0}, {1}}, 2, 2}}, {0, 0}, false, false) == Pus{{}, {}});
  // Slots exceeded while the cores would still be free.
  const NodeTopology four = machine(4);
  CHECK(bind_spawned({{&four, {}, 1, 1}}, {0}, false, false) == Pus{{}});
}

TEST_CASE("a spawn of 3 or more is bound to NUMA nodes, each to the first with room") {
  const NodeTopology eight = machine(8, 2);
  const std::vector<std::uint32_t> numa0{0, 1, 2, 3}, numa1{4, 5, 6, 7};
  // The first with room from the (P-1)-th for the P processes before each (as on cores; not
  // measurable on one NUMA node): a NUMA node of 4 cores has room for 4.
  CHECK(bind_spawned({{&eight, {numa0}, 8, 1}}, {0, 0, 0}, false, false) ==
        Pus{numa0, numa1, numa0});
}

TEST_CASE("children across nodes are bound on their own node; an unknown topology unbinds") {
  const NodeTopology two = machine(2);
  CHECK(bind_spawned({{&two, {{0}}, 2, 1}, {&two, {{0}}, 2, 1}}, {0, 1}, false, false) ==
        Pus{{1}, {1}});
  CHECK(bind_spawned({{&two, {{0}}, 2, 1}, {nullptr, {}, 2, 1}}, {0, 1}, false, false) ==
        Pus{{}, {}});
  CHECK(bind_spawned({{&two, {}, 2, 0}}, {1}, false, false) == Pus{{}});
}

// mpirun 4.1.4 on 2 cores (measured in session 10, -H localhost:N -n P, spawning K with
// tests/apps/spawn_locality, N = 2..6, P = 1..3, K = 1..5): the processes placed before count,
// this spawn's earlier ones too, and with --oversubscribe (or the job's :overload-allowed) a
// core may hold more processes than its CPUs.
TEST_CASE("a spawn's cores as mpirun 4.1.4 binds them, overloaded with --oversubscribe") {
  const NodeTopology two = machine(2);
  struct Row {
    std::vector<std::vector<std::uint32_t>> bound;  // the initial ranks' PUs (bound ones)
    int slots, running, spawn;
    bool overload;
    Pus expected;
  };
  const Row rows[] = {
      // -n 1 (core 0), spawn 2: both on core 1 with --oversubscribe, else unbound.
      {{{0}}, 4, 1, 2, true, Pus{{1}, {1}}},
      {{{0}}, 4, 1, 2, false, Pus{{}, {}}},
      // -n 2 (cores 0, 1), spawn 1: core 1; spawn 2: cores 1, 0.
      {{{0}, {1}}, 3, 2, 1, true, Pus{{1}}},
      {{{0}, {1}}, 3, 2, 1, false, Pus{{}}},
      {{{0}, {1}}, 4, 2, 2, true, Pus{{1}, {0}}},
      // -n 3 unbound (a NUMA node would hold 3), spawn 1: core 0; spawn 2: cores 0, 1.
      {{}, 4, 3, 1, false, Pus{{0}}},
      {{}, 5, 3, 2, false, Pus{{0}, {1}}},
      // --bind-to none -n 1, spawn 2: cores 0, 1.
      {{}, 4, 1, 2, false, Pus{{0}, {1}}},
      // --bind-to core:overload-allowed -n 3 (cores 0, 1, 0), spawn 1: core 0; spawn 2: 0, 1.
      {{{0}, {1}, {0}}, 5, 3, 1, true, Pus{{0}}},
      {{{0}, {1}, {0}}, 5, 3, 2, true, Pus{{0}, {1}}},
      // Slots exceeded: unbound, --oversubscribe or not (-H localhost:2 -n 1, spawn 2).
      {{{0}}, 2, 1, 2, true, Pus{{}, {}}},
      {{{0}, {1}}, 3, 2, 2, true, Pus{{}, {}}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.running);
    CAPTURE(row.spawn);
    CAPTURE(row.overload);
    const std::vector<int> node_of_rank(static_cast<std::size_t>(row.spawn), 0);
    CHECK(bind_spawned({{&two, row.bound, row.slots, row.running}}, node_of_rank, false,
                       row.overload) == row.expected);
  }
  // 3 or more to the NUMA node with --oversubscribe: all of it (mpirun: "not bound (or bound to
  // all available processors)", from itself).
  CHECK(bind_spawned({{&two, {{0}}, 6, 1}}, {0, 0, 0}, false, true) == Pus{{0, 1}, {0, 1}, {0, 1}});
}
