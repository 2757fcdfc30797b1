// Mapping and binding as mpirun 4.1.4 does them (common/placement.hpp), on hand-built node
// shapes; tests/unit/agent/topology_summary_test.cpp runs the same on saved hwloc XML.
#include <doctest/doctest.h>

#include "common/placement.hpp"

using namespace mpilaunch;

namespace {

// sockets x numa per socket x cores x hwthreads, OS indexes in logical order, one L3 per
// socket, private L2/L1 per core.
NodeTopology shape(int sockets, int numa_per_socket, int cores_per_numa, int pus_per_core) {
  NodeTopology t;
  int core = 0;
  for (int s = 0; s < sockets; ++s)
    for (int m = 0; m < numa_per_socket; ++m)
      for (int c = 0; c < cores_per_numa; ++c, ++core)
        for (int h = 0; h < pus_per_core; ++h)
          t.pus.push_back({static_cast<std::uint32_t>(t.pus.size()), core, core, core, s,
                           s * numa_per_socket + m, s});
  return t;
}

PlacementPolicy policy(PlacementOptions o) {
  auto p = parse_placement(o);
  REQUIRE_MESSAGE(p.has_value(), p.error().detail);
  return p.value();
}

JobMap one_node(int ranks) {
  return JobMap({"n"}, std::vector<int>(static_cast<std::size_t>(ranks), 0));
}

// Each rank's CPUs on node 0 as OS CPU lists.
std::vector<std::string> cpus(const JobBindings& b, const NodeTopology& t, int node = 0) {
  std::vector<std::string> out;
  for (const auto& pus : b.pus[static_cast<std::size_t>(node)]) out.push_back(os_cpu_list(t, pus));
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("placement: mpirun's default on this machine's shape (1 socket, 2 cores)") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  // -n 2: bound to core 0 and core 1.
  auto b = bind_ranks(one_node(2), {{2, vm}}, policy({}), false);
  REQUIRE(b.has_value());
  CHECK(b->policy == "core");
  CHECK(b->bound);
  CHECK(cpus(*b, vm) == Strings{"0", "1"});
  // -n 1: core 0.
  b = bind_ranks(one_node(1), {{2, vm}}, policy({}), false);
  CHECK(cpus(*b, vm) == Strings{"0"});
  // -n 3 --oversubscribe: nobody bound.
  b = bind_ranks(one_node(3), {{2, vm}}, policy({}), false);
  REQUIRE(b.has_value());
  CHECK(b->policy == "none");
  CHECK_FALSE(b->bound);
  CHECK(cpus(*b, vm) == Strings{"", "", ""});
  // -H localhost:3 -n 3: NUMA binding would put 3 ranks on 2 cores: dropped, unbound.
  b = bind_ranks(one_node(3), {{3, vm}}, policy({}), false);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->bound);
  CHECK_FALSE(b->why_unbound.empty());
  // -H localhost:3 -n 2: still core.
  b = bind_ranks(one_node(2), {{3, vm}}, policy({}), false);
  CHECK(cpus(*b, vm) == Strings{"0", "1"});
}

// --oversubscribe itself (PlacementPolicy::default_overload) lets a binding --bind-to did not
// give overload an object; :OVERSUBSCRIBE does not (measured with mpirun 4.1.4, session 10).
TEST_CASE("placement: --oversubscribe lets a default or implied binding overload an object") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  PlacementPolicy p = policy({});
  p.default_overload = true;
  // -H localhost:4 -n 3 --oversubscribe: the NUMA node, overloaded.
  auto b = bind_ranks(one_node(3), {{4, vm}}, p, false);
  REQUIRE(b.has_value());
  CHECK(b->policy == "numa");
  CHECK(cpus(*b, vm) == Strings{"0-1", "0-1", "0-1"});
  // --map-by core --oversubscribe: cores 0, 1, 0.
  p = policy({.map_by = "core"});
  p.default_overload = true;
  b = bind_ranks(one_node(3), {{4, vm}}, p, false);
  CHECK(cpus(*b, vm) == Strings{"0", "1", "0"});
  // More ranks than slots: unbound all the same (-n 3 --oversubscribe on 2 slots).
  p = policy({});
  p.default_overload = true;
  b = bind_ranks(one_node(3), {{2, vm}}, p, false);
  CHECK(b->policy == "none");
  // --map-by core:OVERSUBSCRIBE: dropped.
  b = bind_ranks(one_node(3), {{4, vm}}, policy({.map_by = "core:OVERSUBSCRIBE"}), false);
  CHECK(b->policy == "none");
  // An explicit --bind-to core is still refused, and so is :PE=2 without --oversubscribe
  // itself (mpirun: "A request was made to bind to that would result in binding more processes
  // than cpus"); with it, both ranks on the 2 cores.
  p = policy({.bind_to = "core"});
  p.default_overload = true;
  CHECK_FALSE(bind_ranks(one_node(3), {{4, vm}}, p, false));
  CHECK_FALSE(
      bind_ranks(one_node(2), {{4, vm}}, policy({.map_by = "slot:PE=2:OVERSUBSCRIBE"}), false));
  p = policy({.map_by = "slot:PE=2"});
  p.default_overload = true;
  b = bind_ranks(one_node(2), {{4, vm}}, p, false);
  REQUIRE(b.has_value());
  CHECK(cpus(*b, vm) == Strings{"0-1", "0-1"});
}

