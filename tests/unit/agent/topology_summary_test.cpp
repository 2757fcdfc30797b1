// hwloc's view of saved machines (tests/data/topologies, written by lstopo), summarised as the
// agent reports it, then mapped and bound as mpirun would.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "agent/topology_summary.hpp"
#include "common/placement.hpp"

using namespace mpilaunch;
using namespace mpilaunch::agent;

namespace {

NodeTopology saved(const std::string& name) {
  std::ifstream in(std::string(MPILAUNCH_TEST_DATA_DIR) + "/topologies/" + name);
  REQUIRE_MESSAGE(in.good(), name);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto topology = summarize_xml(xml);
  REQUIRE_MESSAGE(topology.has_value(), name);
  return *topology;
}

std::vector<std::string> bound_cpus(const NodeTopology& t, int ranks, PlacementOptions o) {
  const auto policy = parse_placement(o);
  REQUIRE(policy.has_value());
  const JobMap map({"n"}, std::vector<int>(static_cast<std::size_t>(ranks), 0));
  const auto b = bind_ranks(map, {{ranks, t}}, policy.value(), false);
  REQUIRE_MESSAGE(b.has_value(), b.error().detail);
  std::vector<std::string> out;
  for (const auto& pus : b->pus[0]) out.push_back(os_cpu_list(t, pus));
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("topology summary: this VM's shape, 1 socket of 2 cores") {
  const NodeTopology t = saved("this-vm-1pack-2core.xml");
  CHECK(t.pus.size() == 2);
  CHECK(t.count(HwLevel::Core) == 2);
  CHECK(t.count(HwLevel::Socket) == 1);
  CHECK(t.count(HwLevel::Numa) == 1);
  CHECK(bound_cpus(t, 2, {}) == Strings{"0", "1"});
  CHECK(report_binding_line(0, t, {0}) == "MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]");
}

// The agent's own CPU mask (taskset, srun's task/affinity) narrows the PUs it reports, as a
// cgroup does, so no rank is bound outside it: under `taskset -c 1`, one rank on core 1, two
// ranks unbound (both would be on core 1: the default binding is dropped).
TEST_CASE("topology summary: narrowed to the agent's own CPUs") {
  std::ifstream in(std::string(MPILAUNCH_TEST_DATA_DIR) + "/topologies/this-vm-1pack-2core.xml");
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto t = summarize_xml(xml, {1});
  REQUIRE(t.has_value());
  REQUIRE(t->pus.size() == 1);
  CHECK(t->pus[0].os_index == 1);
  CHECK(bound_cpus(*t, 1, {}) == Strings{"1"});
  // Bound to every CPU it may use: mpirun's words for that (it says the same inside a cgroup).
  CHECK(report_binding_line(0, *t, {0}) ==
        "MCW rank 0 is not bound (or bound to all available processors)");
  CHECK(bound_cpus(*t, 2, {}) == Strings{"", ""});
  // A mask naming none of the topology's PUs is another machine's: the topology stays whole.
  const auto whole = summarize_xml(xml, {40, 41});
  REQUIRE(whole.has_value());
  CHECK(whole->pus.size() == 2);
  // Within a cgroup, the mask narrows the allowed PUs further (OS 16-17: socket 1's core 0).
  std::ifstream cg_in(std::string(MPILAUNCH_TEST_DATA_DIR) +
                      "/topologies/2pack-8core-ht-cgroup.xml");
  const std::string cg_xml((std::istreambuf_iterator<char>(cg_in)),
                           std::istreambuf_iterator<char>());
  const auto cg = summarize_xml(cg_xml, {0, 1, 16, 17});
  REQUIRE(cg.has_value());
  REQUIRE(cg->pus.size() == 2);
  CHECK(cg->pus[0].os_index == 16);
  CHECK(cg->pus[1].os_index == 17);
  CHECK(bound_cpus(*cg, 1, {}) == Strings{"16-17"});
}

TEST_CASE("topology summary: 2 sockets x 8 cores x 2 hwthreads") {
  const NodeTopology t = saved("2pack-8core-ht.xml");
  CHECK(t.pus.size() == 32);
  CHECK(t.count(HwLevel::Core) == 16);
  CHECK(t.count(HwLevel::Socket) == 2);
  CHECK(t.count(HwLevel::L2) == 16);
  CHECK(t.count(HwLevel::L3) == 2);
  CHECK(t.count(HwLevel::Numa) == 2);
  CHECK(bound_cpus(t, 4, {.map_by = "ppr:2:socket", .bind_to = "core"}) ==
        Strings{"0-1", "2-3", "16-17", "18-19"});
  // mpirun 4.1.4: round robin over the NUMA nodes (it was blocks here until session 11).
  CHECK(bound_cpus(t, 4, {}) == Strings{"0-15", "16-31", "0-15", "16-31"});
  CHECK(bound_cpus(t, 2, {.map_by = "l3cache"}) == Strings{"0-15", "16-31"});
}

TEST_CASE("topology summary: 4 NUMA nodes on 2 sockets") {
  const NodeTopology t = saved("2pack-4numa-4core.xml");
  CHECK(t.count(HwLevel::Numa) == 4);
  CHECK(t.count(HwLevel::Core) == 16);
  CHECK(bound_cpus(t, 4, {.map_by = "numa"}) == Strings{"0-3", "4-7", "8-11", "12-15"});
}

// A Slurm job's cgroup allows 2 cores of each socket: only those are reported, and every rank
// is bound inside them.
TEST_CASE("topology summary: a cgroup's subset of the machine") {
  const NodeTopology t = saved("2pack-8core-ht-cgroup.xml");
  CHECK(t.pus.size() == 8);
  CHECK(t.count(HwLevel::Core) == 4);
  CHECK(t.count(HwLevel::Socket) == 2);
  CHECK(bound_cpus(t, 2, {}) == Strings{"4-5", "6-7"});
  CHECK(bound_cpus(t, 4, {.map_by = "socket", .bind_to = "core"}) ==
        Strings{"4-5", "16-17", "6-7", "18-19"});
  CHECK(report_binding_line(1, t, {2, 3}) ==
        "MCW rank 1 bound to socket 0[core 1[hwt 0-1]]: [../BB][../..]");
}

namespace {

struct MeasuredRow {
  const char* xml;
  int ranks;
  PlacementOptions options;
  const char* listed;  // mpirun's JOB MAP order of the ranks (the mapper's)
  Strings cpus;        // each rank's OS CPUs, in rank order ("" unbound)
};

// mpirun 4.1.4 with HWLOC_XMLFILE=<xml> -H localhost:16 -n <ranks> <options> --display-map
// --do-not-launch (session 11, /work/coord/mpirun-facts.md "topo"): the Bound column as OS CPUs.
// Over objects its mapper deals the ranks round robin (the default BYNUMA: rank 1 on the second
// NUMA node), --rank-by OBJECT numbers them going round that object, and its JOB MAP lists
// them as mapped.
const MeasuredRow kMeasured[] = {
    // clang-format off
    {"2pack-8core-ht", 1, {}, "0", {"0-1"}},
    {"2pack-8core-ht", 2, {}, "0 1", {"0-1", "2-3"}},
    {"2pack-8core-ht", 3, {}, "0 1 2", {"0-15", "16-31", "0-15"}},
    {"2pack-8core-ht", 4, {}, "0 1 2 3", {"0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 7, {}, "0 1 2 3 4 5 6", {"0-15", "16-31", "0-15", "16-31", "0-15", "16-31", "0-15"}},
    {"2pack-8core-ht", 4, {.map_by = "core"}, "0 1 2 3", {"0-1", "2-3", "4-5", "6-7"}},
    {"2pack-8core-ht", 6, {.map_by = "socket"}, "0 1 2 3 4 5", {"0-15", "16-31", "0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 4, {.map_by = "l3cache"}, "0 1 2 3", {"0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 4, {.map_by = "slot"}, "0 1 2 3", {"0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 4, {.map_by = "ppr:2:socket"}, "0 1 2 3", {"0-15", "0-15", "16-31", "16-31"}},
    {"2pack-8core-ht", 2, {.map_by = "ppr:1:numa"}, "0 1", {"0-1", "16-17"}},
    {"2pack-8core-ht", 4, {.map_by = "socket:PE=2"}, "0 1 2 3", {"0-3", "16-19", "4-7", "20-23"}},
    {"2pack-8core-ht", 4, {.map_by = "slot:PE=2"}, "0 1 2 3", {"0-3", "4-7", "8-11", "12-15"}},
    {"2pack-8core-ht", 4, {.bind_to = "core"}, "0 1 2 3", {"0-1", "16-17", "2-3", "18-19"}},
    {"2pack-8core-ht", 4, {.bind_to = "hwthread"}, "0 1 2 3", {"0", "16", "1", "17"}},
    {"2pack-8core-ht", 2, {.bind_to = "socket"}, "0 1", {"0-15", "0-15"}},
    {"2pack-8core-ht", 8, {.map_by = "socket", .rank_by = "core", .bind_to = "core"}, "0 4 1 5 2 6 3 7", {"0-1", "2-3", "4-5", "6-7", "16-17", "18-19", "20-21", "22-23"}},
    {"2pack-8core-ht", 6, {.map_by = "numa", .rank_by = "core"}, "0 3 1 4 2 5", {"0-15", "0-15", "0-15", "16-31", "16-31", "16-31"}},
    {"2pack-8core-ht", 4, {.map_by = "ppr:2:socket", .rank_by = "socket"}, "0 2 1 3", {"0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 4, {.map_by = "slot", .rank_by = "socket", .bind_to = "core"}, "0 1 2 3", {"0-1", "2-3", "4-5", "6-7"}},
    {"2pack-8core-ht", 3, {.rank_by = "hwthread"}, "0 2 1", {"0-15", "0-15", "16-31"}},
    {"2pack-8core-ht", 2, {.use_hwthread_cpus = true}, "0 1", {"0", "1"}},
    {"2pack-8core-ht", 4, {.map_by = "hwthread"}, "0 1 2 3", {"0", "1", "2", "3"}},
    {"2pack-8core-ht", 4, {.cpus_per_proc = 2}, "0 1 2 3", {"0-3", "16-19", "4-7", "20-23"}},
    {"2pack-8core-ht", 2, {.use_hwthread_cpus = true, .cpus_per_proc = 3}, "0 1", {"0-2", "16-18"}},
    {"2pack-8core-ht", 4, {.map_by = "numa:PE=2", .rank_by = "core"}, "0 2 1 3", {"0-3", "4-7", "16-19", "20-23"}},
    {"2pack-4numa-4core", 2, {}, "0 1", {"0", "1"}},
    {"2pack-4numa-4core", 6, {}, "0 1 2 3 4 5", {"0-3", "4-7", "8-11", "12-15", "0-3", "4-7"}},
    {"2pack-4numa-4core", 4, {.map_by = "socket"}, "0 1 2 3", {"0-7", "8-15", "0-7", "8-15"}},
    {"2pack-4numa-4core", 4, {.map_by = "ppr:2:socket"}, "0 1 2 3", {"0-3", "4-7", "8-11", "12-15"}},
    {"2pack-4numa-4core", 6, {.map_by = "ppr:4:socket"}, "0 1 2 3 4 5", {"0-3", "4-7", "0-3", "4-7", "8-11", "12-15"}},
    {"2pack-4numa-4core", 4, {.bind_to = "core"}, "0 1 2 3", {"0", "4", "8", "12"}},
    {"2pack-4numa-4core", 4, {.bind_to = "socket"}, "0 1 2 3", {"0-7", "0-7", "8-15", "8-15"}},
    {"2pack-4numa-4core", 8, {.map_by = "numa", .bind_to = "core"}, "0 1 2 3 4 5 6 7", {"0", "4", "8", "12", "1", "5", "9", "13"}},
    {"2pack-4numa-4core", 4, {.map_by = "socket", .bind_to = "hwthread"}, "0 1 2 3", {"0", "8", "1", "9"}},
    {"2pack-4numa-4core", 6, {.map_by = "numa", .rank_by = "core"}, "0 2 4 5 1 3", {"0-3", "0-3", "4-7", "4-7", "8-11", "12-15"}},
    {"2pack-4numa-4core", 6, {.map_by = "numa", .rank_by = "socket"}, "0 2 1 3 4 5", {"0-3", "8-11", "4-7", "12-15", "0-3", "4-7"}},
    {"2pack-4numa-4core", 4, {.rank_by = "socket"}, "0 2 1 3", {"0-3", "8-11", "4-7", "12-15"}},
    {"2pack-4numa-4core", 4, {.cpus_per_proc = 2}, "0 1 2 3", {"0-1", "4-5", "8-9", "12-13"}},
    {"2pack-4numa-4core", 2, {.cpus_per_proc = 2}, "0 1", {"0-1", "4-5"}},
    {"2pack-8core-ht-cgroup", 3, {}, "0 1 2", {"4-7", "16-19", "4-7"}},
    {"2pack-8core-ht-cgroup", 5, {}, "0 1 2 3 4", {"", "", "", "", ""}},
    {"2pack-8core-ht-cgroup", 4, {.map_by = "core"}, "0 1 2 3", {"4-5", "6-7", "16-17", "18-19"}},
    {"2pack-8core-ht-cgroup", 4, {.map_by = "core", .rank_by = "socket"}, "0 2 1 3", {"4-5", "16-17", "6-7", "18-19"}},
    {"2pack-8core-ht-cgroup", 4, {.bind_to = "core"}, "0 1 2 3", {"4-5", "16-17", "6-7", "18-19"}},
    {"2pack-8core-ht-cgroup", 4, {.bind_to = "hwthread"}, "0 1 2 3", {"4", "16", "5", "17"}},
    {"2pack-8core-ht-cgroup", 4, {.map_by = "ppr:2:socket", .bind_to = "core"}, "0 1 2 3", {"4-5", "6-7", "16-17", "18-19"}},
    {"2pack-8core-ht-cgroup", 2, {.cpus_per_proc = 2}, "0 1", {"4-7", "16-19"}},
    // :SPAN (session 12, mpirun-facts.md "span"): byobj_span places each object's share together
    // (-n 6 over 2 sockets: 3 and 3), numbers them going round the objects, then moves the j-th
    // placed process to object j % objects.
    {"2pack-8core-ht", 6, {.map_by = "socket:SPAN"}, "0 2 4 1 3 5", {"0-15", "16-31", "16-31", "0-15", "0-15", "16-31"}},
    {"2pack-8core-ht", 4, {.map_by = "socket:SPAN"}, "0 2 1 3", {"0-15", "0-15", "16-31", "16-31"}},
    {"2pack-8core-ht", 5, {.map_by = "socket:SPAN"}, "0 2 4 1 3", {"0-15", "16-31", "16-31", "0-15", "0-15"}},
    {"2pack-8core-ht", 3, {.map_by = "socket:SPAN"}, "0 2 1", {"0-15", "0-15", "16-31"}},
    {"2pack-8core-ht", 6, {.map_by = "socket:SPAN", .bind_to = "core"}, "0 2 4 1 3 5", {"0-1", "18-19", "16-17", "4-5", "2-3", "20-21"}},
    {"2pack-8core-ht", 6, {.map_by = "socket:SPAN", .bind_to = "hwthread"}, "0 2 4 1 3 5", {"0", "17", "16", "2", "1", "18"}},
    {"2pack-8core-ht", 6, {.map_by = "socket:SPAN", .rank_by = "slot"}, "0 1 2 3 4 5", {"0-15", "16-31", "0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 6, {.map_by = "socket:SPAN", .rank_by = "node"}, "0 1 2 3 4 5", {"0-15", "16-31", "0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 6, {.map_by = "socket:SPAN", .rank_by = "core"}, "0 1 2 3 4 5", {"0-15", "16-31", "0-15", "16-31", "0-15", "16-31"}},
    {"2pack-8core-ht", 6, {.map_by = "core:SPAN"}, "0 1 2 3 4 5", {"0-1", "2-3", "4-5", "6-7", "8-9", "10-11"}},
    {"2pack-4numa-4core", 6, {.map_by = "numa:SPAN"}, "0 4 1 5 2 3", {"0-3", "8-11", "0-3", "4-7", "4-7", "12-15"}},
    {"2pack-4numa-4core", 6, {.map_by = "numa:SPAN", .bind_to = "core"}, "0 4 1 5 2 3", {"0", "8", "1", "5", "4", "12"}},
    {"2pack-4numa-4core", 6, {.map_by = "socket:SPAN", .rank_by = "numa"}, "0 1 4 2 3 5", {"0-7", "8-15", "8-15", "0-7", "0-7", "8-15"}},
    {"2pack-4numa-4core", 7, {.map_by = "numa:SPAN", .rank_by = "slot", .bind_to = "core"}, "0 1 2 3 4 5 6", {"0", "4", "8", "12", "1", "5", "9"}},
    {"2pack-4numa-4core", 10, {.map_by = "l3cache:SPAN"}, "0 4 8 1 5 9 2 6 3 7", {"0-3", "12-15", "8-11", "0-3", "4-7", "0-3", "12-15", "4-7", "8-11", "4-7"}},
    {"2pack-8core-ht-cgroup", 4, {.map_by = "socket:SPAN", .bind_to = "core"}, "0 2 1 3", {"4-5", "6-7", "16-17", "18-19"}},
    // clang-format on
};

}  // namespace

TEST_CASE("placement on saved multi-socket machines: as mpirun 4.1.4 maps, ranks and binds") {
  for (const MeasuredRow& row : kMeasured) {
    const NodeTopology t = saved(std::string(row.xml) + ".xml");
    std::string options = row.options.map_by + " / " + row.options.rank_by + " / " +
                          row.options.bind_to + (row.options.use_hwthread_cpus ? " / hwt" : "") +
                          (row.options.cpus_per_proc ? " / pe" : "");
    CAPTURE(row.xml);
    CAPTURE(row.ranks);
    CAPTURE(options);
    CHECK(bound_cpus(t, row.ranks, row.options) == row.cpus);
    const auto policy = parse_placement(row.options);
    REQUIRE(policy.has_value());
    const JobMap map({"n"}, std::vector<int>(static_cast<std::size_t>(row.ranks), 0));
    const auto b = bind_ranks(map, {{16, t}}, policy.value(), false);
    REQUIRE(b.has_value());
    std::string listed;
    if (!b->mapped_order.empty())
      for (const int i : b->mapped_order[0])
        listed += (listed.empty() ? "" : " ") +
                  std::to_string(map.ranks_on(0)[static_cast<std::size_t>(i)]);
    if (listed.empty())
      for (int r = 0; r < row.ranks; ++r) listed += (r == 0 ? "" : " ") + std::to_string(r);
    CHECK(listed == row.listed);
  }
}

// mpirun 4.1.4 maps over the objects also when it binds nothing (--bind-to none, an oversubscribed
// default), and its JOB MAP lists in that mapping order (session 12); mpilaunch listed by rank.
TEST_CASE("placement: unbound processes are listed in mapping order, as mpirun 4.1.4 lists them") {
  struct Row {
    int ranks;
    int slots;
    PlacementOptions options;
    const char* listed;
  };
  const Row rows[] = {
      {4, 16, {.map_by = "socket", .rank_by = "core", .bind_to = "none"}, "0 2 1 3"},
      {6, 16, {.map_by = "numa", .rank_by = "core", .bind_to = "none"}, "0 3 1 4 2 5"},
      {6, 16, {.map_by = "socket:SPAN", .bind_to = "none"}, "0 2 4 1 3 5"},
      {4, 2, {.map_by = "socket", .rank_by = "core"}, "0 2 1 3"},
      {6, 2, {.map_by = "socket:SPAN"}, "0 2 4 1 3 5"},
      {4, 16, {.rank_by = "socket", .bind_to = "none"}, "0 1 2 3"},
  };
  const NodeTopology t = saved("2pack-8core-ht.xml");
  for (const Row& row : rows) {
    CAPTURE(row.options.map_by);
    CAPTURE(row.options.rank_by);
    CAPTURE(row.slots);
    const auto policy = parse_placement(row.options);
    REQUIRE(policy.has_value());
    const JobMap map({"n"}, std::vector<int>(static_cast<std::size_t>(row.ranks), 0));
    const auto b = bind_ranks(map, {{row.slots, t}}, policy.value(), false);
    REQUIRE(b.has_value());
    CHECK_FALSE(b->bound);
    REQUIRE(b->mapped_order.size() == 1);
    std::string listed;
    for (const int i : b->mapped_order[0])
      listed += (listed.empty() ? "" : " ") +
                std::to_string(map.ranks_on(0)[static_cast<std::size_t>(i)]);
    CHECK(listed == row.listed);
  }
}

// mpirun numbers cores across the node (its logical index), hwthreads within their core.
TEST_CASE("binding text: cores numbered across the node's sockets") {
  const NodeTopology t = saved("2pack-8core-ht.xml");
  CHECK(report_binding_line(1, t, {16, 17}) ==
        "MCW rank 1 bound to socket 1[core 8[hwt 0-1]]: "
        "[../../../../../../../..][BB/../../../../../../..]");
  const NodeTopology cg = saved("2pack-8core-ht-cgroup.xml");
  CHECK(binding_text(cg, {4}).where == "socket 1[core 2[hwt 0]]");
}

TEST_CASE("topology summary: unreadable XML is refused") {
  CHECK_FALSE(summarize_xml("<topology>").has_value());
}

namespace {

// Each rank i placed on one node by a rankfile line "rank i=n slot=slots[i]".
Result<JobBindings> by_rankfile(const NodeTopology& t, const Strings& slots, bool hwthreads) {
  PlacementPolicy policy;
  policy.use_hwthreads = hwthreads;
  for (const std::string& s : slots) {
    auto slot = parse_rank_slot(s);
    REQUIRE_MESSAGE(slot.has_value(), s);
    policy.rankfile.push_back(slot.value());
  }
  const JobMap map({"n"}, std::vector<int>(slots.size(), 0));
  return bind_ranks(map, {{static_cast<int>(slots.size()), t}}, policy, false);
}

Strings rankfile_cpus(const NodeTopology& t, const Strings& slots, bool hwthreads = false) {
  const auto b = by_rankfile(t, slots, hwthreads);
  REQUIRE_MESSAGE(b.has_value(), b.error().detail);
  CHECK(b->bound);
  Strings out;
  for (const auto& pus : b->pus[0]) out.push_back(os_cpu_list(t, pus));
  return out;
}

std::string rankfile_error(const NodeTopology& t, const Strings& slots) {
  const auto b = by_rankfile(t, slots, false);
  REQUIRE_FALSE(b.has_value());
  CHECK(b.error().kind == ErrorKind::BadOption);
  return b.error().detail;
}

}  // namespace

// mpirun 4.1.4 on this VM: "slot=1" -> core 1, "slot=0:1" -> socket 0's core 1, "slot=0-1" ->
// both cores (reported as not bound); two ranks may share a slot.
TEST_CASE("rankfile slots: logical cores of the node or of a socket, on saved machines") {
  const NodeTopology vm = saved("this-vm-1pack-2core.xml");
  CHECK(rankfile_cpus(vm, {"1", "0"}) == Strings{"1", "0"});
  CHECK(rankfile_cpus(vm, {"0:1", "0-1"}) == Strings{"1", "0-1"});
  CHECK(rankfile_cpus(vm, {"0", "0"}) == Strings{"0", "0"});
  CHECK(rankfile_error(vm, {"5"}) ==
        "rankfile: rank 0 slot=5: node n has 2 cores (0 to 1), no core 5");

  const NodeTopology ht = saved("2pack-8core-ht.xml");
  CHECK(rankfile_cpus(ht, {"1:0-2", "0:1", "3", "0,8"}) ==
        Strings{"16-21", "2-3", "6-7", "0-1,16-17"});
  CHECK(rankfile_cpus(ht, {"5", "1:1"}, true) == Strings{"5", "17"});  // hwthreads
  CHECK(rankfile_error(ht, {"2:0"}) ==
        "rankfile: rank 0 slot=2:0: there is no socket 2 of node n; node n has 2 sockets (0 to "
        "1)");

  const NodeTopology numa = saved("2pack-4numa-4core.xml");
  CHECK(rankfile_cpus(numa, {"1:7", "15"}) == Strings{"15", "15"});

  // Inside a cgroup, the allowed cores are counted: socket 0 has two, 2 and 3 of the machine.
  const NodeTopology cg = saved("2pack-8core-ht-cgroup.xml");
  CHECK(rankfile_cpus(cg, {"0:1", "1:0", "0-3"}) == Strings{"6-7", "16-17", "4-7,16-19"});
  CHECK(rankfile_error(cg, {"0:2"}) ==
        "rankfile: rank 0 slot=0:2: socket 0 of node n has 2 cores (0 to 1), no core 2");
}

// mpirun 4.1.4 (measured, session 9): --bind-to none with a rankfile still runs each rank on its
// line's CPUs (its report says "bound to"), but Open MPI is not told it is bound.
TEST_CASE("rankfile slots: --bind-to none keeps each rank on its line's CPUs") {
  const NodeTopology vm = saved("this-vm-1pack-2core.xml");
  PlacementPolicy policy;
  policy.bind_none = true;
  for (const char* s : {"0", "0-1", "1"}) policy.rankfile.push_back(parse_rank_slot(s).value());
  const JobMap map({"n"}, {0, 0, 0});
  const auto b = bind_ranks(map, {{3, vm}}, policy, false);
  REQUIRE_MESSAGE(b.has_value(), b.error().detail);
  CHECK(b->not_bound);
  Strings cpus;
  for (const auto& pus : b->pus[0]) cpus.push_back(os_cpu_list(vm, pus));
  CHECK(cpus == Strings{"0", "0-1", "1"});
  CHECK(report_binding_line(2, vm, b->pus[0][2]) ==
        "MCW rank 2 bound to socket 0[core 1[hwt 0]]: [./B]");
}

TEST_CASE("rankfile slots: what is not a slot is refused with the accepted forms") {
  for (const char* bad : {"", "x", "1-", "2-1", "a:1", "0:", "1:x", "-1", "0,,1", "0x3", "3a",
                          "1 2", "2-1,5", "1-2-3", ",", "1048577"}) {
    INFO(bad);
    const auto slot = parse_rank_slot(bad);
    REQUIRE_FALSE(slot.has_value());
    CHECK(slot.error().kind == ErrorKind::BadOption);
  }
  CHECK(parse_rank_slot("1:0-2")->socket == 1);
  CHECK(parse_rank_slot("1:0-2")->cpus == std::vector<int>{0, 1, 2});
  CHECK(parse_rank_slot("3,1,1-2")->cpus == std::vector<int>{1, 2, 3});
  CHECK_FALSE(parse_rank_slot("3")->socket);
  CHECK(parse_rank_slot("010")->cpus == std::vector<int>{10});  // decimal, as mpirun's atoi
}

// --cpu-list, measured with mpirun 4.1.4 on this VM: every rank bound to all the list's CPUs
// (logical cores, S:C of a socket), oversubscribed too; --bind-to cpu-list:ordered gives local
// rank k the k-th CPU of the list in OS order; a rank bound to exactly the list is reported
// "not bound".
TEST_CASE("cpu list: every rank on the list's CPUs, or one each with :ordered") {
  const NodeTopology vm = saved("this-vm-1pack-2core.xml");
  CHECK(bound_cpus(vm, 2, {.cpu_list = "1"}) == Strings{"1", "1"});
  CHECK(bound_cpus(vm, 2, {.cpu_list = "0,1"}) == Strings{"0-1", "0-1"});
  CHECK(bound_cpus(vm, 2, {.bind_to = "core", .cpu_list = "0-1"}) == Strings{"0-1", "0-1"});
  CHECK(bound_cpus(vm, 2, {.cpu_list = "0:1"}) == Strings{"1", "1"});
  CHECK(bound_cpus(vm, 2, {.bind_to = "cpu-list:ordered", .cpu_list = "1,0"}) == Strings{"0", "1"});
  CHECK(bound_cpus(vm, 2, {.bind_to = "cpu-list:ordered"}) == Strings{"0", "1"});
  CHECK(bound_cpus(vm, 1, {.bind_to = "cpu-list"}) == Strings{"0-1"});
  {
    // Three ranks on two slots (--oversubscribe): the list still binds them.
    const auto policy = parse_placement({.cpu_list = "1"});
    REQUIRE(policy.has_value());
    const JobMap map({"n"}, {0, 0, 0});
    const auto b = bind_ranks(map, {{2, vm}}, policy.value(), false);
    REQUIRE(b.has_value());
    CHECK(b->bound);
    CHECK(b->pus[0].size() == 3);
    CHECK(os_cpu_list(vm, b->pus[0][2]) == "1");
  }

  const NodeTopology ht = saved("2pack-8core-ht.xml");
  CHECK(bound_cpus(ht, 1, {.cpu_list = "3"}) == Strings{"6-7"});
  CHECK(bound_cpus(ht, 1, {.use_hwthread_cpus = true, .cpu_list = "3"}) == Strings{"3"});
  CHECK(bound_cpus(ht, 1, {.cpu_list = "1:0,2"}) == Strings{"16-17,20-21"});
  // :ordered walks the PUs, so core 0's two hwthreads come first.
  CHECK(bound_cpus(ht, 3, {.bind_to = "cpu-list:ordered", .cpu_list = "0-1"}) ==
        Strings{"0", "1", "2"});

  // Inside a cgroup the allowed cores are counted: core 0 is the machine's core 2.
  const NodeTopology cg = saved("2pack-8core-ht-cgroup.xml");
  CHECK(bound_cpus(cg, 1, {.cpu_list = "0"}) == Strings{"4-5"});
}

// --bind-to none with --cpu-list, measured with mpirun 4.1.4: every rank still runs on the list's
// CPUs only (Cpus_allowed_list, PMIX_CPUSET and the locality string as when bound),
// oversubscribed too, but without OMPI_MCA_orte_bound_at_launch; --report-bindings says "not
// bound", printed by mpirun itself.
TEST_CASE("cpu list with --bind-to none: the ranks kept on the list, not bound") {
  const NodeTopology vm = saved("this-vm-1pack-2core.xml");
  const std::vector<ReportNode> nodes = {{"vm", 42, 2, 0, &vm}};
  for (const int ranks : {2, 3}) {
    CAPTURE(ranks);
    const auto policy = parse_placement({.bind_to = "none", .cpu_list = "1"});
    REQUIRE(policy.has_value());
    CHECK(policy->bind_none);
    const JobMap map({"n"}, std::vector<int>(static_cast<std::size_t>(ranks), 0));
    const auto b = bind_ranks(map, {{2, vm}}, policy.value(), false);
    REQUIRE(b.has_value());
    CHECK(b->not_bound);
    CHECK(b->pus[0].size() == static_cast<std::size_t>(ranks));
    for (const auto& pus : b->pus[0]) CHECK(os_cpu_list(vm, pus) == "1");
    const std::string report = report_bindings_text(map, nodes, *b);
    CHECK(report.starts_with(
        "[vm:00042] MCW rank 0 is not bound (or bound to all available processors)\n"));
    CHECK(report.find(" bound to socket") == std::string::npos);
  }
  // A plain list binds: Open MPI is told so.
  const auto plain = parse_placement({.cpu_list = "1"});
  REQUIRE(plain.has_value());
  const auto b = bind_ranks(JobMap({"n"}, {0, 0}), {{2, vm}}, plain.value(), false);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->not_bound);
  // --bind-to none alone leaves every rank on every CPU.
  const auto none = parse_placement({.bind_to = "none"});
  REQUIRE(none.has_value());
  const auto u = bind_ranks(JobMap({"n"}, {0, 0}), {{2, vm}}, none.value(), false);
  REQUIRE(u.has_value());
  CHECK_FALSE(u->not_bound);
  CHECK(u->pus[0] == std::vector<std::vector<std::uint32_t>>(2));
}

TEST_CASE("cpu list: a CPU a node lacks, or too few for :ordered, is refused by name") {
  const NodeTopology vm = saved("this-vm-1pack-2core.xml");
  auto error = [&](int ranks, PlacementOptions o) {
    const auto policy = parse_placement(o);
    REQUIRE(policy.has_value());
    const JobMap map({"n"}, std::vector<int>(static_cast<std::size_t>(ranks), 0));
    const auto b = bind_ranks(map, {{ranks, vm}}, policy.value(), false);
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().kind == ErrorKind::BadOption);
    return b.error().detail;
  };
  CHECK(error(1, {.cpu_list = "1,5"}) == "--cpu-list 1,5: node n has 2 cores (0 to 1), no core 5");
  CHECK(error(2, {.bind_to = "cpu-list:ordered", .cpu_list = "1"}) ==
        "--bind-to cpu-list:ordered: node n has 2 processes but 1 CPU in the list 1; run fewer "
        "processes there or give more CPUs");
}

TEST_CASE("cpu list: --report-bindings says 'not bound' for a rank on the whole list") {
  const NodeTopology vm = saved("this-vm-1pack-2core.xml");
  const std::vector<ReportNode> nodes = {{"vm", 42, 2, 0, &vm}};
  const JobMap map({"n"}, {0, 0});
  auto report = [&](PlacementOptions o) {
    const auto policy = parse_placement(o);
    REQUIRE(policy.has_value());
    const auto b = bind_ranks(map, {{2, vm}}, policy.value(), false);
    REQUIRE(b.has_value());
    return report_bindings_text(map, nodes, *b);
  };
  CHECK(report({.cpu_list = "1"}) ==
        "[vm:00042] MCW rank 0 is not bound (or bound to all available processors)\n"
        "[vm:00042] MCW rank 1 is not bound (or bound to all available processors)\n");
  CHECK(report({.bind_to = "cpu-list:ordered", .cpu_list = "0-1"}) ==
        "[vm:00042] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
        "[vm:00042] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B]\n");
}
