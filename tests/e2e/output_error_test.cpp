// Output that cannot be written is never lost without a word (issue 23, item 7): a failing
// --events or --status file is said once on stderr and never replaces a good status.
// A full disk is /dev/full (every write fails with ENOSPC) behind a symbolic link.
#include <doctest/doctest.h>

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

}  // namespace mpilaunch::e2e
