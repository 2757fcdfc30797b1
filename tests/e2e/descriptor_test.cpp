// The launcher's standard descriptors and what its agents and ranks inherit (issue 23, items 1
// and 10): started with stdout or stderr closed it still runs to the end; a descriptor the
// caller left open reaches neither an agent nor a rank.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {

namespace {

// `job`'s launcher with `args`, started by a shell that first runs `redirect` (its own
// descriptors: "exec 1>&-" closes stdout).
Command through_shell(const Job& job, const std::string& redirect,
                      const std::vector<std::string>& args, Millis deadline) {
  Command c = job.command(args, deadline);
  std::vector<std::string> argv = {"/bin/sh", "-c", redirect + "; exec \"$@\"", "sh"};
  argv.insert(argv.end(), c.argv.begin(), c.argv.end());
  c.argv = argv;
  return c;
}

}  // namespace

TEST_CASE("descriptors: started with stdout, stderr or both closed, the job runs to its end") {
  for (const std::string closed : {"exec 1>&-", "exec 2>&-", "exec 1>&- 2>&-"}) {
    CAPTURE(closed);
    Job job;
    // Enough output that the forwarder writes while the job runs.
    const Outcome o = run(through_shell(
        job, closed, {"--events", job.events_path(), "-n", "2", app("flood"), "2000000"},
        Millis{90'000}));
    CHECK_MESSAGE(o.status() == 0, o.summary());
    check_events(job, 0);
    check_nothing_left(job, o);
  }
}

TEST_CASE("descriptors: a descriptor the caller left open reaches no agent and no rank") {
  Job job;
  // The launcher starts with descriptor 7 open on a marker file, without close-on-exec. Each
  // rank counts its own descriptors on that file and its parent's, the agent that started it.
  const std::string marker = job.dir().file("inherited-marker");
  write_file(marker, "");
  const std::string look =
      "r=$OMPI_COMM_WORLD_RANK; "
      "n=$(ls -l /proc/$$/fd | grep -c inherited-marker); "
      "a=$(ls -l /proc/$PPID/fd | grep -c inherited-marker); "
      "echo \"rank $r holds $n agent holds $a\"";
  const Outcome o = run(through_shell(
      job, "exec 7<" + marker, {"--events", job.events_path(), "-n", "2", "/bin/sh", "-c", look},
      Millis{60'000}));
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(o.out.find("rank 0 holds 0 agent holds 0") != std::string::npos, o.out);
  CHECK_MESSAGE(o.out.find("rank 1 holds 0 agent holds 0") != std::string::npos, o.out);
  check_events(job, 0);
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
