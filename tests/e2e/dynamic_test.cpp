// Dynamic processes (issue 24): MPI_Comm_spawn (children started by the agents, connected to
// their parent through the name service and PMIx_Connect across agents), the name service
// (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name through the launcher, for Open MPI's
// and MPICH's ranks) and accept/connect, on one node and across virtual nodes; spawns that
// cannot be honoured end the job with one typed error, never a hang.
#include <sched.h>

#include <doctest/doctest.h>

#include <algorithm>

#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {
namespace {

constexpr int kNotEnoughSlots = 67;

}  // namespace

// The children start as job 2 (their rank-start events), connect to their parent, get its
// data and end; MPI_Comm_spawn returns in the parent and the job succeeds.
TEST_CASE("dynamic: MPI_Comm_spawn starts the children as job 2") {
  Job job;
  const Outcome o =
      job.launch({"--oversubscribe", "-n", "1", "--tag-output", app("dynamic"), "spawn", "2"},
                 Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const EventsFile file = read_events(job.events_path());
  CHECK_MESSAGE(file.problems.empty(), file.problems.front());
  const auto spawns = events_named(file.events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 1, o.summary());
  CHECK(spawns[0].value("job", 0) == 2);
  CHECK(spawns[0].value("np", 0) == 2);
  CHECK(spawns[0].value("parent_rank", -1) == 0);
  const std::string nspace = spawns[0].value("nspace", std::string());
  CHECK(nspace.ends_with("-job2"));
  std::vector<int> child_ranks;
  for (const Json& e : events_named(file.events, "rank-start"))
    if (e.value("job", 1) == 2) {
      CHECK(e.value("nspace", std::string()) == nspace);
      child_ranks.push_back(e.value("rank", -1));
    }
  std::sort(child_ranks.begin(), child_ranks.end());
  const std::vector<int> expected{0, 1};
  CHECK_MESSAGE(child_ranks == expected, o.summary());
  CHECK_MESSAGE(count_of(o.out, "[2,0]<stdout>:child 0 of 2 got 42\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "[2,1]<stdout>:child 1 of 2 got 42\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "[1,0]<stdout>:parent 0 spawned 2\n") == 1, o.out);
  check_events(job, 0);
  check_nothing_left(job, o);
}

// Each of the job's `parents` ranks printed that it spawned `children` (tagged [1,R]).
void check_parents_spawned(const Outcome& o, int parents, int children) {
  for (int p = 0; p < parents; ++p) {
    const std::string parent = std::to_string(p);
    CHECK_MESSAGE(count_of(o.out, "[1," + parent + "]<stdout>:parent " + parent + " spawned " +
                                      std::to_string(children) + "\n") == 1,
                  o.out);
  }
}

// A spawn on a job of 2 virtual nodes: the children go where the placement puts them (the
// spawn event's hosts), run, connect to both parents across the agents and print; every agent
// registers the child namespace, also one without children (its maps then name only the
// children's nodes: a full node list made libpmix refuse the registration on every agent).
void check_spawn_on_nodes(const std::vector<std::string>& options, int children,
                          const std::vector<std::string>& hosts, int parents = 2,
                          const std::vector<std::string>& info = {}) {
  Job job;
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {"--tag-output", app("dynamic"), "spawn", std::to_string(children)});
  argv.insert(argv.end(), info.begin(), info.end());
  const Outcome o = job.launch(argv, Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const auto spawns = events_named(read_events(job.events_path()).events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 1, o.summary());
  CHECK_MESSAGE(spawns[0].value("hosts", Json::array()) == Json(hosts), spawns[0].dump());
  for (int c = 0; c < children; ++c)
    CHECK_MESSAGE(
        count_of(o.out, "[2," + std::to_string(c) + "]<stdout>:child " + std::to_string(c) +
                            " of " + std::to_string(children) + " got 42\n") == 1,
        o.out);
  check_parents_spawned(o, parents, children);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: a spawned process on the second virtual node") {
  check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:1,dyn2:2", "-n", "2"}, 1, {"dyn2"});
}

TEST_CASE("dynamic: a spawn registered on a virtual node that gets none of its processes") {
  check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:2,dyn2:1", "--map-by", "node", "-n", "2"},
                       1, {"dyn1"});
}

TEST_CASE("dynamic: spawned processes spread over 2 virtual nodes") {
  check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:2,dyn2:2", "--map-by", "node", "-n", "2"},
                       2, {"dyn1", "dyn2"});
}

// OMPI_MCA_mpi_oversubscribe (Open MPI's ranks yield instead of busy-polling when it is 1): a
// spawned job's node counts every process still running there, as mpirun 4.1.4 does (measured:
// 2 children next to 2 ranks on 2 slots get 1, the ranks keep their 0; 2 children next to 1 rank
// on 4 slots get 0). The parent's own value, which Open MPI's spawn forwards, does not decide.
void check_spawn_oversubscribe(const std::vector<std::string>& options, int parents,
                               const std::string& children_value) {
  Job job;
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {app("dynamic"), "spawn-env", "2"});
  const Outcome o = job.launch(argv, Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  for (int p = 0; p < parents; ++p)
    CHECK_MESSAGE(count_of(o.out, "parent " + std::to_string(p) + " oversubscribe=0\n") == 1,
                  o.out);
  for (const char* c : {"0", "1"})
    CHECK_MESSAGE(
        count_of(o.out, std::string("child ") + c + " oversubscribe=" + children_value + "\n") == 1,
        o.out);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: children on an oversubscribed node get OMPI_MCA_mpi_oversubscribe=1") {
  check_spawn_oversubscribe({"-H", "localhost:2", "--oversubscribe", "-n", "2"}, 2, "1");
}

