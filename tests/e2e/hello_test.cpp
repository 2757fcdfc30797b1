// hello (MPI_Init, Allreduce, Finalize) through mpilaunch: isolated local mode at 1 to 8 ranks,
// and ranks placed by slot on virtual nodes, seen through the PMIX_HOSTNAME each rank prints.
#include <doctest/doctest.h>

#include <map>
#include <regex>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

// Runs hello with `args` and checks one "ok" line per rank with the right size and sum; returns
// each rank's host.
std::map<int, std::string> run_hello(Job& job, const std::vector<std::string>& args, int ranks,
                                     const std::string& program = "hello") {
  std::vector<std::string> argv = args;
  argv.push_back(app(program));
  const Outcome o = job.launch(argv);
  CHECK_MESSAGE(o.status() == 0, o.summary());
  static const std::regex kLine(R"(hello rank (\d+) of (\d+) host (\S+) sum (-?\d+) ok)");
  std::map<int, std::string> hosts;
  for (const std::string& line : lines_of(o.out)) {
    std::smatch m;
    if (!std::regex_match(line, m, kLine)) {
      FAIL_CHECK("unexpected stdout line: ", line);
      continue;
    }
    const int rank = std::stoi(m[1]);
    CHECK(std::stoi(m[2]) == ranks);
    CHECK(std::stoi(m[4]) == ranks * (ranks - 1) / 2);
    CHECK_MESSAGE(hosts.count(rank) == 0, "rank ", rank, " printed twice");
    hosts[rank] = m[3];
  }
  CHECK_MESSAGE(hosts.size() == static_cast<std::size_t>(ranks), "stdout:\n", o.out);
  CHECK_MESSAGE(o.err.find("mpilaunch: error") == std::string::npos, o.err);
  check_events(job, 0);
  check_nothing_left(job, o);
  return hosts;
}

std::map<int, std::string> run_hello(const std::vector<std::string>& args, int ranks,
                                     const std::string& program = "hello") {
  Job job;
  return run_hello(job, args, ranks, program);
}

}  // namespace

TEST_CASE("hello: 1 rank, isolated local mode") {
  run_hello({"-n", "1"}, 1);
}

TEST_CASE("hello: 2 ranks, isolated local mode") {
  run_hello({"-n", "2"}, 2);
}

TEST_CASE("hello: 4 ranks oversubscribed") {
  run_hello({"--oversubscribe", "-n", "4"}, 4);
}

TEST_CASE("hello: 8 ranks oversubscribed") {
  run_hello({"-np", "8", "--oversubscribe"}, 8);
}

// MPICH's hello (PMI-1 client, no PMIx): the agent's PMI server gives it PMI_FD.
TEST_CASE("hello MPICH: 1 rank") {
  run_hello({"-n", "1"}, 1, "hello_mpich");
}

TEST_CASE("hello MPICH: 2 ranks") {
  run_hello({"-n", "2"}, 2, "hello_mpich");
}

TEST_CASE("hello MPICH: 8 ranks oversubscribed") {
  run_hello({"-n", "8", "--oversubscribe"}, 8, "hello_mpich");
}

TEST_CASE("hello MPICH: 3 virtual nodes, the PMI barrier relayed between agents") {
  run_hello({"--launcher=local", "-H", "node1:1,node2:2,node3:1", "-n", "4"}, 4, "hello_mpich");
}

TEST_CASE("hello: 2 virtual nodes x 2 ranks, placed by slot") {
  const auto hosts = run_hello({"--launcher=local", "-H", "node1:2,node2:2", "-n", "4"}, 4);
  const std::map<int, std::string> want = {{0, "node1"}, {1, "node1"}, {2, "node2"}, {3, "node2"}};
  CHECK(hosts == want);
}

TEST_CASE("hello: 3 virtual nodes with uneven slots") {
  const auto hosts =
      run_hello({"--launcher=local", "--host", "node1:1,node2:2,node3:1", "--np", "4"}, 4);
  const std::map<int, std::string> want = {{0, "node1"}, {1, "node2"}, {2, "node2"}, {3, "node3"}};
  CHECK(hosts == want);
}

TEST_CASE("hello: a --machinefile mixing Open MPI and MPICH lines places ranks by slot") {
  Job job;
  const std::string hostfile = job.dir().file("hosts");
  write_file(hostfile, "# two virtual nodes\nnode1 slots=2 max_slots=4\n\nnode2:1  # MPICH\n");
  const auto hosts = run_hello(job, {"--launcher=local", "--machinefile", hostfile, "-n", "3"}, 3);
  const std::map<int, std::string> want = {{0, "node1"}, {1, "node1"}, {2, "node2"}};
  CHECK(hosts == want);
}

}  // namespace mpilaunch::e2e
