// MPMD (mpirun's `a : b` and --app FILE): one MPI_COMM_WORLD over every context, ranks numbered
// context by context, each rank with its context's program, arguments, -x and MPI_APPNUM, an
// MPI_Allreduce across the contexts; locally, on virtual nodes, with MPICH, and a bad appfile.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

// The lines of `out`, sorted (ranks print in any order).
std::vector<std::string> sorted_lines(const std::string& out) {
  std::vector<std::string> lines = lines_of(out);
  std::sort(lines.begin(), lines.end());
  return lines;
}

const std::vector<std::string> kThreeRanks = {
    "rank=0 appnum=0 contexts=2 size=3 args=a,b var=one sum=ok",
    "rank=1 appnum=1 contexts=2 size=3 args=c var=two sum=ok",
    "rank=2 appnum=1 contexts=2 size=3 args=c var=two sum=ok",
};

}  // namespace

TEST_CASE(
    "mpmd: -n 1 ./a : -n 2 ./b is one world of 3 ranks, each with its context's argv and -x") {
  Job job;
  const Outcome o = job.launch({"--oversubscribe", "-n", "1", "-x", "MPMD_VAR=one", app("mpmd"),
                                "a", "b", ":", "-n", "2", "-x", "MPMD_VAR=two", app("mpmd"), "c"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(sorted_lines(o.out) == kThreeRanks, o.out);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("mpmd: contexts spread over virtual nodes, the Allreduce crossing them") {
  Job job;
  const Outcome o =
      job.launch({"--launcher=local", "-H", "node1:2,node2:2", "-n", "1", "-x", "MPMD_VAR=one",
                  app("mpmd"), "a", "b", ":", "-n", "2", "-x", "MPMD_VAR=two", app("mpmd"), "c"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(sorted_lines(o.out) == kThreeRanks, o.out);
  check_nothing_left(job, o);
  // A context's -H keeps it there: the first context on node2 only.
  Job hosts;
  const Outcome h = hosts.launch({"--launcher=local", "-n", "1", "-H", "node2", app("nodes"), ":",
                                  "-n", "1", "-H", "node1", app("nodes")});
  CHECK_MESSAGE(h.status() == 0, h.summary());
}

TEST_CASE("mpmd: an appfile runs the same world (comments, blank lines, per-line -x)") {
  Job job;
  const std::string appfile = job.dir().file("appfile");
  write_file(appfile, "# two contexts\n-n 1 -x MPMD_VAR=one " + app("mpmd") +
                          " a b  # the first\n\n-np 2 -x MPMD_VAR=two " + app("mpmd") + " c\n");
  const Outcome o = job.launch({"--oversubscribe", "--app", appfile});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(sorted_lines(o.out) == kThreeRanks, o.out);
  check_nothing_left(job, o);
}

TEST_CASE("mpmd: MPICH ranks get their context from PMI (PMI_Get_appnum)") {
  Job job;
  const Outcome o =
      job.launch({"--oversubscribe", "-n", "1", "-x", "MPMD_VAR=one", app("mpmd_mpich"), "a", "b",
                  ":", "-n", "2", "-x", "MPMD_VAR=two", app("mpmd_mpich"), "c"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(sorted_lines(o.out) == kThreeRanks, o.out);
  check_nothing_left(job, o);
}

TEST_CASE("mpmd: a bad appfile is one bad-option error naming the file and line, exit 64") {
  Job job;
  const std::string appfile = job.dir().file("appfile");
  write_file(appfile, app("mpmd") + "\n-n two " + app("mpmd") + "\n");
  const Outcome o = job.launch({"--app", appfile});
  CHECK(o.status() == 64);
  CHECK_MESSAGE(o.err.find(appfile + ", line 2: -n needs a whole number") != std::string::npos,
                o.err);
  CHECK(o.out.empty());
  const Outcome missing = job.launch({"--app", job.dir().file("no-such-appfile")});
  CHECK(missing.status() == 64);
  CHECK_MESSAGE(
      missing.err.find("no-such-appfile: cannot be read: No such file") != std::string::npos,
      missing.err);
}

}  // namespace mpilaunch::e2e