TEST_CASE("dynamic: children within the node's slots get OMPI_MCA_mpi_oversubscribe=0") {
  check_spawn_oversubscribe({"-H", "localhost:4", "-n", "1"}, 1, "0");
}

// The binding of spawned processes, as mpirun 4.1.4 binds them (measured): its default policy
// whatever the job's --bind-to, each on the least used core (hwthread here), the parent's
// counting; none at all on an oversubscribed node. The spawn event's cpus are what the
// child's affinity says.
struct SpawnBinding {
  std::vector<std::string> event_cpus;  // the spawn event's, per child
  std::string parent_cpus, out;
};

SpawnBinding run_spawn_binding(const std::vector<std::string>& options, int children) {
  Job job;
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {app("dynamic"), "spawn-env", std::to_string(children)});
  const Outcome o = job.launch(argv, Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  check_nothing_left(job, o);
  SpawnBinding b;
  b.out = o.out;
  const auto spawns = events_named(read_events(job.events_path()).events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 1, o.summary());
  for (const Json& c : spawns[0].value("cpus", Json::array())) b.event_cpus.push_back(c);
  REQUIRE(b.event_cpus.size() == static_cast<std::size_t>(children));
  for (const std::string& line : lines_of(o.out))
    if (line.starts_with("parent 0 cpus=")) b.parent_cpus = line.substr(14);
  for (int c = 0; c < children; ++c) {
    const std::string& cpus = b.event_cpus[static_cast<std::size_t>(c)];
    if (!cpus.empty())
      CHECK_MESSAGE(count_of(o.out, "child " + std::to_string(c) + " cpus=" + cpus + "\n") == 1,
                    o.out);
  }
  return b;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

TEST_CASE("dynamic: a spawned process is bound to a free CPU next to its bound parent") {
  if (usable_cpus() < 2) {  // one CPU: the child would share the parent's (unbound)
    MESSAGE("skipped: this test needs 2 CPUs");
    return;
  }
  const SpawnBinding b = run_spawn_binding({"--use-hwthread-cpus", "-n", "1"}, 1);
  CHECK_MESSAGE(!b.event_cpus[0].empty(), b.out);
  CHECK_MESSAGE(b.event_cpus[0].find_first_of(",-") == std::string::npos, b.out);  // one CPU
  CHECK_MESSAGE(b.event_cpus[0] != b.parent_cpus, b.out);
}

TEST_CASE("dynamic: a spawned process is bound even when the job is --bind-to none") {
  const SpawnBinding b =
      run_spawn_binding({"--use-hwthread-cpus", "--bind-to", "none", "-n", "1"}, 1);
  CHECK_MESSAGE(!b.event_cpus[0].empty(), b.out);
  CHECK_MESSAGE(b.event_cpus[0].find_first_of(",-") == std::string::npos, b.out);
}

TEST_CASE("dynamic: spawned processes on an oversubscribed node are not bound") {
  const SpawnBinding b = run_spawn_binding({"-H", "localhost:2", "--oversubscribe", "-n", "2"}, 2);
  CHECK(b.event_cpus == std::vector<std::string>{"", ""});
}

// mpirun 4.1.4 starts a daemon on every host of the allocation and puts the children on the free
// slots of hosts where no rank runs (measured with the same lines): an agent waits there.
TEST_CASE("dynamic: spawned processes on virtual nodes without initial ranks, as mpirun") {
  SUBCASE("both on the second node") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:2,dyn2:2", "-n", "2"}, 2,
                         {"dyn2", "dyn2"});
  }
  SUBCASE("one parent, its child on the other node") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:1,dyn2:1", "-n", "1"}, 1, {"dyn2"}, 1);
  }
  SUBCASE("over the two idle nodes of three") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:2,dyn2:2,dyn3:2", "-n", "2"}, 3,
                         {"dyn2", "dyn2", "dyn3"});
  }
}

// mpirun 4.1.4 (measured with the same lines): --nolocal keeps ranks off this machine but not
// spawned children; its own node comes first, and a spawn starts on the node where the parent
// job's map ended when that node has room.
TEST_CASE("dynamic: --nolocal: spawned processes on this machine, from the job's last node") {
  SUBCASE("this machine first once the parent's node is full") {
    check_spawn_on_nodes(
        {"--launcher=local", "--nolocal", "-H", "dyn1:1,localhost:2,dyn2:2", "-n", "1"}, 3,
        {"localhost", "localhost", "dyn2"}, 1);
  }
  SUBCASE("the parent's node while it has room") {
    check_spawn_on_nodes({"--launcher=local", "--nolocal", "-H", "localhost:2,dyn1:3", "-n", "1"},
                         1, {"dyn1"}, 1);
  }
  SUBCASE("--map-by node: from the last node, ranked in node order") {
    check_spawn_on_nodes(
        {"--launcher=local", "-H", "dyn1:2,dyn2:2,dyn3:2", "--map-by", "node", "-n", "3"}, 2,
        {"dyn1", "dyn3"}, 3);
  }
}

