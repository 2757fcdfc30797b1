// Open MPI's own error text reaching the user, --dry-run running nothing, -V and --help.
#include <doctest/doctest.h>

#include <regex>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {

TEST_CASE("misc: Open MPI's error text for --mca btl nosuch reaches stderr") {
  Job job;
  const Outcome o = job.launch({"--mca", "btl", "nosuch", "-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() != 0, o.summary());
  const bool open_mpi_text =
      o.err.find("A requested component was not found") != std::string::npos ||
      o.err.find("MPI_INIT failed") != std::string::npos;
  CHECK_MESSAGE(open_mpi_text, "Open MPI's own message is missing; stderr:\n", o.err);
  CHECK_MESSAGE(count_of(o.err, "mpilaunch: error: ") == 1, o.err);
  CHECK(o.out.find("hello rank") == std::string::npos);
  check_events(job, o.status());
  check_nothing_left(job, o);
}

TEST_CASE("misc: --dry-run starts nothing and exits 0") {
  Job job;
  const Outcome o = job.launch({"--dry-run", "-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(o.out.find("hello rank") == std::string::npos, "a rank ran:\n", o.out);
  CHECK_MESSAGE(!o.out.empty(), "--dry-run printed no plan");
  check_nothing_left(job, o);
}

TEST_CASE("misc: -V and --version print a version and exit 0") {
  for (const std::string option : {"-V", "--version"}) {
    CAPTURE(option);
    Job job;
    const Outcome o = job.launch_plain({option});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(std::regex_search(o.out, std::regex(R"(mpilaunch.*\d+\.\d+)")), o.out);
    check_nothing_left(job, o);
  }
}

TEST_CASE("misc: -h prints the usage and exits 0") {
  Job job;
  const Outcome o = job.launch_plain({"-h"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(o.out.find("mpilaunch") != std::string::npos, o.out);
  CHECK_MESSAGE(o.out.find("-n") != std::string::npos, o.out);
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
