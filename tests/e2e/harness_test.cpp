// The harness itself: a hung command is killed at its deadline instead of hanging the suite, and
// a process left holding the output pipes is noticed and found by its marker.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <thread>

#include "tests/e2e/support/checks.hpp"
#include "tests/e2e/support/flood_lines.hpp"
#include "tests/e2e/support/marked_processes.hpp"

namespace mpilaunch::e2e {
namespace {

// Polls until no process carries `mark`, or `deadline` passes; true when none is left.
bool wait_until_unmarked(const std::string& mark, Millis deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!marked_processes(mark).empty()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(Millis{20});  // a poll interval, not a synchronisation
  }
  return true;
}

}  // namespace

TEST_CASE("harness: a hung job is killed at the deadline") {
  Job job;
  const Outcome o = job.launch({"-n", "1", app("hang")}, Millis{3'000});
  CHECK(o.timed_out);
  CHECK(o.signal == SIGKILL);
  CHECK(o.elapsed < Millis{15'000});
  kill_marked(job.mark());
  CHECK(wait_until_unmarked(job.mark(), Millis{5'000}));
}

TEST_CASE("harness: stdin, stdout, stderr and the exit code of a command") {
  Command c;
  c.argv = {"/bin/sh", "-c", "cat; echo oops >&2; exit 3"};
  c.env = clean_environment({});
  c.stdin_text = std::string(200'000, 'a') + "\n";  // more than a pipe buffer
  const Outcome o = run(c);
  CHECK(o.status() == 3);
  CHECK(o.out == c.stdin_text);
  CHECK(o.err == "oops\n");
  CHECK(!o.timed_out);
  CHECK(!o.pipes_left_open);
}

TEST_CASE("harness: a leftover process holding stdout is noticed and found by its marker") {
  const std::string mark = random_mark();
  Command c;
  c.argv = {"/bin/sh", "-c", "sleep 60 & echo started"};
  c.env = clean_environment({std::string(kMarkVariable) + "=" + mark});
  c.pipe_grace = Millis{300};
  const Outcome o = run(c);
  CHECK(o.status() == 0);
  CHECK(o.out == "started\n");
  CHECK(o.pipes_left_open);
  CHECK(marked_processes(mark).size() == 1);
  kill_marked(mark);
  CHECK(wait_until_unmarked(mark, Millis{5'000}));
}

}  // namespace mpilaunch::e2e

namespace mpilaunch::e2e {
namespace {

std::string flood_line(int rank, int index) {
  std::string line =
      std::to_string(rank) + ":" + std::string(8 - 1, '0') + std::to_string(index) + ":";
  line.resize(kFloodLineBytes - 1, 'x');
  return line + "\n";
}

}  // namespace

TEST_CASE("harness: the flood checker notices loss, reordering and torn lines") {
  const std::string a0 = flood_line(0, 0), a1 = flood_line(0, 1), b0 = flood_line(1, 0);
  CHECK(flood_problems(a0 + b0 + a1, every_rank(2, 2)).size() == 1);  // rank 1 sent only one
  CHECK(flood_problems(a0 + b0 + a1, {{0, 2}, {1, 1}}).empty());
  CHECK(flood_problems(a0 + b0, {{0, 2}, {1, 1}}).size() == 1);       // a line lost
  CHECK(flood_problems(a1 + a0 + b0, {{0, 2}, {1, 1}}).size() >= 1);  // out of order
  CHECK(!flood_problems(a0.substr(0, 50) + b0 + a0.substr(50) + a1, {{0, 2}, {1, 1}}).empty());
}

}  // namespace mpilaunch::e2e