// mpirun 4.1.4 prints --display-allocation again at each spawn, slots_inuse counting what
// runs on each host then (measured: -H dyn1:2,dyn2:3 -n 2, spawn 1: dyn1 slots_inuse=2).
TEST_CASE("dynamic: --display-allocation again at the spawn, with the slots in use") {
  Job job;
  const Outcome o = job.launch({"--launcher=local", "-H", "dyn1:2,dyn2:3", "--display-allocation",
                                "-n", "2", app("dynamic"), "spawn", "1"},
                               Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const std::string rule = "=================================================================\n";
  const std::string head = "\n======================   ALLOCATED NODES   ======================\n";
  CHECK_MESSAGE(count_of(o.out, head +
                                    "\tdyn1: flags=0x13 slots=2 max_slots=0 slots_inuse=0 "
                                    "state=UP\n\tdyn2: flags=0x13 slots=3 max_slots=0 "
                                    "slots_inuse=0 state=UP\n" +
                                    rule) == 1,
                o.out);
  CHECK_MESSAGE(count_of(o.out, head +
                                    "\tdyn1: flags=0x13 slots=2 max_slots=0 slots_inuse=2 "
                                    "state=UP\n\tdyn2: flags=0x13 slots=3 max_slots=0 "
                                    "slots_inuse=0 state=UP\n" +
                                    rule) == 1,
                o.out);
  CHECK_MESSAGE(count_of(o.out, "ALLOCATED NODES") == 2, o.out);
  check_nothing_left(job, o);
}

// The info key map_by=node spreads the children over the nodes with free slots, ranked node
// after node; the job's --map-by node does not apply to them (mpirun 4.1.4, measured with the
// same lines).
TEST_CASE("dynamic: the spawn's map_by node as mpirun; the job's --map-by is not the children's") {
  SUBCASE("map_by node: 4 children over 3 nodes") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:3,dyn2:3,dyn3:3", "-n", "2"}, 4,
                         {"dyn1", "dyn2", "dyn2", "dyn3"}, 2, {"map_by", "node"});
  }
  SUBCASE("--map-by node: the children fill the parent's node") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:3,dyn2:3", "--map-by", "node", "-n", "1"},
                         2, {"dyn1", "dyn1"}, 1);
  }
}

// mpirun 4.1.4 on virtual nodes (measured with the same lines): the spawn's map_by node deals
// from the node where the job's map ended (ORTE's bookmark) when it has room, and a job ranked
// by node (--map-by node, --rank-by node) gets its children ranked by node. mpilaunch dealt
// from the first node and ranked node after node: dyn1, dyn2 for the first line.
TEST_CASE("dynamic: map_by node from the job's bookmark, children ranked by node as mpirun") {
  SUBCASE("--map-by node -n 2, spawn 2 map_by node: from dyn2") {
    check_spawn_on_nodes(
        {"--launcher=local", "-H", "dyn1:2,dyn2:2,dyn3:2", "--map-by", "node", "-n", "2"}, 2,
        {"dyn2", "dyn3"}, 2, {"map_by", "node"});
  }
  SUBCASE("--map-by node -n 2, spawn 4 map_by node: dyn2 takes the extra one, ranked by node") {
    check_spawn_on_nodes(
        {"--launcher=local", "-H", "dyn1:3,dyn2:3,dyn3:3", "--map-by", "node", "-n", "2"}, 4,
        {"dyn1", "dyn2", "dyn3", "dyn2"}, 2, {"map_by", "node"});
  }
  // Two children on each parent's node: each child must get its own node's shared-memory
  // directory, not its parent's (Open MPI's spawn forwards the parent's OMPI_MCA_* variables):
  // sharing one, two children of the same local rank crashed in MPI_Init (SIGSEGV in vader).
  SUBCASE("--map-by node -n 2, spawn 4: two children beside each parent, ranked by node") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:3,dyn2:3", "--map-by", "node", "-n", "2"},
                         4, {"dyn1", "dyn2", "dyn1", "dyn2"});
  }
  SUBCASE("--rank-by node -n 2, spawn 4 map_by node") {
    check_spawn_on_nodes(
        {"--launcher=local", "-H", "dyn1:3,dyn2:3,dyn3:3", "--rank-by", "node", "-n", "2"}, 4,
        {"dyn1", "dyn2", "dyn3", "dyn2"}, 2, {"map_by", "node"});
  }
  // Ranked node after node the job's last rank is on dyn3 (the mapper ended on dyn1): the
  // children start there, dyn3 then dyn1, ranked in node order (measured: dyn1, dyn3).
  SUBCASE("--map-by node --rank-by slot -n 4, spawn 2: from the last rank's node") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:3,dyn2:2,dyn3:2", "--map-by", "node",
                          "--rank-by", "slot", "-n", "4"},
                         2, {"dyn1", "dyn3"}, 4);
  }
}

// Every node full (--oversubscribe): mpirun 4.1.4 starts at the bookmark, the node of the job's
// last rank (dyn2 here: ranked by node, rank 3 is there), not at the map's last node (dyn3), or
// at the node before it when that one is less overloaded (measured). mpilaunch started at the
// first node (dyn1, dyn3).
TEST_CASE("dynamic: every node full, the spawn starts at the job's last rank's node") {
  check_spawn_on_nodes({"--launcher=local", "--oversubscribe", "-H", "dyn1:1,dyn2:2,dyn3:1",
                        "--map-by", "node", "-n", "4"},
                       2, {"dyn2", "dyn3"}, 4);
}

// Beyond the free slots (--oversubscribe), as mpirun 4.1.4 on virtual nodes (measured with the
// same lines): the free slots first, from the bookmark or else the first node with room, the
// rest evenly from there, ranked in node order. mpilaunch put the first extra process on the
// first node (dyn1, dyn2, dyn2 below; dyn3, dyn1, dyn2, dyn3 in rank order).
TEST_CASE("dynamic: spawned processes beyond the free slots go where mpirun puts them") {
  SUBCASE("-H dyn1:2,dyn2:2 -n 2, spawn 3: all on dyn2") {
    check_spawn_on_nodes({"--launcher=local", "--oversubscribe", "-H", "dyn1:2,dyn2:2", "-n", "2"},
                         3, {"dyn2", "dyn2", "dyn2"});
  }
  SUBCASE("-H dyn1:1,dyn2:1,dyn3:1 -n 2, spawn 4") {
    check_spawn_on_nodes(
        {"--launcher=local", "--oversubscribe", "-H", "dyn1:1,dyn2:1,dyn3:1", "-n", "2"}, 4,
        {"dyn1", "dyn2", "dyn3", "dyn3"});
  }
}

