// End-to-end over a real sshd on loopback: node1..3 are 127.0.0.1..3 in the fixture's
// ssh_config. Each failure case checks the job-failed error's kind, host and phase, and that no
// process carrying this case's -x marker is left on any "node".

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>

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

TEST_CASE("ssh: nothing listens on the port -> phase connect") {
  check_start_failure("badport", "agent-start-failed", "connect");
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

TEST_CASE("ssh: no agent at --agent-path -> phase exec with the remote stderr") {
  const std::string mark = new_mark();
  const Run run = run_launcher(
      ssh_args(mark, {"--agent-path", "/nonexistent", "-H", "node1,node2", env_path("HELLO_BIN")}));
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

}  // namespace
}  // namespace mpilaunch::e2e