TEST_CASE("placement: --bind-to and its qualifiers") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  // --bind-to none
  auto b = bind_ranks(one_node(2), {{2, vm}}, policy({.bind_to = "none"}), false);
  CHECK_FALSE(b->bound);
  // --bind-to socket: every PU, mpirun's "not bound (or bound to all available processors)".
  b = bind_ranks(one_node(2), {{2, vm}}, policy({.bind_to = "socket"}), false);
  CHECK(cpus(*b, vm) == Strings{"0-1", "0-1"});
  CHECK(report_binding_line(0, vm, b->pus[0][0]) ==
        "MCW rank 0 is not bound (or bound to all available processors)");
  // 3 ranks, --bind-to core, oversubscribed: refused, as mpirun refuses it.
  b = bind_ranks(one_node(3), {{2, vm}}, policy({.bind_to = "core"}), false);
  REQUIRE_FALSE(b.has_value());
  CHECK(b.error().kind == ErrorKind::BadOption);
  CHECK(b.error().detail.find("overload-allowed") != std::string::npos);
  // ... and :overload-allowed binds rank 2 to core 0 again (mpirun: B/. ./B B/.).
  b = bind_ranks(one_node(3), {{2, vm}}, policy({.bind_to = "core:overload-allowed"}), false);
  REQUIRE(b.has_value());
  CHECK(cpus(*b, vm) == Strings{"0", "1", "0"});
  // An object the node lacks: refused, or nothing with :if-supported.
  NodeTopology no_l3 = vm;
  for (auto& pu : no_l3.pus) pu.l3 = -1;
  CHECK_FALSE(bind_ranks(one_node(1), {{2, no_l3}}, policy({.bind_to = "l3cache"}), false));
  b = bind_ranks(one_node(1), {{2, no_l3}}, policy({.bind_to = "l3cache:if-supported"}), false);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->bound);
}

TEST_CASE("placement: two sockets of 8 cores with hyperthreads") {
  const NodeTopology big = shape(2, 1, 8, 2);
  // -n 2: cores 0 and 1 of socket 0, both hwthreads each.
  auto b = bind_ranks(one_node(2), {{16, big}}, policy({}), false);
  CHECK(cpus(*b, big) == Strings{"0-1", "2-3"});
  CHECK(report_binding_line(1, big, b->pus[0][1]) ==
        "MCW rank 1 bound to socket 0[core 1[hwt 0-1]]: "
        "[../BB/../../../../../..][../../../../../../../..]");
  // --use-hwthread-cpus -n 2: one hwthread each.
  b = bind_ranks(one_node(2), {{32, big}}, policy({.use_hwthread_cpus = true}), false);
  CHECK(cpus(*b, big) == Strings{"0", "1"});
  CHECK(report_binding_line(1, big, b->pus[0][1]) ==
        "MCW rank 1 bound to socket 0[core 0[hwt 1]]: "
        "[.B/../../../../../../..][../../../../../../../..]");
  // -n 4: NUMA (here one per socket), ranks dealt round robin over them, as mpirun 4.1.4 (its
  // BYNUMA mapper; blocks until session 11: a silent difference).
  b = bind_ranks(one_node(4), {{16, big}}, policy({}), false);
  CHECK(b->policy == "numa");
  CHECK(cpus(*b, big) == Strings{"0-15", "16-31", "0-15", "16-31"});
  // --map-by socket: round robin over sockets, bound to the socket.
  b = bind_ranks(one_node(4), {{16, big}}, policy({.map_by = "socket"}), false);
  CHECK(cpus(*b, big) == Strings{"0-15", "16-31", "0-15", "16-31"});
  // --map-by socket --bind-to core: the next free core of each rank's socket.
  b = bind_ranks(one_node(4), {{16, big}}, policy({.map_by = "socket", .bind_to = "core"}), false);
  CHECK(cpus(*b, big) == Strings{"0-1", "16-17", "2-3", "18-19"});
  // --map-by slot:PE=2: two cores each, in order.
  b = bind_ranks(one_node(2), {{16, big}}, policy({.map_by = "slot:PE=2"}), false);
  CHECK(cpus(*b, big) == Strings{"0-3", "4-7"});
  CHECK(report_binding_line(0, big, b->pus[0][0]) ==
        "MCW rank 0 bound to socket 0[core 0[hwt 0-1]], socket 0[core 1[hwt 0-1]]: "
        "[BB/BB/../../../../../..][../../../../../../../..]");
  // --cpus-per-proc 3 with hwthreads: mapped by NUMA node (mpirun's default with PE=n).
  b = bind_ranks(one_node(2), {{32, big}}, policy({.use_hwthread_cpus = true, .cpus_per_proc = 3}),
                 false);
  CHECK(cpus(*b, big) == Strings{"0-2", "16-18"});
  // ppr:2:socket: two per socket, ranked by slot (0 1 | 2 3) or by socket (0 2 | 1 3).
  b = bind_ranks(one_node(4), {{16, big}}, policy({.map_by = "ppr:2:socket", .bind_to = "core"}),
                 false);
  CHECK(cpus(*b, big) == Strings{"0-1", "2-3", "16-17", "18-19"});
  b = bind_ranks(one_node(4), {{16, big}},
                 policy({.map_by = "ppr:2:socket", .rank_by = "socket", .bind_to = "core"}), false);
  CHECK(cpus(*b, big) == Strings{"0-1", "16-17", "2-3", "18-19"});
  // More PEs than cores: refused before any rank starts.
  CHECK_FALSE(bind_ranks(one_node(1), {{16, big}}, policy({.map_by = "slot:PE=17"}), false));
}

