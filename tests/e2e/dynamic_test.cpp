// Dynamic processes (issue 24) that mpilaunch does not serve yet: every such call is answered
// "not supported" at once and the job ends with one unsupported-mpi-call error naming the MPI
// call, instead of an MPI_Abort banner or a hang of the ranks that went on.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

constexpr int kUnavailable = 69;
constexpr int kNotEnoughSlots = 67;

// Runs `dynamic mode` with `options` and checks the error names `call`.
void check_unsupported(const std::vector<std::string>& options, const std::string& mode,
                       const std::vector<std::string>& calls) {
  Job job;
  std::vector<std::string> argv = options;
  argv.insert(argv.end(), {app("dynamic"), mode});
  const Outcome o = job.launch(argv, Millis{90'000});
  CHECK_MESSAGE(!o.timed_out, o.summary());
  check_error_block(o, "unsupported-mpi-call", kUnavailable);
  const Json error = check_job_failed(job, "unsupported-mpi-call", kUnavailable);
  const std::string detail = error.value("detail", std::string());
  bool named = false;
  for (const std::string& call : calls) named = named || detail.find(call) != std::string::npos;
  CHECK_MESSAGE(named, error.dump());
  CHECK_MESSAGE(error.value("message", std::string()).find("does not serve") != std::string::npos,
                error.dump());
  check_nothing_left(job, o);
}

}  // namespace

// The spawn is served: its children start as job 2 (their rank-start events) and everything
// ends, at once. MPI_Comm_spawn returns in the parent once the children have connected
// (PMIx publish/lookup and connect); until those are served the job ends with
// unsupported-mpi-call naming the accept/connect half, never a hang.
TEST_CASE("dynamic: MPI_Comm_spawn starts the children as job 2") {
  Job job;
  const Outcome o =
      job.launch({"--oversubscribe", "-n", "1", "--tag-output", app("dynamic"), "spawn", "2"},
                 Millis{120'000});
  CHECK_MESSAGE(!o.timed_out, o.summary());
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
  if (o.status() == 0) {
    CHECK_MESSAGE(o.out.find("[2,0]<stdout>:child 0 of 2 got 42") != std::string::npos, o.out);
    CHECK_MESSAGE(o.out.find("[2,1]<stdout>:child 1 of 2 got 42") != std::string::npos, o.out);
    CHECK_MESSAGE(o.out.find("[1,0]<stdout>:parent 0 spawned 2") != std::string::npos, o.out);
  } else {
    check_error_block(o, "unsupported-mpi-call", kUnavailable);
    const Json error = check_job_failed(job, "unsupported-mpi-call", kUnavailable);
    const std::string detail = error.value("detail", std::string());
    CHECK_MESSAGE((detail.find("MPI_Comm_accept") != std::string::npos ||
                   detail.find("MPI_Comm_connect") != std::string::npos),
                  error.dump());
  }
  check_nothing_left(job, o);
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
  check_nothing_left(job, o);
}

TEST_CASE("dynamic: MPI_Publish_name is refused by name") {
  check_unsupported({"-n", "1"}, "publish", {"MPI_Publish_name"});
}

TEST_CASE("dynamic: accept/connect across 3 ranks on 2 virtual nodes ends at once") {
  check_unsupported({"--launcher=local", "-H", "dyn1:2,dyn2:1", "-n", "3"}, "port-accept",
                    {"MPI_Comm_accept", "MPI_Comm_connect"});
}

TEST_CASE("dynamic: publish/lookup then accept/connect ends at once") {
  check_unsupported({"--oversubscribe", "-n", "3"}, "name-accept",
                    {"MPI_Publish_name", "MPI_Lookup_name"});
}

}  // namespace mpilaunch::e2e
