#include "launcher/job/teardown_deadline.hpp"

#include <doctest/doctest.h>

namespace mpilaunch::launcher {

namespace {
const std::vector<bool> kBothOpen{true, true};
}  // namespace

TEST_CASE("teardown deadline: everything accounted for leaves nothing to do") {
  const ProcessState processes[] = {{0, true, true}, {1, false, true}};
  const TeardownVerdict v = judge_teardown_deadline(processes, kBothOpen);
  CHECK(v.silent_nodes.empty());
  CHECK(v.never_started.empty());
  CHECK(v.lost.empty());
}

TEST_CASE("teardown deadline: a process still running makes its node silent") {
  const ProcessState processes[] = {{0, true, true}, {1, true, false}, {1, true, false}};
  const TeardownVerdict v = judge_teardown_deadline(processes, kBothOpen);
  CHECK(v.silent_nodes == std::vector<int>{1});
  CHECK(v.never_started.empty());
  CHECK(v.lost.empty());
}

// The multi-node spawn whose child namespace no agent could register: the initial ranks were
// killed and reported, the children were never forked, and every agent answered. Ending them
// ends the teardown; waiting for them kept the launcher up for ever, deaf to --timeout.
TEST_CASE("teardown deadline: spawned processes never started on answering nodes are ended") {
  const ProcessState processes[] = {
      {0, true, true},
      {1, true, true},  // the initial ranks, killed and reported
      {0, false, false},
      {1, false, false}  // job 2, never started
  };
  const TeardownVerdict v = judge_teardown_deadline(processes, kBothOpen);
  CHECK(v.silent_nodes.empty());
  CHECK(v.never_started == std::vector<std::uint32_t>{2, 3});
  CHECK(v.lost.empty());
}

TEST_CASE("teardown deadline: a silent node takes its unstarted processes with its link") {
  const ProcessState processes[] = {{0, true, false}, {0, false, false}, {1, false, false}};
  const TeardownVerdict v = judge_teardown_deadline(processes, kBothOpen);
  CHECK(v.silent_nodes == std::vector<int>{0});
  CHECK(v.never_started == std::vector<std::uint32_t>{2});
}

TEST_CASE("teardown deadline: processes of a closed link or of no node are lost") {
  const std::vector<bool> open{true, false};
  const ProcessState processes[] = {
      {1, true, false}, {1, false, false}, {-1, false, false}, {5, true, false}, {0, true, true}};
  const TeardownVerdict v = judge_teardown_deadline(processes, open);
  CHECK(v.silent_nodes.empty());
  CHECK(v.never_started.empty());
  CHECK(v.lost == std::vector<std::uint32_t>{0, 1, 2, 3});
}

}  // namespace mpilaunch::launcher
