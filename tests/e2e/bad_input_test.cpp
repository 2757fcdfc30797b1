// Bad input: each mistake gets its documented exit status, one error block naming the mistake,
// a job-failed event, no rank output, no hang and nothing left behind.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

// The "mpilaunch: error: ..." line of stderr, or "" when there is none.
std::string error_line(const std::string& err) {
  for (const std::string& line : lines_of(err))
    if (line.starts_with("mpilaunch: error: ")) return line;
  return "";
}

// Runs mpilaunch with `args` and checks the failure; returns the error line for more checks.
std::string check_rejected(Job& job, const std::vector<std::string>& args, const std::string& kind,
                           int status) {
  const Outcome o = job.launch(args, Millis{30'000});
  check_error_block(o, kind, status);
  check_job_failed(job, kind, status);
  CHECK_MESSAGE(o.out.find("hello rank") == std::string::npos, "a rank ran:\n", o.out);
  check_nothing_left(job, o);
  return error_line(o.err);
}

}  // namespace

TEST_CASE("bad input: a missing program is executable-not-found, status 66") {
  Job job;
  const std::string missing = job.dir().file("no-such-program");
  const std::string line = check_rejected(job, {"-n", "2", missing}, "executable-not-found", 66);
  CHECK_MESSAGE(line.find(missing) != std::string::npos, line);
}

TEST_CASE("bad input: a file without execute permission is executable-not-executable, 66") {
  Job job;
  const std::string plain = job.dir().file("not-executable");
  write_file(plain, "#!/bin/sh\necho should not run\n");
  REQUIRE(::chmod(plain.c_str(), 0644) == 0);
  const std::string line = check_rejected(job, {"-n", "1", plain}, "executable-not-executable", 66);
  CHECK_MESSAGE(line.find(plain) != std::string::npos, line);
}

// (-n 0 runs a rank on every slot, as under mpirun 4.1.4: the compat suite's np-zero cases.)
TEST_CASE("bad input: a negative -n is bad-option, status 64") {
  Job job;
  const std::string line = check_rejected(job, {"-n", "-2", app("hello")}, "bad-option", 64);
  CHECK_MESSAGE(line.find("-n") != std::string::npos, line);
}

TEST_CASE("bad input: -n abc is bad-option naming the value, status 64") {
  Job job;
  const std::string line = check_rejected(job, {"-n", "abc", app("hello")}, "bad-option", 64);
  CHECK_MESSAGE(line.find("abc") != std::string::npos, line);
}

TEST_CASE("bad input: an unknown option is bad-option naming it, status 64") {
  Job job;
  const std::string line =
      check_rejected(job, {"--bogus", "-n", "1", app("hello")}, "bad-option", 64);
  CHECK_MESSAGE(line.find("--bogus") != std::string::npos, line);
}

TEST_CASE("bad input: a missing --wdir is wdir-error naming it, status 66") {
  Job job;
  const std::string missing = job.dir().file("no-such-dir");
  const std::string line =
      check_rejected(job, {"--wdir", missing, "-n", "1", app("hello")}, "wdir-error", 66);
  CHECK_MESSAGE(line.find(missing) != std::string::npos, line);
}

TEST_CASE("bad input: a malformed hostfile is hostfile-error with file:line, status 65") {
  Job job;
  const std::string hostfile = job.dir().file("hosts");
  write_file(hostfile, "node1 slots=2\n# a comment\nnode2 slots=abc\n");
  const std::string line =
      check_rejected(job, {"--launcher=local", "--hostfile", hostfile, "-n", "1", app("hello")},
                     "hostfile-error", 65);
  CHECK_MESSAGE(line.find(hostfile + ":3") != std::string::npos, line);
}

TEST_CASE("bad input: more ranks than -H slots is not-enough-slots, status 67") {
  Job job;
  check_rejected(job, {"--launcher=local", "-H", "node1:1", "-n", "2", app("hello")},
                 "not-enough-slots", 67);
}

TEST_CASE("bad input: more ranks than CPUs in isolated mode is not-enough-slots, status 67") {
  Job job;
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  check_rejected(job, {"-n", std::to_string(2 * cpus), app("hello")}, "not-enough-slots", 67);
}

TEST_CASE("bad input: a regular file as --wdir says 'not a directory', status 66") {
  Job job;
  const std::string plain = job.dir().file("plain-file");
  write_file(plain, "x\n");
  const std::string line =
      check_rejected(job, {"--wdir", plain, "-n", "1", app("hello")}, "wdir-error", 66);
  CHECK_MESSAGE(line.find(plain + ": not a directory") != std::string::npos, line);
}

TEST_CASE("bad input: a directory or an endless device as --hostfile is hostfile-error, 65") {
  Job job;
  std::string line =
      check_rejected(job, {"--hostfile", job.dir().path().string(), "-n", "1", app("hello")},
                     "hostfile-error", 65);
  CHECK_MESSAGE(line.find("is a directory") != std::string::npos, line);
  Job zero;
  line = check_rejected(zero, {"--hostfile", "/dev/zero", "-n", "1", app("hello")},
                        "hostfile-error", 65);
  CHECK_MESSAGE(line.find("larger than 16 MiB") != std::string::npos, line);
}

// Files a user names or places are read within a bound (common/bounded_file.hpp): before, an
// endless device as --app, --tune or $HOME/.openmpi/mca-params.conf was read until memory ran
// out.
TEST_CASE("bad input: an endless device as --app, --tune or a parameter file is bad-option, 64") {
  Job app_file;
  std::string line = check_rejected(app_file, {"--app", "/dev/zero"}, "bad-option", 64);
  CHECK_MESSAGE(line.find("--app /dev/zero: larger than 16 MiB") != std::string::npos, line);
  Job tune;
  line = check_rejected(tune, {"--tune", "/dev/zero", "-n", "1", app("hello")}, "bad-option", 64);
  CHECK_MESSAGE(line.find("--tune /dev/zero: /dev/zero: larger than 1 MiB") != std::string::npos,
                line);
  Job params;
  const std::filesystem::path home = params.dir().path() / "home";
  std::filesystem::create_directories(home / ".openmpi");
  std::filesystem::create_symlink("/dev/zero", home / ".openmpi" / "mca-params.conf");
  params.extra_env.push_back("HOME=" + home.string());
  line = check_rejected(params, {"-n", "1", app("hello")}, "bad-option", 64);
  CHECK_MESSAGE(line.find("mca-params.conf: larger than 1 MiB") != std::string::npos, line);
}

// A host file that was not read at all has no line to fix: it gets its own hint (phase read),
// a malformed one keeps the line's.
TEST_CASE("bad input: a host file that cannot be read gets its own hint, not the line's") {
  Job job;
  const std::string missing = job.dir().file("no-such-hostfile");
  const Outcome o = job.launch({"--hostfile", missing, "-n", "1", app("hello")}, Millis{30'000});
  check_error_block(o, "hostfile-error", 65);
  check_job_failed(job, "hostfile-error", 65);
  check_nothing_left(job, o);
  CHECK_MESSAGE(error_line(o.err).find(missing + ": cannot be read") != std::string::npos, o.err);
  CHECK_MESSAGE(o.err.find("phase:     read") != std::string::npos, o.err);
  CHECK_MESSAGE(o.err.find("the host file itself could not be read") != std::string::npos, o.err);
  CHECK_MESSAGE(o.err.find("fix the line named above") == std::string::npos, o.err);
  Job malformed;
  const std::string hostfile = malformed.dir().file("hosts");
  write_file(hostfile, "node1 slots=abc\n");
  const Outcome bad = malformed.launch(
      {"--launcher=local", "--hostfile", hostfile, "-n", "1", app("hello")}, Millis{30'000});
  check_error_block(bad, "hostfile-error", 65);
  check_nothing_left(malformed, bad);
  CHECK_MESSAGE(bad.err.find("fix the line named above") != std::string::npos, bad.err);
  CHECK_MESSAGE(bad.err.find("phase:") == std::string::npos, bad.err);
}

TEST_CASE("bad input: huge counts and durations are refused as too large, status 64") {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"-n", "99999999999"},
                                             {"-N", "2000000000"},
                                             {"--timeout", "9.3e9"},
                                             {"--kill-grace", "1e10"},
                                             {"--connect-timeout", "inf"}}) {
    CAPTURE(args.front());
    Job job;
    std::vector<std::string> line = args;
    line.push_back(app("hello"));
    const std::string error = check_rejected(job, line, "bad-option", 64);
    CHECK_MESSAGE(error.find("too large") != std::string::npos, error);
  }
}

TEST_CASE("bad input: an mpirun option without meaning here is refused by name, status 64") {
  Job job;
  const std::string line =
      check_rejected(job, {"-np", "1", "-xterm", "0", app("hello")}, "bad-option", 64);
  CHECK_MESSAGE(line.find("-xterm") != std::string::npos, line);
  // MPMD runs now (mpmd_test.cpp); a ':' with no program after it is refused by name.
  Job mpmd;
  const std::string colon =
      check_rejected(mpmd, {"-n", "1", app("hello"), ":", "-n", "1"}, "bad-option", 64);
  CHECK_MESSAGE(colon.find("application context 2 has no program") != std::string::npos, colon);
}

TEST_CASE("bad input: the error block is framed by lines of dashes, as mpirun's are") {
  Job job;
  const Outcome o = job.launch({"-n", "abc", app("hello")}, Millis{30'000});
  check_error_block(o, "bad-option", 64);
  const std::vector<std::string> lines = lines_of(o.err);
  const std::string frame(74, '-');
  std::size_t at = 0;
  while (at < lines.size() && !lines[at].starts_with("mpilaunch: error: ")) ++at;
  REQUIRE_MESSAGE(at < lines.size(), o.err);
  REQUIRE_MESSAGE(at > 0, o.err);
  CHECK_MESSAGE(lines[at - 1] == frame, o.err);
  std::size_t end = at;
  while (end < lines.size() && lines[end] != frame) ++end;
  REQUIRE_MESSAGE(end < lines.size(), "no closing frame:\n", o.err);
  CHECK_MESSAGE(lines[end - 1].starts_with("  hint:"), o.err);
}

}  // namespace mpilaunch::e2e
