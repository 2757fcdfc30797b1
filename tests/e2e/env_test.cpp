// What the ranks see: -x variables (with a value, or the launcher's own), --mca as OMPI_MCA_*,
// and --wdir/--wd as their working directory, read back through env_dump on every rank.
#include <doctest/doctest.h>
#include <fstream>

#include <algorithm>
#include <filesystem>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

// Runs env_dump on 2 ranks with `options` and the variable names `names`; returns stdout.
std::string dump_env(Job& job, const std::vector<std::string>& options,
                     const std::vector<std::string>& names) {
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {"-n", "2", app("env_dump")});
  argv.insert(argv.end(), names.begin(), names.end());
  const Outcome o = job.launch(argv);
  CHECK_MESSAGE(o.status() == 0, o.summary());
  check_events(job, 0);
  check_nothing_left(job, o);
  return o.out;
}

// `line` printed once by each of the 2 ranks.
void check_each_rank_printed(const std::string& out, const std::string& line) {
  const std::vector<std::string> lines = lines_of(out);
  CHECK_MESSAGE(std::count(lines.begin(), lines.end(), line) == 2, "want twice: ", line,
                "\nstdout:\n", out);
}

}  // namespace

TEST_CASE("env: -x NAME=value and -x NAME (the launcher's value) reach every rank") {
  Job job;
  job.extra_env = {"E2E_INHERITED=from the launcher"};
  const std::string out = dump_env(job, {"-x", "E2E_SET=some value", "-x", "E2E_INHERITED"},
                                   {"E2E_SET", "E2E_INHERITED", "E2E_NEVER_SET"});
  check_each_rank_printed(out, "E2E_SET=some value");
  check_each_rank_printed(out, "E2E_INHERITED=from the launcher");
  check_each_rank_printed(out, "E2E_NEVER_SET unset");
}

TEST_CASE("env: --mca KEY VALUE reaches every rank as OMPI_MCA_KEY") {
  Job job;
  const std::string out =
      dump_env(job, {"--mca", "e2e_test_param", "42"}, {"OMPI_MCA_e2e_test_param"});
  check_each_rank_printed(out, "OMPI_MCA_e2e_test_param=42");
}

// As mpirun 4.1.4 gives them: Open MPI's ranks yield when idle only when told the node is
// oversubscribed (a 3-rank ring on 2 cores busy-polled for seconds without it), and the
// universe is every slot, not the job size.
TEST_CASE("env: oversubscribed nodes and the universe size follow the slots") {
  // Open MPI 5.0.7's ranks may leave the MPI_UNIVERSE_SIZE attribute unset: they did in one
  // Debian 13 chroot and showed every slot in a later one of the same package versions, under
  // its own mpirun alike. Either is right there; a wrong number never is.
  const auto check_universe = [](const std::string& out, int slots) {
    const std::string set = "@universe=" + std::to_string(slots);
    const std::vector<std::string> lines = lines_of(out);
    const auto count = std::count(lines.begin(), lines.end(), set);
    if (MPILAUNCH_E2E_OMPI_MAJOR >= 5 && count == 0)
      check_each_rank_printed(out, "@universe unset");
    else
      check_each_rank_printed(out, set);
  };
  {
    Job job;
    const std::string out = dump_env(job, {"-H", "localhost:1", "--oversubscribe"},
                                     {"OMPI_MCA_mpi_oversubscribe", "@universe"});
    check_each_rank_printed(out, "OMPI_MCA_mpi_oversubscribe=1");
    check_universe(out, 1);
  }
  {
    Job job;
    const std::string out =
        dump_env(job, {"-H", "localhost:17"}, {"OMPI_MCA_mpi_oversubscribe", "@universe"});
    check_each_rank_printed(out, "OMPI_MCA_mpi_oversubscribe=0");
    check_universe(out, 17);
  }
}

TEST_CASE("env: --wdir and --wd set the ranks' working directory") {
  for (const std::string option : {"--wdir", "--wd"}) {
    CAPTURE(option);
    Job job;
    const std::filesystem::path wdir = job.dir().path() / "work dir";
    std::filesystem::create_directory(wdir);
    const std::string out = dump_env(job, {option, wdir.string()}, {});
    check_each_rank_printed(out, "cwd=" + std::filesystem::canonical(wdir).string());
  }
}