TEST_CASE("placement: four NUMA nodes") {
  const NodeTopology numa4 = shape(2, 2, 4, 1);
  auto b = bind_ranks(one_node(8), {{16, numa4}}, policy({}), false);
  CHECK(b->policy == "numa");
  CHECK(cpus(*b, numa4) == Strings{"0-3", "4-7", "8-11", "12-15", "0-3", "4-7", "8-11", "12-15"});
  b = bind_ranks(one_node(4), {{16, numa4}}, policy({.map_by = "numa"}), false);
  CHECK(cpus(*b, numa4) == Strings{"0-3", "4-7", "8-11", "12-15"});
  // ppr binds as the job's size says (numa above 2 ranks), or as --bind-to says.
  b = bind_ranks(one_node(4), {{16, numa4}}, policy({.map_by = "ppr:1:numa"}), false);
  CHECK(cpus(*b, numa4) == Strings{"0-3", "4-7", "8-11", "12-15"});
  b = bind_ranks(one_node(4), {{16, numa4}}, policy({.map_by = "ppr:1:numa", .bind_to = "core"}),
                 false);
  CHECK(cpus(*b, numa4) == Strings{"0", "4", "8", "12"});
  // More ranks than ppr allows on the node: refused, naming the node's objects.
  CHECK_FALSE(bind_ranks(one_node(5), {{16, numa4}}, policy({.map_by = "ppr:1:numa"}), false));
  // Several application contexts: each maps N per object on its own, from the first object, as
  // mpirun 4.1.4 maps them (launch_plan.cpp map_contexts), so 3 + 2 fit where 5 would not.
  PlacementPolicy two_contexts = policy({.map_by = "ppr:1:numa"});
  two_contexts.context_starts = {3};
  b = bind_ranks(one_node(5), {{16, numa4}}, two_contexts, false);
  REQUIRE_MESSAGE(b.has_value(), b.error().detail);
  CHECK(cpus(*b, numa4) == Strings{"0-3", "4-7", "8-11", "0-3", "4-7"});
  two_contexts.context_starts = {1};  // 1 + 4
  CHECK(bind_ranks(one_node(5), {{16, numa4}}, two_contexts, false));
  two_contexts.context_starts = {4};  // 4 + 1, but 6 ranks: the second context has 2
  CHECK(bind_ranks(one_node(6), {{16, numa4}}, two_contexts, false));
  two_contexts.context_starts = {1};  // 1 + 5: too many for the second
  CHECK_FALSE(bind_ranks(one_node(6), {{16, numa4}}, two_contexts, false));
}

