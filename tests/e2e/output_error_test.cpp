// Output that cannot be written is never lost without a word (issue 23, items 6 and 7): a
// failing --events or --status file is said once on stderr and never replaces a good status; a
// rank's --output-filename file that fails is an output-error (74) and the events file says how
// many bytes of which rank were lost. A full disk is /dev/full (every write fails with ENOSPC)
// behind a symbolic link.
#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {

namespace fs = std::filesystem;

TEST_CASE("output errors: --events on a full disk is said once; the job's result stands") {
  Job job;
  const Outcome o = job.launch_plain({"--events", "/dev/full", "-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.err, "--events /dev/full: No space left on device") == 1, o.err);
  CHECK(count_of(o.out, "hello rank") == 2);
  check_nothing_left(job, o);
}

TEST_CASE("output errors: a --status write that fails is said once and replaces nothing") {
  Job job;
  const std::string status = job.dir().file("status.json");
  // The first rewrite lands on a full disk; the launcher must neither rename the broken file
  // over the status nor stay silent, and later rewrites work again.
  fs::create_symlink("/dev/full", status + ".tmp");
  const Outcome o = job.launch({"--status", status, "-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.err, "--status " + status + ": No space left on device") == 1, o.err);
  CHECK(fs::is_regular_file(fs::symlink_status(status)));
  std::string text;
  REQUIRE_NOTHROW(text = read_file(status));
  const Json doc = Json::parse(text, nullptr, false);
  REQUIRE_MESSAGE(doc.is_object(), text);
  CHECK_MESSAGE(text.find("Succeeded") != std::string::npos, text);
  CHECK(!fs::exists(fs::symlink_status(status + ".tmp")));
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("output errors: a rank's --output-filename file on a full disk is an output-error") {
  Job job;
  const std::string dir = job.dir().file("out");
  // Rank 0's stdout file is on a "full disk"; rank 1's files are fine.
  fs::create_directories(dir + "/1/rank.0");
  fs::create_symlink("/dev/full", dir + "/1/rank.0/stdout");
  constexpr int kBytes = 100'000;  // flood writes exactly this many (whole 100-byte lines)
  const Outcome o = job.launch(
      {"--output-filename", dir, "-n", "2", app("flood"), std::to_string(kBytes)}, Millis{90'000});
  check_error_block(o, "output-error", 74);
  // Said once on stderr while the job ran (besides the error block), and the job ran on: the
  // terminal got every byte of both ranks, rank 1's file too.
  CHECK_MESSAGE(count_of(o.err, "mpilaunch: warning: rank 0's stdout cannot be written to") == 1,
                o.err);
  CHECK_MESSAGE(count_of(o.err, "No space left on device") >= 1, o.err);
  CHECK(o.out.size() == 2U * kBytes);
  CHECK(fs::file_size(dir + "/1/rank.1/stdout") == kBytes);
  const Json error = check_job_failed(job, "output-error", 74);
  CHECK_MESSAGE(error.value("rank", Json()) == Json(0), error.dump());
  // Which rank lost what: one output-lost event, rank 0's stdout, every byte.
  const std::vector<Json> lost = events_named(read_events(job.events_path()).events, "output-lost");
  REQUIRE_MESSAGE(lost.size() == 1, read_file(job.events_path()));
  CHECK(lost[0].value("rank", Json()) == Json(0));
  CHECK(lost[0].value("stream", Json()) == Json("stdout"));
  CHECK(lost[0].value("destination", Json()) == Json(dir + "/1/rank.0/stdout"));
  CHECK(lost[0].value("errno", Json()) == Json(ENOSPC));
  CHECK(lost[0].value("written_bytes", Json()) == Json(0));
  CHECK(lost[0].value("lost_bytes", Json()) == Json(kBytes));
  check_nothing_left(job, o);
}

TEST_CASE("output errors: a rank file that cannot be created is an output-error, not silence") {
  Job job;
  const std::string dir = job.dir().file("out");
  // A regular file where rank 1's directory goes: its files cannot be created (ENOTDIR).
  fs::create_directories(dir + "/1");
  write_file(dir + "/1/rank.1", "");
  const Outcome o = job.launch({"--output-filename", dir, "-n", "2", app("hello")});
  check_error_block(o, "output-error", 74);
  CHECK(count_of(o.out, "hello rank") == 2);
  const Json error = check_job_failed(job, "output-error", 74);
  CHECK_MESSAGE(error.value("rank", Json()) == Json(1), error.dump());
  const std::vector<Json> lost = events_named(read_events(job.events_path()).events, "output-lost");
  REQUIRE_MESSAGE(lost.size() >= 1, read_file(job.events_path()));
  for (const Json& e : lost) CHECK_MESSAGE(e.value("rank", Json()) == Json(1), e.dump());
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
