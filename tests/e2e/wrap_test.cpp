// Wrap mode: the real mpirun (Open MPI 4.1) under mpilaunch --engine=ompi. Output passes
// through unchanged, failures become the same typed errors, exit codes and events as the
// native engine, and the restart budget applies.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/support/background.hpp"
#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {
namespace {

Outcome wrapped(Job& job, std::vector<std::string> args) {
  args.insert(args.begin(), {"--engine=ompi", "--events", job.events_path()});
  return job.launch_plain(args, Millis{120'000});
}

// Open MPI 4.1.4's mpirun here loses a rank's help message itself in one run of three to ten
// ("ORTE_ERROR_LOG: Data unpack had inadequate space in file .../show_help.c", or "Out of
// resource" there; 2-7 of 20 MPI_Abort runs in session 9, more with meson's MALLOC_PERTURB_),
// and then prints nothing that names the failure. Tests about reading what mpirun prints repeat
// such a run, a dozen times at most (six were once all lost in a CI run); a run that printed
// its text is always checked in full.
bool mpirun_lost_its_text(const Outcome& o) {
  return o.err.find("ORTE_ERROR_LOG: ") != std::string::npos &&
         o.err.find("show_help.c") != std::string::npos;
}
constexpr int kRunsWhenMpirunLosesText = 12;

// prterun 5.0.7 loses a failed MPI_Init's help text itself, too. In the Debian 13 chroot,
// without mpilaunch, 251 runs of `mpirun --mca pml nosuch -n 1` printed three forms, every one
// with "An error occurred in MPI_Init" and exit 14 (tests/data/prrte/bad-pml-component*): both
// help texts (205), only Open MPI's "An error occurred in MPI_Init ... not able to aggregate
// error messages" (41: nothing names the component, and no exit banner), the component's text
// without MPI_INIT's (5, read as the full form). A run that lost the component's text can only
// be MPI_Init's failure; tests repeat it as above.
bool prterun_lost_its_text(const Outcome& o, const std::string& component) {
  return o.err.find("An error occurred in MPI_Init") != std::string::npos &&
         o.err.find("Component: " + component) == std::string::npos;
}

}  // namespace

TEST_CASE("wrap: a successful mpirun job passes its output through and exits 0") {
  Job job;
  const Outcome o = wrapped(job, {"--oversubscribe", "-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(count_of(o.out, " ok\n") == 2);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("wrap: mpilaunch's options mixed with mpirun's, as users write them") {
  Job job;
  // --events after mpirun's options, --max-restarts between them: both are mpilaunch's.
  const Outcome o = job.launch_plain({"--engine=ompi", "--oversubscribe", "-n", "2", "--events",
                                      job.events_path(), "--max-restarts", "0", app("hello")},
                                     Millis{120'000});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(count_of(o.out, " ok\n") == 2);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("wrap: rank failures get the native engine's kinds and exit codes") {
  struct Case {
    std::vector<std::string> failer;
    std::string kind;
    int status;
  };
  const Case cases[] = {
      {{"exit", "1", "7"}, "rank-exit-nonzero", 7},
      {{"segv", "1"}, "rank-signaled", 139},
      {{"abort", "1", "5"}, "rank-called-abort", 5},
  };
  for (const Case& c : cases) {
    CAPTURE(c.kind);
    std::vector<std::string> args = {"--oversubscribe", "-n", "3", app("failer")};
    args.insert(args.end(), c.failer.begin(), c.failer.end());
    for (int run = 1;; ++run) {
      Job job;
      const Outcome o = wrapped(job, args);
      check_nothing_left(job, o);
      if (run < kRunsWhenMpirunLosesText && mpirun_lost_its_text(o)) continue;
      check_error_block(o, c.kind, c.status);
      const Json error = check_job_failed(job, c.kind, c.status);
      CHECK_MESSAGE(error.value("rank", -1) == 1, error.dump());
      break;
    }
  }
}

TEST_CASE("wrap: what mpirun leaves running when it ends is killed (a rank's forked child)") {
  // The victim's child outlives it (it pauses until its 60 s alarm): mpirun 4.1.4 exits and
  // leaves it running; mpilaunch, their subreaper, kills it before it exits.
  Job job;
  const Outcome o =
      wrapped(job, {"--oversubscribe", "-n", "4", app("failer"), "exit-peer-aborts", "3", "7"});
  CHECK_MESSAGE(o.status() != 0, o.summary());
  check_nothing_left(job, o);
}

TEST_CASE("wrap: launch-time failures: missing program, too few slots, unknown component") {
  {
    Job job;
    const Outcome o = wrapped(job, {"-n", "1", job.dir().file("nope")});
    check_error_block(o, "executable-not-found", 66);
    check_job_failed(job, "executable-not-found", 66);
  }
  {
    Job job;
    const Outcome o = wrapped(job, {"-n", "64", app("hello")});
    check_error_block(o, "not-enough-slots", 67);
    check_job_failed(job, "not-enough-slots", 67);
  }
  if (MPILAUNCH_E2E_OMPI_MAJOR < 5) {
    // A component mpirun opens itself. (A rank-side one such as "btl nosuch" is a poor test
    // here: Open MPI 4.1.4's mpirun often loses that help text itself, "ORTE_ERROR_LOG: Data
    // unpack would read past end of buffer in show_help.c", leaving nothing to read.)
    Job job;
    const Outcome o = wrapped(job, {"--mca", "plm", "nosuch", "-n", "1", app("hello")});
    check_error_block(o, "component-not-found", 78);
    const Json error = check_job_failed(job, "component-not-found", 78);
    CHECK(error.value("detail", "").find("nosuch") != std::string::npos);
  } else {
    // prterun 5 only warns about a launcher-side component it cannot find ("PMIx stopped
    // checking") and runs the job: so does mpilaunch, passing the warning on. A rank-side one
    // fails MPI_Init in every rank, and that is the component-not-found of Open MPI 4.
    {
      Job job;
      const Outcome o = wrapped(job, {"--mca", "plm", "nosuch", "-n", "1", app("hello")});
      CHECK_MESSAGE(o.status() == 0, o.summary());
      CHECK(count_of(o.out, " ok\n") == 1);
      CHECK_MESSAGE(o.err.find("Component: nosuch") != std::string::npos, o.err);
      check_events(job, 0);
      check_nothing_left(job, o);
    }
    for (int run = 1;; ++run) {
      Job job;
      const Outcome o = wrapped(job, {"--mca", "pml", "nosuch", "-n", "1", app("hello")});
      check_nothing_left(job, o);
      if (run < kRunsWhenMpirunLosesText && prterun_lost_its_text(o, "nosuch")) {
        // What is left is said as what it is, with the rank's own exit code, which prterun
        // passed on (the native engine's contract for mpi-init-failed).
        CHECK_MESSAGE(count_of(o.err, "\n  kind:      mpi-init-failed\n") == 1, o.err);
        const auto failed = events_named(check_events(job, o.status()), "job-failed");
        REQUIRE(failed.size() == 1);
        CHECK_MESSAGE(failed[0].value("rc", 0) != 0, failed[0].dump());
        CHECK_MESSAGE(o.status() == failed[0].value("rc", 0), o.summary());
        continue;
      }
      check_error_block(o, "component-not-found", 78);
      const Json error = check_job_failed(job, "component-not-found", 78);
      CHECK(error.value("detail", "").find("nosuch") != std::string::npos);
      break;
    }
  }
}

TEST_CASE("wrap: mpirun's own --timeout is a timeout (124), its output tagged or not") {
  // prterun 5.0.7 tags its timeout banner "[1,WILDCARD]<stderr>:" under --tag-output (recorded:
  // tests/data/prrte/timeout-tag-output); mpirun 4.1.4 leaves it untagged.
  for (const bool tagged : {false, true}) {
    CAPTURE(tagged);
    Job job;
    std::vector<std::string> args = {"--timeout", "2"};
    if (tagged) args.push_back("--tag-output");
    args.insert(args.end(), {"--oversubscribe", "-n", "2", app("hang")});
    const Outcome o = wrapped(job, args);
    check_error_block(o, "timeout", 124);
    const Json error = check_job_failed(job, "timeout", 124);
    CHECK_MESSAGE(error.value("phase", "") == "job", error.dump());
    check_nothing_left(job, o);
  }
}

TEST_CASE("wrap: as root without permission mpirun's refusal is run-as-root-refused") {
  if (::geteuid() != 0) {
    MESSAGE("not root: skipped");
    return;
  }
  Job job;
  Command c =
      job.command({"--engine=ompi", "--events", job.events_path(), "-n", "1", app("hello")});
  std::erase_if(c.env,
                [](const std::string& e) { return e.starts_with("OMPI_ALLOW_RUN_AS_ROOT"); });
  const Outcome o = run(c);
  check_error_block(o, "run-as-root-refused", 77);
  check_job_failed(job, "run-as-root-refused", 77);
}

TEST_CASE("wrap: mpirun slow to end after SIGINT is killed with its ranks after a grace (130)") {
  // mpirun 4.1 gives its ranks odls_base_sigkill_timeout seconds between SIGTERM and SIGKILL:
  // with ranks deaf to SIGTERM and 600 s, it runs on for ten minutes after SIGINT (4.1.4,
  // measured: still running 60 s after it). The launcher kills mpirun and its ranks itself.
  // prterun 5.0.7 has no such wait (measured: deaf ranks gone 0.6 s after SIGINT, whatever
  // that parameter): there the case checks the outcome only.
  Job job;
  const std::string out = job.dir().file("out"), err = job.dir().file("err");
  std::vector<std::string> args = {"--engine=ompi", "--events", job.events_path()};
  if (MPILAUNCH_E2E_OMPI_MAJOR < 5)
    args.insert(args.end(), {"--mca", "odls_base_sigkill_timeout", "600"});
  args.insert(args.end(), {"--oversubscribe", "-n", "2", app("stall"), "deaf", "0"});
  Background bg(job.command(args, Millis{120'000}), out, err);
  REQUIRE_MESSAGE(
      eventually([&] { return count_of(read_file(out), "ready") == 2; }, Millis{60'000}),
      "the ranks did not start; stderr:\n", read_file(err));
  ::kill(bg.pid(), SIGINT);
  const std::optional<int> status = bg.wait(Millis{60'000});
  REQUIRE_MESSAGE(status.has_value(), "the job ran on after SIGINT; stderr:\n", read_file(err));
  const Outcome o{.err = read_file(err), .exit_code = *status};
  check_error_block(o, "interrupted", 130);
  check_job_failed(job, "interrupted", 130);
  check_nothing_left(job, o);
}

TEST_CASE("wrap: the restart budget applies to mpirun jobs too") {
  Job job;
  const Outcome o = wrapped(
      job, {"--max-restarts", "2", "--oversubscribe", "-n", "2", app("flaky"), "2", "1", "3"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(o.out.find("attempt 2 rank 1") != std::string::npos);
  const auto failed = events_named(check_events(job, 0), "attempt-failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].value("decision", "") == "restart");
}

}  // namespace mpilaunch::e2e
