// Rank stdout is a pseudo-terminal, stderr a pipe, as under mpirun 4.1.4 (issue 20 item 8):
// C stdio in a rank line-buffers, so a line is out while the rank still runs; the bytes pass
// unchanged (no newline translation) and none is lost; --rank-stdout=pipe gives plain pipes.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/e2e/support/background.hpp"
#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {

TEST_CASE("pty: a rank's C stdio line is out while the rank runs; stderr stays a pipe") {
  Job job;
  const std::string go = job.dir().file("go");
  Background bg(job.command({"--events", job.events_path(), "-n", "2", app("line_wait"), go}),
                job.dir().file("out"), job.dir().file("err"));
  // Each rank waits for `go` after printing its line without fflush: only a line-buffered
  // stdout (a terminal) lets the line out before the wait. Under a pipe it would come at exit.
  const bool seen = eventually(
      [&] {
        const std::string out = read_file(job.dir().file("out"));
        return count_of(out, "line 0 ") == 1 && count_of(out, "line 1 ") == 1;
      },
      Millis{60'000});
  write_file(go, "");  // in any case, so that the job ends
  const auto status = bg.wait(Millis{60'000});
  REQUIRE(status.has_value());
  CHECK(*status == 0);
  const std::string out = read_file(job.dir().file("out"));
  CHECK_MESSAGE(seen, "the ranks' first lines came only at their exit:\n", out);
  // A terminal, not the rank's controlling terminal (mpirun's ranks have none of it either);
  // stderr a pipe; nothing translated ("\n" did not become "\r\n").
  CHECK_MESSAGE(count_of(out, "tty=1 err=pipe ctty=no\n") == 2, out);
  CHECK(count_of(out, "\r") == 0);
  CHECK(count_of(out, "done 0\n") == 1);
  CHECK(count_of(out, "done 1\n") == 1);
  CHECK_MESSAGE(read_file(job.dir().file("err")).find("pseudo-terminal") == std::string::npos,
                read_file(job.dir().file("err")));
  check_events(job, 0);
}

TEST_CASE("pty: --rank-stdout=pipe and MPILAUNCH_RANK_STDOUT=pipe give the ranks a plain pipe") {
  for (const bool by_env : {false, true}) {
    CAPTURE(by_env);
    Job job;
    const std::string go = job.dir().file("go");
    write_file(go, "");
    std::vector<std::string> args = {"-n", "2", app("line_wait"), go};
    if (by_env)
      job.extra_env.push_back("MPILAUNCH_RANK_STDOUT=pipe");
    else
      args.insert(args.begin(), "--rank-stdout=pipe");
    const Outcome o = job.launch(args);
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(count_of(o.out, "tty=0 err=pipe ctty=no\n") == 2, o.out);
    check_nothing_left(job, o);
  }
  Job job;
  const Outcome o = job.launch({"--rank-stdout", "file", "-n", "1", "/bin/true"});
  CHECK_MESSAGE(o.status() == 64, o.summary());
  CHECK_MESSAGE(o.err.find("--rank-stdout file") != std::string::npos, o.err);
}

TEST_CASE("pty: 30 MB of binary through each rank's pty arrive byte for byte") {
  const std::string data = binary_payload(30'000'000, 88172645u);
  std::string want;
  // The launcher reads the ranks' ptys (local agents hand them over), or the agent does.
  for (const bool via_agent : {false, true}) {
    CAPTURE(via_agent);
    Job job;
    const std::string input = job.dir().file("input");
    write_file(input, data);
    if (want.empty()) want = md5_of_file(input);
    if (via_agent) job.extra_env.push_back("MPILAUNCH_OUTPUT_VIA_AGENT=1");
    // Rank 0 sends the file to stdout; rank 1 a line, so that two ranks share the job.
    Command c = job.command({"-n", "2", "/bin/sh", "-c",
                             "if [ $OMPI_COMM_WORLD_RANK = 0 ]; then exec cat \"$0\"; fi", input},
                            Millis{180'000});
    c.argv.insert(c.argv.begin(), {"/bin/sh", "-c", "\"$@\" > \"$0\"", job.dir().file("out")});
    const Outcome o = run(c);
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK(md5_of_file(job.dir().file("out")) == want);
    check_nothing_left(job, o);
  }
}

}  // namespace mpilaunch::e2e