TEST_CASE("placement: virtual nodes of one machine do not all start at its first core") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  const JobMap two({"node1", "node2"}, {0, 1});
  auto b = bind_ranks(two, {{1, vm}, {1, vm}}, policy({}), true);
  REQUIRE(b.has_value());
  CHECK(cpus(*b, vm, 0) == Strings{"0"});
  CHECK(cpus(*b, vm, 1) == Strings{"1"});
  // Separate machines each start at their first core.
  b = bind_ranks(two, {{1, vm}, {1, vm}}, policy({}), false);
  CHECK(cpus(*b, vm, 1) == Strings{"0"});
  // Two ranks per virtual node on 2 cores overload the shared NUMA node: each node is bound on
  // its own then, as mpirun's daemon per node binds it (measured: -H node1:2,node2:2 -n 4, every
  // rank bound to its node's NUMA node, "not bound (or bound to all available processors)").
  const JobMap four({"node1", "node2"}, {0, 0, 1, 1});
  b = bind_ranks(four, {{2, vm}, {2, vm}}, policy({}), true);
  REQUIRE(b.has_value());
  CHECK(b->bound);
  CHECK(b->policy == "numa");
  CHECK(b->dropped.empty());
  CHECK(cpus(*b, vm, 0) == Strings{"0-1", "0-1"});
  CHECK(cpus(*b, vm, 1) == Strings{"0-1", "0-1"});
  // An explicit binding likewise (measured: --bind-to core gives each node cores 0 and 1).
  b = bind_ranks(four, {{2, vm}, {2, vm}}, policy({.bind_to = "core"}), true);
  REQUIRE(b.has_value());
  CHECK(cpus(*b, vm, 0) == Strings{"0", "1"});
  CHECK(cpus(*b, vm, 1) == Strings{"0", "1"});
  // A node whose agent reported nothing stays unbound.
  b = bind_ranks(one_node(1), {{2, NodeTopology{}}}, policy({}), false);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->bound);
}

