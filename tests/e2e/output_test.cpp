// Rank output: floods arrive whole and in order per rank on stdout and stderr; --tag-output,
// --output-filename and --timestamp-output in mpirun 4.1.4's formats
// (docs/mpirun-compat.md).
#include <doctest/doctest.h>

#include <cstdlib>
#include <regex>

#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/flood_lines.hpp"

namespace mpilaunch::e2e {
namespace {

constexpr long long kFloodBytes = 20'000'000;  // per rank
constexpr long long kFloodLines = kFloodBytes / kFloodLineBytes;

void check_flood(const std::string& stream_name, const std::string& text, int ranks,
                 long long lines) {
  for (const std::string& p : flood_problems(text, every_rank(ranks, lines)))
    FAIL_CHECK(stream_name, ": ", p);
}

}  // namespace

TEST_CASE("output: 2 ranks x 20 MB on stdout, nothing lost, in order per rank") {
  Job job;
  const Outcome o = job.launch({"-n", "2", app("flood"), std::to_string(kFloodBytes)});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(o.out.size() == static_cast<std::size_t>(2 * kFloodBytes));
  check_flood("stdout", o.out, 2, kFloodLines);
  CHECK_MESSAGE(o.err.empty(), o.err.substr(0, 2000));
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("output: 2 ranks x 20 MB on stderr, nothing lost, in order per rank") {
  Job job;
  const Outcome o = job.launch({"-n", "2", app("flood"), std::to_string(kFloodBytes), "stderr"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(o.err.size() == static_cast<std::size_t>(2 * kFloodBytes));
  check_flood("stderr", o.err, 2, kFloodLines);
  CHECK(o.out.empty());
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("output: the agent's own forwarding (MPILAUNCH_OUTPUT_VIA_AGENT=1) loses nothing") {
  Job job;
  job.extra_env.push_back("MPILAUNCH_OUTPUT_VIA_AGENT=1");
  const Outcome o = job.launch({"-n", "2", app("flood"), std::to_string(kFloodBytes), "both"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  check_flood("stdout", o.out, 2, kFloodLines);
  check_flood("stderr", o.err, 2, kFloodLines);
  check_events(job, 0);
  check_nothing_left(job, o);
}

// A rank that ends while a process it started still holds its stdout and stderr: mpirun 4.1.4
// waits for that process (measured: what it prints seconds later is shown); mpilaunch reads on
// for the drain grace (2 s), then stops, and says so instead of dropping what comes later
// silently: one warning for the rank, an output-held event. Both readers (the launcher itself,
// the agent, whose OutputHeld the launcher reports), pty and pipe; the leftover goes with the
// job.
TEST_CASE("output: streams held past the drain grace by what a rank started are reported") {
  for (const bool via_agent : {false, true})
    for (const std::string stdout_mode : {"pty", "pipe"}) {
      CAPTURE(via_agent);
      CAPTURE(stdout_mode);
      Job job;
      if (via_agent) job.extra_env.push_back("MPILAUNCH_OUTPUT_VIA_AGENT=1");
      const Outcome o = job.launch({"--rank-stdout=" + stdout_mode, "-n", "2", "sh", "-c",
                                    "[ $OMPI_COMM_WORLD_RANK = 0 ] && sleep 300 & echo started"},
                                   Millis{30'000});
      CHECK_MESSAGE(o.status() == 0, o.summary());
      CHECK_MESSAGE(count_of(o.out, "started") == 2, o.out);
      CHECK_MESSAGE(count_of(o.err,
                             "warning: rank 0's stdout and stderr were still open 2 s "
                             "after it ended") == 1,
                    o.err);
      CHECK_MESSAGE(count_of(o.err, "rank 1's") == 0, o.err);
      // Also when the agent reads the rank's pipes (its OutputHeld), as for a remote node.
      const std::vector<Json> held =
          events_named(read_events(job.events_path()).events, "output-held");
      REQUIRE_MESSAGE(held.size() == 1, o.err);
      CHECK(held[0].value("rank", Json()) == Json(0));
      CHECK(held[0].value("stdout", Json()) == Json(true));
      CHECK(held[0].value("stderr", Json()) == Json(true));
      CHECK(held[0].value("grace_s", Json()) == Json(2));
      check_events(job, 0);
      check_nothing_left(job, o);
    }
}

// Who reads a rank's output: after MPI_Init (app after_init), each rank's shell prints how
// many of the launcher's descriptors are the read end of its stderr pipe (handed over together
// with stdout, which is a pseudo-terminal whose master names no pipe). The shell's parent is
// the rank, whose parent is its agent, whose parent is the launcher (local mode).
namespace {
const std::string kLauncherHoldsMyStdout =
    R"sh(ppid() { sed 's/.*) . \([0-9]*\).*/\1/' /proc/$1/stat; }; )sh"
    R"sh(me=$(readlink /proc/$$/fd/2); launcher=$(ppid $(ppid $PPID)); n=0; )sh"
    R"sh(for f in /proc/$launcher/fd/*; do [ "$(readlink $f)" = "$me" ] && n=$((n+1)); done; )sh"
    R"sh(echo "launcher holds $n")sh";

int launcher_holds(const std::string& out) {
  const auto at = out.find("launcher holds ");
  return at == std::string::npos ? -1 : std::atoi(out.c_str() + at + 15);
}
}  // namespace

TEST_CASE("output: local agents hand rank pipes to the launcher, unless told or short of fds") {
  {
    Job job;
    const Outcome o = job.launch({"-n", "1", app("after_init"), kLauncherHoldsMyStdout});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(launcher_holds(o.out) == 1, o.out);
  }
  {
    Job job;
    job.extra_env.push_back("MPILAUNCH_OUTPUT_VIA_AGENT=1");
    const Outcome o = job.launch({"-n", "1", app("after_init"), kLauncherHoldsMyStdout});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(launcher_holds(o.out) == 0, o.out);
  }
  {
    // 8 ranks' pipes and the launcher's spare 256 do not fit in 270 descriptors.
    Job job;
    Command c = job.command({"-n", "8", "--oversubscribe", app("after_init"),
                             "[ $OMPI_COMM_WORLD_RANK = 0 ] || exit 0; " + kLauncherHoldsMyStdout});
    c.argv.insert(c.argv.begin(), {"/usr/bin/prlimit", "--nofile=270:270"});
    const Outcome o = run(c);
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(launcher_holds(o.out) == 0, o.out);
  }
}

TEST_CASE("output: --tag-output prefixes mpirun's [1,RANK]<stream>: on every line") {
  Job job;
  const long long lines = 3000;
  const Outcome o = job.launch(
      {"--tag-output", "-n", "2", app("flood"), std::to_string(lines * kFloodLineBytes), "both"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  // mpirun's job number is 1; no space after the colon.
  static const std::regex kTag(R"(\[([^,\]]+),(\d+)\]<(stdout|stderr)>:(.*))");
  std::string job_token;
  for (const std::string stream : {"stdout", "stderr"}) {
    const LinePayload untag = [&](const std::string& line, std::string& payload) {
      std::smatch m;
      if (!std::regex_match(line, m, kTag) || m[3] != stream) return false;
      if (job_token.empty()) job_token = m[1];
      payload = m[4];
      // Checked only on a mismatch, to keep thousands of lines out of the assertion count.
      if (m[1] != job_token) FAIL_CHECK("two job tokens: ", job_token, " and ", m[1]);
      if (!payload.starts_with(std::string(m[2]) + ":"))
        FAIL_CHECK("tag and line disagree on the rank: ", line.substr(0, 60));
      return true;
    };
    const std::string& text = stream == "stdout" ? o.out : o.err;
    for (const std::string& p : flood_problems(text, every_rank(2, lines), untag))
      FAIL_CHECK(stream, ": ", p);
  }
  CHECK(job_token == "1");
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("output: --output-filename DIR writes DIR/1/rank.R/stdout and stderr, and the terminal") {
  Job job;
  const std::string dir = job.dir().file("output");
  const long long lines = 5000;
  const Outcome o = job.launch({"--output-filename", dir, "-n", "2", app("flood"),
                                std::to_string(lines * kFloodLineBytes), "both"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  for (int rank = 0; rank < 2; ++rank) {
    for (const std::string stream : {"stdout", "stderr"}) {
      const std::string path = dir + "/1/rank." + std::to_string(rank) + "/" + stream;
      std::string text;
      REQUIRE_NOTHROW(text = read_file(path));
      // This rank's lines, all of them, in order, and no other rank's.
      for (const std::string& p : flood_problems(text, {{rank, lines}})) FAIL_CHECK(path, ": ", p);
    }
  }
  // As under mpirun 4.1.4, the terminal shows everything too.
  check_flood("stdout", o.out, 2, lines);
  check_flood("stderr", o.err, 2, lines);
  check_events(job, 0);
  check_nothing_left(job, o);
}

TEST_CASE("output: --timestamp-output is mpirun's ctime() prefix, with --tag-output too") {
  // "Fri Nov 27 08:38:06 2026<stdout>:hello rank 0 ..." and, tagged,
  // "Fri Nov 27 08:38:06 2026[1,0]<stdout>:hello rank 0 ...".
  static const std::regex kStamped(
      R"([A-Z][a-z]{2} [A-Z][a-z]{2} [ 1-3]\d \d{2}:\d{2}:\d{2} \d{4}(\[1,(\d)\])?<stdout>:hello rank (\d) .*)");
  for (const bool tagged : {false, true}) {
    CAPTURE(tagged);
    Job job;
    std::vector<std::string> args = {"--timestamp-output", "-n", "2", app("hello")};
    if (tagged) args.insert(args.begin(), "--tag-output");
    const Outcome o = job.launch(args);
    CHECK_MESSAGE(o.status() == 0, o.summary());
    const std::vector<std::string> lines = lines_of(o.out);
    CHECK(lines.size() == 2);
    for (const std::string& line : lines) {
      std::smatch m;
      CHECK_MESSAGE(std::regex_match(line, m, kStamped), line);
      if (m.empty()) continue;
      CHECK(m[1].matched == tagged);
      if (tagged) CHECK(m[2] == m[3]);
    }
    check_events(job, 0);
    check_nothing_left(job, o);
  }
}

TEST_CASE("output: a rank's unterminated last line is tagged and left unterminated, as mpirun") {
  Job job;
  const Outcome o = job.launch(
      {"--tag-output", "-n", "1", "/bin/sh", "-c", "echo out; echo err >&2; printf partial"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK(o.out == "[1,0]<stdout>:out\n[1,0]<stdout>:partial");
  CHECK(o.err == "[1,0]<stderr>:err\n");
  check_events(job, 0);
  check_nothing_left(job, o);
}

}  // namespace mpilaunch::e2e
