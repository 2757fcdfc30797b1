// Robustness of the streaming parser: rendering variants, noise, truncation and size.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "launcher/diagnose/console_parser.hpp"
#include "launcher/diagnose/explain.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {

const std::string kDash(74, '-');
const std::string kSegv =
    kDash + "\nmpirun noticed that process rank 3 with PID 99 on node n2 exited on signal 11 " +
    "(Segmentation fault).\n" + kDash + "\n";

ErrorKind kind_of(const std::string& log, std::optional<int> rc = 139) {
  const Explanation x = explain_text(log, rc);
  REQUIRE(x.error);
  return x.error->kind;
}

}  // namespace

TEST_CASE("parser: one report survives every rendering variant") {
  const std::string variants[] = {
      kSegv,
      // CRLF, ANSI colour, NUL padding
      "\x1b[31m" + kDash +
          "\r\nmpirun noticed that process rank 3 with PID 99 on node n2 "
          "exited on signal 11 (Segmentation fault).\x1b[0m\r\n" +
          kDash + "\r\n\0",
      // re-wrapped at 30 columns, as a web page would
      "mpirun noticed that process\nrank 3 with PID 99 on node\nn2 exited on signal 11\n"
      "(Segmentation fault).\n",
      // 55- and 60-dash banners, closing line only
      std::string(55, '-') +
          "\nmpirun noticed that process rank 3 with PID 99 on node n2 exited "
          "on signal 11.\n" +
          std::string(60, '-') + "\n",
      // log-collector prefixes
      "2026-01-02T03:04:05.678Z stderr F " + kDash +
          "\n2026-01-02T03:04:05.678Z stderr F mpirun noticed that process rank 3 with PID 99 on "
          "node n2 exited on signal 11 (Segmentation fault).\n",
      // the tail of a cut log: no opening banner, no closing banner
      "on signal 11 (Segmentation fault).\nmpirun noticed that process rank 3 with PID 99 on "
      "node n2 exited on signal 11 (Segmentation fault).",
  };
  for (const std::string& log : variants) {
    CAPTURE(log);
    const Explanation x = explain_text(log, 139);
    REQUIRE(x.error);
    CHECK(x.error->kind == ErrorKind::RankSignaled);
    CHECK(x.error->rank == 3);
    CHECK(x.error->host == "n2");
    CHECK(x.error->signal == 11);
  }
}

TEST_CASE("parser: rank output interleaved inside a banner is set aside") {
  std::string log = kDash + "\nmpirun detected that one or more processes exited with non-zero\n";
  for (int i = 0; i < 50; ++i) log += "[1," + std::to_string(i % 4) + "]<stdout>:step " + "\n";
  log +=
      "status, thus causing the job to be terminated.\n  Process name: [[5,1],2]\n"
      "  Exit code:    4\n" +
      kDash + "\n";
  const Explanation x = explain_text(log, 4);
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::RankExitNonzero);
  CHECK(x.error->rank == 2);
  CHECK(x.error->exit_code == 4);
}

TEST_CASE("parser: aggregation lines add to the count of the matching report") {
  const std::string log = kDash +
                          "\nMPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\n"
                          "with errorcode 1.\n" +
                          kDash +
                          "\n[h:01] 3 more processes have sent help message help-mpi-api.txt / "
                          "mpi-abort\n[h:01] Set MCA parameter \"orte_base_help_aggregate\" to 0\n";
  const Explanation x = explain_text(log, 1);
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::RankCalledAbort);
  CHECK(x.error->count == 4);
}

TEST_CASE("parser: root cause first, consequences after") {
  // ORTE's "Primary job terminated normally" never wins over the block it precedes.
  const std::string primary = kDash +
                              "\nPrimary job  terminated normally, but 1 process returned\na "
                              "non-zero exit code. Per user-direction, the job has been aborted.\n";
  Explanation x = explain_text(primary + kSegv, 139);
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::RankSignaled);
  REQUIRE(x.secondary.size() == 1);
  CHECK(x.secondary[0].kind == ErrorKind::RankExitNonzero);
  // Teardown kills (9, 15) lose to the abort that caused them, even when printed first.
  const std::string killed = kDash +
                             "\nmpirun noticed that process rank 0 with PID 5 on node a exited "
                             "on signal 15 (Terminated).\n" +
                             kDash + "\n";
  const std::string abort =
      "Abort(7) on node 1 (rank 1 in comm 0): application called "
      "MPI_Abort(MPI_COMM_WORLD, 7) - process 1\n";
  x = explain_text(killed + abort, 7);
  CHECK(x.error->kind == ErrorKind::RankCalledAbort);
  // A component warning in a job that exited 0 is no error; with a failure it is the cause.
  const std::string warning = kDash +
                              "\nA requested component was not found, or was unable to be "
                              "opened.\n\nHost: vm\nFramework: btl\nComponent: x\n" +
                              kDash + "\n";
  CHECK_FALSE(explain_text(warning, 0).error);
  CHECK(kind_of(warning + "*** An error occurred in MPI_Init\n", 1) ==
        ErrorKind::ComponentNotFound);
}

