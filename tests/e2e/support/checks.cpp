#include "tests/e2e/support/checks.hpp"

#include <doctest/doctest.h>

#include "tests/e2e/support/marked_processes.hpp"
#include "tests/e2e/support/temp_dir.hpp"

namespace mpilaunch::e2e {

void check_nothing_left(const Job& job, const Outcome& outcome) {
  CHECK_MESSAGE(!outcome.timed_out, "mpilaunch hit the test's deadline: ", outcome.summary());
  CHECK_MESSAGE(!outcome.pipes_left_open,
                "something kept mpilaunch's stdout/stderr open after it exited");
  const std::vector<MarkedProcess> left = marked_processes(job.mark());
  CHECK_MESSAGE(left.empty(), "processes left behind after mpilaunch exited:\n", describe(left));
  const std::vector<std::string> files = list_dir(job.tmpdir());
  std::string names;
  for (const std::string& f : files) names += " " + f;
  CHECK_MESSAGE(files.empty(), "MPILAUNCH_TMPDIR is not empty:", names);
}

std::vector<Json> check_events(const Job& job, int status) {
  const EventsFile file = read_events(job.events_path());
  for (const std::string& problem : file.problems) FAIL_CHECK("events file: ", problem);
  REQUIRE_MESSAGE(!file.events.empty(), "the events file is empty");
  const Json& last = file.events.back();
  CHECK_MESSAGE(last.value("event", Json()) == Json("job-end"), "last event: ", last.dump());
  CHECK_MESSAGE(last.value("exit_code", Json()) == Json(status), "last event: ", last.dump());
  return file.events;
}

void check_error_block(const Outcome& outcome, const std::string& kind, int status) {
  CHECK_MESSAGE(outcome.status() == status, outcome.summary());
  CHECK_MESSAGE(count_of(outcome.err, "mpilaunch: error: ") == 1,
                "want exactly one error block; stderr:\n", outcome.err);
  CHECK_MESSAGE(count_of(outcome.err, "\n  kind:      " + kind + "\n") == 1,
                "want the kind line of ", kind, "; stderr:\n", outcome.err);
}

Json check_job_failed(const Job& job, const std::string& kind, int status) {
  const std::vector<Json> events = check_events(job, status);
  // The last one: a failure that reached mpilaunch late but happened first revises the first.
  const std::vector<Json> all = events_named(events, "job-failed");
  const std::optional<Json> failed = all.empty() ? std::nullopt : std::optional(all.back());
  REQUIRE_MESSAGE(failed.has_value(), "no job-failed event");
  const Json error = failed->value("error", Json::object());
  CHECK_MESSAGE(error.value("kind", Json()) == Json(kind), "job-failed: ", failed->dump());
  CHECK_MESSAGE(error.value("message", Json()).is_string(), "job-failed: ", failed->dump());
  CHECK_MESSAGE(error.value("hint", Json()).is_string(), "job-failed: ", failed->dump());
  return error;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

std::size_t count_of(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size()))
    ++n;
  return n;
}

std::string binary_payload(std::size_t bytes, std::uint32_t seed) {
  std::string s(bytes, '\0');
  std::uint32_t x = seed;
  for (char& c : s) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    c = static_cast<char>(x & 0xff);
  }
  return s;
}

std::string md5_of_file(const std::string& path) {
  Command c;
  c.argv = {"/usr/bin/md5sum", path};
  c.env = clean_environment({});
  const Outcome o = run(c);
  REQUIRE_MESSAGE(o.status() == 0, o.summary());
  return o.out.substr(0, 32);
}

}  // namespace mpilaunch::e2e
