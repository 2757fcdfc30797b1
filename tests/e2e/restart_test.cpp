// Restarts within a budget: retryable failures restart the whole job with warm agents,
// non-retryable ones never do, the budget is final, and every attempt is in the events file.
#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {
namespace {

// "2026-11-22T23:08:56.578Z" -> milliseconds since the epoch.
long long epoch_ms(const std::string& rfc3339) {
  std::tm tm{};
  std::istringstream in(rfc3339.substr(0, 19));
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  const long long ms = std::stoll(rfc3339.substr(20, 3));
  return static_cast<long long>(::timegm(&tm)) * 1000 + ms;
}

// What flaky prints first: "attempt A rank R of max M" (here M is 5).
std::string fmt_line(int attempt, int rank) {
  return "attempt " + std::to_string(attempt) + " rank " + std::to_string(rank) + " of max 5";
}

}  // namespace

TEST_CASE("restart: a job failing on attempts 1 and 2 succeeds on attempt 3, with warm agents") {
  Job job;
  const std::string status = job.dir().file("status.json");
  const Outcome o = job.launch({"-n", "2", "--max-restarts", "5", "--restart-backoff", "0.05",
                                "--status", status, app("flaky"), "3", "1", "3"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  // Attempts 1 and 2: the failing rank 1 prints before it exits; rank 0 can be torn down before
  // its first line when rank 1 fails first. Attempt 3: both ranks print.
  const auto printed = [&](int attempt, int rank) {
    return o.out.find(fmt_line(attempt, rank)) != std::string::npos;
  };
  for (int attempt = 1; attempt <= 2; ++attempt) CHECK_MESSAGE(printed(attempt, 1), o.out);
  CHECK_MESSAGE(printed(3, 0), o.out);
  CHECK_MESSAGE(printed(3, 1), o.out);
  const std::vector<Json> events = check_events(job, 0);
  const auto failed = events_named(events, "attempt-failed");
  REQUIRE(failed.size() == 2);
  for (const Json& f : failed) {
    CHECK(f.value("decision", "") == "restart");
    CHECK(f["error"].value("kind", "") == "rank-exit-nonzero");
    CHECK(f["error"].value("rank", -1) == 1);
  }
  CHECK(events_named(events, "attempt-start").size() == 3);
  // Warm restart: the agent came up once and served all three attempts.
  CHECK(events_named(events, "agent-up").size() == 1);
  const Json doc = Json::parse(read_file(status));
  CHECK(doc.value("phase", "") == "Succeeded");
  CHECK(doc.value("attempt", 0) == 3);
  CHECK(doc.value("restartCount", 0) == 2);
  CHECK(doc["aggregate"].value("succeeded", 0) == 2);
  std::vector<std::string> phases;
  for (const Json& c : doc["conditions"]) phases.push_back(c.value("type", ""));
  CHECK(phases == std::vector<std::string>{"Pending", "Running", "Restarting", "Running",
                                           "Restarting", "Running", "Succeeded"});
  check_nothing_left(job, o);
}

TEST_CASE("restart: an exhausted budget ends with the last failure and says so") {
  Job job;
  const Outcome o = job.launch(
      {"-n", "2", "--max-restarts", "1", "--restart-backoff", "0", app("flaky"), "99", "0", "5"});
  check_error_block(o, "rank-exit-nonzero", 5);
  const auto failed = events_named(check_events(job, 5), "attempt-failed");
  REQUIRE(failed.size() == 2);
  CHECK(failed[0].value("decision", "") == "restart");
  CHECK(failed[1].value("decision", "") == "give-up");
  CHECK(failed[1].value("reason", "") == "budget-spent");
  check_nothing_left(job, o);
}

TEST_CASE("restart: the same rank failure after short runs spends the whole budget") {
  // docs/container.md and docs/errors.md: a rank's own failure is of class "budget"; only
  // wire-up, resource and unrecognised failures stop early when they repeat.
  Job job;
  const Outcome o = job.launch(
      {"-n", "2", "--max-restarts", "4", "--restart-backoff", "0", app("flaky"), "99", "0", "5"});
  check_error_block(o, "rank-exit-nonzero", 5);
  const auto failed = events_named(check_events(job, 5), "attempt-failed");
  REQUIRE(failed.size() == 5);
  for (std::size_t i = 0; i + 1 < failed.size(); ++i)
    CHECK(failed[i].value("decision", "") == "restart");
  CHECK(failed.back().value("decision", "") == "give-up");
  CHECK(failed.back().value("reason", "") == "budget-spent");
  check_nothing_left(job, o);
}

TEST_CASE("restart: a failure that cannot succeed on a retry is not retried") {
  Job job;
  const Outcome o =
      job.launch({"-n", "2", "--max-restarts", "3", job.dir().file("missing-program")});
  check_error_block(o, "executable-not-found", 66);
  CHECK(o.err.find("not restarting") != std::string::npos);
  const auto failed = events_named(check_events(job, 66), "attempt-failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].value("reason", "") == "not-retryable");
  check_nothing_left(job, o);
}

TEST_CASE("restart: the backoff doubles, as the event timestamps show") {
  Job job;
  const Outcome o = job.launch({"-n", "1", "--max-restarts", "2", "--restart-backoff", "0.3,5",
                                app("flaky"), "3", "0", "4"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const std::vector<Json> events = check_events(job, 0);
  const auto failed = events_named(events, "attempt-failed");
  const auto started = events_named(events, "attempt-start");
  REQUIRE(failed.size() == 2);
  REQUIRE(started.size() == 3);
  const long long first_gap = epoch_ms(started[1]["time"]) - epoch_ms(failed[0]["time"]);
  const long long second_gap = epoch_ms(started[2]["time"]) - epoch_ms(failed[1]["time"]);
  // The attempt-failed line is written a few ms after the backoff was decided, so allow a
  // little for that write (and the events' millisecond truncation).
  constexpr long long kWriteSlack = 25;
  CHECK(first_gap >= 300 - kWriteSlack);
  CHECK(second_gap >= 600 - kWriteSlack);
  CHECK(second_gap > first_gap + 200);
  CHECK(failed[0].value("backoff_ms", 0) >= 300);
  CHECK(failed[1].value("backoff_ms", 0) >= 600);
}

TEST_CASE("restart: per-attempt output files and MPILAUNCH_MAX_RESTARTS from the environment") {
  Job job;
  job.extra_env = {"MPILAUNCH_MAX_RESTARTS=1"};
  const std::string dir = job.dir().file("out");
  const Outcome o = job.launch(
      {"-n", "2", "--restart-backoff", "0", "--output-filename", dir, app("flaky"), "2", "1", "3"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  // Attempt 1: rank 1 prints, then exits 3; rank 0 may be stopped before its own line (a
  // file appears with a rank's first output), so the failing rank's file is the one checked.
  CHECK(read_file(dir + "/attempt-1/1/rank.1/stdout").find("attempt 1 rank 1") !=
        std::string::npos);
  CHECK(read_file(dir + "/attempt-2/1/rank.0/stdout").find("attempt 2 rank 0") !=
        std::string::npos);
  CHECK(read_file(dir + "/attempt-2/1/rank.1/stdout").find("attempt 2 rank 1") !=
        std::string::npos);
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