TEST_CASE("placement: option values are checked, with what is accepted") {
  for (const PlacementOptions& bad :
       {PlacementOptions{.map_by = "bogus"}, PlacementOptions{.map_by = "ppr:x:socket"},
        PlacementOptions{.map_by = "ppr:2"}, PlacementOptions{.map_by = "core:PE=0"},
        PlacementOptions{.map_by = "core:WHAT"}, PlacementOptions{.rank_by = "sideways"},
        PlacementOptions{.bind_to = "cpu"}, PlacementOptions{.bind_to = "core:maybe"},
        PlacementOptions{.map_by = "dist"}, PlacementOptions{.bind_to = "none", .cpus_per_proc = 2},
        PlacementOptions{.cpu_list = "x"}, PlacementOptions{.map_by = "core", .cpu_list = "1"},
        PlacementOptions{.map_by = "ppr:1:core", .cpu_list = "1"},
        PlacementOptions{.bind_to = "cpu-list:ordered", .cpu_list = "0:1"},
        PlacementOptions{.cpus_per_proc = 1, .cpu_list = "1"},
        PlacementOptions{.bind_to = "cpu-list", .cpus_per_proc = 2},
        PlacementOptions{.bind_to = "core:ordered"}}) {
    CAPTURE(bad.map_by);
    CAPTURE(bad.bind_to);
    const auto p = parse_placement(bad);
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().kind == ErrorKind::BadOption);
  }
  const PlacementPolicy p = policy(
      {.map_by = "PPR:2:Socket:PE=2,SPAN,OVERSUBSCRIBE", .bind_to = "Core:Overload-Allowed"});
  CHECK(p.ppr == 2);
  CHECK(p.map_level == HwLevel::Socket);
  CHECK(p.pe == 2);
  CHECK(p.span);
  CHECK(p.oversubscribe == true);
  CHECK(p.bind_level == HwLevel::Core);
  CHECK(p.overload_allowed);
  CHECK(policy({.map_by = "slot:NOOVERSUBSCRIBE"}).oversubscribe == false);
  CHECK(policy({.map_by = "ppr:4:node"}).map_level == HwLevel::Board);
  // :ordered maps as --map-by says and binds one CPU of the list each.
  const PlacementPolicy ordered =
      policy({.map_by = "core", .bind_to = "cpu-list:ordered", .cpu_list = "0-3"});
  CHECK(ordered.bind_cpu_list);
  CHECK(ordered.ordered);
  CHECK(ordered.cpu_list->cpus == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("placement: ':' and ',' both separate a policy's words, empty words skipped") {
  CHECK(policy({.map_by = "core::SPAN"}).span);
  CHECK(policy({.map_by = "core,:span,"}).span);
  CHECK(policy({.map_by = "node:"}).by_node);
  CHECK(policy({.map_by = ":span"}).span);  // an empty policy is slot
  CHECK(policy({.map_by = "ppr:2,core:pe=1"}).ppr == 2);
  CHECK(policy({.map_by = "ppr,2:socket"}).map_level == HwLevel::Socket);
  CHECK(policy({.rank_by = "node,span"}).rank_by_node);
  CHECK(policy({.rank_by = "core:"}).rank_level == HwLevel::Core);
  CHECK(policy({.bind_to = "core,,overload-allowed"}).overload_allowed);
  CHECK(policy({.bind_to = "none:"}).bind_none);
  for (const PlacementOptions& bad :
       {PlacementOptions{.map_by = "ppr::socket"}, PlacementOptions{.map_by = "ppr:2:"},
        PlacementOptions{.map_by = "core;span"}, PlacementOptions{.map_by = "core span"},
        PlacementOptions{.rank_by = ":span"}, PlacementOptions{.bind_to = ",core"}}) {
    CAPTURE(bad.map_by);
    CAPTURE(bad.rank_by);
    CAPTURE(bad.bind_to);
    CHECK_FALSE(parse_placement(bad).has_value());
  }
}

// mpirun 4.1.4 drops a default binding node by node (measured on virtual nodes, session 11).
TEST_CASE("placement: a default binding that overloads a node is dropped on that node only") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  // -H node1:3,node2:1 -n 4: node1's three ranks unbound, node2's rank bound to its NUMA node.
  const JobMap three_one({"node1", "node2"}, {0, 0, 0, 1});
  for (const bool shared : {true, false}) {
    auto b = bind_ranks(three_one, {{3, vm}, {1, vm}}, policy({}), shared);
    REQUIRE(b.has_value());
    CHECK(b->policy == "numa");
    CHECK(b->bound);
    CHECK(b->dropped == std::vector<bool>{true, false});
    CHECK(cpus(*b, vm, 0) == Strings{"", "", ""});
    CHECK(cpus(*b, vm, 1) == Strings{"0-1"});
    CHECK(b->why_unbound.find("node1") != std::string::npos);
    const std::vector<ReportNode> nodes = {{"node1", 11, 3, 0, &vm, true},
                                           {"node2", 22, 1, 0, &vm, true}};
    // mpirun's daemon reports node2's rank only; node1's ranks report themselves.
    CHECK(report_bindings_lines(three_one, nodes, *b) ==
          Strings{"", "", "",
                  "[node2:00022] MCW rank 3 is not bound (or bound to all available "
                  "processors)\n"});
  }
  // --map-by core: node2's rank on core 0 (measured).
  auto b = bind_ranks(three_one, {{3, vm}, {1, vm}}, policy({.map_by = "core"}), true);
  REQUIRE(b.has_value());
  CHECK(cpus(*b, vm, 1) == Strings{"0"});
  // Every node overloaded: the job is unbound, as before (-H node1:3,node2:3 -n 6).
  const JobMap six({"node1", "node2"}, {0, 0, 0, 1, 1, 1});
  b = bind_ranks(six, {{3, vm}, {3, vm}}, policy({}), true);
  REQUIRE(b.has_value());
  CHECK(b->policy == "none");
  CHECK_FALSE(b->bound);
  CHECK(b->dropped.empty());
  // With --oversubscribe the overload is allowed, every node keeps its binding (measured).
  PlacementPolicy overload = policy({});
  overload.default_overload = true;
  b = bind_ranks(three_one, {{3, vm}, {1, vm}}, overload, true);
  REQUIRE(b.has_value());
  CHECK(b->dropped.empty());
  CHECK(cpus(*b, vm, 0) == Strings{"0-1", "0-1", "0-1"});
  // An explicit binding that overloads a node is refused (mpirun's daemon there fails).
  CHECK_FALSE(bind_ranks(three_one, {{3, vm}, {1, vm}}, policy({.bind_to = "core"}), true));
  // The launcher's own node dropped: its ranks "N/A" in the map, no locality (measured with
  // -H vm:3,node2:1).
  const std::vector<ReportNode> local = {{"vm", 11, 3, 0, &vm, false},
                                         {"node2", 22, 1, 0, &vm, true}};
  b = bind_ranks(three_one, {{3, vm}, {1, vm}}, policy({}), false);
  REQUIRE(b.has_value());
  CHECK(display_map_text("77", 4, three_one, local, *b).find("Process rank: 0 Bound: N/A\n") !=
        std::string::npos);
  CHECK(display_diffable_map_text(three_one, local, *b).ends_with("\t</host>\n"));
}