TEST_CASE("env: the ranks' PMIx and Open MPI temp dirs lie under MPILAUNCH_TMPDIR") {
  Job job;
  const std::string out = dump_env(job, {}, {"PMIX_SERVER_TMPDIR", "OMPI_MCA_orte_tmpdir_base"});
  const std::string under = "=" + job.tmpdir().string() + "/";
  for (const std::string& line : lines_of(out)) {
    if (!line.starts_with("PMIX_SERVER_TMPDIR") && !line.starts_with("OMPI_MCA_orte_tmpdir_base"))
      continue;
    CHECK_MESSAGE(line.find(under) != std::string::npos, line, " is not under ", under);
  }
  CHECK_MESSAGE(out.find("PMIX_SERVER_TMPDIR=") != std::string::npos, out);
}

namespace {

// A throw-away root for the agents' fabric probe (MPILAUNCH_FABRIC_ROOT): `devices` are paths
// below it, created empty, e.g. "sys/class/infiniband/mlx5_0".
std::string fabric_root(Job& job, const std::vector<std::string>& devices) {
  const std::filesystem::path root = job.dir().path() / "fabric-root";
  std::filesystem::create_directories(root);
  for (const std::string& d : devices) std::filesystem::create_directories(root / d);
  return root.string();
}

std::string transport_pml(const Job& job) {
  const std::vector<Json> events = read_events(job.events_path()).events;
  const std::vector<Json> t = events_named(events, "transport");
  REQUIRE_MESSAGE(t.size() == 1, "want one transport event");
  return t.front().value("pml", "") + " / " + t.front().value("reason", "");
}

}  // namespace

TEST_CASE("transport: no fabric device on any node gives the ranks OMPI_MCA_pml=ob1") {
  const std::vector<std::vector<std::string>> layouts = {{},
                                                         {"--launcher=local", "-H", "va:1,vb:1"}};
  for (const std::vector<std::string>& hosts : layouts) {
    Job job;
    job.extra_env = {"MPILAUNCH_FABRIC_ROOT=" + fabric_root(job, {})};
    const std::string out = dump_env(job, hosts, {"OMPI_MCA_pml"});
    check_each_rank_printed(out, "OMPI_MCA_pml=ob1");
    CHECK(transport_pml(job).starts_with("ob1 / no fabric device"));
  }
}

TEST_CASE("transport: a fabric device on the node leaves the pml to Open MPI") {
  for (const std::string device : {"sys/class/infiniband/mlx5_0", "dev/hfi1_0"}) {
    CAPTURE(device);
    Job job;
    job.extra_env = {"MPILAUNCH_FABRIC_ROOT=" + fabric_root(job, {device})};
    // Open MPI probes for itself and still settles on ob1 here: the job runs.
    const std::string out = dump_env(job, {}, {"OMPI_MCA_pml"});
    check_each_rank_printed(out, "OMPI_MCA_pml unset");
    const std::string pml = transport_pml(job);
    CHECK_MESSAGE(pml.find(device.substr(device.rfind('/') + 1)) != std::string::npos, pml);
  }
}

// Open MPI reads the system's parameter file, then the user's, whose value wins: a system
// "pml = ucx" that the user's "pml = ^ucx" overrides selects nothing (ob1 stays possible).
TEST_CASE("transport: the user's parameter file overrides the system's pml choice") {
  struct Case {
    const char* system;
    const char* user;
    const char* pml;  // what the transport event starts with
  };
  const Case cases[] = {
      {"pml = ucx\n", nullptr, "open-mpi-chooses / "},
      {"pml = ucx\n", "pml = ^ucx\n", "ob1 / no fabric device"},
      {"pml = ^ucx\n", "pml = ob1\n", "open-mpi-chooses / "},   // Open MPI reads it too
      {"mtl = psm2\n", "pml = ^ucx\n", "open-mpi-chooses / "},  // another key stays
  };
  for (const Case& c : cases) {
    const std::string system = c.system, user = c.user ? c.user : "(no user file)";
    CAPTURE(system);
    CAPTURE(user);
    Job job;
    const std::string root = fabric_root(job, {"etc/openmpi", "home/.openmpi"});
    std::ofstream(root + "/etc/openmpi/openmpi-mca-params.conf") << c.system;
    if (c.user != nullptr) std::ofstream(root + "/home/.openmpi/mca-params.conf") << c.user;
    job.extra_env = {"MPILAUNCH_FABRIC_ROOT=" + root, "HOME=" + root + "/home"};
    dump_env(job, {}, {"OMPI_MCA_pml"});
    const std::string pml = transport_pml(job);
    CHECK_MESSAGE(pml.starts_with(c.pml), pml);
  }
}

