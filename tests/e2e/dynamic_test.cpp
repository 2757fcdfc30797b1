// Dynamic processes (issue 24) that mpilaunch does not serve yet: every such call is answered
// "not supported" at once and the job ends with one unsupported-mpi-call error naming the MPI
// call, instead of an MPI_Abort banner or a hang of the ranks that went on.
#include <doctest/doctest.h>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

constexpr int kUnavailable = 69;

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

TEST_CASE("dynamic: MPI_Comm_spawn is refused by name, not an MPI_Abort") {
  check_unsupported({"-n", "1"}, "spawn", {"MPI_Comm_spawn"});
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