TEST_CASE("placement: mpirun's --report-bindings and --display-map text") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  auto b = bind_ranks(one_node(2), {{2, vm}}, policy({}), false);
  REQUIRE(b.has_value());
  const std::vector<ReportNode> nodes = {{"vm", 1234, 2, 0, &vm}};
  CHECK(report_bindings_text(one_node(2), nodes, *b) ==
        "[vm:01234] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
        "[vm:01234] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B]\n");
  CHECK(display_map_text("77", 2, one_node(2), nodes, *b) ==
        " Data for JOB [77,1] offset 0 Total slots allocated 2\n\n"
        " ========================   JOB MAP   ========================\n\n"
        " Data for node: vm\tNum slots: 2\tMax slots: 0\tNum procs: 2\n"
        " \tProcess OMPI jobid: [77,1] App: 0 Process rank: 0 Bound: socket 0[core 0[hwt "
        "0]]:[B/.]\n"
        " \tProcess OMPI jobid: [77,1] App: 0 Process rank: 1 Bound: socket 0[core 1[hwt "
        "0]]:[./B]\n"
        "\n =============================================================\n");
  b = bind_ranks(one_node(3), {{2, vm}}, policy({}), false);
  CHECK(report_bindings_text(one_node(3), nodes, *b).empty());
  CHECK(display_map_text("77", 2, one_node(3), nodes, *b).find("Bound: N/A") != std::string::npos);
}

// mpirun 4.1.4's --display-diffable-map on this 2-core machine (measured), and the App column
// of --display-map in an MPMD job.
TEST_CASE("placement: mpirun's --display-diffable-map text, and App: N for MPMD") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  const std::vector<ReportNode> nodes = {{"vm", 1234, 2, 0, &vm}};
  auto b = bind_ranks(one_node(2), {{2, vm}}, policy({}), false);
  REQUIRE(b.has_value());
  CHECK(display_diffable_map_text(one_node(2), nodes, *b, {0, 1}) ==
        "<map>\n"
        "\t<host num=0>\n"
        "\t\t<process rank=0 app_idx=0 local_rank=0 node_rank=0 binding=[B/.]>\n"
        "\t\t<process rank=1 app_idx=1 local_rank=1 node_rank=1 binding=[./B]>\n"
        "\t</host>\n"
        "\t<locality>\n"
        "\t\t<rank=0 rank=1 locality=CL:CU:N:B:Nu:S:L3>\n"
        "\t</locality>\n"
        "</map>\n");
  CHECK(display_map_text("77", 2, one_node(2), nodes, *b, {0, 1}).find("App: 1 Process rank: 1") !=
        std::string::npos);
  // Bound to the socket (every PU): UNBOUND, and the two share everything.
  b = bind_ranks(one_node(2), {{2, vm}}, policy({.bind_to = "socket"}), false);
  REQUIRE(b.has_value());
  const std::string socket = display_diffable_map_text(one_node(2), nodes, *b);
  CHECK(socket.find("node_rank=1 binding=UNBOUND>") != std::string::npos);
  CHECK(socket.find("locality=CL:CU:N:B:Nu:S:L3:L2:L1:C:Hwt>") != std::string::npos);
  // One rank: an empty locality block.
  b = bind_ranks(one_node(1), {{2, vm}}, policy({}), false);
  CHECK(display_diffable_map_text(one_node(1), nodes, *b)
            .ends_with("\t</host>\n\t<locality>\n\t</locality>\n</map>\n"));
  // Unbound (3 ranks on 2 cores drop the default binding): mpirun stops after the hosts.
  b = bind_ranks(one_node(3), {{2, vm}}, policy({}), false);
  const std::string unbound = display_diffable_map_text(one_node(3), nodes, *b);
  CHECK(unbound.find("node_rank=2 binding=UNBOUND>\n\t</host>\n") != std::string::npos);
  CHECK(unbound.ends_with("\t</host>\n"));
  // Two sockets: ranks on different sockets share the node only.
  const NodeTopology two = shape(2, 1, 1, 1);
  CHECK(relative_locality_text(two, {0}, {1}) == "CL:CU:N:B");
  CHECK(relative_locality_text(shape(1, 1, 1, 2), {0}, {1}) == "CL:CU:N:B:Nu:S:L3:L2:L1:C");
}