// A spawned process that spawns in turn (a child world's collective MPI_Comm_spawn): mpirun
// 4.1.4 serves it as its job 3 (measured on virtual nodes): tags [3,R], the grandchild's parent
// is the child world, messages go both ways, and the grandchildren's filling starts at the
// SPAWNING job's bookmark, the node of the child job's last rank (else the first node with room).
// mpilaunch refused it by name (unsupported-mpi-call) until it served it the same way.
void check_nested_spawn(const std::vector<std::string>& options, int children,
                        const std::vector<std::string>& info,
                        const std::vector<std::string>& child_hosts,
                        const std::vector<std::string>& grandchild_hosts, int parents) {
  Job job;
  std::vector<std::string> argv = options;
  argv.insert(argv.end(),
              {"--tag-output", app("dynamic"), "spawn-nested", std::to_string(children)});
  argv.insert(argv.end(), info.begin(), info.end());
  const Outcome o = job.launch(argv, Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const auto spawns = events_named(read_events(job.events_path()).events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 2, o.summary());
  CHECK(spawns[0].value("job", 0) == 2);
  CHECK_MESSAGE(spawns[0].value("hosts", Json::array()) == Json(child_hosts), spawns[0].dump());
  CHECK(spawns[1].value("job", 0) == 3);
  CHECK_MESSAGE(spawns[1].value("parent_nspace", std::string()) ==
                    spawns[0].value("nspace", std::string("?")),
                spawns[1].dump());
  CHECK_MESSAGE(spawns[1].value("hosts", Json::array()) == Json(grandchild_hosts),
                spawns[1].dump());
  // Down: 42 to every child, 43 to the grandchild; up: 143 to child 0, 1143 to parent 0.
  CHECK_MESSAGE(count_of(o.out, "[3,0]<stdout>:child 0 of 1 got 43\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "[2,0]<stdout>:child 0 got back 143\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "[1,0]<stdout>:parent 0 got back 1143\n") == 1, o.out);
  for (int c = 0; c < children; ++c) {
    const std::string tag = "[2," + std::to_string(c) + "]<stdout>:child " + std::to_string(c);
    CHECK_MESSAGE(count_of(o.out, tag + " of " + std::to_string(children) + " got 42\n") == 1,
                  o.out);
    CHECK_MESSAGE(count_of(o.out, tag + " spawned 1\n") == 1, o.out);
  }
  check_parents_spawned(o, parents, children);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: a spawned process's own MPI_Comm_spawn: grandchildren as mpirun's job 3") {
  SUBCASE("-H localhost:4 -n 1, spawn 2, the child world spawns 1") {
    check_nested_spawn({"-H", "localhost:4", "-n", "1"}, 2, {}, {"localhost", "localhost"},
                       {"localhost"}, 1);
  }
  SUBCASE("children on dyn3 (info host): the grandchild starts at the child job's bookmark") {
    check_nested_spawn({"--launcher=local", "-H", "dyn1:3,dyn2:3,dyn3:3", "-n", "1"}, 1,
                       {"host", "dyn3"}, {"dyn3"}, {"dyn3"}, 1);
  }
  // Every node full (--oversubscribe): from the bookmark, or the node before it when that one
  // is less overloaded (measured): the child job's bookmark dyn1 is 1 over, dyn3 is not.
  SUBCASE("--oversubscribe, every node full, a child on dyn1: the grandchild on dyn3") {
    check_nested_spawn(
        {"--launcher=local", "--oversubscribe", "-H", "dyn1:1,dyn2:1,dyn3:1", "-n", "3"}, 1,
        {"host", "dyn1"}, {"dyn1"}, {"dyn3"}, 3);
  }
  SUBCASE("--oversubscribe, every node full, the child on dyn2: the grandchild on dyn1") {
    check_nested_spawn({"--launcher=local", "--oversubscribe", "-H", "dyn1:1,dyn2:1", "-n", "2"}, 1,
                       {}, {"dyn2"}, {"dyn1"}, 2);
  }
  SUBCASE("the child job's last rank's node is full: the first node with room") {
    check_nested_spawn(
        {"--launcher=local", "-H", "dyn1:2,dyn2:2,dyn3:2,dyn4:3", "--map-by", "node", "-n", "2"}, 4,
        {}, {"dyn2", "dyn3", "dyn4", "dyn3"}, {"dyn1"}, 2);
  }
}

// A grandchild that ends before MPI_Init: mpirun 4.1.4 aborts the job with its status ("Child job
// 3 terminated normally, but 1 process returned a non-zero exit code", exit 3; 137 for SIGKILL);
// mpilaunch types it as it types a child's, naming job 3 and its parent in job 2.
void check_grandchild_dies(const std::string& how, const std::string& kind, int status) {
  CAPTURE(how);
  Job job;
  const Outcome o = job.launch(
      {"--oversubscribe", "-n", "1", app("dynamic"), "spawn-nested-dies", how}, Millis{120'000});
  CHECK_MESSAGE(!o.timed_out, o.summary());
  check_error_block(o, kind, status);
  const Json error = check_job_failed(job, kind, status);
  const std::string detail = error.value("detail", std::string());
  CHECK_MESSAGE(detail.find("spawned job 3 (") != std::string::npos, error.dump());
  CHECK_MESSAGE(
      detail.find("-job3), rank 0, started by MPI_Comm_spawn of rank 0 of ") != std::string::npos,
      error.dump());
  CHECK_MESSAGE(
      detail.find("-job2: it ended before it connected to its parent") != std::string::npos,
      error.dump());
  CHECK(error.value("rank", -1) == 0);
  const auto spawns = events_named(read_events(job.events_path()).events, "spawn");
  CHECK_MESSAGE(spawns.size() == 2, o.summary());
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: a grandchild that exits 3 before MPI_Init ends the job with its status") {
  check_grandchild_dies("3", "rank-exit-nonzero", 3);
}

TEST_CASE("dynamic: a grandchild killed before MPI_Init ends the job as rank-signaled") {
  check_grandchild_dies("kill", "rank-signaled", 137);
}

TEST_CASE("dynamic: MPI_Comm_spawn beyond the slots is refused with not-enough-slots") {
  Job job;
  const Outcome o =
      job.launch({"-H", "localhost:2", "-n", "1", app("dynamic"), "spawn", "2"}, Millis{120'000});
  CHECK_MESSAGE(!o.timed_out, o.summary());
  check_error_block(o, "not-enough-slots", kNotEnoughSlots);
  const Json error = check_job_failed(job, "not-enough-slots", kNotEnoughSlots);
  CHECK_MESSAGE(error.value("detail", std::string())
                        .find("MPI_Comm_spawn asked for 2 processes; "
                              "1 slots are free") != std::string::npos,
                error.dump());
  const auto refused = events_named(read_events(job.events_path()).events, "spawn-refused");
  CHECK(refused.size() == 1);
  check_nothing_left(job, o);
}

// The spawn's info keys hostfile and add-host as mpirun 4.1.4 reads them (measured with the same
// lines on virtual nodes): the host file restricts the job's nodes (its slots= change nothing;
// the nodes are taken in the job's order); add-host naming a node of the job restricts as host
// does. A host file that cannot be read, add-host or add-hostfile of a new host are refused by
// name (mpirun 4.1.4: "unable to open the hostfile"; a new host's daemon, then its job fails).
TEST_CASE("dynamic: the spawn's info hostfile and add-host as mpirun") {
  TempDir dir;
  const std::string hostfile = dir.file("spawn-hosts");
  write_file(hostfile, "dyn3\ndyn2 slots=1\n");
  SUBCASE("hostfile: its hosts in node order, its slots= ignored") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:2,dyn2:2,dyn3:2", "-n", "1"}, 2,
                         {"dyn2", "dyn2"}, 1, {"hostfile", hostfile});
  }
  SUBCASE("add-host of a node of the job") {
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:2,dyn2:2", "-n", "1"}, 1, {"dyn2"}, 1,
                         {"add-host", "dyn2"});
  }
  // mpirun 4.1.4 (measured): an add-hostfile naming only hosts of the job restricts the spawn
  // to them as add-host does; its slots= change nothing (dyn2 slots=4, spawn 4 on its 2 slots:
  // "not enough slots").
  SUBCASE("add-hostfile of a node of the job") {
    const std::string only_dyn3 = dir.file("add-dyn3");
    write_file(only_dyn3, "dyn3\n");
    check_spawn_on_nodes({"--launcher=local", "-H", "dyn1:2,dyn2:2,dyn3:2", "-n", "1"}, 2,
                         {"dyn3", "dyn3"}, 1, {"add-hostfile", only_dyn3});
  }
  SUBCASE("add-hostfile: its slots= change nothing") {
    const std::string more_slots = dir.file("add-dyn2-slots");
    write_file(more_slots, "dyn2 slots=4\n");
    Job job;
    const Outcome o = job.launch({"--launcher=local", "-H", "dyn1:2,dyn2:2", "-n", "1",
                                  app("dynamic"), "spawn", "4", "add-hostfile", more_slots},
                                 Millis{120'000});
    CHECK_MESSAGE(!o.timed_out, o.summary());
    check_job_failed(job, "not-enough-slots", 67);
    check_nothing_left(job, o);
  }
  struct Refusal {
    const char* key;
    std::string value;
    const char* kind;
    int status;
    const char* detail;
  };
  for (const Refusal& r :
       {Refusal{"hostfile", dir.file("no-such-file"), "hostfile-error", 65, "cannot be read"},
        Refusal{"add-host", "dyn4", "bad-option", 64, "add-host dyn4"},
        Refusal{"add-hostfile", hostfile, "bad-option", 64, "add-hostfile"}}) {
    CAPTURE(r.key);
    Job job;
    const Outcome o = job.launch({"--launcher=local", "-H", "dyn1:1,dyn2:1", "-n", "1",
                                  app("dynamic"), "spawn", "1", r.key, r.value},
                                 Millis{120'000});
    CHECK_MESSAGE(!o.timed_out, o.summary());
    const Json error = check_job_failed(job, r.kind, r.status);
    CHECK_MESSAGE(error.value("detail", std::string()).find(r.detail) != std::string::npos,
                  error.dump());
    CHECK(events_named(read_events(job.events_path()).events, "spawn-refused").size() == 1);
    check_nothing_left(job, o);
  }
}

TEST_CASE("dynamic: a spawned program that does not exist is a typed error naming job 2") {
  Job job;
  const Outcome o =
      job.launch({"--oversubscribe", "-n", "1", app("dynamic"), "spawn-missing"}, Millis{120'000});
  CHECK_MESSAGE(!o.timed_out, o.summary());
  const Json error = check_job_failed(job, "executable-not-found", o.status());
  CHECK(o.status() != 0);
  CHECK_MESSAGE(error.value("detail", std::string()).find("spawned job 2") != std::string::npos,
                error.dump());
  CHECK_MESSAGE(error.value("executable", std::string()) == "./mpilaunch-no-such-program",
                error.dump());
  check_nothing_left(job, o);
}

// A child that ends before MPI_Init (exit 3, SIGKILL, exit 0): its parent's MPI_Comm_spawn
// cannot complete. mpirun 4.1.4 aborts the job with the child's status (exit 3, 137; the parent
// gets SIGTERM inside the call) and, for exit 0, waits for ever; mpilaunch ends the job at once
// with a typed error naming the child's job, namespace and rank, and the parent's rank.
void check_child_dies(const std::string& how, const std::string& kind, int status) {
  CAPTURE(how);
  Job job;
  const Outcome o = job.launch({"--oversubscribe", "-n", "1", app("dynamic"), "spawn-dies", how},
                               Millis{120'000});
  CHECK_MESSAGE(!o.timed_out, o.summary());
  check_error_block(o, kind, status);
  const Json error = check_job_failed(job, kind, status);
  const std::string detail = error.value("detail", std::string());
  CHECK_MESSAGE(detail.find("spawned job 2 (") != std::string::npos, error.dump());
  CHECK_MESSAGE(
      detail.find("-job2), rank 0, started by MPI_Comm_spawn of rank 0 of ") != std::string::npos,
      error.dump());
  CHECK_MESSAGE(detail.find("it ended before it connected to its parent") != std::string::npos,
                error.dump());
  CHECK(error.value("rank", -1) == 0);
  CHECK(error.value("phase", std::string()) == "startup");
  // The block shows where the child belongs (a rank kind's message leaves the detail out).
  CHECK_MESSAGE(o.err.find("spawned job 2 (") != std::string::npos, o.err);
  // The parent never returns from the call with success.
  CHECK_MESSAGE(o.out.find("MPI_Comm_spawn returned 0") == std::string::npos, o.out);
  const auto exits = events_named(read_events(job.events_path()).events, "rank-exit");
  const bool child_unconnected = std::any_of(exits.begin(), exits.end(), [](const Json& e) {
    return e.value("job", 1) == 2 && !e.value("connected", true);
  });
  CHECK_MESSAGE(child_unconnected, o.summary());
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: a spawned process that exits 3 before MPI_Init ends the job with its status") {
  check_child_dies("3", "rank-exit-nonzero", 3);
}

TEST_CASE("dynamic: a spawned process killed before MPI_Init ends the job as rank-signaled") {
  check_child_dies("kill", "rank-signaled", 137);
}

TEST_CASE("dynamic: a spawned process that exits 0 before MPI_Init is an error, not a hang") {
  check_child_dies("0", "pmix-error", 70);
}

// --max-restarts with children: a child that dies in the first attempt fails it; the restart
// is a new job whose spawn is job 2 again, in the new attempt's namespace, and succeeds.
TEST_CASE("dynamic: a restart after a spawned process failed spawns it again and succeeds") {
  Job job;
  const Outcome o = job.launch({"--max-restarts", "1", "--oversubscribe", "-n", "1", "--tag-output",
                                app("dynamic"), "spawn-flaky", "1"},
                               Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.out, "[2,0]<stdout>:child 0 of 1 got 42\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "[1,0]<stdout>:parent 0 spawned 1\n") == 1, o.out);
  const auto events = read_events(job.events_path()).events;
  const auto spawns = events_named(events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 2, o.summary());
  for (int a = 0; a < 2; ++a) {
    CAPTURE(a);
    CHECK(spawns[static_cast<std::size_t>(a)].value("job", 0) == 2);
    CHECK(spawns[static_cast<std::size_t>(a)].value("attempt", 0) == a + 1);
    CHECK(spawns[static_cast<std::size_t>(a)]
              .value("nspace", std::string())
              .ends_with("-" + std::to_string(a + 1) + "-job2"));
  }
  const auto failed = events_named(events, "attempt-failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].value("decision", std::string()) == "restart");
  CHECK_MESSAGE(
      failed[0]["error"].value("detail", std::string()).find("spawned job 2") != std::string::npos,
      failed[0].dump());
  check_events(job, 0);
  check_nothing_left(job, o);
}

// --max-restarts with grandchildren: a grandchild (job 3) that dies in the first attempt fails
// it, the restart takes the attempt's parent and child down, and the new attempt spawns both
// generations again (jobs 2 and 3 of its own namespace) and succeeds.
TEST_CASE("dynamic: a restart after a grandchild failed spawns both generations again") {
  Job job;
  const Outcome o = job.launch({"--max-restarts", "1", "--oversubscribe", "-n", "1", "--tag-output",
                                app("dynamic"), "spawn-nested-flaky", "1"},
                               Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.out, "[3,0]<stdout>:child 0 of 1 got 43\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "[1,0]<stdout>:parent 0 got back 1143\n") == 1, o.out);
  const auto events = read_events(job.events_path()).events;
  const auto spawns = events_named(events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 4, o.summary());
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    const int attempt = static_cast<int>(i / 2) + 1, number = static_cast<int>(i % 2) + 2;
    CHECK(spawns[i].value("job", 0) == number);
    CHECK(spawns[i].value("attempt", 0) == attempt);
    CHECK(spawns[i]
              .value("nspace", std::string())
              .ends_with("-" + std::to_string(attempt) + "-job" + std::to_string(number)));
  }
  const auto failed = events_named(events, "attempt-failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].value("decision", std::string()) == "restart");
  CHECK_MESSAGE(
      failed[0]["error"].value("detail", std::string()).find("spawned job 3") != std::string::npos,
      failed[0].dump());
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: MPI_Comm_spawn beyond the slots runs with --oversubscribe") {
  Job job;
  const Outcome o =
      job.launch({"-H", "localhost:2", "--oversubscribe", "-n", "1", app("dynamic"), "spawn", "2"},
                 Millis{120'000});
  CHECK_MESSAGE(!o.timed_out, o.summary());
  const auto events = read_events(job.events_path()).events;
  const auto spawns = events_named(events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 1, o.summary());
  CHECK(spawns[0].value("np", 0) == 2);
  CHECK(events_named(events, "spawn-refused").empty());
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.out, "child 0 of 2 got 42\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "child 1 of 2 got 42\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "parent 0 spawned 2\n") == 1, o.out);
  check_nothing_left(job, o);
}

// Rank 0 publishes, ranks 1-2 look the name up (and one nobody published), rank 0 withdraws
// it, and the lookups then fail, as under mpirun 4.1.4 (and, for dynamic_mpich, Hydra 4.0.2).
void check_names(const std::vector<std::string>& options, const std::string& program = "dynamic") {
  Job job;
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {app(program), "names"});
  const Outcome o = job.launch(argv, Millis{90'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  for (const char* rank : {"1", "2"}) {
    CAPTURE(rank);
    const std::string r = std::string("rank ") + rank;
    CHECK_MESSAGE(count_of(o.out, r + " found port-of-rank-0\n") == 1, o.out);
    CHECK_MESSAGE(count_of(o.out, r + " unpublished name: gone\n") == 1, o.out);
    CHECK_MESSAGE(count_of(o.out, r + " after unpublish: gone\n") == 1, o.out);
  }
  CHECK_MESSAGE(o.out.find("could not") == std::string::npos, o.out);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: MPI_Publish_name/Lookup_name/Unpublish_name between ranks of one node") {
  check_names({"--oversubscribe", "-n", "3"});
}

TEST_CASE("dynamic: the name service across 2 virtual nodes") {
  check_names({"--launcher=local", "-H", "dyn1:1,dyn2:2", "-n", "3"});
}

// MPICH ranks publish through their agent's PMI server (publish_name, lookup_name,
// unpublish_name), into the same job-wide name service.
TEST_CASE("dynamic: MPICH's MPI_Publish_name/Lookup_name/Unpublish_name across 2 virtual nodes") {
  check_names({"--launcher=local", "-H", "dyn1:1,dyn2:2", "-n", "3"}, "dynamic_mpich");
}

// MPICH's MPI_Comm_spawn through PMI, spoken by hand as MPICH 4.2 speaks it (Debian 12's MPICH
// 4.0.2 cannot spawn at all: docs/dynamic-processes.md). Rank 0 sends mcmd=spawn for 2 children
// with the preput key MPICH uses; each child, placed on a node of its own, starts PMI, reads the
// key from its kvs, passes a barrier of its own job across the 2 nodes and finalizes.
TEST_CASE("dynamic: PMI spawn starts MPICH children with the parent's preput keys across 2 nodes") {
  Job job;
  const auto child = job.dir().path() / "child.sh";
  write_file(child,
             "printf 'cmd=init pmi_version=1 pmi_subversion=1\\n' >&$PMI_FD; read -r l <&$PMI_FD\n"
             "printf 'cmd=get_my_kvsname\\n' >&$PMI_FD; read -r k <&$PMI_FD\n"
             "printf 'cmd=get key=PARENT_ROOT_PORT_NAME\\n' >&$PMI_FD; read -r v <&$PMI_FD\n"
             "printf 'cmd=barrier_in\\n' >&$PMI_FD; read -r b <&$PMI_FD\n"
             "echo \"child $PMI_RANK of $PMI_SIZE spawned=$PMI_SPAWNED $k $v $b\"\n"
             "printf 'cmd=finalize\\n' >&$PMI_FD; read -r l <&$PMI_FD\n");
  const auto parent = job.dir().path() / "parent.sh";
  write_file(parent,
             "printf 'cmd=init pmi_version=1 pmi_subversion=1\\n' >&$PMI_FD; read -r l <&$PMI_FD\n"
             "if [ \"$PMI_RANK\" = 0 ]; then\n"
             "  printf 'mcmd=spawn\\nnprocs=2\\nexecname=bash\\ntotspawns=1\\nspawnssofar=1\\n"
             "argcnt=1\\narg1=%s\\npreput_num=1\\npreput_key_0=PARENT_ROOT_PORT_NAME\\n"
             "preput_val_0=port of rank 0\\ninfo_num=0\\nendcmd\\n' \"$CHILD\" >&$PMI_FD\n"
             "  read -r l <&$PMI_FD; echo \"parent: $l\"\n"
             "fi\n"
             // Rank 1 runs until the spawn is answered: its slot is still taken then, so the
             // children go one per node (a spawn starts on the job's last node, dyn2).
             "printf 'cmd=barrier_in\\n' >&$PMI_FD; read -r b <&$PMI_FD\n"
             "printf 'cmd=finalize\\n' >&$PMI_FD; read -r l <&$PMI_FD\n");
  const Outcome o =
      job.launch({"--pmi=pmi1", "--launcher=local", "-H", "dyn1:2,dyn2:2", "--map-by", "node", "-n",
                  "2", "-x", "CHILD=" + child.string(), "bash", parent.string()},
                 Millis{90'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.out, "parent: cmd=spawn_result rc=0\n") == 1, o.out);
  const auto events = check_events(job, 0);
  const auto spawns = events_named(events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 1, o.summary());
  const std::string nspace = spawns[0].value("nspace", std::string());
  CHECK(spawns[0]["hosts"] == Json::array({"dyn1", "dyn2"}));
  for (const char* rank : {"0", "1"})
    CHECK_MESSAGE(count_of(o.out, std::string("child ") + rank +
                                      " of 2 spawned=1 cmd=my_kvsname rc=0 kvsname=" + nspace +
                                      " cmd=get_result rc=0 msg=success value=port of rank 0 "
                                      "cmd=barrier_out\n") == 1,
                  o.out);
  check_nothing_left(job, o);
}

// MPICH's own MPI_Comm_spawn and accept/connect (tests/apps/dynamic.c built against MPICH).
// Debian's MPICH is ch4:ucx on Debian 12 (4.0.2) and Debian 13 (4.2.1), and that netmod stops
// both inside the library, before any PMI command, under Hydra as here
// (docs/dynamic-processes.md): a run skips only on that library message with no spawn having
// reached the launcher; an MPICH that gets past it must complete as under Open MPI.
bool mpich_library_cannot(Job& job, const Outcome& o) {
  const bool library = o.err.find("not supported with ucx netmod") != std::string::npos ||
                       o.err.find("MPID_Comm_spawn_multiple") != std::string::npos;
  if (!library || !events_named(read_events(job.events_path()).events, "spawn").empty())
    return false;
  MESSAGE("skipped: this MPICH cannot do it itself (ch4:ucx): ", o.err.substr(0, 400));
  return true;
}

TEST_CASE("dynamic: MPICH's own MPI_Comm_spawn, where its library can spawn") {
  Job job;
  const Outcome o = job.launch({"--oversubscribe", "-n", "1", app("dynamic_mpich"), "spawn", "2"},
                               Millis{120'000});
  if (mpich_library_cannot(job, o)) return;
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.out, "child 0 of 2 got 42\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "child 1 of 2 got 42\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "parent 0 spawned 2\n") == 1, o.out);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: MPICH's own accept/connect across 2 virtual nodes, where its library can") {
  Job job;
  const Outcome o = job.launch(
      {"--launcher=local", "-H", "dyn1:1,dyn2:2", "-n", "3", app("dynamic_mpich"), "name-accept"},
      Millis{90'000});
  if (mpich_library_cannot(job, o)) return;
  CHECK_MESSAGE(o.status() == 0, o.summary());
  for (const char* rank : {"0", "1", "2"})
    CHECK_MESSAGE(count_of(o.out, std::string("rank ") + rank + " connected\n") == 1, o.out);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: a rank that publishes and ends succeeds") {
  Job job;
  const Outcome o = job.launch({"-n", "1", app("dynamic"), "publish"}, Millis{90'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  check_nothing_left(job, o);
}

// Rank 0 accepts, ranks 1-2 connect as a group: the port name by MPI_Bcast or through the
// name service, then Open MPI's own publish/lookup handshake (first read, waiting) and
// PMIx_Connect, a collective the agents complete through the launcher (on one node libpmix
// completes it itself), and MPI_Comm_disconnect the same way.
void check_connected(const std::vector<std::string>& options, const std::string& mode) {
  Job job;
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {app("dynamic"), mode});
  const Outcome o = job.launch(argv, Millis{90'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  for (const char* rank : {"0", "1", "2"})
    CHECK_MESSAGE(count_of(o.out, std::string("rank ") + rank + " connected\n") == 1, o.out);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: accept/connect through a port name across 3 ranks on 2 virtual nodes") {
  check_connected({"--launcher=local", "-H", "dyn1:2,dyn2:1", "-n", "3"}, "port-accept");
}

TEST_CASE("dynamic: publish/lookup then accept/connect between ranks of one node") {
  check_connected({"--oversubscribe", "-n", "3"}, "name-accept");
}

TEST_CASE("dynamic: publish/lookup then accept/connect across 2 virtual nodes") {
  check_connected({"--launcher=local", "-H", "dyn1:1,dyn2:2", "-n", "3"}, "name-accept");
}

// mpi4py.futures (Debian's python3-mpi4py, installed by tools/bootstrap): MPIPoolExecutor
// spawns `python3 -m mpi4py.futures.server` workers (job 2), which serve the tasks and are
// disconnected at the pool's end; the job ends with them. The same run through mpirun 4.1.4:
// the compat cases mpi4py-futures-*.
TEST_CASE("dynamic: mpi4py's MPIPoolExecutor spawns its 2 workers as job 2") {
  Job job;
  const std::string program = job.dir().file("pool.py");
  write_file(program, R"(from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor


def spawned(_):
    return MPI.Comm.Get_parent() != MPI.COMM_NULL, MPI.COMM_WORLD.Get_size()


if __name__ == "__main__":
    with MPIPoolExecutor(max_workers=2) as pool:
        print("squares", sum(pool.map(pow, range(100), [2] * 100)))
        print("workers", sorted(set(pool.map(spawned, range(64)))))
)");
  const Outcome o =
      job.launch({"-H", "localhost:3", "-n", "1", "/usr/bin/python3", program}, Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.out, "squares 328350\n") == 1, o.out);
  CHECK_MESSAGE(count_of(o.out, "workers [(True, 2)]\n") == 1, o.out);
  const auto events = read_events(job.events_path()).events;
  const auto spawns = events_named(events, "spawn");
  REQUIRE_MESSAGE(spawns.size() == 1, o.summary());
  CHECK(spawns[0].value("job", 0) == 2);
  CHECK(spawns[0].value("np", 0) == 2);
  int workers_ended = 0;
  for (const Json& e : events_named(events, "rank-exit"))
    if (e.value("job", 1) == 2 && e.value("exit_code", -1) == 0) ++workers_ended;
  CHECK_MESSAGE(workers_ended == 2, o.summary());
  check_events(job, 0);
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