TEST_CASE("parser: no text left, the exit code decides") {
  CHECK_FALSE(explain_text("", 0).error);
  CHECK_FALSE(explain_text("hello\nworld\n", std::nullopt).error);
  CHECK(kind_of("", 139) == ErrorKind::RankSignaled);
  CHECK(kind_of("", 3) == ErrorKind::RankExitNonzero);
  const Explanation x =
      explain_text(kDash + "\nSomething unforeseen: error 42 in the frobnicator\n" + kDash, 1);
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::Unknown);
  CHECK(x.error->detail == "Something unforeseen: error 42 in the frobnicator");
  CHECK(x.error->exit_code == 1);
}

TEST_CASE("parser: huge lines and endless output keep memory bounded") {
  ConsoleParser parser;
  const std::string huge(1 << 20, 'x');
  parser.feed(huge);
  for (int i = 0; i < 20000; ++i) parser.feed("[1," + std::to_string(i % 64) + "]<stdout>:x");
  for (int i = 0; i < 20000; ++i) parser.feed("noise line " + std::to_string(i));
  for (int i = 0; i < 200; ++i)
    parser.feed("[h:1] Caught signal 11 (Segmentation fault) pid " + std::to_string(i));
  parser.feed(kDash);
  parser.feed("mpirun noticed that process rank 3 with PID 99 on node n2 exited on signal 11.");
  parser.feed(kDash);
  const Explanation x = parser.finish(139);
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::RankSignaled);
  CHECK(x.secondary.size() < kMaxFindings);
  CHECK(x.error->evidence.size() <= kMaxEvidenceLines);
}

TEST_CASE("parser: Open MPI 4.1's --get-stack-traces dump is told by its process names") {
  // Saved from mpirun 4.1.4 --timeout 3 --get-stack-traces: the timeout text names no runtime.
  std::ifstream in(std::filesystem::path(MPILAUNCH_TEST_DATA_DIR) / "stacks" / "ompi_dump.txt",
                   std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  const Explanation x = explain_text(text.str(), 1);
  CHECK(x.runtime == "orte-4");
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::Timeout);
}

TEST_CASE("parser: mpilaunch's own console block and events file") {
  const std::string human =
      "mpilaunch: error: rank 3 on node-b was killed by signal 11 (SIGSEGV)\n"
      "  kind:      rank-signaled\n  node:      node-b\n  rank:      3\n"
      "  exit code: 139\n  signal:    11 (SIGSEGV)\n  hint:      an application fault\n";
  Explanation x = explain_text(human, std::nullopt);
  CHECK(x.runtime == "mpilaunch");
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::RankSignaled);
  CHECK(x.error->host == "node-b");
  CHECK(x.error->rank == 3);
  CHECK(x.error->signal == 11);

  const std::string events =
      R"({"v":1,"time":"t","event":"job-start","job":"j"})"
      "\n"
      R"({"v":1,"time":"t","event":"secondary-error","error":{"kind":"rank-signaled","signal":15,"rank":0}})"
      "\n"
      R"({"v":1,"time":"t","event":"job-failed","error":{"kind":"rank-exit-nonzero","rank":2,"exit_code":5}})"
      "\n"
      R"({"v":1,"time":"t","event":"job-end","exit_code":5,"status":"failed"})"
      "\n";
  x = explain_text(events, std::nullopt);
  CHECK(x.runtime == "mpilaunch");
  CHECK(x.rc == 5);
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::RankExitNonzero);
  CHECK(x.error->rank == 2);
  REQUIRE(x.secondary.size() == 1);
  CHECK(x.secondary[0].signal == 15);

  // A failure that reached mpilaunch later but happened first revises the job-failed event:
  // the last one names the job's failure.
  const std::string revised =
      R"({"v":1,"time":"t","event":"job-failed","error":{"kind":"rank-called-abort","rank":0,"exit_code":7}})"
      "\n"
      R"({"v":1,"time":"t","event":"secondary-error","error":{"kind":"rank-called-abort","rank":0,"exit_code":7}})"
      "\n"
      R"({"v":1,"time":"t","event":"job-failed","revised":true,"error":{"kind":"rank-signaled","rank":3,"signal":11}})"
      "\n"
      R"({"v":1,"time":"t","event":"job-end","exit_code":139,"status":"failed"})"
      "\n";
  x = explain_text(revised, std::nullopt);
  REQUIRE(x.error);
  CHECK(x.error->kind == ErrorKind::RankSignaled);
  CHECK(x.error->rank == 3);
}