// mpirun 4.1.4's maps on virtual nodes (its daemon per node binds their ranks after the map is
// printed), measured: -H node1:1,node2:1 -n 2 shows both "Bound: N/A" and binding=UNBOUND, no
// locality; -H vm:1,node2:1 (its own node first) shows rank 0's binding and the locality.
TEST_CASE("placement: a remote node's ranks are unbound in mpirun's maps") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  const JobMap two({"node1", "node2"}, {0, 1});
  auto b = bind_ranks(two, {{1, vm}, {1, vm}}, policy({}), false);
  REQUIRE(b.has_value());
  std::vector<ReportNode> nodes = {{"node1", 1, 1, 0, &vm, true}, {"node2", 2, 1, 0, &vm, true}};
  CHECK(display_diffable_map_text(two, nodes, *b) ==
        "<map>\n"
        "\t<host num=0>\n"
        "\t\t<process rank=0 app_idx=0 local_rank=0 node_rank=0 binding=UNBOUND>\n"
        "\t</host>\n"
        "\t<host num=1>\n"
        "\t\t<process rank=1 app_idx=0 local_rank=0 node_rank=0 binding=UNBOUND>\n"
        "\t</host>\n");
  const std::string table = display_map_text("77", 4, two, nodes, *b);
  CHECK(table.find("Process rank: 0 Bound: N/A\n") != std::string::npos);
  CHECK(table.find("Process rank: 1 Bound: N/A\n") != std::string::npos);
  // The launcher's own node first: its rank's binding, and the locality block.
  nodes[0] = {"vm", 1, 1, 0, &vm, false};
  CHECK(display_diffable_map_text(two, nodes, *b) ==
        "<map>\n"
        "\t<host num=0>\n"
        "\t\t<process rank=0 app_idx=0 local_rank=0 node_rank=0 binding=[B/.]>\n"
        "\t</host>\n"
        "\t<host num=1>\n"
        "\t\t<process rank=1 app_idx=0 local_rank=0 node_rank=0 binding=UNBOUND>\n"
        "\t</host>\n"
        "\t<locality>\n"
        "\t</locality>\n"
        "</map>\n");
  CHECK(display_map_text("77", 4, two, nodes, *b)
            .find("Process rank: 0 Bound: socket 0[core 0[hwt 0]]:[B/.]\n") != std::string::npos);
  // --report-bindings still gives the binding the daemon reports.
  CHECK(report_bindings_text(two, nodes, *b) ==
        "[vm:00001] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n"
        "[node2:00002] MCW rank 1 bound to socket 0[core 0[hwt 0]]: [B/.]\n");
}

TEST_CASE("placement: --map-by seq is the sequential mapper, bound as by default") {
  const PlacementPolicy p = policy({.map_by = "seq"});
  CHECK(p.seq);
  CHECK_FALSE(p.map_given);  // mpirun 4.1.4: SEQUENTIAL maps, the default binding binds
  CHECK_FALSE(p.bind_none);
  CHECK_FALSE(policy({.map_by = "slot"}).seq);
}

// mpirun 4.1.4's seq mapper binds nothing on the nodes other than its own and tells their
// ranks they are bound (OMPI_MCA_orte_bound_at_launch=1), whatever --bind-to says but none;
// its own node binds as the policy says (measured in session 12 on virtual nodes: hostfile
// vm,node1,vm -n 3 --bind-to core: cores 0 and 1 on vm, node1's rank on every CPU).
TEST_CASE("placement: the seq mapper binds nothing on other nodes, but tells them bound") {
  const NodeTopology vm = shape(1, 1, 2, 1);
  const JobMap own_and_remote({"vm", "node1"}, {0, 1, 0});
  auto b = bind_ranks(own_and_remote, {{2, vm, false}, {1, vm, true}},
                      policy({.map_by = "seq", .bind_to = "core"}), true);
  REQUIRE(b.has_value());
  CHECK(cpus(*b, vm, 0) == Strings{"0", "1"});
  CHECK(cpus(*b, vm, 1) == Strings{""});
  CHECK(b->told_bound == std::vector<bool>{false, true});
  std::vector<ReportNode> nodes = {{"vm", 1, 2, 0, &vm, false}, {"node1", 2, 1, 0, &vm, true}};
  CHECK(report_bindings_lines(own_and_remote, nodes, *b) ==
        Strings{"[vm:00001] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]\n", "",
                "[vm:00001] MCW rank 2 bound to socket 0[core 1[hwt 0]]: [./B]\n"});
  // Virtual nodes only: nothing bound, every node told; two ranks on one node with --bind-to
  // core are no overload there.
  const JobMap remote({"node1", "node2"}, {1, 0, 1});
  for (const std::string bind : {"", "core"}) {
    CAPTURE(bind);
    b = bind_ranks(remote, {{1, vm, true}, {2, vm, true}},
                   policy({.map_by = "seq", .bind_to = bind}), true);
    REQUIRE(b.has_value());
    CHECK_FALSE(b->bound);
    CHECK(b->told_bound == std::vector<bool>{true, true});
    CHECK(cpus(*b, vm, 1) == Strings{"", ""});
  }
  // --mca rmaps seq (binding none, not given): still told; --bind-to none: not.
  auto rmaps = policy({.map_by = "seq"});
  rmaps.bind_none = true;
  b = bind_ranks(remote, {{1, vm, true}, {2, vm, true}}, rmaps, true);
  REQUIRE(b.has_value());
  CHECK(b->told_bound == std::vector<bool>{true, true});
  b = bind_ranks(remote, {{1, vm, true}, {2, vm, true}},
                 policy({.map_by = "seq", .bind_to = "none"}), true);
  REQUIRE(b.has_value());
  CHECK(b->told_bound.empty());
  // Not the seq mapper: remote nodes bind as their topology says.
  b = bind_ranks(remote, {{1, vm, true}, {2, vm, true}}, policy({}), true);
  REQUIRE(b.has_value());
  CHECK(b->told_bound.empty());
}