// A job whose ranks all run on one node keeps the tcp BTL on loopback (rank_env.cpp says why:
// Open MPI 5.0.7's pairing bug on interfaces that list an IPv6 address first), unless the user
// named interfaces to use or to leave out.
TEST_CASE("transport: a one-node job's TCP stays on loopback unless the user chose interfaces") {
  Job job;
  const std::vector<std::string> names = {"OMPI_MCA_btl_tcp_if_include",
                                          "OMPI_MCA_btl_tcp_if_exclude"};
  std::string out = dump_env(job, {}, names);
  check_each_rank_printed(out, "OMPI_MCA_btl_tcp_if_include=lo");
  Job excluded;
  out = dump_env(excluded, {"--mca", "btl_tcp_if_exclude", "lo,docker0"}, names);
  check_each_rank_printed(out, "OMPI_MCA_btl_tcp_if_include unset");
  check_each_rank_printed(out, "OMPI_MCA_btl_tcp_if_exclude=lo,docker0");
}

TEST_CASE("transport: a pml or mtl the user chose is never overridden") {
  Job job;
  job.extra_env = {"MPILAUNCH_FABRIC_ROOT=" + fabric_root(job, {})};
  const std::string out = dump_env(job, {"--mca", "mtl", "^psm"}, {"OMPI_MCA_pml", "OMPI_MCA_mtl"});
  check_each_rank_printed(out, "OMPI_MCA_pml unset");
  check_each_rank_printed(out, "OMPI_MCA_mtl=^psm");
  CHECK(transport_pml(job).find("the user chose: OMPI_MCA_mtl=^psm") != std::string::npos);
}

}  // namespace mpilaunch::e2e

