// End-to-end over a real sshd on loopback: node1..3 are 127.0.0.1..3 in the fixture's
// ssh_config. Each failure case checks the job-failed error's kind, host and phase, and that no
// process carrying this case's -x marker is left on any "node".

#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "common/descriptors.hpp"
#include "tests/e2e/ssh/ssh_fixture.hpp"

namespace mpilaunch::e2e {
namespace {

using namespace std::chrono_literals;

std::string new_mark() {
  static std::atomic<int> n{0};
  return "MPILAUNCH_E2E_MARK=ssh-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

// mpilaunch over the fixture's ssh config, with a marker every rank carries.
std::vector<std::string> ssh_args(const std::string& mark, std::vector<std::string> rest) {
  std::vector<std::string> args = {"--ssh-config",
                                   sshd().ssh_config(),
                                   "--kill-grace",
                                   "1",
                                   "-x",
                                   mark,
                                   "--mca",
                                   "btl_tcp_if_include",
                                   "lo"};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

// The failure every bring-up case expects: kind, host, phase in the events file, no leftovers.
void check_start_failure(const std::string& host, const std::string& kind, const std::string& phase,
                         std::vector<std::string> extra = {}) {
  const std::string mark = new_mark();
  std::vector<std::string> rest = std::move(extra);
  rest.insert(rest.end(), {"-H", "node1," + host, env_path("HELLO_BIN")});
  const auto start = std::chrono::steady_clock::now();
  const Run run = run_launcher(ssh_args(mark, rest));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 69);  // EX_UNAVAILABLE
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == kind);
  CHECK(run.failure->value("host", "") == host);
  CHECK(run.failure->value("phase", "") == phase);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: 6 ranks on 3 nodes through a real sshd") {
  const std::string mark = new_mark();
  const Run run =
      run_launcher(ssh_args(mark, {"-H", "node1:2,node2:2,node3:2", env_path("HELLO_BIN")}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  CHECK(!run.failure);
  for (int rank = 0; rank < 6; ++rank) {
    const std::string line = "hello rank " + std::to_string(rank) + " of 6 host node" +
                             std::to_string(rank / 2 + 1) + " sum 15 ok";
    CHECK_MESSAGE(run.out.find(line) != std::string::npos, line);
  }
  int agents_up = 0;
  for (const auto& e : run.events) agents_up += e.value("event", "") == "agent-up" ? 1 : 0;
  CHECK(agents_up == 3);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// The launcher's stdin through the ssh channel to rank 0 on node1 (issue 20, item 1): 50 MB
// arrive byte for byte; rank 1 on node2 reads /dev/null, as under mpirun.
TEST_CASE("ssh: 50 MB of stdin reach rank 0 byte for byte; rank 1 reads /dev/null") {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("mpilaunch-ssh-stdin-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string input = dir + "/input";
  {
    std::ofstream out(input, std::ios::binary);
    std::uint32_t x = 2463534242u;
    std::string block(1 << 20, '\0');
    for (int mb = 0; mb < 50; ++mb) {
      for (char& c : block) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        c = static_cast<char>(x & 0xff);
      }
      out.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
    REQUIRE(out.good());
  }
  std::string want;
  if (std::FILE* p = ::popen(("md5sum " + input).c_str(), "r")) {
    char buf[64] = {};
    if (std::fgets(buf, sizeof buf, p) != nullptr) want.assign(buf, 32);
    ::pclose(p);
  }
  REQUIRE(want.size() == 32);
  const std::string mark = new_mark();
  Launcher launcher(ssh_args(mark, {"-H", "node1:1,node2:1", "-n", "2", "/bin/sh", "-c",
                                    "echo \"rank $OMPI_COMM_WORLD_RANK $(md5sum | cut -c1-32)\""}),
                    true, input);
  const Run run = launcher.wait(std::chrono::seconds(150));
  std::filesystem::remove_all(dir);
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  CHECK_MESSAGE(run.out.find("rank 0 " + want) != std::string::npos, run.out);
  CHECK_MESSAGE(run.out.find("rank 1 d41d8cd98f00b204e9800998ecf8427e") != std::string::npos,
                run.out);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// --prefix DIR on remote nodes: the ranks' PATH and LD_LIBRARY_PATH start with DIR/bin and
// DIR/lib as mpirun 4.1.4 puts them (twice in front of the remote value; once in front of a -x
// value), applied by the remote agent to its own environment.
TEST_CASE("ssh: --prefix puts DIR/bin and DIR/lib first in the remote ranks' search paths") {
  const std::string mark = new_mark();
  const std::string show = "echo \"P=$PATH\"; echo \"L=${LD_LIBRARY_PATH-unset}\"";
  const Run run = run_launcher(
      ssh_args(mark, {"--prefix", "/opt/px/", "-H", "node2:1", "-n", "1", "/bin/sh", "-c", show}));
  INFO("stderr: " << run.err);
  INFO("stdout: " << run.out);
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("P=/opt/px/bin:/opt/px/bin:") != std::string::npos);
  CHECK(run.out.find("P=/opt/px/bin:/opt/px/bin:/opt/px/bin") == std::string::npos);
  CHECK(run.out.find("L=/opt/px/lib:/opt/px/lib") != std::string::npos);
  const Run with_x =
      run_launcher(ssh_args(mark, {"--prefix", "/opt/px", "-x", "LD_LIBRARY_PATH=/y", "-H",
                                   "node1:1", "-n", "1", "/bin/sh", "-c", show}));
  INFO("stderr: " << with_x.err);
  CHECK(with_x.exit_code == 0);
  CHECK(with_x.out.find("L=/opt/px/lib:/y\n") != std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// Rank stdout on a remote node is a pseudo-terminal read by that node's agent (issue 20 item
// 8): a C stdio line is out while the rank runs (it waits for a file the test creates only after
// seeing the line), stderr stays a pipe, and binary output arrives byte for byte.
TEST_CASE("ssh: rank stdout is a pty: a stdio line is out at once, 20 MB of binary arrive whole") {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("mpilaunch-ssh-pty-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string go = dir + "/go";
  {
    const std::string mark = new_mark();
    Launcher launcher(
        ssh_args(mark, {"-H", "node1:1,node2:1", "-n", "2", env_path("LINE_WAIT_BIN"), go}));
    const bool seen = wait_for_text(launcher.out_path(), "line 0 ", 60s) &&
                      wait_for_text(launcher.out_path(), "line 1 ", 60s);
    { std::ofstream(go).put('\n'); }  // in any case, so that the job ends
    const Run run = launcher.wait(std::chrono::seconds(60));
    INFO("stderr: " << run.err);
    CHECK(run.exit_code == 0);
    CHECK_MESSAGE(seen, "the ranks' first lines came only at their exit: ", run.out);
    std::size_t ttys = 0;
    for (std::size_t at = 0;
         (at = run.out.find("tty=1 err=pipe ctty=no\n", at)) != std::string::npos; ++at)
      ++ttys;
    CHECK_MESSAGE(ttys == 2, run.out);
    CHECK(wait_until_gone(mark, 3s).empty());
  }
  const std::string input = dir + "/input";
  std::string data(20 << 20, '\0');
  std::uint32_t x = 88172645u;
  for (char& c : data) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    c = static_cast<char>(x & 0xff);
  }
  {
    std::ofstream out(input, std::ios::binary);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    REQUIRE(out.good());
  }
  const std::string mark = new_mark();
  Launcher launcher(ssh_args(mark, {"-H", "node2:1", "-n", "1", "/bin/cat", input}));
  const Run run = launcher.wait(std::chrono::seconds(150));
  std::filesystem::remove_all(dir);
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out.size() == data.size());
  CHECK_MESSAGE(static_cast<bool>(run.out == data), "the bytes differ");
  CHECK(wait_until_gone(mark, 3s).empty());
}

// Each ssh agent reports how long the login shell took before it ran (agent/login_shell.hpp):
// on slowlogin the shell's start-up file takes a second, on fastlogin there is none.
TEST_CASE("ssh: agent-up carries the login shell's start-up time") {
  const std::string mark = new_mark();
  const Run run =
      run_launcher(ssh_args(mark, {"-H", "fastlogin,slowlogin", "-n", "2", "/bin/true"}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  std::map<std::string, long> login_ms;
  for (const auto& e : run.events)
    if (e.value("event", "") == "agent-up" && e.contains("login_ms"))
      login_ms[e.value("host", "")] = e.at("login_ms").get<long>();
  REQUIRE(login_ms.size() == 2);
  CHECK(login_ms["slowlogin"] >= 1000);
  CHECK(login_ms["fastlogin"] < login_ms["slowlogin"] - 500);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: MPICH on 3 nodes, its PMI barriers relayed between the agents") {
  const std::string mark = new_mark();
  const Run run =
      run_launcher(ssh_args(mark, {"-H", "node1:2,node2:2,node3:2", env_path("NODES_MPICH_BIN")}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  CHECK(!run.failure);
  // MPICH itself groups the ranks by node, from the agents' PMI_process_mapping.
  for (int rank = 0; rank < 6; ++rank) {
    const std::string line = "nodes rank " + std::to_string(rank) + " leader " +
                             std::to_string(rank / 2 * 2) + " local 2\n";
    CHECK_MESSAGE(run.out.find(line) != std::string::npos, line, run.out);
  }
  CHECK(wait_until_gone(mark, 3s).empty());
}

// MPMD over ssh (issue 20 item 2): each context's program, arguments and -x reach the ranks
// of the other nodes, with MPI_APPNUM, and the Allreduce crosses contexts and nodes.
TEST_CASE("ssh: two application contexts on 3 nodes are one world") {
  const std::string mark = new_mark();
  const std::string mpmd = env_path("MPMD_BIN");
  const Run run = run_launcher(
      ssh_args(mark, {"-H", "node1:1,node2:1,node3:1", "-n", "1", "-x", "MPMD_VAR=one", mpmd, "a",
                      ":", "-n", "2", "-x", "MPMD_VAR=two", mpmd, "b", "c"}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  CHECK(!run.failure);
  for (const std::string line : {"rank=0 appnum=0 contexts=2 size=3 args=a var=one sum=ok\n",
                                 "rank=1 appnum=1 contexts=2 size=3 args=b,c var=two sum=ok\n",
                                 "rank=2 appnum=1 contexts=2 size=3 args=b,c var=two sum=ok\n"})
    CHECK_MESSAGE(run.out.find(line) != std::string::npos, line, run.out);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// MPI_Comm_spawn over ssh (issue 24): mpirun 4.1.4 starts a daemon on every host and places
// children on free slots where no rank runs, and with --nolocal still on its own node, which it
// reaches without ssh (measured on virtual nodes). mpilaunch: an agent on every host, idle until
// the spawn; with --nolocal this machine's agent is started here, the others over ssh.
void check_ssh_spawn(const std::vector<std::string>& options,
                     const std::vector<std::string>& hosts) {
  const std::string mark = new_mark();
  std::vector<std::string> rest = options;
  rest.insert(rest.end(), {"-n", "1", "--tag-output", env_path("DYNAMIC_BIN"), "spawn",
                           std::to_string(hosts.size())});
  const Run run = run_launcher(ssh_args(mark, rest));
  INFO("stderr: " << run.err);
  INFO("stdout: " << run.out);
  CHECK(run.exit_code == 0);
  CHECK(!run.failure);
  int agents_up = 0;
  nlohmann::json spawned;
  for (const auto& e : run.events) {
    agents_up += e.value("event", "") == "agent-up" ? 1 : 0;
    if (e.value("event", "") == "spawn") spawned = e.value("hosts", nlohmann::json::array());
  }
  CHECK(agents_up == 3);
  CHECK(spawned == nlohmann::json(hosts));
  for (std::size_t c = 0; c < hosts.size(); ++c)
    CHECK(run.out.find("[2," + std::to_string(c) + "]<stdout>:child " + std::to_string(c) + " of " +
                       std::to_string(hosts.size()) + " got 42\n") != std::string::npos);
  CHECK(run.out.find("[1,0]<stdout>:parent 0 spawned " + std::to_string(hosts.size()) + "\n") !=
        std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: MPI_Comm_spawn places children on hosts without ranks, and here with --nolocal") {
  SUBCASE("the idle agent of node2") {
    check_ssh_spawn({"-H", "node1:1,node2:2,node3:1"}, {"node2", "node2"});
  }
  SUBCASE("--nolocal: this machine's agent, started without ssh") {
    check_ssh_spawn({"--nolocal", "-H", "node1:1,localhost:2,node2:1"}, {"localhost", "localhost"});
  }
}

// A spawned process's own MPI_Comm_spawn over ssh (mpirun 4.1.4's job 3): the child fills
// node2 (node1 is full), the grandchild starts at the child job's bookmark, node2, full too, so
// the first node with room, node3; 42 and 43 go down and 143, 1143 come back up across 3 hosts.
TEST_CASE("ssh: a spawned process's own MPI_Comm_spawn places its child on a third host") {
  const std::string mark = new_mark();
  const Run run =
      run_launcher(ssh_args(mark, {"-H", "node1:1,node2:1,node3:1", "-n", "1", "--tag-output",
                                   env_path("DYNAMIC_BIN"), "spawn-nested", "1"}));
  INFO("stderr: " << run.err);
  INFO("stdout: " << run.out);
  CHECK(run.exit_code == 0);
  CHECK(!run.failure);
  std::vector<nlohmann::json> spawned;
  for (const auto& e : run.events)
    if (e.value("event", "") == "spawn")
      spawned.push_back(e.value("hosts", nlohmann::json::array()));
  CHECK(spawned ==
        std::vector<nlohmann::json>{nlohmann::json({"node2"}), nlohmann::json({"node3"})});
  for (const std::string line :
       {"[2,0]<stdout>:child 0 of 1 got 42\n", "[3,0]<stdout>:child 0 of 1 got 43\n",
        "[2,0]<stdout>:child 0 got back 143\n", "[1,0]<stdout>:parent 0 got back 1143\n"})
    CHECK_MESSAGE(run.out.find(line) != std::string::npos, line);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: a restart re-spawns the ranks through the agents already up on 3 nodes") {
  const std::string mark = new_mark();
  // Rank 4 (on node3) fails on attempt 1; attempt 2 succeeds.
  const Run run = run_launcher(
      ssh_args(mark, {"--max-restarts", "2", "--restart-backoff", "0", "-H",
                      "node1:2,node2:2,node3:2", env_path("FLAKY_BIN"), "2", "4", "3"}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  REQUIRE(run.failure);  // attempt 1's, the one that was retried
  CHECK(run.failure->value("kind", "") == "rank-exit-nonzero");
  CHECK(run.failure->value("host", "") == "node3");
  // Attempt 1's other ranks may be torn down before they print; rank 4 prints, then fails.
  CHECK(run.out.find("attempt 1 rank 4") != std::string::npos);
  for (int rank = 0; rank < 6; ++rank)
    CHECK(run.out.find("attempt 2 rank " + std::to_string(rank)) != std::string::npos);
  int agents_up = 0, attempts = 0;
  for (const auto& e : run.events) {
    agents_up += e.value("event", "") == "agent-up" ? 1 : 0;
    attempts += e.value("event", "") == "attempt-start" ? 1 : 0;
  }
  CHECK(attempts == 2);
  CHECK(agents_up == 3);  // warm: no agent was started again
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: nothing listens on the port -> phase connect") {
  check_start_failure("badport", "agent-start-failed", "connect");
}

TEST_CASE("ssh: libssh that cannot be loaded -> phase libssh, naming the library and the fix") {
  // The launcher loads libssh on its first ssh session; MPILAUNCH_LIBSSH points it elsewhere.
  ::setenv("MPILAUNCH_LIBSSH", "/nonexistent/libssh.so.4", 1);
  const std::string mark = new_mark();
  const Run run = run_launcher(ssh_args(mark, {"-H", "node1,node2", env_path("HELLO_BIN")}));
  ::unsetenv("MPILAUNCH_LIBSSH");
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 69);
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == "agent-start-failed");
  CHECK(run.failure->value("phase", "") == "libssh");
  CHECK(run.failure->value("detail", "").find("/nonexistent/libssh.so.4") != std::string::npos);
  CHECK(run.err.find("apt-get install libssh-4") != std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: a name that cannot resolve fails locally -> unknown-host") {
  check_start_failure("nosuch.invalid", "unknown-host", "resolve");
}

TEST_CASE("ssh: a key the server does not accept -> phase auth") {
  check_start_failure("wrongkey", "agent-start-failed", "auth");
}

TEST_CASE("ssh: strict host key checking") {
  SUBCASE("an unknown host key -> phase hostkey") {
    check_start_failure("unknownkey", "agent-start-failed", "hostkey");
  }
  SUBCASE("a changed host key -> phase hostkey") {
    check_start_failure("changedkey", "agent-start-failed", "hostkey");
  }
}

// libssh 0.10 ignores known_hosts marker lines: the launcher reads @revoked itself, from the
// user's file and the global one; a key trusted only as @cert-authority stays unknown.
TEST_CASE("ssh: a host key marked @revoked is refused with its fingerprint and the fix") {
  for (const std::string host : {"revokedkey", "revokedglobal"}) {
    CAPTURE(host);
    const std::string mark = new_mark();
    const Run run = run_launcher(ssh_args(mark, {"-H", host, env_path("HELLO_BIN")}));
    INFO("stderr: " << run.err);
    CHECK(run.exit_code == 69);
    REQUIRE(run.failure);
    CHECK(run.failure->value("kind", "") == "agent-start-failed");
    CHECK(run.failure->value("phase", "") == "hostkey");
    const std::string detail = run.failure->value("detail", "");
    CHECK(detail.find("REVOKED") != std::string::npos);
    CHECK(detail.find("SHA256:") != std::string::npos);
    CHECK(detail.find(host == "revokedkey" ? "known_hosts_revoked:2"
                                           : "known_hosts_global_revoked:1") != std::string::npos);
    CHECK(run.out.empty());  // nothing ran
    CHECK(wait_until_gone(mark, 3s).empty());
  }
}

// The file is read for @revoked lines within a bound: a device named as known_hosts is one
// clear error, not a launcher reading until memory runs out.
TEST_CASE("ssh: UserKnownHostsFile /dev/zero -> phase hostkey, it is too large") {
  const std::string mark = new_mark();
  const Run run = run_launcher(ssh_args(mark, {"-H", "devzerokh", env_path("HELLO_BIN")}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 69);
  REQUIRE(run.failure);
  CHECK(run.failure->value("phase", "") == "hostkey");
  CHECK(run.failure->value("detail", "").find("/dev/zero: larger than") != std::string::npos);
  CHECK(run.out.empty());
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: a host key known only as @cert-authority fails closed -> phase hostkey") {
  check_start_failure("cakey", "agent-start-failed", "hostkey");
}

TEST_CASE("ssh: no agent at --agent-path and --deploy-agent=never -> phase exec, remote stderr") {
  const std::string mark = new_mark();
  const Run run =
      run_launcher(ssh_args(mark, {"--deploy-agent=never", "--agent-path", "/nonexistent", "-H",
                                   "node1,node2", env_path("HELLO_BIN")}));
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == "agent-start-failed");
  CHECK(run.failure->value("phase", "") == "exec");
  const std::string host = run.failure->value("host", "");
  CHECK((host == "node1" || host == "node2"));
  CHECK(run.failure->value("detail", "").find("/nonexistent") != std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: the agent on node2 killed mid-run -> agent-lost naming node2 within 2 s") {
  const std::string mark = new_mark();
  Launcher launcher(ssh_args(mark, {"-H", "node1,node2", "/bin/sleep", "30"}));
  REQUIRE(wait_for_event(launcher.events_path(), "rank-start", 2, 15s));
  pid_t rank_pid = -1;
  for (const auto& e : read_events(launcher.events_path()))
    if (e.value("event", "") == "rank-start" && e.value("host", "") == "node2")
      rank_pid = e.at("pid").get<pid_t>();
  REQUIRE(rank_pid > 0);
  // The rank's parent is node2's agent, started by sshd.
  std::ifstream stat("/proc/" + std::to_string(rank_pid) + "/stat");
  std::string skip;
  pid_t agent = -1;
  stat >> skip >> skip >> skip >> agent;
  REQUIRE(agent > 1);
  REQUIRE(::kill(agent, SIGKILL) == 0);
  CHECK(wait_for_event(launcher.events_path(), "job-failed", 1, 2s));
  const Run run = launcher.wait();
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == "agent-lost");
  CHECK(run.failure->value("host", "") == "node2");
  CHECK(run.exit_code != 0);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// ---- mpilaunch stacks over the ssh agents (issue 25) ----

// Rank 2 on node3 waits in MPI_Recv for a message nobody sends, ranks 0 and 1 in a barrier;
// `mpilaunch stacks ID` asks the launcher, whose agents collect over their ssh links. The
// agents run eu-stack (MPILAUNCH_STACK_TOOL, set by a wrapper: sshd gives the agent its own
// environment): milliseconds on a loaded machine, where gdb's attach takes seconds.
TEST_CASE("ssh: mpilaunch stacks names rank 2 on node3 in MPI_Recv, the others in a barrier") {
  const std::string mark = new_mark();
  const std::string agent = sshd().dir() + "/eu-stack-agent-" + std::to_string(::getpid());
  std::ofstream(agent) << "#!/bin/sh\nMPILAUNCH_STACK_TOOL=eu-stack exec '" << env_path("AGENT_BIN")
                       << "' \"$@\"\n";
  std::filesystem::permissions(agent, std::filesystem::perms::owner_all);
  Launcher launcher(
      ssh_args(mark, {"--deploy-agent=never", "--agent-path", agent, "-H", "node1,node2,node3",
                      "--timeout", "300", env_path("DEADLOCK_BIN"), "recv", "2"}));
  REQUIRE_MESSAGE(eventually(
                      [&] {
                        const std::string out = read_text(launcher.out_path());
                        return std::count(out.begin(), out.end(), '\n') == 3;
                      },
                      60s),
                  "the ranks never became ready: ", read_text(launcher.err_path()));
  std::string id;
  for (const auto& e : read_events(launcher.events_path()))
    if (e.value("event", "") == "job-start") id = e.value("job", "");
  REQUIRE(id.size() == 8);

  const Run asked = Launcher({"stacks", "--json", id}, false).wait(60s);
  INFO("stacks stderr: " << asked.err);
  REQUIRE(asked.exit_code == 0);
  const nlohmann::json reply = nlohmann::json::parse(asked.out);
  const nlohmann::json& stacks = reply["stacks"];
  CHECK(stacks["ranks"].size() == 3);
  bool denied = false;
  for (const auto& r : stacks["ranks"]) {
    CHECK(r.value("tool", "") == "eu-stack");
    if (r.value("reason", "") == "attach-denied") denied = true;
  }
  if (denied) {
    MESSAGE("skipped: this machine does not let the stack tool attach to the ranks");
  } else {
    REQUIRE(stacks["groups"].size() == 2);
    CHECK(stacks["groups"][0]["ranks"] == nlohmann::json::array({2}));
    CHECK(stacks["groups"][0]["hosts"] == nlohmann::json::array({"node3"}));
    CHECK(stacks["groups"][0]["path"] ==
          nlohmann::json::array({"main", "wait_for_message", "MPI_Recv"}));
    CHECK(stacks["groups"][1]["ranks"] == nlohmann::json::array({0, 1}));
    CHECK(stacks["groups"][1]["path"] == nlohmann::json::array({"main", "MPI_Barrier"}));
    CHECK(reply.value("tree", "").find("rank 2 (1) on node3: main > wait_for_message > MPI_Recv") !=
          std::string::npos);
  }
  REQUIRE(::kill(launcher.pid(), SIGTERM) == 0);
  const Run run = launcher.wait(60s);
  CHECK(run.exit_code == 128 + SIGTERM);
  CHECK(wait_until_gone(mark, 10s).empty());
  std::filesystem::remove(agent);
}

// ---- -H with --hostfile: -H picks hosts out of the file ----

// mpirun 4.1.4 gives each -H host the slots -H names (one here), not the file's slots=
// (measured: a file with "localhost slots=3" and -H localhost start 1 rank; 74d903e).
TEST_CASE("ssh: -H picks hosts out of --hostfile, with -H's slots") {
  const std::string mark = new_mark();
  const std::string file = sshd().dir() + "/hosts-pick";
  std::ofstream(file) << "node1 slots=2\nnode2 slots=2\nnode3 slots=2\n";
  const Run run = run_launcher(
      ssh_args(mark, {"--hostfile", file, "-H", "node1,node3", env_path("HELLO_BIN")}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("hello rank 0 of 2 host node1") != std::string::npos);
  CHECK(run.out.find("hello rank 1 of 2 host node3") != std::string::npos);
  CHECK(run.out.find("host node2") == std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// ---- an agent of another protocol version ----

TEST_CASE("ssh: an agent speaking another protocol version -> phase version, nothing left") {
  const std::string mark = new_mark();
  const std::string fake = sshd().dir() + "/other-protocol-agent";
  // A banner, then a hello of protocol 999, then it reads stdin like a real agent (a
  // shell loop, so that its command line keeps the script's path for the leftover check).
  std::ofstream(fake) << "#!/bin/sh\necho 'Welcome to node2'\n"
                         "echo 'MPILAUNCH-AGENT 999 node2'\nwhile read -r line; do :; done\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const auto start = std::chrono::steady_clock::now();
  const Run run = run_launcher(ssh_args(
      mark, {"--deploy-agent=never", "--agent-path", fake, "-H", "node2", env_path("HELLO_BIN")}));
  INFO("stderr: " << run.err);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  REQUIRE(run.failure);
  CHECK(run.failure->value("host", "") == "node2");
  CHECK(run.failure->value("phase", "") == "version");
  CHECK(run.failure->value("detail", "").find("999") != std::string::npos);
  CHECK((run.failure->value("kind", "") == "protocol-mismatch" ||
         run.failure->value("kind", "") == "agent-start-failed"));
  CHECK(run.exit_code != 0);
  CHECK(wait_until_no_cmdline(fake, 3s).empty());
  CHECK(wait_until_gone(mark, 3s).empty());
}

// ---- an agent that never says hello ----

TEST_CASE("ssh: an agent that never says hello -> phase handshake, printed, the launcher exits") {
  const std::string mark = new_mark();
  const std::string fake = sshd().dir() + "/silent-agent-" + std::to_string(::getpid());
  std::ofstream(fake) << "#!/bin/sh\nwhile read -r line; do :; done\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  // The hello deadline, 60 s by default; the launcher's environment is this process's.
  ::setenv("MPILAUNCH_AGENT_START_TIMEOUT", "2", 1);
  const auto start = std::chrono::steady_clock::now();
  Launcher launcher(ssh_args(
      mark, {"--deploy-agent=never", "--agent-path", fake, "-H", "node1", env_path("HELLO_BIN")}));
  ::unsetenv("MPILAUNCH_AGENT_START_TIMEOUT");
  const Run run = launcher.wait(std::chrono::seconds(40));
  INFO("stderr: " << run.err);
  CHECK(std::chrono::steady_clock::now() - start < 20s);
  CHECK(run.exit_code == 69);
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == "agent-start-failed");
  CHECK(run.failure->value("host", "") == "node1");
  CHECK(run.failure->value("phase", "") == "handshake");
  CHECK(run.err.find("no answer within 2 s") != std::string::npos);
  CHECK(wait_until_no_cmdline(fake, 3s).empty());
  CHECK(wait_until_gone(mark, 3s).empty());
}

// ---- progress on a terminal ----

TEST_CASE("ssh: a terminal sees one 'N/M agents up' line; a file sees none") {
  const std::string mark = new_mark();
  // script(1) gives mpilaunch a pty as stdin/stdout/stderr and copies what it wrote to ours.
  const std::string command = "timeout 30 script -qec \"" + env_path("MPILAUNCH_BIN") +
                              " --ssh-config " + sshd().ssh_config() + " -x " + mark +
                              " -H node1,node2,node3 /bin/true\" /dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string tty;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) tty.append(buf, n);
  const int status = ::pclose(pipe);
  INFO("terminal: " << tty);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(tty.find("\r0/3 agents up") != std::string::npos);
  CHECK(tty.find("\r3/3 agents up\r\033[K") != std::string::npos);  // erased once all are up
  CHECK(tty.find("agents up\n") == std::string::npos);              // never a line of its own

  const Run run = run_launcher(ssh_args(new_mark(), {"-H", "node1,node2,node3", "/bin/true"}));
  CHECK(run.exit_code == 0);
  CHECK(run.err.find("agents up") == std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// ---- doctor ----

nlohmann::json doctor_json(const Run& run) {
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  REQUIRE_MESSAGE(!j.is_discarded(), run.out);
  return j;
}

nlohmann::json host_row(const nlohmann::json& report, const std::string& host) {
  for (const auto& h : report.at("hosts"))
    if (h.value("host", "") == host) return h;
  FAIL("no row for " << host);
  return {};
}

nlohmann::json check_of(const nlohmann::json& row, const std::string& name) {
  for (const auto& c : row.at("checks"))
    if (c.value("name", "") == name) return c;
  FAIL("no check " << name);
  return {};
}

TEST_CASE("doctor: three good nodes pass every check") {
  const Run table = run_doctor({"-F", sshd().ssh_config(), "-H", "node1:2,node2:2,node3:2"});
  INFO("stdout: " << table.out << "\nstderr: " << table.err);
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("3 of 3 hosts passed") != std::string::npos);

  const Run run =
      run_doctor({"-F", sshd().ssh_config(), "-H", "node1:2,node2:2,node3:2", "--json"});
  CHECK(run.exit_code == 0);
  const auto report = doctor_json(run);
  CHECK(report.value("ok", false));
  for (const char* host : {"node1", "node2", "node3"}) {
    const auto row = host_row(report, host);
    CHECK(row.value("ok", false));
    for (const auto& c : row.at("checks")) {
      INFO(host << " " << c.dump());
      CHECK((c.value("state", "") == "ok" || c.value("state", "") == "warn"));
    }
    CHECK(check_of(row, "pmix").value("value", "").find("PMIx") != std::string::npos);
    CHECK(check_of(row, "slots").value("value", "").starts_with("2/"));
  }
}

// Hosts fastlogin and slowlogin are the fixture's sshd on two more ports, where bash skips the
// machine's ~/.bashrc; on slowlogin its start-up file (BASH_ENV) takes a second before the
// command runs. The agent reports the time from the shell's start to its own, and doctor
// warns with the fix but passes the host.
TEST_CASE("doctor: a slow login shell is a warning with its time and the fix") {
  const auto ms_of = [](const nlohmann::json& check) {
    const std::string v = check.value("value", "");
    REQUIRE_MESSAGE(v.ends_with("ms"), check.dump());
    return std::stol(v.substr(0, v.size() - 2));
  };
  const Run run = run_doctor({"-F", sshd().ssh_config(), "-H", "fastlogin,slowlogin", "--json"});
  INFO("stdout: " << run.out << "\nstderr: " << run.err);
  CHECK(run.exit_code == 0);
  const auto report = doctor_json(run);
  const auto slow = check_of(host_row(report, "slowlogin"), "login");
  CHECK(slow.value("state", "") == "warn");
  CHECK(slow.value("fix", "").find("~/.bashrc") != std::string::npos);
  const long slow_ms = ms_of(slow);
  CHECK(slow_ms >= 1000);
  const auto fast = check_of(host_row(report, "fastlogin"), "login");
  CHECK(fast.value("state", "") != "skipped");
  CHECK(ms_of(fast) < slow_ms - 500);  // the same shell without the second

  const Run table = run_doctor({"-F", sshd().ssh_config(), "-H", "slowlogin"});
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("slowlogin login: warning: ") != std::string::npos);
  CHECK(table.out.find("~/.bashrc") != std::string::npos);
  CHECK(table.out.find("1 of 1 host passed") != std::string::npos);
}

TEST_CASE("doctor: a wrong port and an unknown host fail their rows with the fix; others pass") {
  const auto start = std::chrono::steady_clock::now();
  const Run run =
      run_doctor({"-F", sshd().ssh_config(), "-H", "node1,badport,nosuch.invalid", "--json"});
  INFO("stdout: " << run.out << "\nstderr: " << run.err);
  CHECK(run.exit_code == 1);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  const auto report = doctor_json(run);
  CHECK(!report.value("ok", true));
  CHECK(host_row(report, "node1").value("ok", false));

  const auto port = host_row(report, "badport");
  CHECK(!port.value("ok", true));
  CHECK(check_of(port, "resolve").value("state", "") == "ok");
  const auto connect = check_of(port, "connect");
  CHECK(connect.value("state", "") == "fail");
  CHECK(connect.at("error").value("kind", "") == "agent-start-failed");
  CHECK(connect.value("fix", "").find("sshd") != std::string::npos);
  CHECK(check_of(port, "auth").value("state", "") == "skipped");

  const auto unknown = check_of(host_row(report, "nosuch.invalid"), "resolve");
  CHECK(unknown.value("state", "") == "fail");
  CHECK(unknown.at("error").value("kind", "") == "unknown-host");
  CHECK(!unknown.value("fix", "").empty());

  const Run table = run_doctor({"-F", sshd().ssh_config(), "-H", "node1,badport,nosuch.invalid"});
  CHECK(table.exit_code == 1);
  CHECK(table.out.find("badport connect:") != std::string::npos);
  CHECK(table.out.find("nosuch.invalid resolve:") != std::string::npos);
  CHECK(table.out.find("1 of 3 hosts passed") != std::string::npos);
}

TEST_CASE("doctor: a missing agent fails the agent check and names --agent-path") {
  const Run run = run_doctor(
      {"-F", sshd().ssh_config(), "-H", "node2", "--agent-path", "/nonexistent/agent", "--json"});
  INFO("stdout: " << run.out);
  CHECK(run.exit_code == 1);
  const auto row = host_row(doctor_json(run), "node2");
  CHECK(check_of(row, "auth").value("state", "") == "ok");
  const auto agent = check_of(row, "agent");
  CHECK(agent.value("state", "") == "fail");
  CHECK(agent.at("error").value("phase", "") == "exec");
  CHECK(agent.at("error").value("detail", "").find("/nonexistent/agent") != std::string::npos);
  CHECK(agent.value("fix", "").find("--agent-path") != std::string::npos);
}

TEST_CASE("doctor: an agent of another version fails the version check") {
  const std::string fake = sshd().dir() + "/other-version-agent";
  std::ofstream(fake) << "#!/bin/sh\nprintf 'mpilaunch-self-check=1\\nversion=0.0.0-other\\n"
                         "protocol=999\\ncpus=1\\ntmpdir=/tmp\\npmix=OpenPMIx 4\\n'\n"
                         "printf 'time=%s\\n' \"$(date +%s.%N)\"\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const Run run =
      run_doctor({"-F", sshd().ssh_config(), "-H", "node3", "--agent-path", fake, "--json"});
  INFO("stdout: " << run.out);
  CHECK(run.exit_code == 1);
  const auto version = check_of(host_row(doctor_json(run), "node3"), "version");
  CHECK(version.value("state", "") == "fail");
  CHECK(version.value("value", "") == "0.0.0-other");
  CHECK(version.at("error").value("kind", "") == "protocol-mismatch");
}

TEST_CASE("doctor: without hosts it checks this machine") {
  const Run run = run_doctor({"--json"});
  INFO("stdout: " << run.out);
  CHECK(run.exit_code == 0);
  const auto report = doctor_json(run);
  REQUIRE(report.at("hosts").size() == 1);
  CHECK(check_of(report.at("hosts")[0], "agent").value("state", "") == "ok");
}

TEST_CASE("doctor: virtual hosts with --launcher local are checked on this machine") {
  const Run run = run_doctor({"--launcher", "local", "-H", "a:2,b:3", "--json"});
  INFO("stdout: " << run.out);
  CHECK(run.exit_code == 0);
  const auto report = doctor_json(run);
  REQUIRE(report.at("hosts").size() == 2);
  CHECK(check_of(host_row(report, "a"), "connect").value("state", "") == "skipped");
  CHECK(check_of(host_row(report, "b"), "slots").value("value", "").starts_with("3/"));
}

TEST_CASE("doctor: a host whose agent never answers is reported, not waited for") {
  const std::string fake = sshd().dir() + "/silent-agent";
  std::ofstream(fake) << "#!/bin/sh\nwhile read -r line; do :; done\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const auto start = std::chrono::steady_clock::now();
  const Run run = run_doctor({"-F", sshd().ssh_config(), "-H", "node1", "--agent-path", fake,
                              "--connect-timeout", "1", "--json"});
  INFO("stdout: " << run.out);
  CHECK(std::chrono::steady_clock::now() - start < 6s);
  CHECK(run.exit_code == 1);
  const auto agent = check_of(host_row(doctor_json(run), "node1"), "agent");
  CHECK(agent.value("state", "") == "fail");
  CHECK(agent.at("error").value("phase", "") == "handshake");
  CHECK(wait_until_no_cmdline(fake, 3s).empty());
}

// ---- --deploy-agent: the agent copied over the open session where it is missing ----

namespace {

// The whole file, read in one go (the agent is tens of MB in sanitizer builds: reading it a
// character at a time took most of a minute there).
std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  std::string bytes(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

// The fixture's cache root (XDG_CACHE_HOME of node1 and node2) and the one version directory
// in it, empty when none.
std::filesystem::path deploy_cache_root() {
  return std::filesystem::path(sshd().dir()) / "cache";
}
std::filesystem::path deployed_version_dir() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(deploy_cache_root() / "mpilaunch", ec))
    if (e.is_directory()) return e.path();
  return {};
}

std::vector<nlohmann::json> events_named(const Run& run, const std::string& name) {
  std::vector<nlohmann::json> found;
  for (const auto& e : run.events)
    if (e.value("event", "") == name) found.push_back(e);
  return found;
}

// hello on node1 and node2 with no agent at --agent-path: deployment must make it work.
Run run_hello_needing_deploy(const std::string& mark, std::vector<std::string> extra = {}) {
  std::vector<std::string> rest = std::move(extra);
  rest.insert(rest.end(), {"--agent-path", "/nonexistent/mpilaunch-agent", "-H", "node1,node2",
                           env_path("HELLO_BIN")});
  return run_launcher(ssh_args(mark, rest));
}

}  // namespace

TEST_CASE("deploy: missing agents are uploaded into the cache, checked, then reused") {
  std::filesystem::remove_all(deploy_cache_root());
  const std::string mark = new_mark();
  const Run first = run_hello_needing_deploy(mark);
  INFO("stderr: " << first.err);
  CHECK(first.exit_code == 0);
  CHECK(first.out.find("hello rank 1 of 2 host node2 sum 1 ok") != std::string::npos);
  // Both hosts share one cache (one home): each uploaded under its own temp name and renamed,
  // or found the other's complete copy. Either way the copy is byte for byte ours.
  const auto deployed = events_named(first, "agent-deployed");
  CHECK(deployed.size() + events_named(first, "agent-cached").size() == 2);
  CHECK(!deployed.empty());
  const std::filesystem::path dir = deployed_version_dir();
  REQUIRE(!dir.empty());
  const std::string cached = (dir / "mpilaunch-agent").string();
  CHECK(read_all(cached) == read_all(env_path("AGENT_BIN")));
  CHECK(::access(cached.c_str(), X_OK) == 0);
  for (const auto& e : deployed) CHECK(e.value("path", "") == cached);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path() != cached;
  CHECK_MESSAGE(files == 0, "temp files left in ", dir.string());
  CHECK(wait_until_gone(mark, 3s).empty());

  // The second run finds the cached copy by its checksum and uploads nothing.
  const std::string second_mark = new_mark();
  const Run second = run_hello_needing_deploy(second_mark);
  CHECK(second.exit_code == 0);
  CHECK(events_named(second, "agent-deployed").empty());
  CHECK(events_named(second, "agent-cached").size() == 2);
  // The remote agents may still be exiting after the launcher: while one runs the cached file,
  // writing it fails (ETXTBSY) and the copy below would stay intact. The ranks carry the
  // marker; the agents (started by sshd, without it) are found by their command line.
  CHECK(wait_until_gone(second_mark, 3s).empty());
  CHECK(wait_until_no_cmdline(cached, 10s).empty());

  // A damaged cached copy is replaced, not run.
  // An agent that has just left the process list can still hold the file busy for execution for
  // a moment (opening it for writing fails with ETXTBSY and leaves it whole): write until it takes.
  const std::string damaged = "#!/bin/sh\nexit 99\n";
  REQUIRE(eventually(
      [&] {
        std::ofstream(cached, std::ios::trunc) << damaged;
        return read_all(cached) == damaged;
      },
      20s));
  const Run repaired = run_hello_needing_deploy(new_mark());
  INFO("stderr: " << repaired.err);
  CHECK(repaired.exit_code == 0);
  const auto replaced = events_named(repaired, "agent-deployed");
  REQUIRE(!replaced.empty());
  CHECK(replaced[0].value("reason", "").find("differs") != std::string::npos);
  CHECK(read_all(cached) == read_all(env_path("AGENT_BIN")));
}

TEST_CASE("deploy: always uploads even where this version is installed; never does not") {
  const Run always = run_launcher(
      ssh_args(new_mark(), {"--deploy-agent=always", "-H", "node1", env_path("HELLO_BIN")}));
  INFO("stderr: " << always.err);
  CHECK(always.exit_code == 0);
  CHECK(events_named(always, "agent-deployed").size() == 1);
  const Run installed = run_launcher(ssh_args(new_mark(), {"-H", "node1", env_path("HELLO_BIN")}));
  CHECK(installed.exit_code == 0);
  CHECK(events_named(installed, "agent-deployed").empty());
  CHECK(events_named(installed, "agent-cached").empty());
}

TEST_CASE("deploy: a cache that cannot be created -> phase deploy naming the directory") {
  const std::string mark = new_mark();
  const Run run = run_launcher(ssh_args(mark, {"--agent-path", "/nonexistent/mpilaunch-agent", "-H",
                                               "node3", env_path("HELLO_BIN")}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 69);
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == "agent-start-failed");
  CHECK(run.failure->value("host", "") == "node3");
  CHECK(run.failure->value("phase", "") == "deploy");
  CHECK(run.failure->value("detail", "").find("/proc/mpilaunch-fixture-unwritable") !=
        std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("deploy: a server without SFTP -> phase deploy saying so") {
  LateSshd late;
  const std::string mark = new_mark();
  // always: a copy cached by the cases above would otherwise be used, and no SFTP needed.
  const Run run = run_launcher(ssh_args(mark, {"--wait-for-hosts", "10", "--deploy-agent=always",
                                               "-H", "late", env_path("HELLO_BIN")}));
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 69);
  REQUIRE(run.failure);
  CHECK(run.failure->value("phase", "") == "deploy");
  CHECK(run.failure->value("detail", "").find("SFTP") != std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// ---- --wait-for-hosts ----

TEST_CASE("ssh: --wait-for-hosts waits for an sshd that starts late, then runs the job") {
  const std::string mark = new_mark();
  Launcher launcher(
      ssh_args(mark, {"--wait-for-hosts", "20", "-H", "node1,late", env_path("HELLO_BIN")}));
  // Started only once the launcher said it waits for the host: the wait is what is tested.
  REQUIRE(wait_for_text(launcher.err_path(), "waiting up to 20 s for late", 15s));
  LateSshd late;
  const Run run = launcher.wait();
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("hello rank 1 of 2 host late") != std::string::npos);
  CHECK(run.err.find("late accepts connections") != std::string::npos);
  CHECK(wait_until_gone(mark, 3s).empty());
}

TEST_CASE("ssh: --wait-for-hosts gives up on a host that never comes up, after the deadline") {
  const std::string mark = new_mark();
  const auto start = std::chrono::steady_clock::now();
  const Run run = run_launcher(
      ssh_args(mark, {"--wait-for-hosts", "2", "-H", "node1,badport", env_path("HELLO_BIN")}));
  const auto took = std::chrono::steady_clock::now() - start;
  INFO("stderr: " << run.err);
  CHECK(run.exit_code == 69);
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == "agent-start-failed");
  CHECK(run.failure->value("host", "") == "badport");
  CHECK(run.failure->value("phase", "") == "connect");
  CHECK(run.failure->value("detail", "").find("--wait-for-hosts") != std::string::npos);
  CHECK(took >= 1500ms);
  CHECK(took < 8s);
  CHECK(wait_until_gone(mark, 3s).empty());
}

// ---- sshd stopped mid-run ----

TEST_CASE("ssh: the sshd of a node stopped mid-run -> agent-lost naming it within 2 s") {
  const std::string mark = new_mark();
  LateSshd late;
  Launcher launcher(
      ssh_args(mark, {"--wait-for-hosts", "10", "-H", "node1,late", "/bin/sleep", "30"}));
  REQUIRE(wait_for_event(launcher.events_path(), "rank-start", 2, 15s));
  late.stop();
  CHECK(wait_for_event(launcher.events_path(), "job-failed", 1, 2s));
  const Run run = launcher.wait();
  INFO("stderr: " << run.err);
  REQUIRE(run.failure);
  CHECK(run.failure->value("kind", "") == "agent-lost");
  CHECK(run.failure->value("host", "") == "late");
  CHECK(run.exit_code != 0);
  CHECK(wait_until_gone(mark, 3s).empty());
}

}  // namespace
}  // namespace mpilaunch::e2e

// CI runs the suites with no stdin: descriptors 0-2 are taken before any case opens a file or
// pipe, which would otherwise land on a closed one (popen and script(1) then see no terminal).
int main(int argc, char** argv) {
  mpilaunch::reserve_standard_descriptors();
  return doctest::Context(argc, argv).run();
}