// A topology read from HWLOC_XMLFILE is not this machine's: mpirun 4.1.4 binds nothing then
// (measured: the default and --map-by's bindings dropped, --bind-to refused unless
// :if-supported).
TEST_CASE("placement: a saved topology (HWLOC_XMLFILE) binds nothing, --bind-to is refused") {
  const NodeTopology big = shape(2, 1, 8, 2);
  auto p = policy({});
  p.topology_file = "/saved/2pack.xml";
  auto b = bind_ranks(one_node(4), {{16, big}}, p, false);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->bound);
  CHECK(b->policy == "none");
  CHECK(b->why_unbound.find("/saved/2pack.xml") != std::string::npos);
  p = policy({.map_by = "socket:PE=2"});
  p.topology_file = "/saved/2pack.xml";
  b = bind_ranks(one_node(2), {{16, big}}, p, false);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->bound);
  p = policy({.bind_to = "core"});
  p.topology_file = "/saved/2pack.xml";
  b = bind_ranks(one_node(2), {{16, big}}, p, false);
  REQUIRE_FALSE(b.has_value());
  CHECK(b.error().kind == ErrorKind::BadOption);
  CHECK(b.error().detail.find("does NOT support binding") != std::string::npos);
  p = policy({.bind_to = "core:if-supported"});
  p.topology_file = "/saved/2pack.xml";
  b = bind_ranks(one_node(2), {{16, big}}, p, false);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->bound);
  CHECK(b->told_bound == std::vector<bool>{true});
}

// mpirun 4.1.4 on a saved topology binds nothing but still tells the ranks they are bound
// (OMPI_MCA_orte_bound_at_launch=1), also where the file's machine would be overloaded;
// not with --bind-to none, nor when the job is oversubscribed (measured).
TEST_CASE("placement: a saved topology's unbound ranks are told they are bound") {
  const NodeTopology big = shape(2, 1, 8, 2);
  const auto on_file = [](PlacementPolicy p) {
    p.topology_file = "/saved/2pack.xml";
    return p;
  };
  auto b = bind_ranks(one_node(4), {{16, big}}, on_file(policy({})), false);
  REQUIRE(b.has_value());
  CHECK(b->told_bound == std::vector<bool>{true});
  CHECK(report_bindings_lines(one_node(4), {{"vm", 1, 16, 0, &big, false}}, *b).empty());
  b = bind_ranks(one_node(2), {{16, big}}, on_file(policy({.map_by = "socket:PE=2"})), false);
  REQUIRE(b.has_value());
  CHECK(b->told_bound == std::vector<bool>{true});
  b = bind_ranks(one_node(34), {{40, big}}, on_file(policy({.map_by = "core"})), false);
  REQUIRE(b.has_value());
  CHECK(b->told_bound == std::vector<bool>{true});
  b = bind_ranks(one_node(4), {{16, big}}, on_file(policy({.bind_to = "none"})), false);
  REQUIRE(b.has_value());
  CHECK(b->told_bound.empty());
  b = bind_ranks(one_node(4), {{2, big}}, on_file(policy({})), false);
  REQUIRE(b.has_value());
  CHECK(b->told_bound.empty());
  // This machine's own topology: bound as usual, nobody told otherwise.
  b = bind_ranks(one_node(4), {{16, big}}, policy({}), false);
  REQUIRE(b.has_value());
  CHECK(b->bound);
  CHECK(b->told_bound.empty());
}