namespace mpilaunch::e2e {

// libpmix keeps its own keys in the hash store: PMIX_MCA_gds=ds21 alone makes the agent's PMIx
// server fail inside and its clients hang in PMIx_Init (mpirun fails to start with it too). A
// site's setting must not hang the job: hash is added, with one line; ds21,hash runs as asked.
// PMIx 5 has no ds21 (hash and shmem2 only): there the agent leaves it out, with one line per
// agent instead of libpmix's "component not found".
constexpr bool kSharedStore = MPILAUNCH_E2E_PMIX_MAJOR < 5;
constexpr const char* kNoSharedStore =
    "names a shared-memory store (ds21, ds12) that this libpmix (";

TEST_CASE("env: PMIX_MCA_gds=ds21 gets the hash store added, with one line, and no hang") {
  Job job;
  job.extra_env = {"PMIX_MCA_gds=ds21"};
  const Outcome o = job.launch({"-n", "2", app("hello")}, Millis{30'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(count_of(o.out, " ok\n") == 2);
  if (kSharedStore) {
    CHECK_MESSAGE(count_of(o.err, "PMIX_MCA_gds=ds21 leaves out PMIx's hash store") == 1, o.err);
    CHECK(count_of(o.err, "using ds21,hash") == 1);
  } else {
    CHECK_MESSAGE(count_of(o.err, kNoSharedStore) == 1, o.err);
    CHECK_MESSAGE(count_of(o.err, "does not have; using hash\n") == 1, o.err);
    CHECK_MESSAGE(count_of(o.err, "not found") == 0, o.err);
  }
  check_nothing_left(job, o);
}

TEST_CASE("env: PMIX_MCA_gds=ds21,hash runs the shared-memory store on virtual nodes, silently") {
  Job job;
  job.extra_env = {"PMIX_MCA_gds=ds21,hash"};
  const Outcome o =
      job.launch({"--launcher=local", "-H", "a:2,b:2", "-n", "4", app("hello")}, Millis{30'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(count_of(o.out, " ok\n") == 4);
  if (kSharedStore) {
    CHECK_MESSAGE(count_of(o.err, "PMIX_MCA_gds") == 0, o.err);
  } else {  // one line from each node's agent, nothing from libpmix
    CHECK_MESSAGE(count_of(o.err, "PMIX_MCA_gds=ds21,hash " + std::string(kNoSharedStore)) == 2,
                  o.err);
    CHECK_MESSAGE(count_of(o.err, "not found") == 0, o.err);
  }
  check_nothing_left(job, o);
}

// Without a user's choice the agent picks the store per node (default_gds): hash, or ds21
// (shared memory) once local ranks x job size reaches kSharedStoreWork (1024). Node a holds 46
// of 48 ranks (2208), node b 2 (96); libpmix tells each rank its server's store
// (PMIX_GDS_MODULE, from PMIx_server_setup_fork).
// The shared store's meta segments are sized to the job (shared_store_meta_bytes: 48 ranks fit
// one 4 KiB page) through NS_META_SEG_SIZE, which server and ranks must agree on: the ranks
// inherit the agent's. A user's value stands.
TEST_CASE("env: a big node of a big job gets the shared-memory PMIx store, a small node hash") {
  Job job;
  const std::vector<std::string> args = {
      "--launcher=local",
      "-H",
      "a:46,b:2",
      "-n",
      "48",
      "/bin/sh",
      "-c",
      "echo \"store $PMIX_HOSTNAME $PMIX_GDS_MODULE meta $NS_META_SEG_SIZE\""};
  const Outcome o = job.launch(args, Millis{30'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  // PMIx 5 offers no shared-memory store: hash everywhere.
  const std::string big = kSharedStore ? "ds21,hash" : "hash";
  CHECK_MESSAGE(count_of(o.out, "store a " + big + " meta 4096\n") == 46, o.out);
  CHECK_MESSAGE(count_of(o.out, "store b hash meta 4096\n") == 2, o.out);
  CHECK(count_of(o.err, "PMIX_MCA_gds") == 0);
  check_nothing_left(job, o);

  Job own;
  own.extra_env = {"NS_META_SEG_SIZE=65536"};
  const Outcome mine = own.launch(args, Millis{30'000});
  CHECK_MESSAGE(mine.status() == 0, mine.summary());
  CHECK_MESSAGE(count_of(mine.out, "store a " + big + " meta 65536\n") == 46, mine.out);
  check_nothing_left(own, mine);
}

// What PMIx tells every rank about every peer, the keys Open MPI's MPI_Init reads: hostname,
// local and node rank (the rank's index on its node), and its own node's size, peers and
// leader. The agent registers the node and proc maps only; libpmix derives the per-rank values
// from them, under either store. Ranks are dealt round robin so that local rank and rank differ.
TEST_CASE("env: PMIx tells each rank every peer's host, local and node rank, under both stores") {
  for (const std::string store : {"", "ds21,hash"}) {
    CAPTURE(store);
    Job job;
    if (!store.empty()) job.extra_env = {"PMIX_MCA_gds=" + store};
    const Outcome o = job.launch(
        {"--launcher=local", "-H", "a:3,b:2,c:2", "--map-by", "node", "-n", "6", app("peers")},
        Millis{30'000});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    const std::vector<std::string> node = {"a", "b", "c"};
    std::string want;
    for (int me = 0; me < 6; ++me) {
      const std::string who = "peers " + std::to_string(me);
      for (int peer = 0; peer < 6; ++peer) {
        const std::string index = std::to_string(peer / 3);  // local rank = node rank
        want += who + " sees " + std::to_string(peer) + ": " + node[peer % 3] + " " + index + " " +
                index + "\n";
      }
      const int leader = me % 3;
      want += who + " node: 2 " + std::to_string(leader) + "," + std::to_string(leader + 3) + " " +
              std::to_string(leader) + " 3\n";
    }
    std::vector<std::string> got = lines_of(o.out);
    std::sort(got.begin(), got.end());
    std::vector<std::string> wanted = lines_of(want);
    std::sort(wanted.begin(), wanted.end());
    CHECK_MESSAGE(got == wanted, o.out);
    check_nothing_left(job, o);
  }
}

}  // namespace mpilaunch::e2e
