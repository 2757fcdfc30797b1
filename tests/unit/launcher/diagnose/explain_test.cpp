#include <doctest/doctest.h>

#include <string>

#include "launcher/diagnose/explain.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

TEST_CASE("explain JSON: runtime, rc, error and secondary; unknown fields omitted") {
  const std::string dash(74, '-');
  const Explanation x = explain_text(
      "[vm:16179] *** Process received signal ***\n[vm:16179] Signal: Segmentation fault (11)\n" +
          dash + "\nmpirun noticed that process rank 1 with PID 0 on node vm exited on signal " +
          "11 (Segmentation fault).\n" + dash + "\n",
      139);
  const nlohmann::json j = explanation_to_json(x);
  CHECK(j["runtime"] == "orte-4");
  CHECK(j["rc"] == 139);
  const nlohmann::json& e = j["error"];
  CHECK(e["kind"] == "rank-signaled");
  CHECK(e["host"] == "vm");
  CHECK(e["rank"] == 1);
  CHECK(e["signal"] == 11);
  CHECK(e["exit_code"] == 139);
  CHECK(e["pid"] == 16179);  // "PID 0" from the launcher is never recorded
  CHECK(e["message"] == "rank 1 on vm was killed by signal 11 (SIGSEGV)");
  CHECK_FALSE(e["hint"].get<std::string>().empty());
  CHECK_FALSE(e.contains("executable"));
  CHECK_FALSE(e.contains("phase"));
  REQUIRE(e["evidence"].size() == 3);
  CHECK(e["evidence"][0] == "[vm:16179] *** Process received signal ***");
  CHECK(j["secondary"].is_array());
}

TEST_CASE("explain JSON: nothing found has no error and no rc when none was given") {
  const nlohmann::json j = explanation_to_json(explain_text("all good\n", std::nullopt));
  CHECK(j["runtime"] == "unknown");
  CHECK_FALSE(j.contains("rc"));
  CHECK_FALSE(j.contains("error"));
  CHECK(j["secondary"].empty());
}

TEST_CASE("explain human block: what, where, why, how to fix") {
  const Explanation x = explain_text(
      "mpirun: Error: unknown option \"--bogus\"\nType 'mpirun --help' for usage.\n", 1);
  const std::string text = render_explanation_human(x);
  CHECK(text.find("mpilaunch: error: invalid command line: --bogus") == 0);
  CHECK(text.find("kind:      bad-option") != std::string::npos);
  CHECK(text.find("hint:") != std::string::npos);
  CHECK(text.find("orte-4, exit status 1") != std::string::npos);
  CHECK(text.find("mpirun: Error: unknown option") != std::string::npos);
  CHECK(render_explanation_human(explain_text("", 0)).find("no error found") != std::string::npos);
}

TEST_CASE("explain: Open MPI's 'MPI function not supported' block is unsupported-mpi-call") {
  const std::string dash(74, '-');
  const Explanation x = explain_text(
      dash +
          "\nYour application has invoked an MPI function that is not supported in\n"
          "this environment.\n\n  MPI function: MPI_Publish_name\n  Reason:       Underlying "
          "runtime environment does not support name publishing functionality\n" +
          dash +
          "\n[vm:24472] *** An error occurred in MPI_Publish_name\n[vm:24472] *** reported by "
          "process [1668564071,0]\n[vm:24472] *** on communicator MPI_COMM_WORLD\n[vm:24472] "
          "*** MPI_ERR_INTERN: internal error\n",
      17);
  REQUIRE(x.error.has_value());
  CHECK(x.error->kind == ErrorKind::UnsupportedMpiCall);
  CHECK(x.error->detail == "MPI_Publish_name");
}
